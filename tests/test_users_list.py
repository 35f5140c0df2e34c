"""GET /users and GET /users/{id}: fields, order, filters, rights, tenancy and the query count of a list."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Member, MemberRole, User, UserEmail, UserExpiryDate, UserGroup
from accounts.services import expiry_date_type_create
from economy.models import Transaction
from tests.factories import MemberFactory, MembershipFactory
from tests.helpers import assert_problem, problem_fields

ALL_BLOCKS = (
    "email,address,phone,user_groups,roles,expiry_dates,account,misc_info,"
    "personal_identification_number,internal_notes,emergency_contact,access_card"
)
FIELDS = {
    "id",
    "username",
    "member_number",
    "ksak_member_number",
    "nlf_member_number",
    "name",
    "first_name",
    "last_name_particle",
    "last_name",
    "last_first_name",
    "membership",
    "active",
    "locked",
    "locked_login",
    "has_invalid_email_address",
}


def member(org, first_name, last_name="Berg", **fields):
    user_fields = {k: fields.pop(k) for k in list(fields) if k.startswith("user__")}
    return MemberFactory(
        organization=org, user__first_name=first_name, user__last_name=last_name, **user_fields, **fields
    )


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [item["name"] for item in response.json()["data"]]


@pytest.fixture
def anna(org):
    senior = MembershipFactory(organization=org, name="Senior")
    return member(
        org,
        "Anna",
        "Berg",
        user__username=f"{org.pk}-anna",
        user__last_name_particle="von",
        user__ksak_member_number="0123",
        user__nlf_member_number="77",
        member_number="007",
        membership=senior,
    )


# --- the fields -------------------------------------------------------------------------------------


def test_item_has_every_field_of_the_user_resource(api, org, anna):
    response = api.get(f"/users/{anna.user_id}")

    assert response.status_code == 200
    assert response.json()["data"] == {
        "id": anna.user_id,
        "username": f"{org.pk}-anna",
        "member_number": "007",
        "ksak_member_number": "0123",
        "nlf_member_number": "77",
        "name": "Anna von Berg",
        "first_name": "Anna",
        "last_name_particle": "von",
        "last_name": "Berg",
        "last_first_name": "Berg, Anna von",
        "membership": {"id": anna.membership_id, "name": "Senior"},
        "active": True,
        "locked": False,
        "locked_login": False,
        "has_invalid_email_address": False,
    }


def test_empty_values_are_null_and_the_list_item_equals_the_single_item(api, org, admin):
    bare = member(org, "Bo", "Ek")

    item = api.get(f"/users/{bare.user_id}").json()["data"]
    listed = next(u for u in api.get("/users").json()["data"] if u["id"] == bare.user_id)

    assert item == listed
    assert set(item) == FIELDS
    assert (item["ksak_member_number"], item["nlf_member_number"], item["last_name_particle"]) == (None, None, None)
    assert item["membership"] is None
    assert isinstance(item["member_number"], str)


def test_locked_login_and_invalid_email_flags(api, org):
    flagged = member(org, "Cia", user__locked_login=True)
    flagged.locked = True
    flagged.save()
    UserEmail.objects.create(user=flagged.user, position=0, address="c@x.se", invalid=True, invalid_reason="bounce")

    data = api.get(f"/users/{flagged.user_id}").json()["data"]

    assert (data["locked"], data["locked_login"], data["has_invalid_email_address"]) == (True, True, True)


def test_exclude_leaves_fields_out_and_an_unknown_name_lists_the_usable_ones(api, anna):
    data = api.get(f"/users/{anna.user_id}", {"exclude": "username,last_first_name"}).json()["data"]
    assert set(data) == FIELDS - {"username", "last_first_name"}

    response = api.get("/users", {"exclude": "password"})
    assert_problem(response, 400, 10005)
    assert "has_invalid_email_address" in response.json()["errors"][0]["message"]


def test_a_block_not_offered_is_400(api, anna):
    response = api.get("/users", {"include": "email,password"})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {"include": 10005}


# --- order ------------------------------------------------------------------------------------------


def test_sorted_by_name_without_regard_to_case_then_id(api, org, admin):
    first = member(org, "bertil", "Ask")
    second = member(org, "Bertil", "Ask")
    member(org, "Anna", "Ö")
    member(org, "Cecilia", "Ask")

    data = api.get("/users").json()["data"]

    assert [u["name"] for u in data] == ["Anna Ö", "bertil Ask", "Bertil Ask", "Cecilia Ask", "Karin Lindqvist"]
    assert [u["id"] for u in data[1:3]] == sorted([first.user_id, second.user_id])


def test_paging_follows_the_order(api, org, admin):
    for name in ("Dag", "Bo", "Ada", "Cy"):
        member(org, name, "X")
    body = api.get("/users", {"limit": 2, "offset": 1, "include_total": "true"}).json()
    assert [u["name"] for u in body["data"]] == ["Bo X", "Cy X"]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 1, "has_more": True, "total": 5}


# --- filters ----------------------------------------------------------------------------------------


def test_text_search_matches_the_whole_value_case_insensitively_with_star(api, org, admin):
    member(org, "Anna", "Berg")
    member(org, "Annika", "Dahl")
    member(org, "Hanna", "Ek")

    assert names(api.get("/users", {"name": "anna berg"})) == ["Anna Berg"]
    assert names(api.get("/users", {"name": "anna"})) == []
    assert names(api.get("/users", {"name": "Ann*"})) == ["Anna Berg", "Annika Dahl"]
    assert names(api.get("/users", {"name": "*nna*"})) == ["Anna Berg", "Hanna Ek"]
    assert names(api.get("/users", {"name": "_nna*"})) == []
    assert names(api.get("/users", {"name": "%"})) == []


def test_filters_username_member_number_and_membership(api, org, admin):
    senior = MembershipFactory(organization=org, name="Senior")
    junior = MembershipFactory(organization=org, name="Junior")
    member(org, "Anna", user__username=f"{org.pk}-anna", member_number="0042", membership=senior)
    member(org, "Bo", user__username=f"{org.pk}-bo", member_number="142", membership=junior)

    assert names(api.get("/users", {"username": f"{org.pk}-A*"})) == ["Anna Berg"]
    assert names(api.get("/users", {"member_number": "0042"})) == ["Anna Berg"]
    assert names(api.get("/users", {"member_number": "42"})) == []
    assert names(api.get("/users", {"member_number": "*42"})) == ["Anna Berg", "Bo Berg"]
    assert names(api.get("/users", {"membership_name": "jun*"})) == ["Bo Berg"]
    assert names(api.get("/users", {"membership_id": senior.pk})) == ["Anna Berg"]
    assert names(api.get("/users", {"membership_id": 999})) == []


def test_bool_filters(api, org, admin):
    gone = member(org, "Inactive")
    gone.active = False
    gone.save()
    stopped = member(org, "Locked")
    stopped.locked = True
    stopped.save()
    member(org, "Nologin", user__locked_login=True)
    bounced = member(org, "Bounced")
    UserEmail.objects.create(user=bounced.user, position=0, address="b@x.se")
    UserEmail.objects.create(user=bounced.user, position=1, address="b2@x.se", invalid=True)
    fine = member(org, "Fine")
    UserEmail.objects.create(user=fine.user, position=0, address="f@x.se")

    assert names(api.get("/users", {"active": "false"})) == ["Inactive Berg"]
    assert "Inactive Berg" not in names(api.get("/users", {"active": "true"}))
    assert names(api.get("/users", {"locked": "true"})) == ["Locked Berg"]
    assert names(api.get("/users", {"locked_login": "true"})) == ["Nologin Berg"]
    assert names(api.get("/users", {"has_invalid_email_address": "true"})) == ["Bounced Berg"]
    without = names(api.get("/users", {"has_invalid_email_address": "false"}))
    assert "Bounced Berg" not in without and "Fine Berg" in without and len(without) == 5
    assert len(names(api.get("/users"))) == 6


@pytest.mark.parametrize(
    ("name", "value"),
    [("active", "1"), ("locked", "yes"), ("has_invalid_email_address", "0"), ("membership_id", "x"), ("name", "")],
)
def test_a_filter_of_the_wrong_form_is_400(api, name, value):
    response = api.get("/users", {name: value})
    assert_problem(response, 400, 10005)
    assert problem_fields(response) == {name: 10005}


def test_unknown_parameter_is_400_10007(api):
    response = api.get("/users", {"id": "5"})
    assert_problem(response, 400, 10007)


def test_an_excluded_field_can_still_be_a_filter(api, org, admin):
    member(org, "Anna")
    data = api.get("/users", {"name": "Anna*", "exclude": "name"}).json()["data"]
    assert len(data) == 1 and "name" not in data[0]


# --- rights and tenancy -----------------------------------------------------------------------------


def test_reading_needs_the_users_read_right(make_api, org, anna):
    for rights in ({"users": "w"}, {"users_sensitive": "rw", "organization_settings": "rw"}):
        reader = make_api(org, rights=rights)
        assert_problem(reader.get("/users"), 403, 10002)
        assert_problem(reader.get(f"/users/{anna.user_id}"), 403, 10002)
    assert make_api(org, rights={"users": "r"}).get(f"/users/{anna.user_id}").status_code == 200


def test_another_organizations_user_is_neither_listed_nor_fetchable(api, other_api, other_org, anna):
    foreign = member(other_org, "Olav", "Nordmann")

    assert anna.user_id not in [u["id"] for u in other_api.get("/users").json()["data"]]
    assert foreign.user_id not in [u["id"] for u in api.get("/users").json()["data"]]
    assert_problem(other_api.get(f"/users/{anna.user_id}"), 404, 10100)
    assert_problem(api.get(f"/users/{foreign.user_id}"), 404, 10100)
    assert_problem(api.get("/users/999999"), 404, 10100)


def test_a_member_of_two_organizations_shows_each_its_own_member_record(api, other_api, org, other_org):
    shared = member(org, "Delad", member_number="11", user__username=f"{org.pk}-delad")
    group = UserGroup.objects.create(organization=org, name="Pilots")
    shared.user_groups.add(group)
    MemberRole.objects.create(member=shared, role="instructor")
    Transaction.objects.create(organization=org, user=shared.user, date="2026-01-01", amount="-100.50", comment="x")
    there = Member.objects.create(user=shared.user, organization=other_org, member_number="22", active=False)
    there.annual_fee = Decimal("300")
    there.save()
    Transaction.objects.create(organization=other_org, user=shared.user, date="2026-01-01", amount="25", comment="y")
    include = {"include": "user_groups,roles,account"}

    here = api.get(f"/users/{shared.user_id}", include).json()["data"]
    away = other_api.get(f"/users/{shared.user_id}", include).json()["data"]

    assert (here["member_number"], here["active"], here["roles"]) == ("11", True, ["instructor"])
    assert here["user_groups"] == [{"id": group.pk, "name": "Pilots"}]
    assert here["account"] == {"balance": -100.5, "annual_fee": None, "external_customer_number": None}
    assert (away["member_number"], away["active"], away["roles"], away["user_groups"]) == ("22", False, [], [])
    assert away["account"] == {"balance": 25, "annual_fee": 300, "external_customer_number": None}
    assert here["username"] == away["username"] == f"{org.pk}-delad"


# --- query count ------------------------------------------------------------------------------------


def _many_members(org, count: int) -> None:
    """`count` members with two emails, two groups, two roles, two expiry dates and two transactions each."""
    groups = [UserGroup.objects.create(organization=org, name=f"Group {i}") for i in range(2)]
    types = [expiry_date_type_create(organization=org, name=f"Type {i}") for i in range(2)]
    membership = MembershipFactory(organization=org)
    users = User.objects.bulk_create(
        User(username=f"{org.pk}-bulk{i}", first_name=f"Bulk{i:03}", last_name="Lista", name=f"Bulk{i:03} Lista")
        for i in range(count)
    )
    members = Member.objects.bulk_create(
        Member(user=user, organization=org, member_number=str(20000 + i), membership=membership, annual_fee="100")
        for i, user in enumerate(users)
    )
    UserEmail.objects.bulk_create(
        UserEmail(user=user, position=p, address=f"{user.username}-{p}@x.se", invalid=p == 1)
        for user in users
        for p in range(2)
    )
    Member.user_groups.through.objects.bulk_create(
        Member.user_groups.through(member=m, usergroup=g) for m in members for g in groups
    )
    MemberRole.objects.bulk_create(MemberRole(member=m, role=r) for m in members for r in ("student", "instructor"))
    UserExpiryDate.objects.bulk_create(
        UserExpiryDate(member=m, type=t, expiry_date=dt.date(2027, 1, 1)) for m in members for t in types
    )
    Transaction.objects.bulk_create(
        Transaction(organization=org, user=m.user, date=dt.date(2026, 1, i + 1), amount="10.10", comment="c")
        for m in members
        for i in range(2)
    )


def test_a_list_with_every_block_costs_the_same_queries_at_limit_1_and_500(
    api, org, admin, django_assert_max_num_queries
):
    _many_members(org, 520)
    api.get("/token")  # fetch the access token before counting
    api.get("/users", {"limit": 1})  # and warm what a process keeps between calls (the token row)
    with CaptureQueriesContext(connection) as bare:
        api.get("/users", {"limit": 1})
    # One query for each block that is not read from the member's own row: email, user_groups, roles, expiry_dates.
    fixed = len(bare) + 4
    counts = {}
    for limit in (1, 500):
        with django_assert_max_num_queries(fixed), CaptureQueriesContext(connection) as captured:
            response = api.get("/users", {"limit": limit, "include": ALL_BLOCKS})
        assert response.status_code == 200
        assert len(response.json()["data"]) == limit
        counts[limit] = len(captured)
    assert counts[1] == counts[500] == fixed, counts

    item = api.get("/users", {"limit": 500, "include": ALL_BLOCKS, "name": "Bulk000*"}).json()["data"][0]
    assert len(item["email"]) == len(item["user_groups"]) == len(item["expiry_dates"]) == 2
    assert item["roles"] == ["instructor", "student"]
    assert item["account"]["balance"] == 20.2
    assert item["has_invalid_email_address"] is True
