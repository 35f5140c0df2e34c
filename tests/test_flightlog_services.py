"""The flight log's services (log, change, delete a flight: the object's time summary moves with them) and the
midnight rule that turns an entry's local clock times into UTC points in time."""

import datetime as dt
from decimal import Decimal

import pytest

from apicore.errors import ServiceError
from flightlog.clock_times import ClockTimeError, LocalFlightTimes, local_clock_times, utc_times
from flightlog.models import FlightLogEntry
from flightlog.services import flight_create, flight_delete, flight_update
from objects_app.models import BookableObject
from tests.conftest import FROZEN_AT
from tests.factories import MemberFactory
from tests.factories_operations import (
    FlightFactory,
    FlightTypeFactory,
    ObjectFactory,
    ObjectShareFactory,
    RemarkFactory,
    TransactionFactory,
)

UTC = dt.UTC
STOCKHOLM = "Europe/Stockholm"


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def totals(obj) -> tuple:
    obj = BookableObject.objects.get(pk=obj.pk)
    return obj.airborne_minutes, obj.block_minutes, obj.tach_hours, obj.landings


@pytest.fixture
def aircraft(org):
    # Totals from before the first logged flight.
    return ObjectFactory(
        organization=org, airborne_minutes=6000, block_minutes=7000, tach_hours=Decimal("1234.50"), landings=900
    )


@pytest.fixture
def pilot(org):
    return MemberFactory(organization=org)


def log(aircraft, pilot, **fields):
    values = {
        "date": dt.date(2026, 11, 20),
        "blockoff_at": at(20, 10),
        "takeoff_at": at(20, 10, 5),
        "landing_at": at(20, 11, 5),
        "blockon_at": at(20, 11, 10),
        "departure_tachometer": Decimal("1234.50"),
        "arrival_tachometer": Decimal("1235.60"),
        "pilot": pilot,
        "number_of_flights": 3,
    }
    return flight_create(object=aircraft, **(values | fields))


# --- create, update, delete move the totals ---------------------------------------------------------------


def test_logging_a_flight_adds_it_to_the_objects_totals(aircraft, pilot, frozen_time):
    flight = log(aircraft, pilot)

    assert totals(aircraft) == (6060, 7070, Decimal("1235.60"), 903)
    assert flight.created_at == FROZEN_AT
    assert FlightLogEntry.objects.get(pk=flight.pk).pilot_id == pilot.pk


def test_a_flight_with_missing_readings_adds_what_it_has(aircraft, pilot):
    log(aircraft, pilot, blockoff_at=None, arrival_tachometer=None, number_of_flights=1)

    assert totals(aircraft) == (6060, 7000, Decimal("1234.50"), 901)


def test_changing_a_flight_moves_the_totals_by_the_difference(aircraft, pilot):
    flight = log(aircraft, pilot)

    changed = flight_update(
        flight=flight, landing_at=at(20, 11, 35), blockon_at=at(20, 11, 40), arrival_tachometer=Decimal("1236.00")
    )

    assert totals(aircraft) == (6090, 7100, Decimal("1236.00"), 903)
    assert changed.landing_at == at(20, 11, 35)
    assert FlightLogEntry.objects.get(pk=flight.pk).arrival_tachometer == Decimal("1236.00")

    flight_update(flight=flight, number_of_flights=1, takeoff_at=None)

    assert totals(aircraft) == (6000, 7100, Decimal("1236.00"), 901)


def test_moving_a_flight_to_another_object_moves_its_totals_along(org, aircraft, pilot):
    other = ObjectFactory(organization=org)
    flight = log(aircraft, pilot)

    flight_update(flight=flight, object=other)

    assert totals(aircraft) == (6000, 7000, Decimal("1234.50"), 900)
    assert totals(other) == (60, 70, Decimal("1.10"), 3)


def test_deleting_a_flight_takes_it_away_and_keeps_its_transactions(org, aircraft, pilot):
    flight = log(aircraft, pilot)
    payment = TransactionFactory(organization=org, user=pilot.user, flightlog=flight)

    flight_delete(flight=flight)

    assert totals(aircraft) == (6000, 7000, Decimal("1234.50"), 900)
    assert not FlightLogEntry.objects.filter(pk=flight.pk).exists()
    payment.refresh_from_db()
    assert payment.flightlog_id is None
    with pytest.raises(ServiceError):
        flight_delete(flight=flight)


def test_a_refused_change_moves_nothing(aircraft, pilot):
    flight = log(aircraft, pilot)
    before = totals(aircraft)

    with pytest.raises(ServiceError):
        flight_update(flight=flight, landing_at=at(20, 9))

    assert totals(aircraft) == before
    assert FlightLogEntry.objects.get(pk=flight.pk).landing_at == at(20, 11, 5)


# --- checks ------------------------------------------------------------------------------------------------


def problems_of(call) -> dict[str, int]:
    with pytest.raises(ServiceError) as refused:
        call()
    assert refused.value.code == 10006
    return {problem.field: problem.code for problem in refused.value.errors}


def test_times_and_readings_must_be_in_order(aircraft, pilot):
    found = problems_of(
        lambda: log(
            aircraft,
            pilot,
            takeoff_at=at(20, 9),
            arrival_tachometer=Decimal("1200.00"),
            departure_hobbs=Decimal("10.00"),
            arrival_hobbs=Decimal("9.00"),
            number_of_flights=0,
        )
    )

    assert found == {
        "takeoff_at": 10006,
        "arrival_tachometer": 10006,
        "arrival_hobbs": 10006,
        "number_of_flights": 10006,
    }
    assert totals(aircraft) == (6000, 7000, Decimal("1234.50"), 900)
    assert not FlightLogEntry.objects.exists()


def test_missing_times_are_skipped_in_the_order(aircraft, pilot):
    flight = log(aircraft, pilot, takeoff_at=None, landing_at=None)
    assert flight.pk is not None
    assert problems_of(lambda: log(aircraft, pilot, takeoff_at=None, landing_at=None, blockon_at=at(20, 9))) == {
        "blockon_at": 10006
    }


def test_crew_flight_type_and_remark_belong_with_the_object(org, other_org, aircraft, pilot):
    stranger = MemberFactory(organization=other_org)
    found = problems_of(
        lambda: log(
            aircraft,
            stranger,
            instructor=stranger,
            flight_type=FlightTypeFactory(organization=other_org),
            remark=RemarkFactory(object=ObjectFactory(organization=org)),
        )
    )

    assert found == {"pilot": 10006, "instructor": 10006, "flight_type": 10006, "remark": 10006}


def test_a_member_of_an_organization_the_object_is_shared_with_may_fly_it(other_org, aircraft):
    ObjectShareFactory(object=aircraft, organization=other_org)
    guest = MemberFactory(organization=other_org)

    assert log(aircraft, guest).pilot_id == guest.pk


def test_unknown_fields_are_a_programming_error(aircraft, pilot):
    with pytest.raises(TypeError):
        log(aircraft, pilot, colour="red")
    flight = FlightFactory(object=aircraft)
    with pytest.raises(TypeError):
        flight_update(flight=flight, created_at=at(1, 1))


# --- the midnight rule -------------------------------------------------------------------------------------


def local(date: dt.date, *clock: str | None) -> LocalFlightTimes:
    times = [None if value is None else dt.time.fromisoformat(value) for value in clock]
    return LocalFlightTimes(date, *times)


def iso(times: dict) -> list[str | None]:
    return [None if value is None else value.strftime("%Y-%m-%dT%H:%MZ") for value in times.values()]


def test_clock_times_of_a_day_flight_in_the_organizations_zone():
    times = utc_times(local(dt.date(2026, 11, 20), "10:00", "10:05", "11:05", "11:10"), STOCKHOLM)

    assert list(times) == ["blockoff_at", "takeoff_at", "landing_at", "blockon_at"]
    assert iso(times) == ["2026-11-20T09:00Z", "2026-11-20T09:05Z", "2026-11-20T10:05Z", "2026-11-20T10:10Z"]


def test_a_flight_crossing_midnight_puts_the_times_after_it_on_the_next_day():
    times = utc_times(local(dt.date(2026, 11, 20), "23:30", "23:45", "00:35", "00:40"), STOCKHOLM)

    assert iso(times) == ["2026-11-20T22:30Z", "2026-11-20T22:45Z", "2026-11-20T23:35Z", "2026-11-20T23:40Z"]
    times = utc_times(local(dt.date(2026, 11, 20), "23:50", "00:05", "01:00", "01:10"), "UTC")
    assert iso(times) == ["2026-11-20T23:50Z", "2026-11-21T00:05Z", "2026-11-21T01:00Z", "2026-11-21T01:10Z"]


def test_a_missing_time_is_skipped_when_comparing():
    times = utc_times(local(dt.date(2026, 11, 20), "23:30", None, None, "00:40"), "UTC")
    assert iso(times) == ["2026-11-20T23:30Z", None, None, "2026-11-21T00:40Z"]
    times = utc_times(local(dt.date(2026, 11, 20), None, None, "00:10", None), "UTC")
    assert iso(times) == [None, None, "2026-11-20T00:10Z", None]


def test_a_flight_starting_after_midnight_stays_on_its_date():
    times = utc_times(local(dt.date(2026, 11, 21), "00:10", "00:20", "01:00", "01:05"), "UTC")
    assert iso(times)[0] == "2026-11-21T00:10Z"


def test_the_day_after_is_at_most_one_day_after():
    times = utc_times(local(dt.date(2026, 11, 20), "23:00", "01:00", "00:30", "00:40"), "UTC")
    # 00:30 is earlier than 01:00 but the flight has passed midnight already: still the day after.
    assert iso(times) == ["2026-11-20T23:00Z", "2026-11-21T01:00Z", "2026-11-21T00:30Z", "2026-11-21T00:40Z"]


def test_equal_times_are_the_same_day():
    times = utc_times(local(dt.date(2026, 11, 20), "10:00", "10:00", "10:00", "10:00"), "UTC")
    assert len(set(times.values())) == 1


def test_the_day_clocks_spring_forward_counts_the_true_length():
    # 2026-03-29 in Stockholm: 02:00 CET becomes 03:00 CEST.
    times = utc_times(local(dt.date(2026, 3, 29), "01:30", "01:40", "03:20", "03:30"), STOCKHOLM)

    assert iso(times) == ["2026-03-29T00:30Z", "2026-03-29T00:40Z", "2026-03-29T01:20Z", "2026-03-29T01:30Z"]
    assert (times["blockon_at"] - times["blockoff_at"]) == dt.timedelta(hours=1)


def test_a_clock_time_the_clocks_skip_is_refused():
    with pytest.raises(ClockTimeError) as refused:
        utc_times(local(dt.date(2026, 3, 29), "01:30", "02:30", None, None), STOCKHOLM)

    assert refused.value.field == "takeoff_at"


def test_the_day_clocks_fall_back_takes_the_repeated_hour_in_order():
    # 2026-10-25 in Stockholm: 03:00 CEST becomes 02:00 CET; 02:00-03:00 happens twice.
    times = utc_times(local(dt.date(2026, 10, 25), "01:50", "02:10", "02:50", None), STOCKHOLM)
    assert iso(times) == ["2026-10-24T23:50Z", "2026-10-25T00:10Z", "2026-10-25T00:50Z", None]
    times = utc_times(local(dt.date(2026, 10, 25), "02:30", "02:40", "03:30", "03:40"), STOCKHOLM)
    assert (times["blockon_at"] - times["blockoff_at"]) == dt.timedelta(hours=2, minutes=10)


def test_a_dst_day_flight_crossing_midnight():
    # The night into the spring change: 23:30 CET on 03-28, landing 03:10 CEST on 03-29.
    times = utc_times(local(dt.date(2026, 3, 28), "23:30", "23:40", "03:10", "03:20"), STOCKHOLM)

    assert iso(times) == ["2026-03-28T22:30Z", "2026-03-28T22:40Z", "2026-03-29T01:10Z", "2026-03-29T01:20Z"]


def test_stored_times_as_local_clock_times(aircraft):
    flight = FlightFactory(object=aircraft, blockoff_at=at(20, 22, 30), blockon_at=at(20, 23, 40), takeoff_at=None)

    assert local_clock_times(flight, STOCKHOLM) == {
        "blockoff_at": dt.time(23, 30),
        "takeoff_at": None,
        "landing_at": dt.time(12, 5),
        "blockon_at": dt.time(0, 40),
    }
