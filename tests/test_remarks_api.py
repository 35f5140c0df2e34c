"""GET /remarks and GET /remarks/{id}: remarks on own and shared objects, with their history; filters, order,
local dates in the object's organization's zone, and the cost in queries."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from objects_app.models import BookableObject, Remark, RemarkEvent
from tests.factories import OrganizationFactory, UserFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory, RemarkEventFactory, RemarkFactory
from tests.helpers import assert_problem, problem_fields

UTC = dt.UTC


def listed(api, **params) -> list[dict]:
    response = api.get("/remarks", {"limit": 500, **params})
    assert response.status_code == 200, response.content
    return response.json()["data"]


def ids(api, **params) -> list[int]:
    return [item["id"] for item in listed(api, **params)]


def fetched(api, remark) -> dict:
    response = api.get(f"/remarks/{remark.pk}")
    assert response.status_code == 200, response.content
    return response.json()["data"]


@pytest.fixture
def aircraft(org):
    return ObjectFactory(organization=org, registration="SE-KBT")


def test_a_remark_with_its_history_oldest_first(api, org, aircraft):
    anna = UserFactory(first_name="Anna", last_name="Berg")
    olle = UserFactory(first_name="Olle", last_name="Ek")
    remark = RemarkFactory(
        object=aircraft,
        description="Left brake squeaks",
        category=1,
        state="closed",
        created_at=dt.datetime(2026, 11, 1, 9, 30, 15, 600_000, tzinfo=UTC),
        created_by=anna,
    )
    closed = RemarkEventFactory(
        remark=remark, action="closed", text="", at=dt.datetime(2026, 11, 3, tzinfo=UTC), by=olle
    )
    RemarkEventFactory(remark=remark, action="acknowledged", text="", at=dt.datetime(2026, 11, 2, tzinfo=UTC), by=None)
    RemarkEventFactory(
        remark=remark, action="commented", text="Pads changed", at=dt.datetime(2026, 11, 2, 12, tzinfo=UTC), by=olle
    )
    assert closed.pk  # made first, listed last: the history is by time

    assert fetched(api, remark) == {
        "id": remark.pk,
        "object": {"id": aircraft.pk, "registration": "SE-KBT", "organization": {"id": org.pk, "name": org.name}},
        "description": "Left brake squeaks",
        "category_id": 1,
        "state": "closed",
        "created_at": "2026-11-01T09:30:15Z",
        "created_by": {"id": anna.pk, "name": "Anna Berg"},
        "history": [
            {"action": "acknowledged", "text": None, "at": "2026-11-02T00:00:00Z", "by": None},
            {
                "action": "commented",
                "text": "Pads changed",
                "at": "2026-11-02T12:00:00Z",
                "by": {"id": olle.pk, "name": "Olle Ek"},
            },
            {"action": "closed", "text": None, "at": "2026-11-03T00:00:00Z", "by": {"id": olle.pk, "name": "Olle Ek"}},
        ],
    }


def test_a_new_remark_has_an_empty_history_and_may_have_no_writer(api, aircraft):
    remark = RemarkFactory(object=aircraft, created_by=None)
    item = fetched(api, remark)
    assert (item["history"], item["created_by"], item["state"]) == ([], None, "open")


def test_the_history_can_be_excluded(api, aircraft):
    RemarkEventFactory(remark=RemarkFactory(object=aircraft))
    (item,) = listed(api, exclude="history")
    assert "history" not in item


def test_newest_first_then_by_id(api, aircraft):
    at = dt.datetime(2026, 11, 5, 8, 0, tzinfo=UTC)
    old = RemarkFactory(object=aircraft, created_at=at - dt.timedelta(days=3))
    first_twin = RemarkFactory(object=aircraft, created_at=at)
    second_twin = RemarkFactory(object=aircraft, created_at=at)
    newest = RemarkFactory(object=aircraft, created_at=at + dt.timedelta(seconds=1))

    assert ids(api) == [newest.pk, second_twin.pk, first_twin.pk, old.pk]


# --- own and shared objects ----------------------------------------------------------------------------------


def test_remarks_on_an_object_shared_with_the_organization_are_listed_and_fetchable(api, org, other_org, aircraft):
    shared = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=shared, organization=org)
    on_shared = RemarkFactory(object=shared, created_at=dt.datetime(2026, 11, 2, tzinfo=UTC))
    own = RemarkFactory(object=aircraft, created_at=dt.datetime(2026, 11, 1, tzinfo=UTC))
    hidden = RemarkFactory(object=ObjectFactory(organization=other_org))

    assert ids(api) == [on_shared.pk, own.pk]
    assert fetched(api, on_shared)["object"] == {
        "id": shared.pk,
        "registration": "LN-ABC",
        "organization": {"id": other_org.pk, "name": "Bergen Flyklubb"},
    }
    assert_problem(api.get(f"/remarks/{hidden.pk}"), 404, 10100)


def test_the_owner_sees_remarks_of_its_shared_object_and_not_the_sharers_objects(other_api, org, other_org, aircraft):
    shared = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared, organization=org)
    on_shared = RemarkFactory(object=shared)
    RemarkFactory(object=aircraft)  # the caller's own object is not shared with the owner

    assert ids(other_api) == [on_shared.pk]


def test_a_remark_is_listed_once_however_many_share_its_object(api, org, other_org):
    shared = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=shared, organization=org)
    ObjectShareFactory(object=shared, organization=OrganizationFactory())
    remark = RemarkFactory(object=shared)

    assert ids(api) == [remark.pk]


# --- filters -------------------------------------------------------------------------------------------------


@pytest.fixture
def remarks(org, other_org, aircraft):
    shared = ObjectFactory(organization=other_org, registration="LN-ABC")
    ObjectShareFactory(object=shared, organization=org)
    day = dt.datetime(2026, 11, 10, 10, 0, tzinfo=UTC)
    return {
        "brake": RemarkFactory(object=aircraft, description="Left brake squeaks", category=1, created_at=day),
        "oil": RemarkFactory(
            object=aircraft,
            description="Oil 10% low_level",
            category=0,
            state="acknowledged",
            created_at=day - dt.timedelta(days=1),
        ),
        "flap": RemarkFactory(
            object=shared, description="Flap track loose", category=2, state="closed", created_at=day - dt.timedelta(2)
        ),
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"category_id": "2"}, ["flap"]),
        ({"category_id": "1"}, ["brake"]),
        ({"state": "open"}, ["brake"]),
        ({"state": "acknowledged"}, ["oil"]),
        ({"state": "closed"}, ["flap"]),
        ({"object_registration": "se-kbt"}, ["brake", "oil"]),
        ({"object_registration": "LN*"}, ["flap"]),
        ({"description": "left brake squeaks"}, ["brake"]),
        ({"description": "*brake*"}, ["brake"]),
        ({"description": "brake"}, []),  # the whole value
        ({"description": "*10% low_level"}, ["oil"]),
        ({"description": "*10_*"}, []),  # `_` is a plain character
        ({"description": "*%*"}, ["oil"]),
        ({"description": "*L*", "state": "open"}, ["brake"]),
    ],
)
def test_filters(api, remarks, params, expected):
    assert ids(api, **params) == [remarks[name].pk for name in expected]


def test_the_object_filter(api, remarks, aircraft):
    assert ids(api, object_id=str(aircraft.pk)) == [remarks["brake"].pk, remarks["oil"].pk]
    assert ids(api, object_id=str(remarks["flap"].object_id)) == [remarks["flap"].pk]
    assert ids(api, object_id="999999") == []


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"state": "OPEN"}, 10005),
        ({"state": "deleted"}, 10005),
        ({"category_id": "red"}, 10005),
        ({"object_id": "x"}, 10005),
        ({"created_from": "2026-02-30"}, 10110),
        ({"created_to": "10.11.2026"}, 10110),
        ({"description": "x" * 101}, 10005),
        ({"include": "status"}, 10005),  # remarks offer no blocks
        ({"text": "brake"}, 10007),
    ],
)
def test_wrong_parameters_are_400(api, params, code):
    body = assert_problem(api.get("/remarks", params), 400, code)
    assert set(problem_fields(body)) == set(params)


def test_created_dates_are_local_dates_in_the_objects_organizations_zone(api, org, aircraft):
    """23:30 UTC on 9 November is 00:30 on 10 November in Stockholm, and 12:30 on 10 November in Auckland."""
    kiwi = ObjectFactory(organization=OrganizationFactory(timezone="Pacific/Auckland"))
    ObjectShareFactory(object=kiwi, organization=org)
    late = dt.datetime(2026, 11, 9, 23, 30, tzinfo=UTC)
    stockholm = RemarkFactory(object=aircraft, created_at=late)
    auckland = RemarkFactory(object=kiwi, created_at=late - dt.timedelta(hours=12))  # 00:30 on the 10th there
    before = RemarkFactory(object=kiwi, created_at=late - dt.timedelta(hours=12, minutes=31))  # 23:59 on the 9th

    assert ids(api, created_from="2026-11-10") == [stockholm.pk, auckland.pk]
    assert ids(api, created_to="2026-11-09") == [before.pk]
    assert ids(api, created_from="2026-11-10", created_to="2026-11-10") == [stockholm.pk, auckland.pk]
    assert ids(api, created_from="2026-11-11") == []
    assert ids(api, created_to="2026-11-08") == []


def test_paging(api, aircraft):
    made = [RemarkFactory(object=aircraft, created_at=dt.datetime(2026, 11, n, tzinfo=UTC)) for n in range(1, 4)]
    body = api.get("/remarks", {"limit": 2, "offset": 1, "include_total": "true"}).json()
    assert [item["id"] for item in body["data"]] == [made[1].pk, made[0].pk]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 1, "has_more": False, "total": 3}


# --- queries -------------------------------------------------------------------------------------------------


def test_the_list_costs_the_same_at_limit_1_and_500(api, org, django_assert_max_num_queries):
    objects = BookableObject.objects.bulk_create(
        BookableObject(organization=org, registration=f"SE-{n:03d}") for n in range(30)
    )
    writer = UserFactory()
    remarks = Remark.objects.bulk_create(
        Remark(
            object=objects[n % 30],
            description=f"Remark {n}",
            created_at=dt.datetime(2026, 11, 1, tzinfo=UTC) + dt.timedelta(minutes=n),
            created_by=writer if n % 2 else None,
        )
        for n in range(520)
    )
    RemarkEvent.objects.bulk_create(
        RemarkEvent(remark=remark, action="commented", text="Seen", at=dt.datetime(2026, 11, 5, tzinfo=UTC), by=writer)
        for remark in remarks
        for _ in range(2)
    )
    api.get("/remarks", {"limit": 1})  # the token is looked up and cached outside the counted calls

    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/remarks", {"limit": 1}).json()["data"]) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/remarks", {"limit": 500}).json()
    assert body["meta"]["count"] == 500
    assert all(len(item["history"]) == 2 for item in body["data"])
    with django_assert_max_num_queries(len(at_limit_1) + 2):  # the zones of each local date filter
        api.get("/remarks", {"limit": 500, "created_from": "2026-11-01", "created_to": "2026-11-30"})


@pytest.mark.parametrize(
    ("params", "count"),
    [
        ({"created_from": "0001-01-01"}, 1),
        ({"created_to": "0001-01-01"}, 0),
        ({"created_from": "9999-12-31"}, 0),
        ({"created_to": "9999-12-31"}, 1),
    ],
)
def test_the_extreme_dates_answer(api, aircraft, params, count):
    RemarkFactory(object=aircraft)
    assert len(ids(api, **params)) == count
