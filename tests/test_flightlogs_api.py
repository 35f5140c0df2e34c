"""GET /flightlogs and GET /flightlogs/{id} (Main API v5): the item, its order, every filter, a hidden crew,
the flight log off, own objects only, and the cost of a page."""

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flightlog.clock_times import LocalFlightTimes, utc_times
from flightlog.models import FlightLogEntry
from tests.factories import MemberFactory, OrganizationFactory, UserFactory
from tests.factories_operations import (
    AirportFactory,
    FlightApprovalFactory,
    FlightFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
    TransactionFactory,
)
from tests.helpers import assert_problem, problem_fields

UTC = dt.UTC


def at(day: int, hour: int, minute: int = 0, month: int = 11) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute, tzinfo=UTC)


def ids(api, **params) -> list[int]:
    response = api.get("/flightlogs", {"limit": 500, **params})
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["data"]]


@pytest.fixture
def aircraft(org):
    return ObjectFactory(organization=org, registration="SE-KBT")


@pytest.fixture
def pilot(org):
    return MemberFactory(
        organization=org, member_number="0042", user__first_name="Anna", user__last_name="Berg", user__username="p1"
    )


# --- the item --------------------------------------------------------------------------------------------


def test_a_flight_has_every_field_of_the_contract(api, org, aircraft, pilot):
    instructor = MemberFactory(organization=org, member_number="007", user__first_name="Ivar", user__last_name="Lund")
    flight_type = FlightTypeFactory(organization=org, name="Training")
    remark = RemarkFactory(object=aircraft)
    flight = FlightFactory(
        object=aircraft,
        flight_type=flight_type,
        departure_airport=AirportFactory(icao="ESOW", name="Västerås"),
        arrival_airport=AirportFactory(icao="ESSB", name="Stockholm Bromma"),
        departure_hobbs=Decimal("100.00"),
        arrival_hobbs=Decimal("101.25"),
        via_route="ESSU",
        pilot=pilot,
        instructor=instructor,
        is_solo_instruction=False,
        uplift_fuel=Decimal("40.50"),
        number_of_flights=2,
        daily_check=True,
        comment="Circuits",
        remark=remark,
    )
    transactions = [TransactionFactory(organization=org, user=pilot.user, flightlog=flight) for _ in range(2)]
    expected_transaction = min(row.pk for row in transactions)

    response = api.get(f"/flightlogs/{flight.pk}")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == {
        "id": flight.pk,
        "date": "2026-11-20",
        "object": {"id": aircraft.pk, "registration": "SE-KBT", "organization": {"id": org.pk, "name": org.name}},
        "flight_type": {"id": flight_type.pk, "name": "Training"},
        "departure": {
            "airport": {"icao": "ESOW", "name": "Västerås"},
            "blockoff_at": "2026-11-20T10:00:00Z",
            "takeoff_at": "2026-11-20T10:05:00Z",
            "tachometer": 1234.5,
            "hobbs": 100.0,
        },
        "via_route": "ESSU",
        "arrival": {
            "airport": {"icao": "ESSB", "name": "Stockholm Bromma"},
            "landing_at": "2026-11-20T11:05:00Z",
            "blockon_at": "2026-11-20T11:10:00Z",
            "tachometer": 1235.6,
            "hobbs": 101.25,
        },
        "crew_hidden": False,
        "pilot": {
            "id": pilot.user_id,
            "name": "Anna Berg",
            "member_number": "0042",
            "organization": {"id": org.pk, "name": org.name},
        },
        "instructor": {
            "id": instructor.user_id,
            "name": "Ivar Lund",
            "member_number": "007",
            "organization": {"id": org.pk, "name": org.name},
        },
        "scout": None,
        "is_solo_instruction": False,
        "uplift": {"fuel": 40.5, "oil": None},
        "totals": {
            "block": 1.17,
            "airborne": 1.0,
            "tach": 1.1,
            "hobbs": 1.25,
            "block_minutes": 70,
            "airborne_minutes": 60,
            "tach_minutes": 66,
            "hobbs_minutes": 75,
        },
        "number_of_flights": 2,
        "daily_check": True,
        "comment": "Circuits",
        "transaction_id": expected_transaction,
        "remark_id": remark.pk,
        "created_at": "2026-11-20T12:00:00Z",
    }


def test_missing_values_are_null(api, org, aircraft):
    flight = FlightFactory(
        object=aircraft,
        departure_airport=None,
        arrival_airport=None,
        blockoff_at=None,
        blockon_at=None,
        arrival_tachometer=None,
        pilot=None,
    )

    data = api.get(f"/flightlogs/{flight.pk}").json()["data"]

    assert data["departure"]["airport"] is None and data["arrival"]["airport"] is None
    assert data["departure"]["blockoff_at"] is None and data["arrival"]["blockon_at"] is None
    assert data["arrival"]["tachometer"] is None
    assert data["totals"] == {
        "block": None,  # no block times
        "airborne": 1.0,
        "tach": None,  # the arrival tachometer reading is missing
        "hobbs": None,
        "block_minutes": None,
        "airborne_minutes": 60,
        "tach_minutes": None,
        "hobbs_minutes": None,
    }
    assert data["pilot"] is None
    assert (data["via_route"], data["comment"], data["flight_type"], data["transaction_id"]) == (None,) * 4
    assert (data["is_solo_instruction"], data["daily_check"], data["remark_id"]) == (None, None, None)


# (departure, arrival) readings: totals the database computes (flightlog.selectors), which must be the exact
# differences of §6.6 also where SQLite's floating point is not (a total of 0.01 at 99,999,999), and negative ones.
READINGS = [
    ("1233.20", "1234.57"),
    ("0.10", "0.30"),
    ("99999999.97", "99999999.98"),
    ("2045.99", "2047.01"),
    ("17.05", "17.05"),
    ("5.00", "3.35"),
    ("0.01", "12345.67"),
]


def test_readings_and_their_totals_are_exact_on_every_database(api, aircraft):
    flights = {
        FlightFactory(
            object=aircraft,
            departure_tachometer=Decimal(start),
            arrival_tachometer=Decimal(end),
            departure_hobbs=Decimal(end),
            arrival_hobbs=Decimal(start),
            uplift_fuel=Decimal(start[-6:]),
            uplift_oil=Decimal(end[-5:]),
        ).pk: (Decimal(start), Decimal(end))
        for start, end in READINGS
    }

    items = {item["id"]: item for item in api.get("/flightlogs", {"limit": 500}).json()["data"]}

    for pk, (start, end) in flights.items():
        item, tach, hobbs = items[pk], end - start, start - end
        assert (item["departure"]["tachometer"], item["arrival"]["tachometer"]) == (float(start), float(end))
        assert (item["departure"]["hobbs"], item["arrival"]["hobbs"]) == (float(end), float(start))
        assert item["uplift"] == {"fuel": float(Decimal(str(start)[-6:])), "oil": float(Decimal(str(end)[-5:]))}
        minutes = {total: int((total * 60).quantize(Decimal(1), ROUND_HALF_UP)) for total in (tach, hobbs)}
        assert (item["totals"]["tach"], item["totals"]["tach_minutes"]) == (float(tach), minutes[tach]), (start, end)
        assert (item["totals"]["hobbs"], item["totals"]["hobbs_minutes"]) == (float(hobbs), minutes[hobbs])


def test_a_flight_crossing_midnight_has_its_later_times_on_the_next_day(make_api):
    london = OrganizationFactory(timezone="Europe/London")
    night_api = make_api(london)
    times = utc_times(
        LocalFlightTimes(
            date=dt.date(2026, 11, 20),
            blockoff=dt.time(23, 30),
            takeoff=dt.time(23, 45),
            landing=dt.time(0, 35),
            blockon=dt.time(0, 40),
        ),
        london.timezone,
    )
    flight = FlightFactory(organization=london, date=dt.date(2026, 11, 20), **times)

    data = night_api.get(f"/flightlogs/{flight.pk}").json()["data"]

    assert data["date"] == "2026-11-20"
    assert data["departure"]["blockoff_at"] == "2026-11-20T23:30:00Z"
    assert data["departure"]["takeoff_at"] == "2026-11-20T23:45:00Z"
    assert data["arrival"]["landing_at"] == "2026-11-21T00:35:00Z"
    assert data["arrival"]["blockon_at"] == "2026-11-21T00:40:00Z"
    assert data["totals"]["airborne_minutes"] == 50
    assert data["totals"]["block_minutes"] == 70


def test_an_unknown_flight_is_404(api, org):
    assert_problem(api.get("/flightlogs/999999"), 404, 10100)


def test_a_flight_has_no_blocks(api, org, aircraft):
    flight = FlightFactory(object=aircraft)
    body = assert_problem(api.get(f"/flightlogs/{flight.pk}", {"include": "totals"}), 400, 10005)
    assert problem_fields(body) == {"include": 10005}
    data = api.get(f"/flightlogs/{flight.pk}", {"exclude": "totals,pilot"}).json()["data"]
    assert "totals" not in data and "pilot" not in data and "id" in data


# --- order -----------------------------------------------------------------------------------------------


def test_oldest_first_by_date_block_off_and_id_without_block_off_last_on_its_date(api, org, aircraft):
    day_2_late = FlightFactory(object=aircraft, date=dt.date(2026, 11, 2), blockoff_at=at(2, 15))
    day_1_none = FlightFactory(object=aircraft, date=dt.date(2026, 11, 1), blockoff_at=None)
    day_2_early = FlightFactory(object=aircraft, date=dt.date(2026, 11, 2), blockoff_at=at(2, 8))
    day_1 = FlightFactory(object=aircraft, date=dt.date(2026, 11, 1), blockoff_at=at(1, 9))
    day_1_none_too = FlightFactory(object=aircraft, date=dt.date(2026, 11, 1), blockoff_at=None)
    day_2_twin = FlightFactory(object=aircraft, date=dt.date(2026, 11, 2), blockoff_at=at(2, 8))

    assert ids(api) == [
        day_1.pk,
        day_1_none.pk,
        day_1_none_too.pk,
        day_2_early.pk,
        day_2_twin.pk,
        day_2_late.pk,
    ]
    # Paging follows the same order.
    page = api.get("/flightlogs", {"limit": 2, "offset": 2}).json()
    assert [item["id"] for item in page["data"]] == [day_1_none_too.pk, day_2_early.pk]
    assert page["meta"]["has_more"] is True


# --- filters ---------------------------------------------------------------------------------------------


def test_date_filters_take_the_flights_local_date(api, org, aircraft):
    # 00:30 local on 11-21 is 23:30 UTC on 11-20: the flight's date is 11-21.
    night = FlightFactory(object=aircraft, date=dt.date(2026, 11, 21), blockoff_at=at(20, 23, 30), takeoff_at=None)
    before = FlightFactory(object=aircraft, date=dt.date(2026, 11, 20))
    after = FlightFactory(object=aircraft, date=dt.date(2026, 11, 22))

    assert ids(api, date_from="2026-11-21") == [night.pk, after.pk]
    assert ids(api, date_to="2026-11-21") == [before.pk, night.pk]
    assert ids(api, date_from="2026-11-21", date_to="2026-11-21") == [night.pk]
    assert_problem(api.get("/flightlogs", {"date_from": "2026-02-30"}), 400, 10110)


def test_object_filters(api, org, aircraft):
    other = ObjectFactory(organization=org, registration="SE-MJA")
    on_kbt = FlightFactory(object=aircraft)
    on_mja = FlightFactory(object=other)

    assert ids(api, object_id=other.pk) == [on_mja.pk]
    assert ids(api, object_registration="se-kbt") == [on_kbt.pk]
    assert ids(api, object_registration="SE-*") == [on_kbt.pk, on_mja.pk]
    assert ids(api, object_organization_id=org.pk) == [on_kbt.pk, on_mja.pk]
    assert ids(api, object_organization_id=org.pk + 1000) == []
    assert ids(api, object_organization_name="västerås*") == [on_kbt.pk, on_mja.pk]
    assert ids(api, object_organization_name="Bergen*") == []


def test_airport_filters(api, org, aircraft):
    out = FlightFactory(
        object=aircraft, departure_airport=AirportFactory(icao="ESOW"), arrival_airport=AirportFactory(icao="ESSB")
    )
    back = FlightFactory(
        object=aircraft, departure_airport=AirportFactory(icao="ESSB"), arrival_airport=AirportFactory(icao="ESOW")
    )
    nowhere = FlightFactory(object=aircraft, departure_airport=None, arrival_airport=None)

    assert ids(api, departure_icao="esow") == [out.pk]
    assert ids(api, arrival_icao="ESOW") == [back.pk]
    assert ids(api, departure_icao="ES*") == [out.pk, back.pk]
    assert ids(api, departure_icao="*") == [out.pk, back.pk]
    assert nowhere.pk in ids(api)


def test_crew_filters(api, org, aircraft, pilot):
    student = MemberFactory(organization=org, member_number="1_0", user__first_name="Sara", user__last_name="Ek")
    percent = MemberFactory(organization=org, member_number="1%0", user__first_name="Olle", user__last_name="Ek")
    instructor = MemberFactory(organization=org, member_number="900", user__first_name="Ivar", user__last_name="Lund")
    solo = FlightFactory(object=aircraft, pilot=pilot, scout=percent)
    lesson = FlightFactory(object=aircraft, pilot=student, instructor=instructor)
    other = FlightFactory(object=aircraft, pilot=percent)

    assert ids(api, pilot_id=pilot.user_id) == [solo.pk]
    assert ids(api, pilot_id=pilot.pk + 10_000) == []
    assert ids(api, instructor_id=instructor.user_id) == [lesson.pk]
    assert ids(api, scout_id=percent.user_id) == [solo.pk]
    assert ids(api, pilot_name="anna berg") == [solo.pk]
    assert ids(api, pilot_name="anna") == []  # the whole value
    assert ids(api, pilot_name="* ek") == [lesson.pk, other.pk]
    assert ids(api, instructor_name="Ivar*") == [lesson.pk]
    assert ids(api, scout_name="*Ek") == [solo.pk]
    assert ids(api, pilot_member_number="0042") == [solo.pk]
    assert ids(api, pilot_member_number="42") == []  # a leading zero is kept
    assert ids(api, instructor_member_number="9*") == [lesson.pk]
    assert ids(api, scout_member_number="1%0") == [solo.pk]
    # `_` and `%` are plain characters: "1_0" is not "1%0", and the other way round.
    assert ids(api, pilot_member_number="1_0") == [lesson.pk]
    assert ids(api, pilot_member_number="1%0") == [other.pk]
    assert ids(api, pilot_member_number="1*0") == [lesson.pk, other.pk]


def test_the_crew_filters_take_the_login_id_not_the_member_id(api, org, aircraft):
    UserFactory.create_batch(3)  # ids of logins and member records drift apart
    pilot = MemberFactory(organization=org)
    flight = FlightFactory(object=aircraft, pilot=pilot)
    assert pilot.pk != pilot.user_id

    assert ids(api, pilot_id=pilot.user_id) == [flight.pk]
    assert flight.pk not in ids(api, pilot_id=pilot.pk)


def test_remark_and_instructor_filters(api, org, aircraft, pilot):
    remark = RemarkFactory(object=aircraft)
    with_remark = FlightFactory(object=aircraft, remark=remark)
    with_instructor = FlightFactory(object=aircraft, instructor=MemberFactory(organization=org))
    plain = FlightFactory(object=aircraft)

    assert ids(api, remark_id=remark.pk) == [with_remark.pk]
    assert ids(api, has_remark="true") == [with_remark.pk]
    assert ids(api, has_remark="false") == [with_instructor.pk, plain.pk]
    assert ids(api, has_instructor="true") == [with_instructor.pk]
    assert ids(api, has_instructor="false") == [with_remark.pk, plain.pk]
    body = assert_problem(api.get("/flightlogs", {"has_remark": "1", "remark_id": "x"}), 400, 10005)
    assert problem_fields(body) == {"has_remark": 10005, "remark_id": 10005}


def test_filters_combine(api, org, aircraft, pilot):
    match = FlightFactory(object=aircraft, pilot=pilot, date=dt.date(2026, 11, 3))
    FlightFactory(object=aircraft, pilot=pilot, date=dt.date(2026, 10, 3))
    FlightFactory(object=aircraft, date=dt.date(2026, 11, 3))

    assert ids(api, pilot_id=pilot.user_id, date_from="2026-11-01", object_registration="SE-KBT") == [match.pk]


def test_a_search_value_is_bounded(api, org):
    assert_problem(api.get("/flightlogs", {"pilot_name": "x" * 101}), 400, 10005)
    assert api.get("/flightlogs", {"pilot_name": "*" * 500 + "x"}).status_code == 200


# --- a hidden crew ---------------------------------------------------------------------------------------


def test_a_hidden_crew_is_null_and_never_matched_by_the_crew_filters(api, org, aircraft, pilot):
    instructor = MemberFactory(organization=org, member_number="900")
    scout = MemberFactory(organization=org, member_number="901")
    flight = FlightFactory(object=aircraft, pilot=pilot, instructor=instructor, scout=scout)
    org.hide_crew_in_log = True
    org.save()

    data = api.get(f"/flightlogs/{flight.pk}").json()["data"]

    assert data["crew_hidden"] is True
    assert (data["pilot"], data["instructor"], data["scout"]) == (None, None, None)
    for role, member in (("pilot", pilot), ("instructor", instructor), ("scout", scout)):
        assert ids(api, **{f"{role}_id": member.user_id}) == []
        assert ids(api, **{f"{role}_name": "*"}) == []
        assert ids(api, **{f"{role}_member_number": member.member_number}) == []
    assert ids(api, has_instructor="true") == []
    assert ids(api, has_instructor="false") == [flight.pk]
    assert ids(api) == [flight.pk]

    org.hide_crew_in_log = False
    org.save()
    assert ids(api, instructor_id=instructor.user_id) == [flight.pk]
    assert ids(api, has_instructor="true") == [flight.pk]


# --- the flight log off, own objects only --------------------------------------------------------------


def test_with_the_flight_log_off_the_list_is_empty_and_a_flight_is_not_found(api, org, aircraft):
    flight = FlightFactory(object=aircraft)
    org.uses_flight_log = False
    org.save()

    body = api.get("/flightlogs", {"include_total": "true"}).json()

    assert body["data"] == []
    assert body["meta"] == {"count": 0, "limit": 100, "offset": 0, "has_more": False, "total": 0}
    assert_problem(api.get(f"/flightlogs/{flight.pk}"), 404, 10100)
    # Parameters are still checked.
    assert_problem(api.get("/flightlogs", {"colour": "red"}), 400, 10007)


def test_the_same_query_follows_the_flight_log_switch_and_the_rows(api, org, aircraft):
    """The page's statement is kept per organization and query (docs/decisions.md §1.34): whether the flight log
    is on decides it too, and the rows are read anew on every call."""
    flight = FlightFactory(object=aircraft)
    assert ids(api) == [flight.pk]
    org.uses_flight_log = False
    org.save()
    assert ids(api) == []
    org.uses_flight_log = True
    org.save()
    later = FlightFactory(object=aircraft, date=dt.date(2026, 11, 21))
    assert ids(api) == [flight.pk, later.pk]


def test_flights_on_shared_objects_are_not_listed(api, org, other_org, aircraft):
    theirs = ObjectFactory(organization=other_org)
    ObjectShareFactory(object=theirs, organization=org)
    shared_flight = FlightFactory(object=theirs, pilot=MemberFactory(organization=org))
    own = FlightFactory(object=aircraft)

    assert ids(api) == [own.pk]
    assert ids(api, object_id=theirs.pk) == []
    assert_problem(api.get(f"/flightlogs/{shared_flight.pk}"), 404, 10100)


def test_our_flights_on_an_object_we_share_are_ours_only(api, other_api, org, other_org, aircraft):
    ObjectShareFactory(object=aircraft, organization=other_org)
    flight = FlightFactory(object=aircraft)

    assert ids(other_api) == []
    assert_problem(other_api.get(f"/flightlogs/{flight.pk}"), 404, 10100)
    assert ids(api) == [flight.pk]


# --- cost --------------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_at_limit_1_and_500(api, org, aircraft, pilot, django_assert_max_num_queries):
    remark = RemarkFactory(object=aircraft)
    flight_type = FlightTypeFactory(organization=org)
    instructor = MemberFactory(organization=org)
    departure, arrival = AirportFactory(icao="ESOW"), AirportFactory(icao="ESSB")
    flights = FlightLogEntry.objects.bulk_create(
        FlightLogEntry(
            object=aircraft,
            date=dt.date(2026, 1, 1) + dt.timedelta(days=n % 300),
            blockoff_at=at(1, 10, month=1) + dt.timedelta(days=n % 300),
            blockon_at=at(1, 11, month=1) + dt.timedelta(days=n % 300),
            departure_airport=departure,
            arrival_airport=arrival,
            flight_type=flight_type,
            pilot=pilot,
            instructor=instructor,
            scout=pilot,
            remark=remark,
            created_at=at(1, 12),
        )
        for n in range(520)
    )
    for flight in flights[:30]:
        TransactionFactory(organization=org, user=pilot.user, flightlog=flight)
    api.get("/token")  # the access token is fetched outside the counted calls
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/flightlogs", {"limit": 1}).json()["data"]) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/flightlogs", {"limit": 500, "pilot_name": "*", "has_instructor": "true"}).json()
    assert body["meta"]["count"] == 500
    assert body["meta"]["has_more"] is True
    assert sum(1 for item in body["data"] if item["transaction_id"] is not None) == 30
    with django_assert_max_num_queries(len(at_limit_1) + 1):  # the count of include_total
        api.get("/flightlogs", {"limit": 500, "include_total": "true"})


# --- the document -------------------------------------------------------------------------------------------


def test_replies_conform_to_the_openapi_document(api, org, aircraft, pilot):
    from django.test import Client

    from tests.test_openapi import DOCUMENT_URL, Conformance

    document = Client().get(DOCUMENT_URL, secure=True).json()
    conformance = Conformance(document)
    flight = FlightFactory(
        object=aircraft, pilot=pilot, instructor=pilot, flight_type=FlightTypeFactory(organization=org)
    )
    FlightFactory(object=aircraft, arrival_tachometer=None, departure_airport=None, pilot=None)
    approval = FlightApprovalFactory(organization=org, member=pilot, object=aircraft)
    approval.flight_types.add(flight.flight_type)
    FlightApprovalFactory(organization=org, member=pilot)
    path = f"/users/{pilot.user_id}/approved-flight-types"

    conformance.check("GET", "/flightlogs", api.get("/flightlogs", {"include_total": "true"}), 200)
    conformance.check("GET", "/flightlogs/{id}", api.get(f"/flightlogs/{flight.pk}"), 200)
    conformance.check("GET", "/flight-types", api.get("/flight-types"), 200)
    conformance.check("GET", "/users/{id}/approved-flight-types", api.get(path), 200)
    conformance.check("GET", "/flightlogs", api.get("/flightlogs", {"date_from": "2026-02-30"}), 400)
    conformance.check("GET", "/flightlogs/{id}", api.get("/flightlogs/999999"), 404)
    conformance.check("GET", "/users/{id}/approved-flight-types", api.get("/users/999999/approved-flight-types"), 404)
    org.uses_flight_log = False
    org.save()
    conformance.check("GET", "/flight-types", api.get("/flight-types"), 409)
    conformance.check("GET", "/users/{id}/approved-flight-types", api.get(path), 409)
