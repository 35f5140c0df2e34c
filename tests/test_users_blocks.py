"""The optional blocks of the User resource: contents, money, expiry dates and the users_sensitive right."""

import datetime as dt

import pytest
from jsonschema import Draft202012Validator

from accounts.api.user_presenters import UserPresenter
from accounts.models import MemberRole, UserEmail, UserExpiryDate, UserGroup
from accounts.services import expiry_date_type_create
from economy.models import Transaction
from tests.factories import MemberFactory
from tests.helpers import assert_problem

SENSITIVE = ("personal_identification_number", "internal_notes", "emergency_contact", "access_card")
PLAIN = ("email", "address", "phone", "user_groups", "roles", "expiry_dates", "account", "misc_info")


@pytest.fixture
def full(org):
    """A member with every block filled in."""
    filled = MemberFactory(
        organization=org,
        user__username=f"{org.pk}-full",
        user__street_address_1="Storgatan 1",
        user__street_address_2="Lgh 1102",
        user__postal_code="01234",
        user__city="Västerås",
        user__country="Sverige",
        user__phone_home="021-123",
        user__phone_work="021-456",
        user__mobile_country_code="46",
        user__mobile_initial_number="070",
        user__mobile_number="0123456",
        user__personal_identification_number="19800101-1234",
        user__emergency_contact_name="Per",
        user__emergency_contact_phone="0701",
        user__emergency_contact_relation="Brother",
        annual_fee="1200.50",
        external_customer_number="C-0042",
        misc_info="Likes gliders",
        internal_notes="Owes a hangar key",
        access_card_number="00A1",
        access_card_code="0007",
        access_card_expiry_date=dt.date(2027, 6, 30),
    )
    UserEmail.objects.create(user=filled.user, position=1, address="second@x.se", invalid=True, invalid_reason="Bounce")
    UserEmail.objects.create(user=filled.user, position=0, address="first@x.se")
    for name in ("pilots", "Board"):
        filled.user_groups.add(UserGroup.objects.create(organization=org, name=name))
    for role in ("student", "admin", "maintenance"):
        MemberRole.objects.create(member=filled, role=role)
    for amount in ("-100.25", "12.30", "0.25"):
        Transaction.objects.create(organization=org, user=filled.user, date="2026-01-01", amount=amount, comment="x")
    return filled


def get_blocks(api, member, *blocks):
    response = api.get(f"/users/{member.user_id}", {"include": ",".join(blocks)})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_each_block_adds_one_key_of_its_name(api, full):
    base = set(api.get(f"/users/{full.user_id}").json()["data"])
    for block in PLAIN + SENSITIVE:
        assert set(get_blocks(api, full, block)) == base | {block}


def test_contact_blocks(api, full):
    data = get_blocks(api, full, "email", "address", "phone")

    assert data["email"] == [
        {"address": "first@x.se", "invalid": False, "invalid_reason": None},
        {"address": "second@x.se", "invalid": True, "invalid_reason": "Bounce"},
    ]
    assert data["address"] == {
        "street_address": ["Storgatan 1", "Lgh 1102"],
        "postal_code": "01234",
        "city": "Västerås",
        "country": "Sverige",
    }
    assert data["phone"] == {
        "home": "021-123",
        "work": "021-456",
        "mobile": {"country_code": "46", "initial_number": "070", "number": "0123456"},
    }
    assert data["has_invalid_email_address"] is True


def test_groups_sorted_by_name_and_roles_in_the_documents_order(api, full):
    data = get_blocks(api, full, "user_groups", "roles")
    assert [group["name"] for group in data["user_groups"]] == ["Board", "pilots"]
    assert all(set(group) == {"id", "name"} for group in data["user_groups"])
    assert data["roles"] == ["admin", "student", "maintenance"]


def test_account_money_is_a_json_number(api, full):
    response = api.get(f"/users/{full.user_id}", {"include": "account"})
    assert response.json()["data"]["account"] == {
        "balance": -87.7,
        "annual_fee": 1200.5,
        "external_customer_number": "C-0042",
    }
    raw = response.content.decode()
    assert '"balance":-87.7' in raw and '"annual_fee":1200.5' in raw


def test_balance_counts_only_this_organizations_transactions(api, org, other_org, full):
    Transaction.objects.create(organization=other_org, user=full.user, date="2026-01-01", amount="500", comment="y")
    assert get_blocks(api, full, "account")["account"]["balance"] == -87.7


def test_empty_blocks(api, org):
    bare = MemberFactory(organization=org)
    data = get_blocks(api, bare, *PLAIN, *SENSITIVE)
    assert data["email"] == data["user_groups"] == data["roles"] == data["expiry_dates"] == []
    assert data["address"] == {"street_address": [], "postal_code": None, "city": None, "country": None}
    assert data["phone"] == {
        "home": None,
        "work": None,
        "mobile": {"country_code": None, "initial_number": None, "number": None},
    }
    assert data["account"] == {"balance": 0, "annual_fee": None, "external_customer_number": None}
    assert data["misc_info"] is data["internal_notes"] is data["personal_identification_number"] is None
    assert data["emergency_contact"] == {"name": None, "phone": None, "relation": None}
    assert data["access_card"] == {"number": None, "code": None, "expiry_date": None}


def test_expiry_dates_lists_the_dates_the_member_has_with_expired(api, org, full, frozen_time):
    # FROZEN_AT is 2026-11-25 12:00 UTC: "today" in Stockholm is 2026-11-25.
    medical = expiry_date_type_create(organization=org, name="medical", may_never_expire=True)
    licence = expiry_date_type_create(organization=org, name="Licence", image_required=True)
    expiry_date_type_create(organization=org, name="Unused")
    UserExpiryDate.objects.create(member=full, type=medical, expiry_date=dt.date(2026, 11, 24))
    UserExpiryDate.objects.create(member=full, type=licence, expiry_date=dt.date(2026, 11, 25))

    dates = get_blocks(api, full, "expiry_dates")["expiry_dates"]

    assert dates == [
        {"id": licence.pk, "name": "Licence", "expiry_date": "2026-11-25", "expired": False},
        {"id": medical.pk, "name": "medical", "expiry_date": "2026-11-24", "expired": True},
    ]
    UserExpiryDate.objects.filter(type=medical).update(expiry_date=dt.date(2999, 12, 31))
    assert get_blocks(api, full, "expiry_dates")["expiry_dates"][1]["expired"] is False


def test_expired_uses_the_organizations_timezone(api, org, full, frozen_time):
    frozen_time.move_to(dt.datetime(2026, 11, 25, 23, 30, tzinfo=dt.UTC))  # 00:30 on the 26th in Stockholm
    medical = expiry_date_type_create(organization=org, name="Medical")
    UserExpiryDate.objects.create(member=full, type=medical, expiry_date=dt.date(2026, 11, 25))
    assert get_blocks(api, full, "expiry_dates")["expiry_dates"][0]["expired"] is True


def test_sensitive_blocks(api, full):
    data = get_blocks(api, full, *SENSITIVE, "misc_info")
    assert data["personal_identification_number"] == "19800101-1234"
    assert data["internal_notes"] == "Owes a hangar key"
    assert data["misc_info"] == "Likes gliders"
    assert data["emergency_contact"] == {"name": "Per", "phone": "0701", "relation": "Brother"}
    assert data["access_card"] == {"number": "00A1", "code": "0007", "expiry_date": "2027-06-30"}


@pytest.mark.parametrize("block", SENSITIVE)
def test_a_sensitive_block_without_users_sensitive_read_is_403_never_empty(make_api, org, full, block):
    for rights in ({"users": "rw"}, {"users": "rw", "users_sensitive": "w"}):
        token = make_api(org, rights=rights)
        assert_problem(token.get(f"/users/{full.user_id}", {"include": block}), 403, 10002)
        assert_problem(token.get("/users", {"include": f"email,{block}"}), 403, 10002)
        # also on the reply of a write
        assert_problem(token.patch(f"/users/{full.user_id}?include={block}", {"misc_info": "x"}), 403, 10002)
    full.refresh_from_db()
    assert full.misc_info == "Likes gliders"
    reader = make_api(org, rights={"users": "r", "users_sensitive": "r"})
    assert block in reader.get(f"/users/{full.user_id}", {"include": block}).json()["data"]


def test_plain_blocks_need_only_users_read(make_api, org, full):
    reader = make_api(org, rights={"users": "r"})
    data = reader.get("/users", {"include": ",".join(PLAIN)}).json()["data"]
    assert all(block in data[0] for block in PLAIN)


def test_replies_with_every_block_conform_to_the_presenters_schema(api, org, full):
    """What GET /users and GET /users/{id} send is what UserPresenter.json_schema() documents (filled and
    empty blocks alike)."""
    MemberFactory(organization=org)  # a member with every block empty
    validator = Draft202012Validator(UserPresenter.json_schema())
    listed = api.get("/users", {"include": ",".join(PLAIN + SENSITIVE)}).json()["data"]
    one = get_blocks(api, full, *PLAIN, *SENSITIVE)
    assert len(listed) == 3 and one["id"] == full.user_id  # the admin, the filled member, the empty one
    for item in (*listed, one):
        assert [error.message for error in validator.iter_errors(item)] == []
        assert set(item) == {*UserPresenter.fields, *PLAIN, *SENSITIVE}
