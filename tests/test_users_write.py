"""POST, PATCH and DELETE /users: every rule, with the state before and after (and nothing saved on a refusal)."""

import datetime as dt

import pytest
from django.db import DatabaseError

from accounts.models import Member, MemberRole, User, UserEmail, UserExpiryDate, UserGroup
from accounts.services import expiry_date_type_create, user_create
from economy.models import Transaction
from tests.factories import MemberFactory, MembershipFactory, OrganizationFactory
from tests.helpers import assert_problem, problem_fields


@pytest.fixture
def senior(org):
    return MembershipFactory(organization=org, name="Senior")


@pytest.fixture
def pilots(org):
    return UserGroup.objects.create(organization=org, name="Pilots")


@pytest.fixture
def body(org, senior):
    """The smallest valid POST body."""
    return {"username": f"{org.pk}-anna", "first_name": "Anna", "last_name": "Berg", "membership_id": senior.pk}


def snapshot() -> tuple:
    """Everything a user write may touch, to show that a refusal saved nothing."""
    return (
        sorted(User.objects.values_list("id", "username", "first_name", "last_name", "street_address_1", "city")),
        sorted(Member.objects.values_list("id", "user_id", "member_number", "active", "misc_info")),
        sorted(UserEmail.objects.values_list("user_id", "position", "address", "invalid")),
        sorted(Member.user_groups.through.objects.values_list("member_id", "usergroup_id")),
    )


# === POST ===========================================================================================


def test_post_creates_login_and_member_and_replies_as_get(api, org, senior, pilots, body):
    full = {
        **body,
        "member_number": "007",
        "ksak_member_number": "0123",
        "external_customer_number": "C1",
        "last_name_particle": "von",
        "personal_identification_number": "19800101-1234",
        "user_groups": [pilots.pk],
        "email": ["anna@x.se", "anna@work.se"],
        "address": {"street_address": ["Storgatan 1", "Lgh 2"], "postal_code": "01234", "city": "Ö", "country": "SE"},
        "phone": {"home": "1", "work": "2", "mobile": {"country_code": "+46", "initial_number": "70", "number": "123"}},
        "emergency_contact": {"name": "Per", "phone": "3", "relation": "Brother"},
    }
    include = "email,address,phone,user_groups,account,emergency_contact,personal_identification_number"
    before = User.objects.count()

    response = api.post(f"/users?include={include}&exclude=last_first_name", full)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert response["Location"] == f"https://testserver/main/v5/users/{data['id']}"
    assert data == api.get(f"/users/{data['id']}", {"include": include, "exclude": "last_first_name"}).json()["data"]
    assert "last_first_name" not in data
    assert (data["username"], data["member_number"], data["ksak_member_number"]) == (f"{org.pk}-anna", "007", "0123")
    assert (data["name"], data["membership"], data["active"]) == (
        "Anna von Berg",
        {"id": senior.pk, "name": "Senior"},
        True,
    )
    assert data["user_groups"] == [{"id": pilots.pk, "name": "Pilots"}]
    assert [e["address"] for e in data["email"]] == ["anna@x.se", "anna@work.se"]
    assert data["address"]["street_address"] == ["Storgatan 1", "Lgh 2"]
    assert data["phone"]["mobile"] == {"country_code": "46", "initial_number": "70", "number": "123"}
    assert data["account"] == {"balance": 0, "annual_fee": None, "external_customer_number": "C1"}
    assert data["emergency_contact"] == {"name": "Per", "phone": "3", "relation": "Brother"}
    assert User.objects.count() == before + 1
    user = User.objects.get(pk=data["id"])
    assert not user.has_usable_password()
    assert Member.objects.get(user=user).organization == org


@pytest.mark.parametrize("written", ["46", "+46", "0046"])
def test_post_mobile_country_code_is_stored_as_digits(api, body, written):
    body["phone"] = {"mobile": {"country_code": written, "number": "701234"}}
    assert api.post("/users", body).status_code == 201
    assert User.objects.get(username=body["username"]).mobile_country_code == "46"


def test_post_member_number_omitted_is_highest_numeric_plus_one(api, org, body, make_api):
    MemberFactory(organization=org, member_number="0099")
    MemberFactory(organization=org, member_number="A-500")
    MemberFactory(organization=OrganizationFactory(), member_number="90000")
    data = api.post("/users", body).json()["data"]

    # The administrators' factory numbers have letters; 0099 is the highest all-digit number.
    assert data["member_number"] == "100"


def test_post_first_automatic_member_number_is_10000(other_org, make_api):
    membership = MembershipFactory(organization=other_org)
    api = make_api(other_org)
    Member.objects.filter(organization=other_org).update(member_number="ADMIN")  # no numeric member number
    data = {"username": f"{other_org.pk}-x", "first_name": "X", "last_name": "Y", "membership_id": membership.pk}

    assert api.post("/users", data).json()["data"]["member_number"] == "10000"
    data["username"] = f"{other_org.pk}-y"
    assert api.post("/users", data).json()["data"]["member_number"] == "10001"
    fresh = OrganizationFactory()
    created = user_create(
        organization=fresh,
        username=f"{fresh.pk}-z",
        first_name="Z",
        last_name="Z",
        membership_id=MembershipFactory(organization=fresh).pk,
    )
    assert created.member_number == "10000"


def test_post_missing_required_fields_are_all_named(api):
    response = api.post("/users", {})
    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {f: 10006 for f in ("username", "first_name", "last_name", "membership_id")}
    assert User.objects.count() == 1


def test_post_username_must_start_with_the_organization_id_and_a_dash(api, org, other_org, body):
    before = snapshot()
    for username in ("anna", f"{other_org.pk}-anna", f"{org.pk}anna", f"{org.pk}-", f"x{org.pk}-anna"):
        response = api.post("/users", {**body, "username": username})
        assert_problem(response, 400, 10006)
        assert problem_fields(response) == {"username": 10006}, username
    assert snapshot() == before


def test_post_membership_and_user_groups_must_be_the_organizations(api, org, other_org, body, pilots):
    foreign_membership = MembershipFactory(organization=other_org)
    foreign_group = UserGroup.objects.create(organization=other_org, name="Theirs")
    before = snapshot()

    response = api.post(
        "/users", {**body, "membership_id": foreign_membership.pk, "user_groups": [pilots.pk, foreign_group.pk, 999]}
    )

    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {"membership_id": 10006, "user_groups[1]": 10006, "user_groups[2]": 10006}
    assert snapshot() == before


def test_post_all_problems_are_named_at_once(api, body):
    response = api.post(
        "/users",
        {
            **body,
            "username": "nope",
            "first_name": 5,
            "membership_id": 999,
            "ksak_member_number": "12a",
            "email": ["a@x.se", "b@x.se", "c@x.se"],
            "address": {"street_address": "Storgatan 1"},
            "user_groups": 3,
            "phone": {"mobile": {"country_code": "+046", "initial_number": "7O", "number": "\uff11\uff12"}},
            "colour": "red",
        },
    )
    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {
        "colour": 10007,
        "username": 10006,
        "first_name": 10006,
        "membership_id": 10006,
        "ksak_member_number": 10006,
        "email": 10006,
        "address.street_address": 10006,
        "user_groups": 10006,
        "phone.mobile.country_code": 10006,
        "phone.mobile.initial_number": 10006,
        "phone.mobile.number": 10006,
    }
    assert User.objects.count() == 1


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("email", ["not an address"], "email[0]"),
        ("email", "a@x.se", "email"),
        ("address", {"street_address": ["1", "2", "3"]}, "address.street_address"),
        ("user_groups", ["1"], "user_groups[0]"),
        ("member_number", 7, "member_number"),
        ("member_number", "", "member_number"),
        ("ksak_member_number", "", "ksak_member_number"),
        ("last_name_particle", None, "last_name_particle"),
        ("membership_id", "1", "membership_id"),
        ("id", 5, "id"),
    ],
)
def test_post_wrong_fields(api, body, field, value, named):
    before = snapshot()
    response = api.post("/users", {**body, field: value})
    assert response.status_code == 400
    assert named in problem_fields(response)
    assert snapshot() == before


def test_post_duplicates_are_409_10030_naming_every_field_in_use(api, org, body):
    MemberFactory(organization=org, user__username=f"{org.pk}-ANNA", user__ksak_member_number="555", member_number="7")
    before = snapshot()

    response = api.post("/users", {**body, "member_number": "7", "ksak_member_number": "555"})

    assert_problem(response, 409, 10030)
    assert problem_fields(response) == {"username": 10030, "member_number": 10030, "ksak_member_number": 10030}
    assert snapshot() == before


def test_post_username_in_use_anywhere_member_number_only_within_the_organization(api, org, other_org, body):
    MemberFactory(organization=other_org, user__username=f"{org.pk}-Anna", member_number="7")
    response = api.post("/users", {**body, "member_number": "7"})
    assert_problem(response, 409, 10030)
    assert problem_fields(response) == {"username": 10030}

    assert api.post("/users", {**body, "username": f"{org.pk}-bo", "member_number": "7"}).status_code == 201


def test_post_in_a_trial_organization_with_5_active_members_is_409_10040(api, org, body):
    org.is_trial = True
    org.save()
    MemberFactory(organization=org, active=False)  # not counted in the trial limit
    MemberFactory.create_batch(3, organization=org)  # with the administrator: 4 active
    assert api.post("/users", body).status_code == 201  # the fifth
    before = snapshot()

    response = api.post("/users", {**body, "username": f"{org.pk}-sixth"})

    assert_problem(response, 409, 10040)
    assert snapshot() == before


def test_post_is_all_or_nothing(api, body, pilots, monkeypatch):
    before = snapshot()

    def broken(*args, **kwargs):
        raise DatabaseError("disk full")

    monkeypatch.setattr(UserEmail.objects, "bulk_create", broken)
    response = api.post("/users", {**body, "user_groups": [pilots.pk], "email": ["a@x.se"]})

    assert response.status_code == 500
    assert snapshot() == before


def test_post_body_that_is_not_an_object_is_10004(api):
    response = api.call("POST", "/users", data="[1]", content_type="application/json")
    assert_problem(response, 400, 10004)


# === PATCH ==========================================================================================


@pytest.fixture
def anna(org, senior):
    created = user_create(
        organization=org,
        username=f"{org.pk}-anna",
        first_name="Anna",
        last_name="Berg",
        last_name_particle="von",
        member_number="500",
        membership_id=senior.pk,
        email=["anna@x.se", "old@x.se"],
        address={"street_address": ["Storgatan 1", "Lgh 2"], "postal_code": "01234", "city": "Ö", "country": "SE"},
        phone={"home": "1", "work": "2", "mobile": {"country_code": "46", "initial_number": "70", "number": "123"}},
    )
    UserEmail.objects.filter(user=created.user).update(invalid=True, invalid_reason="Bounce")
    return created


def user_of(member) -> User:
    return User.objects.get(pk=member.user_id)


def test_patch_changes_only_the_fields_sent(api, anna):
    response = api.patch(f"/users/{anna.user_id}?include=address,phone", {"address": {"city": "Eskilstuna"}})

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["address"] == {
        "street_address": ["Storgatan 1", "Lgh 2"],
        "postal_code": "01234",
        "city": "Eskilstuna",
        "country": "SE",
    }
    assert data["phone"]["mobile"] == {"country_code": "46", "initial_number": "70", "number": "123"}
    assert (data["first_name"], data["last_name_particle"], data["active"]) == ("Anna", "von", True)
    assert data == api.get(f"/users/{anna.user_id}", {"include": "address,phone"}).json()["data"]


def test_patch_names_and_member_fields(api, anna):
    response = api.patch(
        f"/users/{anna.user_id}?include=misc_info,internal_notes,access_card",
        {
            "first_name": "Annie",
            "last_name_particle": None,
            "misc_info": "Glider pilot",
            "internal_notes": "Key 12",
            "access_card": {"number": "A" * 50, "code": "0" * 10, "expiry_date": "2027-12-31"},
        },
    )
    data = response.json()["data"]
    assert (data["name"], data["last_first_name"], data["last_name_particle"]) == ("Annie Berg", "Berg, Annie", None)
    assert (data["misc_info"], data["internal_notes"]) == ("Glider pilot", "Key 12")
    assert data["access_card"] == {"number": "A" * 50, "code": "0" * 10, "expiry_date": "2027-12-31"}
    assert user_of(anna).name == "Annie Berg"

    data = api.patch(
        f"/users/{anna.user_id}?include=misc_info,access_card", {"misc_info": "", "access_card": {"code": None}}
    ).json()["data"]
    assert data["misc_info"] is None
    assert data["access_card"] == {"number": "A" * 50, "code": None, "expiry_date": "2027-12-31"}


def test_patch_null_or_empty_text_empties_a_value(api, anna):
    data = api.patch(
        f"/users/{anna.user_id}?include=address,phone,email",
        {"address": {"postal_code": None, "city": ""}, "phone": {"mobile": None, "home": ""}, "email": None},
    ).json()["data"]
    assert data["address"] == {
        "street_address": ["Storgatan 1", "Lgh 2"],
        "postal_code": None,
        "city": None,
        "country": "SE",
    }
    assert data["phone"] == {
        "home": None,
        "work": "2",
        "mobile": {"country_code": None, "initial_number": None, "number": None},
    }
    assert data["email"] == []
    assert not UserEmail.objects.filter(user_id=anna.user_id).exists()


@pytest.mark.parametrize("field", ["first_name", "last_name"])
@pytest.mark.parametrize("value", [None, ""])
def test_patch_first_and_last_name_cannot_be_emptied(api, anna, field, value):
    before = snapshot()
    response = api.patch(f"/users/{anna.user_id}", {field: value, "misc_info": "x"})
    assert_problem(response, 400, 10006)
    assert problem_fields(response) == {field: 10006}
    assert snapshot() == before


def test_patch_active_cannot_be_null(api, anna):
    assert_problem(api.patch(f"/users/{anna.user_id}", {"active": None}), 400, 10006)


def test_patch_street_address_replaces_both_rows(api, anna):
    api.patch(f"/users/{anna.user_id}", {"address": {"street_address": ["Nygatan 5"]}})
    user = user_of(anna)
    assert (user.street_address_1, user.street_address_2, user.city) == ("Nygatan 5", "", "Ö")
    api.patch(f"/users/{anna.user_id}", {"address": {"street_address": []}})
    assert (user_of(anna).street_address_1, user_of(anna).street_address_2) == ("", "")


def test_patch_email_list_replaces_and_a_changed_address_loses_its_invalid_mark(api, anna):
    assert list(UserEmail.objects.filter(user_id=anna.user_id).values_list("address", "invalid")) == [
        ("anna@x.se", True),
        ("old@x.se", True),
    ]

    data = api.patch(f"/users/{anna.user_id}?include=email", {"email": ["new@x.se", "anna@x.se"]}).json()["data"]

    assert data["email"] == [
        {"address": "new@x.se", "invalid": False, "invalid_reason": None},
        {"address": "anna@x.se", "invalid": True, "invalid_reason": "Bounce"},
    ]
    assert data["has_invalid_email_address"] is True
    data = api.patch(f"/users/{anna.user_id}?include=email", {"email": ["new@x.se"]}).json()["data"]
    assert data["email"] == [{"address": "new@x.se", "invalid": False, "invalid_reason": None}]
    assert data["has_invalid_email_address"] is False


def test_patch_email_and_street_address_at_most_two_and_lists(api, anna):
    before = snapshot()
    response = api.patch(
        f"/users/{anna.user_id}", {"email": ["a@x.se", "b@x.se", "c@x.se"], "address": {"street_address": "x"}}
    )
    assert problem_fields(response) == {"email": 10006, "address.street_address": 10006}
    assert snapshot() == before


def test_patch_mobile_changes_only_the_nested_fields_sent(api, anna):
    api.patch(f"/users/{anna.user_id}", {"phone": {"mobile": {"country_code": "0047"}}})
    user = user_of(anna)
    assert (user.mobile_country_code, user.mobile_initial_number, user.mobile_number, user.phone_home) == (
        "47",
        "70",
        "123",
        "1",
    )
    response = api.patch(f"/users/{anna.user_id}", {"phone": {"mobile": {"number": "12-3"}}})
    assert problem_fields(response) == {"phone.mobile.number": 10006}


def test_patch_access_card_limits(api, anna):
    response = api.patch(
        f"/users/{anna.user_id}", {"access_card": {"number": "A" * 51, "code": "0" * 11, "expiry_date": "2027-02-30"}}
    )
    assert problem_fields(response) == {
        "access_card.number": 10006,
        "access_card.code": 10006,
        "access_card.expiry_date": 10110,
    }
    assert Member.objects.get(pk=anna.pk).access_card_number == ""


def test_patch_fields_outside_the_table_are_unknown(api, anna):
    before = snapshot()
    response = api.patch(f"/users/{anna.user_id}", {"username": "x", "member_number": "1", "id": 3})
    assert_problem(response, 400, 10007)
    assert snapshot() == before


def test_patch_with_no_fields_is_400_10105(api, anna):
    assert_problem(api.patch(f"/users/{anna.user_id}", {}), 400, 10105)


def test_patch_of_a_login_made_elsewhere_refuses_name_address_email_phone(api, org, other_org):
    foreign = MemberFactory(organization=org, user__username=f"{other_org.pk}-olav", user__first_name="Olav")
    UserEmail.objects.create(user=foreign.user, position=0, address="olav@x.no")
    before = snapshot()
    for change in (
        {"first_name": "Ola"},
        {"last_name_particle": "de"},
        {"address": {"city": "Oslo"}},
        {"email": ["o@x.no"]},
        {"phone": {"home": "9"}},
        {"misc_info": "member fields go with it", "last_name": "X"},
    ):
        response = api.patch(f"/users/{foreign.user_id}", change)
        body = assert_problem(response, 409, 10105)
        assert body["type"].endswith("/errors/conflict")
        assert snapshot() == before, change

    response = api.patch(f"/users/{foreign.user_id}", {"misc_info": "ok", "active": False})
    assert response.status_code == 200
    assert Member.objects.get(pk=foreign.pk).misc_info == "ok"


def test_patch_activating_in_a_trial_organization_with_5_active_is_409_10040(api, org, anna):
    org.is_trial = True
    org.save()
    sleeper = MemberFactory(organization=org, active=False)
    MemberFactory.create_batch(3, organization=org)  # with the administrator and anna: 5 active
    before = snapshot()

    response = api.patch(f"/users/{sleeper.user_id}", {"active": True, "misc_info": "not saved"})

    assert_problem(response, 409, 10040)
    assert snapshot() == before
    # an active member may still be patched, with active:true too
    assert api.patch(f"/users/{anna.user_id}", {"active": True, "misc_info": "x"}).status_code == 200
    assert api.patch(f"/users/{anna.user_id}", {"active": False}).json()["data"]["active"] is False
    assert api.patch(f"/users/{sleeper.user_id}", {"active": True}).json()["data"]["active"] is True


def test_patch_unknown_or_foreign_user_is_404(api, other_api, anna):
    before = snapshot()
    assert_problem(api.patch("/users/999999", {"misc_info": "x"}), 404, 10100)
    assert_problem(other_api.patch(f"/users/{anna.user_id}", {"misc_info": "x"}), 404, 10100)
    assert snapshot() == before


def test_patch_of_a_member_of_two_organizations_changes_only_this_ones_record(api, org, other_org, anna):
    there = Member.objects.create(user=anna.user, organization=other_org, member_number="1", misc_info="there")
    api.patch(f"/users/{anna.user_id}", {"misc_info": "here", "active": False})
    there.refresh_from_db()
    assert (there.misc_info, there.active) == ("there", True)
    assert Member.objects.get(pk=anna.pk).misc_info == "here"


# === DELETE =========================================================================================


def test_delete_removes_the_member_record_and_the_login_of_no_other_organization(api, org, anna, pilots):
    anna.user_groups.add(pilots)
    medical = expiry_date_type_create(organization=org, name="Medical")
    UserExpiryDate.objects.create(member=anna, type=medical, expiry_date=dt.date(2027, 1, 1))
    MemberRole.objects.create(member=anna, role="student")

    response = api.delete(f"/users/{anna.user_id}")

    assert response.status_code == 204
    assert response.content == b""
    assert not Member.objects.filter(pk=anna.pk).exists()
    assert not User.objects.filter(pk=anna.user_id).exists()
    assert not UserEmail.objects.filter(user_id=anna.user_id).exists()
    assert not UserExpiryDate.objects.exists()
    assert UserGroup.objects.filter(pk=pilots.pk).exists()
    assert_problem(api.get(f"/users/{anna.user_id}"), 404, 10100)


def test_delete_keeps_a_login_that_belongs_to_another_organization(api, other_api, other_org, anna):
    Member.objects.create(user=anna.user, organization=other_org, member_number="1")
    assert api.delete(f"/users/{anna.user_id}").status_code == 204
    assert User.objects.filter(pk=anna.user_id).exists()
    assert other_api.get(f"/users/{anna.user_id}").status_code == 200


def test_delete_with_zero_balance_keeps_a_login_that_has_transactions(api, org, anna):
    for amount in ("-50", "50"):
        Transaction.objects.create(organization=org, user=anna.user, date="2026-01-01", amount=amount, comment="x")
    assert api.delete(f"/users/{anna.user_id}").status_code == 204
    assert not Member.objects.filter(pk=anna.pk).exists()
    assert User.objects.filter(pk=anna.user_id).exists()
    assert Transaction.objects.count() == 2


def test_delete_of_a_user_with_a_balance_is_409_10105(api, org, other_org, anna):
    Transaction.objects.create(organization=org, user=anna.user, date="2026-01-01", amount="0.01", comment="x")
    before = snapshot()
    assert_problem(api.delete(f"/users/{anna.user_id}"), 409, 10105)
    assert snapshot() == before
    # a balance in another organization does not count
    Transaction.objects.create(organization=org, user=anna.user, date="2026-01-02", amount="-0.01", comment="y")
    Transaction.objects.create(organization=other_org, user=anna.user, date="2026-01-02", amount="9", comment="z")
    assert api.delete(f"/users/{anna.user_id}").status_code == 204


def test_delete_of_an_administrator_is_409_10105(api, org, admin):
    before = snapshot()
    assert_problem(api.delete(f"/users/{admin.pk}"), 409, 10105)
    assert snapshot() == before


def test_delete_of_an_unknown_or_foreign_user_is_404(api, other_api, anna):
    before = snapshot()
    assert_problem(api.delete("/users/999999"), 404, 10100)
    assert_problem(other_api.delete(f"/users/{anna.user_id}"), 404, 10100)
    assert snapshot() == before


@pytest.mark.parametrize("body", [{"address": {}}, {"access_card": {}}, {"phone": {"mobile": {}}}])
def test_patch_with_only_empty_nested_objects_is_400_10105(api, org, body):
    member = MemberFactory(organization=org, user__username=f"{org.pk}-nested")
    response = api.patch(f"/users/{member.user_id}", body)
    assert response.status_code == 400
    assert response.json()["code"] == 10105
