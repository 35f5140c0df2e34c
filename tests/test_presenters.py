"""The presenter mechanism on its own (without the views): items from rows, the same item from an object in
memory, a fixed number of queries per page, the context's today, and items that conform to json_schema()."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.db.models.functions import Lower
from django.test.utils import CaptureQueriesContext
from jsonschema import Draft202012Validator

from accounts.api.expiry_presenters import ExpiryDateListPresenter, UserExpiryDatePresenter
from accounts.api.presenters import ExpiryDateTypePresenter, GroupPresenter, OrganizationPresenter
from accounts.api.user_presenters import UserPresenter
from accounts.models import Member, MemberRole, Membership, UserEmail, UserExpiryDate, UserGroup
from accounts.selectors import types_with_dates_of
from apicore.presenters import STRING, Field, KeyedRows, Presenter, PresenterContext, Related
from economy.models import Transaction
from economy.selectors import member_balance
from main_api.api_v5 import TokenPresenter
from main_api.models import ApiToken
from tests.factories import ExpiryDateTypeFactory, MemberFactory

TODAY = dt.date(2026, 6, 15)
ALL_USER_BLOCKS = list(UserPresenter.blocks)
EVERY_PRESENTER = (
    TokenPresenter,
    OrganizationPresenter,
    GroupPresenter,
    ExpiryDateTypePresenter,
    UserPresenter,
    ExpiryDateListPresenter,
    UserExpiryDatePresenter,
)


def conforms(presenter_class, item, blocks=None):
    errors = sorted(Draft202012Validator(presenter_class.json_schema(blocks)).iter_errors(item), key=str)
    assert not errors, [f"{list(error.absolute_path)}: {error.message}" for error in errors]


def members(org):
    return Member.objects.filter(organization=org).order_by(Lower("user__name"), "user_id")


@pytest.fixture
def context(org):
    return PresenterContext(organization=org, today=TODAY)


@pytest.fixture
def filled(org):
    member = MemberFactory(
        organization=org,
        user__first_name="Åsa",
        user__last_name_particle="af",
        user__last_name="Öberg",
        user__street_address_1="Storgatan 1",
        user__city="Västerås",
        annual_fee=Decimal("1200.50"),
        access_card_expiry_date=dt.date(2027, 6, 30),
        membership=Membership.objects.create(organization=org, name="Senior"),
    )
    UserEmail.objects.create(user=member.user, position=1, address="b@x.se", invalid=True, invalid_reason="Bounce")
    UserEmail.objects.create(user=member.user, position=0, address="a@x.se")
    member.user_groups.add(UserGroup.objects.create(organization=org, name="pilots"))
    member.user_groups.add(UserGroup.objects.create(organization=org, name="Board"))
    for role in ("student", "admin"):
        MemberRole.objects.create(member=member, role=role)
    medical = ExpiryDateTypeFactory(organization=org, name="Medical")
    licence = ExpiryDateTypeFactory(organization=org, name="licence")
    UserExpiryDate.objects.create(member=member, type=medical, expiry_date=TODAY)
    UserExpiryDate.objects.create(member=member, type=licence, expiry_date=TODAY - dt.timedelta(days=1))
    for amount in ("-100.25", "12.30"):
        Transaction.objects.create(organization=org, user=member.user, date="2026-01-01", amount=amount, comment="x")
    return member


# --- JSON Schema --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("presenter_class", EVERY_PRESENTER, ids=lambda cls: cls.__name__)
def test_the_schema_requires_every_field_and_offers_every_block(presenter_class):
    schema = presenter_class.json_schema()
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == list(presenter_class.fields)
    assert list(schema["properties"]) == [*presenter_class.fields, *presenter_class.blocks]
    Draft202012Validator.check_schema(schema)


def test_the_schema_names_only_the_blocks_asked_for_and_refuses_unknown_ones():
    schema = UserPresenter.json_schema(["roles"])
    assert set(schema["properties"]) == {*UserPresenter.fields, "roles"}
    assert schema["properties"]["roles"]["items"]["enum"][0] == "admin"
    assert set(UserPresenter.json_schema([])["properties"]) == set(UserPresenter.fields)
    with pytest.raises(KeyError):
        UserPresenter.json_schema(["roles", "nope"])


def test_nullable_values_are_a_type_list_with_null():
    properties = UserPresenter.json_schema()["properties"]
    assert properties["ksak_member_number"] == {"type": ["string", "null"]}
    assert properties["membership"]["type"] == ["object", "null"]
    assert properties["account"]["properties"]["annual_fee"] == {"type": ["number", "null"]}
    assert properties["id"] == {"type": "integer"}


def test_a_null_where_the_schema_does_not_allow_it_is_caught():
    # The conformance check below can fail: a wrong type is reported.
    errors = list(Draft202012Validator(UserPresenter.json_schema([])).iter_errors({"id": None}))
    assert errors


# --- users: rows, every block, queries ----------------------------------------------------------------------


def test_a_user_with_every_block(org, filled, context):
    item = UserPresenter(context=context, include=ALL_USER_BLOCKS).one(members(org).filter(pk=filled.pk))
    conforms(UserPresenter, item)
    assert item["id"] == filled.user_id
    assert item["name"] == "Åsa af Öberg" and item["last_first_name"] == "Öberg, Åsa af"
    assert item["membership"] == {"id": filled.membership_id, "name": "Senior"}
    assert item["has_invalid_email_address"] is True
    assert item["email"] == [
        {"address": "a@x.se", "invalid": False, "invalid_reason": None},
        {"address": "b@x.se", "invalid": True, "invalid_reason": "Bounce"},
    ]
    assert [group["name"] for group in item["user_groups"]] == ["Board", "pilots"]
    assert item["roles"] == ["admin", "student"]
    # Sorted by name whatever the case; expired against the context's today (the date alone).
    assert [(d["name"], d["expired"]) for d in item["expiry_dates"]] == [("licence", True), ("Medical", False)]
    assert item["expiry_dates"][1]["expiry_date"] == TODAY.isoformat()
    assert item["account"] == {"balance": -87.95, "annual_fee": 1200.5, "external_customer_number": None}
    assert item["address"]["street_address"] == ["Storgatan 1"] and item["address"]["postal_code"] is None
    assert item["access_card"]["expiry_date"] == "2027-06-30"
    assert list(item) == [*UserPresenter.fields, *ALL_USER_BLOCKS]


def test_the_balance_is_the_one_of_the_selectors(org, filled):
    assert member_balance(filled) == Decimal("-87.95")
    assert member_balance(MemberFactory(organization=org)) == Decimal("0")


def test_a_page_costs_one_query_plus_one_per_related_block_whatever_its_length(org, filled, context):
    for index in range(30):
        MemberFactory(organization=org, user__first_name=f"Bulk{index:02}")
    presenter = UserPresenter(context=context, include=ALL_USER_BLOCKS)
    counts = {}
    for limit in (1, 31):
        with CaptureQueriesContext(connection) as captured:
            items = presenter.page(members(org), offset=0, limit=limit)
        assert len(items) == limit
        counts[limit] = len(captured)
    assert counts == {1: 5, 31: 5}  # the page, emails, user groups, roles, expiry dates
    with CaptureQueriesContext(connection) as captured:
        UserPresenter(context=context).page(members(org), offset=0, limit=31)
    assert len(captured) == 1
    (page,) = (query["sql"] for query in captured.captured_queries)
    # The page's keys (the narrow ordered LIMIT) inside the wide read, which repeats their order.
    assert "LIMIT 31" in page
    assert page.rstrip().rfind("ORDER BY") > page.find("LIMIT 31")


def test_a_page_of_an_order_the_wide_read_cannot_repeat_reads_the_keys_first(org, context):
    for name in ("Cecilia", "adam", "Bertil"):
        MemberFactory(organization=org, user__first_name=name, user__last_name="X")
    presenter = UserPresenter(context=context)
    with CaptureQueriesContext(connection) as captured:
        items = presenter.page(members(org).reverse(), offset=0, limit=2)
    assert [item["first_name"] for item in items] == ["Cecilia", "Bertil"]
    assert len(captured) == 2  # the keys, then the rows by them


def test_pages_follow_the_querysets_order_and_window(org, context):
    for name in ("Cecilia", "adam", "Bertil", "david"):
        MemberFactory(organization=org, user__first_name=name, user__last_name="X")
    presenter = UserPresenter(context=context)
    ordered = [item["first_name"] for item in presenter.page(members(org), offset=0, limit=10)]
    assert ordered == ["adam", "Bertil", "Cecilia", "david"]
    assert [item["first_name"] for item in presenter.page(members(org), offset=1, limit=2)] == ["Bertil", "Cecilia"]
    assert presenter.page(members(org), offset=4, limit=2) == []


def test_excluded_fields_are_neither_read_nor_present(org, filled, context):
    presenter = UserPresenter(context=context, exclude=["has_invalid_email_address", "membership"])
    with CaptureQueriesContext(connection) as captured:
        item = presenter.one(members(org).filter(pk=filled.pk))
    assert "has_invalid_email_address" not in item and "membership" not in item
    sql = captured[0]["sql"].lower()
    assert "accounts_useremail" not in sql and "accounts_membership" not in sql


def test_a_member_without_related_rows_has_empty_lists(org, context):
    bare = MemberFactory(organization=org)
    item = UserPresenter(context=context, include=ALL_USER_BLOCKS).one(members(org).filter(pk=bare.pk))
    conforms(UserPresenter, item)
    assert item["email"] == item["user_groups"] == item["roles"] == item["expiry_dates"] == []
    assert item["membership"] is None and item["account"]["balance"] == 0


# --- objects in memory ----------------------------------------------------------------------------------------


def test_render_of_an_object_in_memory_runs_no_query(org, api, admin, django_assert_num_queries):
    token = ApiToken.objects.select_related("organization", "owner").get(organization=org)
    with django_assert_num_queries(0):
        item = TokenPresenter().render(token)
    conforms(TokenPresenter, item)
    assert item["owner"] == {"id": admin.pk, "name": "Karin Lindqvist"}
    assert item["organization"] == {"id": org.pk, "name": org.name}
    with django_assert_num_queries(0):
        organization = OrganizationPresenter().render(org)
    conforms(OrganizationPresenter, organization)
    assert organization["location"]["timezone"] == org.timezone


def test_render_and_one_give_the_same_item(org, context):
    expiry_type = ExpiryDateTypeFactory(organization=org, name="Medical", booking_excluded_object_ids=[3, 1])
    presenter = ExpiryDateTypePresenter(context=context)
    from_rows = presenter.one(type(expiry_type).objects.filter(pk=expiry_type.pk))
    assert presenter.render(expiry_type) == from_rows
    assert from_rows["booking"]["excluded_object_ids"] == [3, 1]
    conforms(ExpiryDateTypePresenter, from_rows)


# --- groups and expiry dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [Membership, UserGroup])
def test_a_groups_users_are_its_own_organizations_members_by_name(org, other_org, model, context):
    group = model.objects.create(organization=org, name="Seniors")
    names = ("Örjan", "adam", "Bo")
    for name in names:
        member = MemberFactory(organization=org, user__first_name=name, user__last_name="X")
        member.membership = group if model is Membership else None
        member.save()
        if model is UserGroup:
            member.user_groups.add(group)
    stray = MemberFactory(organization=other_org)  # points at another organization's group: never listed
    if model is Membership:
        Member.objects.filter(pk=stray.pk).update(membership=group)
    else:
        stray.user_groups.add(group)
    empty = model.objects.create(organization=org, name="Empty")
    presenter = GroupPresenter(context=context, include=["users"])
    items = presenter.page(model.objects.filter(organization=org).order_by(Lower("name"), "id"), offset=0, limit=5)
    assert [item["name"] for item in items] == ["Empty", "Seniors"]
    assert items[0]["users"] == []
    assert [user["name"] for user in items[1]["users"]] == ["adam X", "Bo X", "Örjan X"]
    for item in items:
        conforms(GroupPresenter, item)
    assert presenter.render(empty) == {"id": empty.pk, "name": "Empty", "users": []}


def test_expired_is_against_the_contexts_today(org):
    member = MemberFactory(organization=org)
    medical = ExpiryDateTypeFactory(organization=org, name="Medical")
    ExpiryDateTypeFactory(organization=org, name="Licence")
    UserExpiryDate.objects.create(member=member, type=medical, expiry_date=TODAY)
    rows = types_with_dates_of(member).order_by(Lower("name"), "id")
    for today, expired in ((TODAY, False), (TODAY + dt.timedelta(days=1), True)):
        presenter = UserExpiryDatePresenter(context=PresenterContext(organization=org, today=today))
        items = presenter.page(rows, offset=0, limit=10)
        assert [(i["name"], i["expiry_date"], i["expired"]) for i in items] == [
            ("Licence", None, None),
            ("Medical", TODAY.isoformat(), expired),
        ]
        for item in items:
            conforms(UserExpiryDatePresenter, item)
        listed = ExpiryDateListPresenter(context=PresenterContext(today=today)).page(
            UserExpiryDate.objects.filter(member=member), offset=0, limit=10
        )
        assert listed[0]["expired"] is expired and listed[0]["user"]["id"] == member.user_id
        conforms(ExpiryDateListPresenter, listed[0])


def test_a_related_value_with_columns_is_computed_from_its_elements_and_the_items_columns(db):
    """An object's status reads its own totals and its maintenance items: one query for the page's items."""
    from accounts.models import Membership, Organization

    org = Organization.objects.create(name="Related")
    first = Membership.objects.create(organization=org, name="A")
    Membership.objects.create(organization=org, name="B")

    def memberships(_model, keys, _context):
        for row in Membership.objects.filter(organization_id__in=keys).order_by("name"):
            yield row.organization_id, row.name

    class Counted(Presenter):
        fields = {
            "summary": Field(
                STRING,
                "name",
                related=Related("id", load=memberships),
                compute=lambda names, org_name: f"{org_name}: {'+'.join(names)}",
            )
        }

    assert Counted().render(org) == {"summary": "Related: A+B"}
    first.delete()
    assert Counted().render(org) == {"summary": "Related: B"}


# --- blocks' rows in the page's statement ---------------------------------------------------------------------


def _due_items(rows):
    """A presenter of objects with one block of their maintenance items' rows as a queryset (Related.rows)."""
    from apicore.presenters import INTEGER, array

    class DueItems(Presenter):
        keys_first = False
        fields = {
            "id": Field(INTEGER, "id"),
            "items": Field(array(STRING), related=Related("id", rows=rows, element=list)),
        }

    return DueItems()


def test_block_rows_come_with_the_page_in_their_order_and_types(org, django_assert_num_queries):
    from apicore.database import among
    from objects_app.models import BookableObject, MaintenanceItem
    from tests.factories_operations import ObjectFactory

    first, second, bare = (ObjectFactory(organization=org, registration=f"SE-AA{n}") for n in range(3))
    for obj, name, due in [(first, "b", None), (second, "x", dt.date(2027, 1, 2)), (first, "A", dt.date(2027, 1, 1))]:
        MaintenanceItem.objects.create(object=obj, name=name, due_date=due, due_airborne=Decimal("101.25"))

    def rows(keys):
        return (
            MaintenanceItem.objects.filter(among("object_id", keys))
            .order_by("object_id", "name")
            .values_list("object_id", "name", "due_date")
        )

    objects = BookableObject.objects.filter(organization=org).order_by("registration")
    with django_assert_num_queries(1):
        items = _due_items(rows).page(objects, offset=0, limit=10)
    assert items == [
        {"id": first.pk, "items": [["A", dt.date(2027, 1, 1)], ["b", None]]},
        {"id": second.pk, "items": [["x", dt.date(2027, 1, 2)]]},
        {"id": bare.pk, "items": []},
    ]
    with django_assert_num_queries(1):
        assert _due_items(rows).one(objects.filter(pk=first.pk)) == items[0]


def test_block_rows_that_a_json_array_cannot_carry_exactly_are_read_apart(org, django_assert_num_queries):
    """A number with decimals (or a point in time) is not read back from JSON: that block is one more query, with
    the values the queryset gives."""
    from apicore.database import among
    from objects_app.models import BookableObject, MaintenanceItem
    from tests.factories_operations import ObjectFactory

    obj = ObjectFactory(organization=org)
    MaintenanceItem.objects.create(object=obj, name="100-hour", due_airborne=Decimal("101.25"))

    def rows(keys):
        return MaintenanceItem.objects.filter(among("object_id", keys)).values_list("object_id", "due_airborne")

    with django_assert_num_queries(2):
        items = _due_items(rows).page(BookableObject.objects.filter(pk=obj.pk), offset=0, limit=10)
    assert items == [{"id": obj.pk, "items": [[Decimal("101.25")]]}]


# --- GeneratedItems and KeyedRows (docs/decisions.md §1.34) --------------------------------------------------


class ReaderUserPresenter(Presenter):
    """UserPresenter's declarations read by the readers of Presenter itself (no generated function, the keys
    first, one query per Related)."""

    fields = UserPresenter.fields
    blocks = UserPresenter.blocks


def test_generated_items_are_the_readers_items(org, filled, context):
    MemberFactory(organization=org, user__first_name="Bare")
    for include, exclude in ((ALL_USER_BLOCKS, ()), (["email", "roles"], ["username", "membership"]), ((), ())):
        generated = UserPresenter(context=context, include=include, exclude=exclude)
        read = ReaderUserPresenter(context=context, include=include, exclude=exclude)
        assert generated.page(members(org), offset=0, limit=10) == read.page(members(org), offset=0, limit=10)
        assert generated.page(members(org), offset=1, limit=1) == read.page(members(org), offset=1, limit=1)
        one = members(org).filter(pk=filled.pk)
        assert generated.one(one) == read.one(one)
    assert UserPresenter(context=context).page(members(org), offset=5, limit=10) == []


def test_the_rows_of_a_keys_query_are_the_querysets_rows(org):
    for name in ("Cecilia", "adam", "Bertil", "david"):
        MemberFactory(organization=org, user__first_name=name, user__last_name="X")
    order = (Lower("user__name"), "user_id")
    reader = KeyedRows(
        lambda keys: Member.objects.filter(pk__in_keys=keys).order_by(*order).values_list("pk", "user__name")
    )
    keys_query = members(org).values_list("pk", flat=True)
    expected = list(members(org).values_list("pk", "user__name")[1:3])
    assert reader.rows_in(keys_query, offset=1, limit=2) == expected  # compiled once, run with each page's query
    assert reader.rows_in(keys_query, offset=0, limit=1) == list(members(org).values_list("pk", "user__name")[:1])
    assert reader.rows_in(keys_query, offset=9, limit=2) == []
    assert reader.rows_in(members(org).none().values_list("pk", flat=True), offset=0, limit=5) == []
    with pytest.raises(ValueError):
        reader.rows_in(keys_query[:2], offset=0, limit=2)
    keys = [key for key, _name in expected]
    assert sorted(reader.rows(keys)) == sorted(expected)


def test_a_process_keeps_a_bounded_number_of_shapes(org, filled, context, monkeypatch):
    from apicore import presenters

    monkeypatch.setattr(presenters, "SHAPES_KEPT", 0)
    monkeypatch.setattr(presenters.GeneratedItems, "_builders", {})
    monkeypatch.setattr(presenters.GeneratedItems, "_wide_rows", {})
    item = UserPresenter(context=context, include=["roles"]).page(members(org), offset=0, limit=1)
    assert item[0]["roles"] == ReaderUserPresenter(context=context, include=["roles"]).one(members(org))["roles"]
    assert presenters.GeneratedItems._builders == {} and presenters.GeneratedItems._wide_rows == {}
