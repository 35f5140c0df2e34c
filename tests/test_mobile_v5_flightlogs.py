"""GET /mobile/v5/flightlogs and /flightlogs/{id} (document 2, Flight log entry): every field, the
organization's and shared objects' flights, another organization's never, `object_id`, `mine`, the dates,
`order`, paging, `exclude`, a hidden crew, the flight log off, hostile parameters, rights and query counts."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from flightlog.models import FlightLogEntry
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import (
    AirportFactory,
    FlightFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
)
from tests.helpers import assert_problem, problem_fields
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db
UTC = dt.UTC


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=UTC)


@pytest.fixture
def club(db):
    return OrganizationFactory(name="Västerås Flygklubb")


@pytest.fixture
def partner(db):
    """Owns an aircraft shared with the club, and hides the crew in its log."""
    return OrganizationFactory(name="Eskilstuna Flygklubb", hide_crew_in_log=True)


@pytest.fixture
def stranger(db):
    return OrganizationFactory(name="Bergen Flyklubb", timezone="Europe/Oslo")


@pytest.fixture
def member(club):
    return MemberFactory(
        organization=club, member_number="0042", user__first_name="Anna", user__last_name="Berg", user__name=""
    )


@pytest.fixture
def app_client(club):
    return make_app_client(rights={"flightlogs": "r"})


@pytest.fixture
def api(member, app_client):
    return MobileApi(issue_member_tokens(member, app_client).access_token)


@pytest.fixture
def aircraft(club):
    return ObjectFactory(organization=club, registration="SE-KUA")


@pytest.fixture
def shared(partner, club):
    aircraft = ObjectFactory(organization=partner, registration="SE-SHR")
    ObjectShareFactory(object=aircraft, organization=club)
    return aircraft


@pytest.fixture
def world(club, partner, stranger, member, aircraft, shared):
    """Flights: mine as pilot (20th), mine as instructor (21st), someone else's without times (22nd), on the
    shared aircraft (19th, crew hidden, mine as pilot; 23rd, not mine), and one of a stranger's aircraft."""
    bromma = AirportFactory(icao="ESSB", name="Stockholm Bromma")
    vasteras = AirportFactory(icao="ESOW", name="Västerås")
    colleague = MemberFactory(organization=club, member_number="0007", user__first_name="Bo", user__last_name="Ek")
    student = MemberFactory(
        organization=partner, member_number="P1", user__first_name="Cilla", user__last_name="Student"
    )
    return {
        "mine": FlightFactory(
            organization=club,
            object=aircraft,
            date=dt.date(2026, 11, 20),
            flight_type=FlightTypeFactory(organization=club, name="Privat"),
            departure_airport=vasteras,
            arrival_airport=bromma,
            blockoff_at=at(20, 10),
            takeoff_at=at(20, 10, 7),
            landing_at=at(20, 11, 5),
            blockon_at=at(20, 11, 10),
            departure_tachometer=Decimal("1234.50"),
            arrival_tachometer=Decimal("1235.60"),
            via_route="ESSU",
            pilot=member,
            scout=colleague,
            is_solo_instruction=True,
            number_of_flights=2,
            comment="Touch and go",
        ),
        "instructed": FlightFactory(
            organization=club,
            object=aircraft,
            date=dt.date(2026, 11, 21),
            pilot=student,
            instructor=member,
            blockoff_at=at(21, 9),
            takeoff_at=at(21, 9, 5),
            landing_at=at(21, 9, 55),
            blockon_at=at(21, 10),
        ),
        "others": FlightFactory(
            organization=club,
            object=aircraft,
            date=dt.date(2026, 11, 22),
            pilot=colleague,
            departure_airport=None,
            arrival_airport=None,
            blockoff_at=None,
            takeoff_at=None,
            landing_at=None,
            blockon_at=None,
            arrival_tachometer=None,
        ),
        "shared_mine": FlightFactory(
            organization=partner,
            object=shared,
            date=dt.date(2026, 11, 19),
            pilot=member,
            blockoff_at=at(19, 8),
            takeoff_at=at(19, 8, 5),
            landing_at=at(19, 8, 50),
            blockon_at=at(19, 9),
        ),
        "shared": FlightFactory(
            organization=partner,
            object=shared,
            date=dt.date(2026, 11, 23),
            pilot=student,
            blockoff_at=at(23, 8),
            takeoff_at=at(23, 8, 5),
            landing_at=at(23, 8, 50),
            blockon_at=at(23, 9),
        ),
        "stranger": FlightFactory(organization=stranger, date=dt.date(2026, 11, 20)),
        "colleague": colleague,
    }


# The routes (their contract classes: tests/test_contract_mobile_flightlog.py).
LIST, ITEM = "/flightlogs", "/flightlogs/<id:pk>"


def item_path(pk) -> str:
    return ITEM.replace("<id:pk>", str(pk))


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["data"]]


# --- fields -----------------------------------------------------------------------------------------------


def test_a_flight_shows_every_field_of_document_2(api, world, club, member, aircraft):
    flight, colleague = world["mine"], world["colleague"]

    response = api.get(item_path(flight.pk))

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store"
    assert response.json() == {
        "data": {
            "id": flight.pk,
            "date": "2026-11-20",
            "object": {"id": aircraft.pk, "registration": "SE-KUA", "organization": {"id": club.pk, "name": club.name}},
            "flight_type": {"id": flight.flight_type_id, "name": "Privat"},
            "departure": {
                "airport": {"icao": "ESOW", "name": "Västerås"},
                "blockoff_at": "2026-11-20T10:00:00Z",
                "takeoff_at": "2026-11-20T10:07:00Z",
            },
            "arrival": {
                "airport": {"icao": "ESSB", "name": "Stockholm Bromma"},
                "landing_at": "2026-11-20T11:05:00Z",
                "blockon_at": "2026-11-20T11:10:00Z",
            },
            "via_route": "ESSU",
            "crew_hidden": False,
            "pilot": {
                "id": member.user_id,
                "name": "Anna Berg",
                "member_number": "0042",
                "organization": {"id": club.pk, "name": club.name},
            },
            "instructor": None,
            "scout": {
                "id": colleague.user_id,
                "name": "Bo Ek",
                "member_number": "0007",
                "organization": {"id": club.pk, "name": club.name},
            },
            "is_solo_instruction": True,
            "totals": {
                "block": 1.17,
                "airborne": 0.97,
                "tach": 1.1,
                "block_minutes": 70,
                "airborne_minutes": 58,
                "tach_minutes": 66,
            },
            "number_of_flights": 2,
            "comment": "Touch and go",
        }
    }
    # The list shows the same item.
    listed = api.get("/flightlogs").json()["data"]
    assert next(item for item in listed if item["id"] == flight.pk) == response.json()["data"]


def test_missing_readings_and_texts_are_null(api, world):
    item = api.get(item_path(world["others"].pk)).json()["data"]

    assert item["departure"] == {"airport": None, "blockoff_at": None, "takeoff_at": None}
    assert item["arrival"] == {"airport": None, "landing_at": None, "blockon_at": None}
    assert item["totals"] == {
        "block": None,
        "airborne": None,
        "tach": None,
        "block_minutes": None,
        "airborne_minutes": None,
        "tach_minutes": None,
    }
    assert (item["flight_type"], item["via_route"], item["comment"], item["is_solo_instruction"]) == (None,) * 4
    assert item["instructor"] is None and item["scout"] is None and item["pilot"]["name"] == "Bo Ek"


def test_one_missing_time_or_reading_nulls_only_its_total(api, aircraft, club, member):
    flight = FlightFactory(organization=club, object=aircraft, pilot=member, landing_at=None, departure_tachometer=None)

    totals = api.get(item_path(flight.pk)).json()["data"]["totals"]

    assert totals == {
        "block": 1.17,
        "airborne": None,
        "tach": None,
        "block_minutes": 70,
        "airborne_minutes": None,
        "tach_minutes": None,
    }


def test_a_hidden_crew_is_null_also_on_the_members_own_flight(api, world, partner, shared):
    for key in ("shared_mine", "shared"):
        item = api.get(item_path(world[key].pk)).json()["data"]
        assert item["crew_hidden"] is True
        assert (item["pilot"], item["instructor"], item["scout"]) == (None, None, None)
        assert item["object"] == {
            "id": shared.pk,
            "registration": "SE-SHR",
            "organization": {"id": partner.pk, "name": partner.name},
        }


def test_the_clubs_own_hidden_crew(api, world, club):
    club.hide_crew_in_log = True
    club.save()

    for item in api.get("/flightlogs").json()["data"]:
        assert item["crew_hidden"] is True
        assert (item["pilot"], item["instructor"], item["scout"]) == (None, None, None)


def test_exclude_leaves_fields_out(api, world):
    flight = world["mine"]

    listed = api.get("/flightlogs", data={"exclude": "totals,pilot,comment"}).json()["data"][0]
    one = api.get(item_path(flight.pk), data={"exclude": "departure"}).json()["data"]

    assert {"totals", "pilot", "comment"}.isdisjoint(listed) and "scout" in listed
    assert "departure" not in one and "arrival" in one
    unknown = assert_problem(api.get("/flightlogs", data={"exclude": "hobbs"}), 400, 10005)
    assert problem_fields(unknown) == {"exclude": 10005}
    for path in ("/flightlogs", item_path(flight.pk)):
        assert problem_fields(assert_problem(api.get(path, data={"include": "crew"}), 400, 10005)) == {"include": 10005}


# --- which flights ------------------------------------------------------------------------------------------


def test_the_list_has_own_and_shared_flights_oldest_first_and_never_a_strangers(api, world):
    expected = [world[key].pk for key in ("shared_mine", "mine", "instructed", "others", "shared")]

    response = api.get("/flightlogs")

    assert ids(response) == expected
    assert response.json()["meta"] == {"count": 5, "limit": 100, "offset": 0, "has_more": False}
    assert response.json()["links"] == {"next": None}
    assert ids(api.get("/flightlogs", data={"order": "asc"})) == expected
    assert ids(api.get("/flightlogs", data={"order": "desc"})) == expected[::-1]


def test_a_strangers_flight_and_an_unshared_one_are_404(api, world, shared, club):
    assert_problem(api.get(item_path(world["stranger"].pk)), 404, 10100)
    assert_problem(api.get(item_path(999999)), 404, 10100)
    assert_problem(api.get(f"/flightlogs/{world['mine'].pk}/"), 404, 10100)  # no trailing slash

    shared.shares.all().delete()

    assert_problem(api.get(item_path(world["shared"].pk)), 404, 10100)
    assert world["shared"].pk not in ids(api.get("/flightlogs"))
    assert world["stranger"].pk not in ids(api.get("/flightlogs", data={"object_id": world["stranger"].object_id}))


def test_order_within_a_day_by_block_off_time_then_id(api, aircraft, club):
    day = dt.date(2026, 10, 1)
    late = FlightFactory(
        organization=club, object=aircraft, date=day, blockoff_at=dt.datetime(2026, 10, 1, 15, tzinfo=UTC)
    )
    early = FlightFactory(
        organization=club, object=aircraft, date=day, blockoff_at=dt.datetime(2026, 10, 1, 8, tzinfo=UTC)
    )
    no_time_1 = FlightFactory(organization=club, object=aircraft, date=day, blockoff_at=None, takeoff_at=None)
    no_time_2 = FlightFactory(organization=club, object=aircraft, date=day, blockoff_at=None, takeoff_at=None)
    expected = [early.pk, late.pk, no_time_1.pk, no_time_2.pk]

    assert ids(api.get("/flightlogs")) == expected
    assert ids(api.get("/flightlogs", data={"order": "desc"})) == expected[::-1]


def test_object_id(api, world, aircraft, shared):
    assert ids(api.get("/flightlogs", data={"object_id": shared.pk})) == [world["shared_mine"].pk, world["shared"].pk]
    assert ids(api.get("/flightlogs", data={"object_id": aircraft.pk})) == [
        world[key].pk for key in ("mine", "instructed", "others")
    ]
    assert ids(api.get("/flightlogs", data={"object_id": 999999})) == []


def test_mine_as_pilot_or_instructor_also_with_a_hidden_crew(api, world, member, partner):
    # The member's login flying as a member of the partner club counts too (one person, several records).
    elsewhere = MemberFactory(organization=partner, user=member.user)
    as_partner = FlightFactory(
        organization=partner, object=world["shared"].object, pilot=elsewhere, date=dt.date(2026, 11, 24)
    )
    mine = [world[key].pk for key in ("shared_mine", "mine", "instructed")] + [as_partner.pk]

    assert ids(api.get("/flightlogs", data={"mine": "true"})) == mine
    assert ids(api.get("/flightlogs", data={"mine": "false"})) == [world["others"].pk, world["shared"].pk]
    assert ids(api.get("/flightlogs", data={"mine": "true", "order": "desc"})) == mine[::-1]


def test_mine_is_each_members_own_with_the_same_query(api, world, club, app_client):
    """The page's statement is kept per organization and query (docs/decisions.md §1.34), and for `mine` per
    member: another member's `mine=true` is theirs."""
    mine = [world[key].pk for key in ("shared_mine", "mine", "instructed")]
    assert ids(api.get("/flightlogs", data={"mine": "true"})) == mine
    colleague = world["others"].pilot
    colleague_api = MobileApi(issue_member_tokens(colleague, app_client).access_token)
    assert ids(colleague_api.get("/flightlogs", data={"mine": "true"})) == [world["others"].pk]
    assert ids(api.get("/flightlogs", data={"mine": "true"})) == mine


def test_a_scout_flight_is_not_mine(api, world, club, aircraft, member):
    scouted = FlightFactory(organization=club, object=aircraft, scout=member, date=dt.date(2026, 11, 24))

    assert scouted.pk not in ids(api.get("/flightlogs", data={"mine": "true"}))
    assert scouted.pk in ids(api.get("/flightlogs", data={"mine": "false"}))


def test_dates_are_inclusive_local_dates(api, world):
    between = ids(api.get("/flightlogs", data={"date_from": "2026-11-20", "date_to": "2026-11-22"}))
    assert between == [world[key].pk for key in ("mine", "instructed", "others")]
    assert ids(api.get("/flightlogs", data={"date_from": "2026-11-23"})) == [world["shared"].pk]
    assert ids(api.get("/flightlogs", data={"date_to": "2026-11-19"})) == [world["shared_mine"].pk]
    assert ids(api.get("/flightlogs", data={"date_from": "2026-11-23", "date_to": "2026-11-19"})) == []


def test_paging(api, world):
    expected = [world[key].pk for key in ("shared_mine", "mine", "instructed", "others", "shared")]

    first = api.get("/flightlogs", data={"limit": 2, "include_total": "true"})
    body = first.json()
    assert ids(first) == expected[:2]
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "total": 5}
    assert "offset=2" in body["links"]["next"] and "limit=2" in body["links"]["next"]
    assert ids(api.get("/flightlogs", data={"limit": 2, "offset": 4})) == expected[4:]
    assert ids(api.get("/flightlogs", data={"limit": 500})) == expected
    for limit in ("0", "501", "x"):
        assert problem_fields(assert_problem(api.get("/flightlogs", data={"limit": limit}), 400, 10005)) == {
            "limit": 10005
        }


def test_flight_log_off_answers_an_empty_list_and_404(api, world, club):
    club.uses_flight_log = False
    club.save()

    response = api.get("/flightlogs", data={"include_total": "true"})

    assert response.json()["data"] == []
    assert response.json()["meta"]["total"] == 0
    assert_problem(api.get(item_path(world["mine"].pk)), 404, 10100)
    assert_problem(api.get(item_path(world["shared"].pk)), 404, 10100)


# --- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, field, code",
    [
        ({"date_from": "2026-02-30"}, "date_from", 10110),
        ({"date_to": "20261120"}, "date_to", 10110),
        ({"date_from": "2026-11-20\x00"}, "date_from", 10110),
        ({"object_id": "1" * 40}, "object_id", 10005),
        ({"object_id": "SE-KUA"}, "object_id", 10005),
        ({"mine": "1"}, "mine", 10005),
        ({"mine": "yes\x00"}, "mine", 10005),
        ({"order": "newest"}, "order", 10005),
        ({"offset": "-1"}, "offset", 10005),
        ({"mine": ""}, "mine", 10005),
    ],
)
def test_hostile_and_wrong_parameters_are_400(api, world, query, field, code):
    body = assert_problem(api.get("/flightlogs", data=query), 400, code)
    assert problem_fields(body) == {field: code}


def test_bytes_that_are_no_text_are_400(api, world):
    # A lone surrogate cannot be sent as UTF-8; its bytes arrive as replacement characters.
    for raw, field, code in (
        ("order=asc%ED%A0%80", "order", 10005),
        ("mine=true%00", "mine", 10005),
        ("date_to=2026-11-20%C0", "date_to", 10110),
    ):
        assert problem_fields(assert_problem(api.get("/flightlogs", QUERY_STRING=raw), 400, code)) == {field: code}


def test_unknown_parameters_are_400(api, world):
    assert problem_fields(assert_problem(api.get("/flightlogs", data={"pilot_id": 1}), 400, 10007)) == {
        "pilot_id": 10007
    }
    assert problem_fields(assert_problem(api.get(item_path(world["mine"].pk), data={"order": "asc"}), 400, 10007)) == {
        "order": 10007
    }


def test_rights_and_the_apps_own_token(member, world):
    without = make_app_client(rights={"bookings": "rw", "transactions": "r"})
    api = MobileApi(issue_member_tokens(member, without).access_token)
    assert_problem(api.get("/flightlogs"), 403, 10002)
    assert_problem(api.get(item_path(world["mine"].pk)), 403, 10002)

    app = MobileApi(issue_app_token(make_app_client(rights={"flightlogs": "r"})))
    assert_problem(app.get("/flightlogs"), 403, 10305)
    assert_problem(MobileApi().get("/flightlogs"), 401, 10001)
    response = MobileApi(issue_member_tokens(member, without).access_token).call("POST", "/flightlogs")
    assert_problem(response, 405, 10050)


def test_a_member_of_another_organization_sees_only_its_own(world, stranger, app_client):
    outsider = MemberFactory(organization=stranger)
    api = MobileApi(issue_member_tokens(outsider, app_client).access_token)

    assert ids(api.get("/flightlogs")) == [world["stranger"].pk]
    assert_problem(api.get(item_path(world["mine"].pk)), 404, 10100)
    assert_problem(api.get(item_path(world["shared"].pk)), 404, 10100)


# --- cost -------------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_for_1_and_500_flights(
    api, club, partner, aircraft, shared, member, django_assert_max_num_queries
):
    flight_type = FlightTypeFactory(organization=club)
    departure, arrival = AirportFactory(icao="ESOW"), AirportFactory(icao="ESSB")
    crew = [MemberFactory(organization=club) for _ in range(5)]
    FlightLogEntry.objects.bulk_create(
        FlightLogEntry(
            object=aircraft if n % 3 else shared,
            date=dt.date(2026, 1, 1) + dt.timedelta(days=n % 300),
            flight_type=flight_type,
            departure_airport=departure,
            arrival_airport=arrival,
            blockoff_at=dt.datetime(2026, 1, 1, 10, tzinfo=UTC) + dt.timedelta(days=n % 300),
            blockon_at=dt.datetime(2026, 1, 1, 11, tzinfo=UTC) + dt.timedelta(days=n % 300),
            departure_tachometer=Decimal(n),
            arrival_tachometer=Decimal(n + 1),
            pilot=member if n % 2 else crew[n % 5],
            instructor=crew[(n + 1) % 5],
            scout=crew[(n + 2) % 5],
            created_at=dt.datetime(2026, 1, 1, tzinfo=UTC),
        )
        for n in range(520)
    )
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/flightlogs", data={"limit": 1}).json()["data"]) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get(
            "/flightlogs",
            data={"limit": 500, "mine": "true", "order": "desc", "date_from": "2026-01-01", "object_id": aircraft.pk},
        ).json()
    assert body["meta"]["count"] > 100
    with django_assert_max_num_queries(len(at_limit_1)):
        assert api.get("/flightlogs", data={"limit": 500}).json()["meta"]["count"] == 500
    with django_assert_max_num_queries(len(at_limit_1) + 1):  # the count of include_total
        api.get("/flightlogs", data={"limit": 500, "include_total": "true"})


# --- the document -----------------------------------------------------------------------------------------


def test_replies_conform_to_the_mobile_document(api, world, member):
    from tests.test_openapi import Conformance

    document = Client().get("/mobile/v5/openapi.json", secure=True).json()
    conformance = Conformance(document)
    flight = world["mine"]

    conformance.check("GET", "/flightlogs", api.get("/flightlogs"), 200)
    conformance.check("GET", "/flightlogs", api.get("/flightlogs", data={"limit": 1, "include_total": "true"}), 200)
    conformance.check("GET", "/flightlogs/{id}", api.get(item_path(flight.pk)), 200)
    conformance.check("GET", "/flightlogs/{id}", api.get(item_path(world["others"].pk)), 200)
    conformance.check("GET", "/flightlogs/{id}", api.get(item_path(world["shared"].pk)), 200)
    conformance.check("GET", "/flightlogs/{id}", api.get(item_path(world["stranger"].pk)), 404)
    conformance.check("GET", "/flightlogs", api.get("/flightlogs", data={"date_from": "x"}), 400)
    conformance.check("GET", "/flightlogs", api.get("/flightlogs", data={"surprise": "1"}), 400)
    without = MobileApi(issue_member_tokens(member, make_app_client(rights={"objects": "r"})).access_token)
    conformance.check("GET", "/flightlogs", without.get("/flightlogs"), 403)
    conformance.check("GET", "/flightlogs/{id}", without.get(item_path(flight.pk)), 403)
    conformance.check_method_not_allowed("POST", "/flightlogs", api.call("POST", "/flightlogs"))
    parameters = {p["name"] for p in document["paths"]["/flightlogs"]["get"]["parameters"]}
    assert {"object_id", "mine", "date_from", "date_to", "order", "limit", "offset", "include_total"} <= parameters


def test_flights_on_an_inactive_object_are_not_shown(api, club, aircraft):
    flight = FlightFactory(organization=club, object=aircraft)
    assert api.get(item_path(flight.pk)).status_code == 200
    aircraft.active = False
    aircraft.save()
    assert api.get("/flightlogs").json()["data"] == []
    assert api.get(item_path(flight.pk)).status_code == 404
