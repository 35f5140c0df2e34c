"""GET /objects and GET /objects/{id}: fields, own and shared objects, filters, order, the blocks (status,
active remarks, maintenance items, settings, time summary), local dates and the cost in queries."""

import datetime as dt
import uuid
from decimal import Decimal

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apicore import database
from objects_app.models import BookableObject, Category, MaintenanceItem, ObjectShare, Remark
from tests.factories import OrganizationFactory, UserFactory
from tests.factories_operations import (
    EquipmentFactory,
    MaintenanceItemFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
)
from tests.helpers import assert_problem, problem_fields

UTC = dt.UTC
ALL_BLOCKS = "status,active_remarks,maintenance_items,settings,time_summary"
NO_REMAINING = {
    "soft_airborne": None,
    "soft_airborne_formatted": None,
    "hard_airborne": None,
    "hard_airborne_formatted": None,
}


def listed(api, **params) -> list[dict]:
    response = api.get("/objects", {"limit": 500, **params})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def registrations(api, **params) -> list[str]:
    return [item["registration"] for item in listed(api, **params)]


def fetched(api, obj, include: str | None = None) -> dict:
    response = api.get(f"/objects/{obj.pk}", {"include": include} if include else None)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def status_of(api, obj) -> dict:
    return fetched(api, obj, "status")["status"]


# --- fields --------------------------------------------------------------------------------------------------


def test_an_aircraft_has_every_field(api, org):
    aircraft = ObjectFactory(organization=org, registration="SE-KBT", comment="")

    assert fetched(api, aircraft) == {
        "id": aircraft.pk,
        "registration": "SE-KBT",
        "category": {"id": 0, "name": "Aircraft"},
        "type_designator": "C172",
        "type_name": "Cessna 172 Skyhawk",
        "comment": None,
        "organization": {"id": org.pk, "name": "Västerås Flygklubb"},
        "active": True,
    }


def test_other_objects_have_no_type_and_their_category_by_name(api, org):
    headset = EquipmentFactory(organization=org, registration="Headset 1", comment="Left shelf")
    room = ObjectFactory(
        organization=org, category=Category.PREMISES, registration="Briefing", type_designator="X", type_name="Y"
    )

    assert fetched(api, headset)["category"] == {"id": 1, "name": "Equipment"}
    assert fetched(api, headset)["comment"] == "Left shelf"
    item = fetched(api, room)
    assert item["category"] == {"id": 2, "name": "Premises"}
    assert (item["type_designator"], item["type_name"]) == (None, None)


def test_an_aircraft_without_type_has_null_type_fields(api, org):
    aircraft = ObjectFactory(organization=org, type_designator="", type_name="")
    item = fetched(api, aircraft)
    assert (item["type_designator"], item["type_name"]) == (None, None)


# --- own and shared objects ----------------------------------------------------------------------------------


def test_an_object_shared_with_the_organization_is_listed_and_fetchable_with_its_owner(api, org, other_org):
    own = ObjectFactory(organization=org, registration="SE-AAA")
    shared = ObjectFactory(organization=other_org, registration="LN-BBB")
    ObjectShareFactory(object=shared, organization=org)
    ObjectFactory(organization=other_org, registration="LN-CCC")  # not shared

    assert registrations(api) == ["LN-BBB", "SE-AAA"]
    item = fetched(api, shared, ALL_BLOCKS)
    assert item["organization"] == {"id": other_org.pk, "name": "Bergen Flyklubb"}
    assert fetched(api, own)["organization"]["id"] == org.pk


def test_an_object_shared_with_a_third_organization_only_is_not_found(api, org, other_org):
    third = OrganizationFactory(name="Third")
    theirs = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=theirs, organization=third)

    assert listed(api) == []
    assert_problem(api.get(f"/objects/{theirs.pk}"), 404, 10100)


def test_a_shared_object_appears_once_however_many_organizations_share_it(api, org, other_org):
    shared = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared, organization=org)
    ObjectShareFactory(object=shared, organization=OrganizationFactory())

    assert [item["id"] for item in listed(api)] == [shared.pk]


def test_the_owner_sees_its_shared_object_as_its_own(other_api, org, other_org):
    shared = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared, organization=org)

    assert [item["id"] for item in listed(other_api)] == [shared.pk]


# --- filters -------------------------------------------------------------------------------------------------


@pytest.fixture
def fleet(org, other_org):
    shared = ObjectFactory(organization=other_org, registration="LN-ABC", type_designator="PA28")
    ObjectShareFactory(object=shared, organization=org)
    return {
        "kbt": ObjectFactory(organization=org, registration="SE-KBT", type_designator="C172"),
        "mxa": ObjectFactory(organization=org, registration="SE-MXA", type_designator="C152", active=False),
        "under": ObjectFactory(organization=org, registration="SE_X%1", type_designator="DV20"),
        "headset": EquipmentFactory(organization=org, registration="Headset 1", type_designator="C172"),
        "shared": shared,
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"registration": "se-kbt"}, ["SE-KBT"]),
        ({"registration": "SE-K"}, []),
        ({"registration": "SE-*"}, ["SE-KBT", "SE-MXA"]),
        ({"registration": "*A*"}, ["LN-ABC", "SE-MXA", "Headset 1"]),
        ({"registration": "SE_*"}, ["SE_X%1"]),  # `_` is a plain character
        ({"registration": "SE_X%*"}, ["SE_X%1"]),  # `%` too
        ({"registration": "%"}, []),
        ({"registration": "SE-KB_"}, []),
        ({"type_designator": "c1*"}, ["SE-KBT", "SE-MXA"]),  # the headset's column is not a type
        ({"type_designator": "PA28"}, ["LN-ABC"]),
        ({"organization_name": "bergen*"}, ["LN-ABC"]),
        ({"organization_name": "Västerås Flygklubb"}, ["SE-KBT", "SE-MXA", "SE_X%1", "Headset 1"]),
        ({"category_id": "1"}, ["Headset 1"]),
        ({"category_id": "2"}, []),
        ({"active": "false"}, ["SE-MXA"]),
        ({"active": "true", "category_id": "0"}, ["LN-ABC", "SE-KBT", "SE_X%1"]),
    ],
)
def test_filters(api, fleet, params, expected):
    assert registrations(api, **params) == expected


def test_the_owner_filter(api, org, other_org, fleet):
    assert registrations(api, organization_id=str(other_org.pk)) == ["LN-ABC"]
    assert len(registrations(api, organization_id=str(org.pk))) == 4
    assert registrations(api, organization_id="999999") == []


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"active": "1"}, 10005),
        ({"category_id": "one"}, 10005),
        ({"organization_id": "1.5"}, 10005),
        ({"registration": "x" * 101}, 10005),
        ({"limit": "501"}, 10005),
        ({"include": "status,history"}, 10005),
        ({"registration": ""}, 10005),
        ({"colour": "red"}, 10007),
    ],
)
def test_wrong_parameters_are_400(api, params, code):
    body = assert_problem(api.get("/objects", params), 400, code)
    assert set(problem_fields(body)) == set(params)


def test_the_order_is_category_then_registration_in_any_case_then_id(api, org, other_org):
    second_org = OrganizationFactory()
    ObjectFactory(organization=org, registration="se-bbb")
    ObjectFactory(organization=org, registration="SE-AAA")
    EquipmentFactory(organization=org, registration="Alpha headset")
    ObjectFactory(organization=org, category=Category.PREMISES, registration="Aaa room")
    ObjectFactory(organization=org, registration="SE-CCC")
    twin = ObjectFactory(organization=second_org, registration="SE-CCC")
    ObjectShareFactory(object=twin, organization=org)

    items = listed(api)
    assert [item["registration"] for item in items] == [
        "SE-AAA",
        "se-bbb",
        "SE-CCC",
        "SE-CCC",
        "Alpha headset",
        "Aaa room",
    ]
    twins = [item["id"] for item in items if item["registration"] == "SE-CCC"]
    assert twins == sorted(twins)


def test_paging_and_total(api, org):
    for n in range(3):
        ObjectFactory(organization=org, registration=f"SE-AA{n}")
    body = api.get("/objects", {"limit": 2, "include_total": "true"}).json()
    assert [item["registration"] for item in body["data"]] == ["SE-AA0", "SE-AA1"]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "total": 3}
    assert body["links"]["next"].endswith("offset=2")


# --- status --------------------------------------------------------------------------------------------------


@pytest.fixture
def aircraft(org):
    """100 hours airborne."""
    return ObjectFactory(organization=org, airborne_minutes=6000)


def item(aircraft, **limits) -> MaintenanceItem:
    return MaintenanceItemFactory(object=aircraft, **{"due_date": None, **limits})


def test_an_object_without_items_or_remarks_is_ok(api, aircraft):
    assert status_of(api, aircraft) == {
        "total_id": 0,
        "maintenance_id": 0,
        "remarks_id": 0,
        "remaining_time": NO_REMAINING,
    }


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        # today is 2026-11-25 in Stockholm
        ({"due_date": dt.date(2026, 11, 24)}, 2),
        ({"due_date": dt.date(2026, 11, 25)}, 1),  # the due date itself: the last day
        ({"due_date": dt.date(2026, 11, 26)}, 0),
        ({"due_date": dt.date(2026, 12, 5), "warning_days": 10}, 1),
        ({"due_date": dt.date(2026, 12, 6), "warning_days": 10}, 0),
        ({"due_airborne": Decimal("100.00")}, 2),  # reached the soft limit
        ({"due_airborne": Decimal("99.50")}, 2),
        ({"due_airborne": Decimal("100.01")}, 0),
        ({"due_airborne": Decimal("105.00"), "warning_hours": Decimal("5")}, 1),
        ({"due_airborne": Decimal("105.01"), "warning_hours": Decimal("5")}, 0),
        ({"hard_airborne": Decimal("100.00")}, 2),
        ({"hard_airborne": Decimal("102.00"), "warning_hours": Decimal("2.5")}, 1),
        ({"hard_airborne": Decimal("103.00"), "warning_hours": Decimal("2.5")}, 0),
        ({"due_airborne": Decimal("150"), "hard_airborne": Decimal("99")}, 2),
    ],
)
def test_the_maintenance_status(api, aircraft, frozen_time, limits, expected):
    item(aircraft, **limits)

    status = status_of(api, aircraft)
    assert status["maintenance_id"] == expected
    assert status["total_id"] == expected
    assert status["remarks_id"] == 0


def test_the_worst_item_counts(api, aircraft, frozen_time):
    item(aircraft, due_date=dt.date(2027, 6, 1))
    item(aircraft, due_airborne=Decimal("101"), warning_hours=Decimal("2"))
    assert status_of(api, aircraft)["maintenance_id"] == 1
    item(aircraft, due_date=dt.date(2026, 1, 1))
    assert status_of(api, aircraft)["maintenance_id"] == 2


def test_the_remaining_time_is_to_the_nearest_soft_and_hard_limits(api, aircraft):
    item(aircraft, due_airborne=Decimal("101.50"), hard_airborne=Decimal("110"))
    item(aircraft, due_airborne=Decimal("125"), hard_airborne=Decimal("104.25"))
    item(aircraft, due_date=dt.date(2030, 1, 1))

    assert status_of(api, aircraft)["remaining_time"] == {
        "soft_airborne": 1.5,
        "soft_airborne_formatted": "1:30",
        "hard_airborne": 4.25,
        "hard_airborne_formatted": "4:15",
    }


def test_a_past_limit_is_negative(api, org):
    aircraft = ObjectFactory(organization=org, airborne_minutes=6125)  # 102:05
    item(aircraft, due_airborne=Decimal("100.50"), hard_airborne=Decimal("102"))

    assert status_of(api, aircraft)["remaining_time"] == {
        "soft_airborne": -1.58,
        "soft_airborne_formatted": "-1:35",
        "hard_airborne": -0.08,
        "hard_airborne_formatted": "-0:05",
    }


def test_the_remarks_status_is_the_highest_category_not_closed(api, aircraft):
    RemarkFactory(object=aircraft, category=2, state="closed")
    RemarkFactory(object=aircraft, category=0)
    assert status_of(api, aircraft)["remarks_id"] == 0
    RemarkFactory(object=aircraft, category=1, state="acknowledged")
    status = status_of(api, aircraft)
    assert (status["remarks_id"], status["total_id"]) == (1, 1)


def test_the_total_is_the_worse_of_maintenance_and_remarks(api, aircraft, frozen_time):
    RemarkFactory(object=aircraft, category=2)
    item(aircraft, due_date=dt.date(2026, 11, 30), warning_days=7)

    status = status_of(api, aircraft)
    assert (status["total_id"], status["maintenance_id"], status["remarks_id"]) == (2, 1, 2)


def test_an_object_without_status_has_null_status_fields(api, org):
    room = ObjectFactory(organization=org, category=Category.PREMISES, has_status=False)
    item(room, due_date=dt.date(2020, 1, 1), due_airborne=Decimal(1))
    RemarkFactory(object=room, category=2)

    assert status_of(api, room) == {
        "total_id": None,
        "maintenance_id": None,
        "remarks_id": None,
        "remaining_time": NO_REMAINING,
    }


def test_dates_are_compared_in_the_objects_organizations_zone(api, org):
    """At 12:00 UTC on 25 November it is already the 26th in Auckland: a shared object of a club there is past
    its date of the 25th, while the caller's own object with the same date is on its last day."""
    kiwi = ObjectFactory(organization=OrganizationFactory(timezone="Pacific/Auckland"))
    ObjectShareFactory(object=kiwi, organization=org)
    own = ObjectFactory(organization=org)
    for obj in (kiwi, own):
        item(obj, due_date=dt.date(2026, 11, 25))

    with time_machine.travel(dt.datetime(2026, 11, 25, 12, 0, tzinfo=UTC), tick=False):
        assert status_of(api, kiwi)["maintenance_id"] == 2
        assert status_of(api, own)["maintenance_id"] == 1
        assert fetched(api, kiwi, "maintenance_items")["maintenance_items"][0]["remaining_days"] == -1
        assert fetched(api, own, "maintenance_items")["maintenance_items"][0]["remaining_days"] == 0


def test_the_status_changes_with_the_clock(api, aircraft):
    item(aircraft, due_date=dt.date(2026, 12, 1), warning_days=3)
    # 22:59 UTC on 27 November is 23:59 in Stockholm; a minute later it is the 28th there.
    with time_machine.travel(dt.datetime(2026, 11, 27, 22, 59, tzinfo=UTC), tick=False):
        assert status_of(api, aircraft)["maintenance_id"] == 0
    with time_machine.travel(dt.datetime(2026, 11, 27, 23, 0, tzinfo=UTC), tick=False):
        assert status_of(api, aircraft)["maintenance_id"] == 1


# --- active remarks ------------------------------------------------------------------------------------------


def test_active_remarks_are_the_remarks_not_closed_newest_first_with_local_dates(api, aircraft):
    writer = UserFactory(first_name="Anna", last_name="Berg")
    older = RemarkFactory(
        object=aircraft,
        description="Oil stain",
        category=0,
        created_at=dt.datetime(2026, 11, 1, 9, 0, tzinfo=UTC),
        created_by=writer,
    )
    # 23:30 UTC on 2 November is 00:30 on 3 November in Stockholm.
    newer = RemarkFactory(
        object=aircraft,
        description="Flap track loose",
        category=2,
        state="acknowledged",
        created_at=dt.datetime(2026, 11, 2, 23, 30, tzinfo=UTC),
        created_by=None,
    )
    RemarkFactory(object=aircraft, state="closed", created_at=dt.datetime(2026, 11, 5, tzinfo=UTC))
    RemarkFactory(object=ObjectFactory(organization=aircraft.organization))  # another object's

    assert fetched(api, aircraft, "active_remarks")["active_remarks"] == [
        {
            "id": newer.pk,
            "created_date": "2026-11-03",
            "created_by": None,
            "description": "Flap track loose",
            "category_id": 2,
        },
        {
            "id": older.pk,
            "created_date": "2026-11-01",
            "created_by": {"id": writer.pk, "name": "Anna Berg"},
            "description": "Oil stain",
            "category_id": 0,
        },
    ]


def test_an_object_without_remarks_has_an_empty_list(api, aircraft):
    assert fetched(api, aircraft, "active_remarks")["active_remarks"] == []


def test_a_shared_objects_remark_dates_are_in_its_owners_zone(api, org):
    kiwi = ObjectFactory(organization=OrganizationFactory(timezone="Pacific/Auckland"))
    ObjectShareFactory(object=kiwi, organization=org)
    RemarkFactory(object=kiwi, created_at=dt.datetime(2026, 11, 1, 12, 0, tzinfo=UTC))  # 01:00 on the 2nd there

    assert fetched(api, kiwi, "active_remarks")["active_remarks"][0]["created_date"] == "2026-11-02"


# --- maintenance items ---------------------------------------------------------------------------------------


def test_maintenance_items_by_due_date_then_name_with_what_remains(api, aircraft, frozen_time):
    annual = item(aircraft, name="Annual", due_date=dt.date(2026, 12, 5), warning_days=30)
    hundred = item(
        aircraft,
        name="100-hour",
        due_airborne=Decimal("101.25"),
        hard_airborne=Decimal("110"),
        warning_hours=Decimal("2"),
    )
    elt = item(aircraft, name="elt battery", due_date=dt.date(2027, 1, 1))
    arc = item(aircraft, name="ARC", due_date=dt.date(2027, 1, 1))
    radio = item(aircraft, name="Radio licence", due_date=dt.date(2026, 11, 20))

    items = fetched(api, aircraft, "maintenance_items")["maintenance_items"]
    assert [entry["id"] for entry in items] == [radio.pk, annual.pk, arc.pk, elt.pk, hundred.pk]
    assert items[1] == {
        "id": annual.pk,
        "name": "Annual",
        "due_date": "2026-12-05",
        "due_airborne": None,
        "hard_airborne": None,
        "warning_days": 30,
        "warning_hours": 0.0,
        "remaining_days": 10,
        "remaining_hours": None,
        "status_id": 1,
    }
    assert items[4] == {
        "id": hundred.pk,
        "name": "100-hour",
        "due_date": None,
        "due_airborne": 101.25,
        "hard_airborne": 110.0,
        "warning_days": 0,
        "warning_hours": 2.0,
        "remaining_days": None,
        "remaining_hours": 1.25,
        "status_id": 1,
    }
    assert (items[0]["remaining_days"], items[0]["status_id"]) == (-5, 2)
    assert [entry["status_id"] for entry in items[2:4]] == [0, 0]


def test_an_object_without_items_has_an_empty_list(api, aircraft):
    assert fetched(api, aircraft, "maintenance_items")["maintenance_items"] == []


# --- settings and time summary -------------------------------------------------------------------------------


def test_the_settings_of_an_aircraft(api, org):
    aircraft = ObjectFactory(
        organization=org, use_expected_airborne=True, force_expected_time=False, max_booking_length=240
    )
    unlimited = ObjectFactory(organization=org)

    assert fetched(api, aircraft, "settings")["settings"] == {
        "use_expected_airborne": True,
        "force_expected_time": False,
        "max_booking_length": 240,
    }
    assert fetched(api, unlimited, "settings")["settings"]["max_booking_length"] is None


def test_other_objects_have_null_settings(api, org):
    headset = EquipmentFactory(organization=org, use_expected_airborne=True, max_booking_length=60)
    room = ObjectFactory(organization=org, category=Category.PREMISES)

    assert fetched(api, headset, "settings")["settings"] is None
    assert fetched(api, room, "settings")["settings"] is None


def test_the_time_summary_comes_from_the_objects_totals(api, org):
    aircraft = ObjectFactory(
        organization=org,
        airborne_minutes=6125,
        block_minutes=7201,
        tach_hours=Decimal("1234.56"),
        landings=4321,
    )

    assert fetched(api, aircraft, "time_summary")["time_summary"] == {
        "total": {
            "airborne": 102.08,
            "airborne_formatted": "102:05",
            "block": 120.02,
            "block_formatted": "120:01",
            "tach": 1234.56,
            "tach_formatted": "1234:34",
            "landings": 4321,
        }
    }


def test_the_largest_totals_and_limits_the_columns_hold(api, org, frozen_time):
    """Hours are read as whole hundredths (objects_app.status): the largest values of their columns too."""
    aircraft = ObjectFactory(organization=org, airborne_minutes=6000, tach_hours=Decimal("9999999999.99"))
    item(aircraft, name="Far", due_airborne=Decimal("99999999.99"), warning_hours=Decimal("999999.99"))

    body = fetched(api, aircraft, ALL_BLOCKS)
    assert body["time_summary"]["total"]["tach"] == 9999999999.99
    assert body["time_summary"]["total"]["tach_formatted"] == "9999999999:59"
    assert body["maintenance_items"][0]["due_airborne"] == 99999999.99
    assert body["maintenance_items"][0]["remaining_hours"] == 99999899.99
    assert body["status"]["remaining_time"]["soft_airborne_formatted"] == "99999899:59"
    assert body["maintenance_items"][0]["warning_hours"] == 999999.99
    assert listed(api, include=ALL_BLOCKS)[0] == body


def test_a_new_objects_time_summary_is_zero(api, org):
    assert fetched(api, ObjectFactory(organization=org), "time_summary")["time_summary"]["total"] == {
        "airborne": 0.0,
        "airborne_formatted": "0:00",
        "block": 0.0,
        "block_formatted": "0:00",
        "tach": 0.0,
        "tach_formatted": "0:00",
        "landings": 0,
    }


def test_every_block_on_the_list_and_the_item_alike(api, aircraft, frozen_time):
    item(aircraft, due_date=dt.date(2026, 12, 1), warning_days=10)
    RemarkFactory(object=aircraft, category=1)

    (from_list,) = listed(api, include=ALL_BLOCKS)
    assert from_list == fetched(api, aircraft, ALL_BLOCKS)
    assert from_list["status"]["total_id"] == 1


# --- queries -------------------------------------------------------------------------------------------------


def test_the_list_with_every_block_costs_the_same_at_limit_1_and_500(
    api, org, other_org, frozen_time, django_assert_max_num_queries
):
    objects = BookableObject.objects.bulk_create(
        BookableObject(organization=org, registration=f"SE-{n:04d}", airborne_minutes=60 * n) for n in range(260)
    )
    shared = BookableObject.objects.bulk_create(
        BookableObject(organization=other_org, registration=f"LN-{n:04d}") for n in range(260)
    )
    ObjectShare.objects.bulk_create(ObjectShare(object=obj, organization=org) for obj in shared)
    writer = UserFactory()
    MaintenanceItem.objects.bulk_create(
        MaintenanceItem(object=obj, name=f"Check {n}", due_date=dt.date(2027, 1, 1), due_airborne=Decimal(n + 50))
        for n, obj in enumerate(objects + shared)
        for _ in range(2)
    )
    Remark.objects.bulk_create(
        Remark(
            object=obj,
            description="Squeak",
            category=n % 3,
            created_at=dt.datetime(2026, 11, 1, tzinfo=UTC),
            created_by=writer,
        )
        for n, obj in enumerate(objects + shared)
    )
    api.get("/objects", {"limit": 1})  # the token is looked up and cached outside the counted calls

    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/objects", {"limit": 1, "include": ALL_BLOCKS}).json()["data"]) == 1
    # The token and the page: one statement (ObjectPresenter.keys_first) that also reads the maintenance items and
    # the remarks not closed (each once for the status and its own block: apicore.database.WithBlockRows).
    assert len(at_limit_1) == 2

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/objects", {"limit": 500, "include": ALL_BLOCKS}).json()
    assert body["meta"]["count"] == 500
    assert all(len(entry["maintenance_items"]) == 2 for entry in body["data"])
    assert all(len(entry["active_remarks"]) == 1 for entry in body["data"])
    with CaptureQueriesContext(connection) as one_item:
        api.get(f"/objects/{objects[0].pk}", {"include": ALL_BLOCKS})
    assert len(one_item) <= len(at_limit_1)


# --- the page's statement, compiled once --------------------------------------------------------------------


def test_the_page_statement_is_compiled_once_per_organization_and_query(api, other_api, org, other_org, monkeypatch):
    """ListEndpoint.statement_key: the statement of a page (the blocks' rows with it) is compiled on an
    organization's first call of a query and then only run, so the rows are always the current ones; another
    organization or another query has its own."""
    compiled = []
    original = database.Compiled.__init__

    def counted(self, queryset, connection):
        compiled.append(queryset.model)
        original(self, queryset, connection)

    monkeypatch.setattr(database.Compiled, "__init__", counted)
    mine = ObjectFactory(organization=org, registration="SE-MIN")
    theirs = ObjectFactory(organization=other_org, registration="SE-MIN")
    # A query no earlier test sent: its statement is not kept yet.
    query = {"include": ALL_BLOCKS, "registration": f"se-min*{uuid.uuid4().hex[:6]}*"}
    assert api.get("/objects", query).json()["data"] == []
    assert len(compiled) == 1
    query["registration"] = "se-min*"
    assert [entry["id"] for entry in api.get("/objects", query).json()["data"]] == [mine.pk]
    assert [entry["id"] for entry in other_api.get("/objects", query).json()["data"]] == [theirs.pk]
    assert len(compiled) == 3

    RemarkFactory(object=mine, category=2)
    item(mine, name="Annual", due_date=dt.date(2027, 1, 1))
    ObjectFactory(organization=org, registration="se-min 2")
    data = api.get("/objects", query).json()["data"]
    assert len(compiled) == 3
    assert [entry["registration"] for entry in data] == ["SE-MIN", "se-min 2"]
    assert data[0]["status"]["remarks_id"] == 2
    assert [entry["name"] for entry in data[0]["maintenance_items"]] == ["Annual"]
    assert data[0] == fetched(api, mine, ALL_BLOCKS)


def test_a_filter_no_row_can_meet_gives_an_empty_page_with_every_block(api, org):
    """An id beyond the column's range is a condition no row can meet (on PostgreSQL the statement is never sent)."""
    ObjectFactory(organization=org)
    body = api.get("/objects", {"include": ALL_BLOCKS, "category_id": "999999999999999999"}).json()
    assert (body["data"], body["meta"]["count"]) == ([], 0)


# --- the OpenAPI document ------------------------------------------------------------------------------------


def test_replies_conform_to_the_document(api, org, other_org, frozen_time):
    from django.test import Client

    from tests.test_openapi import DOCUMENT_URL, Conformance

    document = Client().get(DOCUMENT_URL, secure=True).json()
    conformance = Conformance(document)
    shared = ObjectFactory(organization=other_org, has_status=False)
    ObjectShareFactory(object=shared, organization=org)
    aircraft = ObjectFactory(organization=org, airborne_minutes=6125, tach_hours=Decimal("12.5"))
    headset = EquipmentFactory(organization=org)
    item(aircraft, due_date=dt.date(2026, 12, 1), due_airborne=Decimal("100"), hard_airborne=Decimal("110"))
    item(headset, due_date=None, due_airborne=None, hard_airborne=Decimal("3"))
    remark = RemarkFactory(object=aircraft, created_by=None)
    RemarkFactory(object=shared)
    from tests.factories_operations import RemarkEventFactory

    RemarkEventFactory(remark=remark, action="acknowledged", text="", by=None)
    RemarkEventFactory(remark=remark)

    calls = [
        ("/objects", f"/objects?include={ALL_BLOCKS}&include_total=true"),
        ("/objects/{id}", f"/objects/{aircraft.pk}?include={ALL_BLOCKS}"),
        ("/objects/{id}", f"/objects/{shared.pk}?include={ALL_BLOCKS}"),
        ("/objects/{id}", f"/objects/{headset.pk}?include={ALL_BLOCKS}&exclude=comment"),
        ("/remarks", "/remarks?include_total=true"),
        ("/remarks/{id}", f"/remarks/{remark.pk}"),
    ]
    for template, address in calls:
        conformance.check("GET", template, api.get(address), 200)
    conformance.check("GET", "/objects/{id}", api.get("/objects/999999999"), 404)
    conformance.check("GET", "/remarks/{id}", api.get("/remarks/999999999"), 404)
    conformance.check("GET", "/remarks", api.get("/remarks?state=gone"), 400)
    conformance.check("GET", "/remarks", api.get("/remarks?created_from=2026-13-01"), 400)
