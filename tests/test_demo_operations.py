"""The demo world's operations data (demo/operations.py): fleet, sharing, remarks, maintenance, a year
of bookings and flights with their charges, and the specials (a flight over midnight, a forgotten tachometer
reading, an organization that hides its crew). The world is built once for the module and rolled back."""

import contextlib
import datetime as dt
import itertools
import random
from collections import defaultdict
from decimal import Decimal

import pytest
import time_machine
from django.db import transaction
from django.test import override_settings

from accounts.models import Member, Organization
from apicore import clock
from bookings.models import Booking
from demo.operations import (
    AIRPORTS,
    BERGEN_FLEET,
    CHARGED,
    FLIGHT_TYPES,
    INSTRUCTOR_FEE,
    VASTERAS_FLEET,
    Crew,
    Planner,
    Year,
)
from demo.world import build_world
from economy.models import Account, CostCenter, Project, Transaction, TransactionRow
from flightlog.models import Airport, FlightApproval, FlightLogEntry, FlightType
from flightlog.totals import time_summary_of
from objects_app.models import BookableObject, Category, MaintenanceItem, ObjectShare, Remark, RemarkEvent

SPECS = {spec.registration: spec for spec in (*VASTERAS_FLEET, *BERGEN_FLEET)}
CHARGED_NAMES = {"Privat", "Skolflygning", "Skoleflyging"}


@pytest.fixture(
    scope="module",
    params=[None, dt.datetime(2026, 7, 1, 10, 0, tzinfo=dt.UTC)],
    ids=["today", "summer"],  # the real today, and a summer day (daylight saving time, the display day behind)
)
def world(request, django_db_setup, django_db_blocker, tmp_path_factory):
    clock_at = time_machine.travel(request.param, tick=False) if request.param else contextlib.nullcontext()
    media = override_settings(MEDIA_ROOT=tmp_path_factory.mktemp("media"))
    with clock_at, django_db_blocker.unblock(), media, transaction.atomic():
        document = build_world()
        yield document
        transaction.set_rollback(True)


@pytest.fixture
def ops(world, db):
    return world["operations"]


def zone_of(flight: FlightLogEntry):
    return clock.zone(flight.object.organization.timezone)


def flights():
    return list(
        FlightLogEntry.objects.select_related(
            "object__organization", "pilot", "instructor", "scout", "flight_type", "departure_airport"
        ).order_by("object_id", "blockoff_at")
    )


def test_the_fleet_a_simulator_a_briefing_room_and_a_shared_aircraft(world, ops):
    club, second = world["organization"]["id"], world["second_organization"]["id"]
    aircraft = BookableObject.objects.filter(organization_id=club, category=Category.AIRCRAFT)
    assert aircraft.count() == 8
    designators = set(aircraft.values_list("type_designator", flat=True))
    assert {"C172", "P28A", "SR20", "DV20", "DA40", "PA18"} <= designators
    assert all(aircraft.exclude(type_name="").values_list("type_name", flat=True))
    assert aircraft.filter(type_designator="C172", type_name="Cessna 172 Skyhawk").exists()
    assert aircraft.filter(active=False).count() == 1
    simulator = BookableObject.objects.get(pk=ops["objects"]["Simulator"])
    assert simulator.category == Category.EQUIPMENT and simulator.organization_id == club and simulator.has_status
    room = BookableObject.objects.get(pk=ops["objects"]["Briefing room"])
    assert room.category == Category.PREMISES and not room.has_status and room.type_designator == ""
    shared = BookableObject.objects.get(pk=ops["shared_object"]["id"])
    assert shared.organization_id == second and shared.category == Category.AIRCRAFT
    assert list(ObjectShare.objects.values_list("object_id", "organization_id")) == [(shared.pk, club)]
    assert Booking.objects.filter(object=shared, user__members__organization_id=club).exclude(
        user__members__organization_id=second
    )
    assert set(BookableObject.objects.visible_to(Organization.objects.get(pk=club))) >= {shared, simulator, room}


def test_airports_are_real_and_flights_go_around_the_home_field(ops):
    codes = set(Airport.objects.values_list("icao", flat=True))
    assert codes >= {"ESOW", "ESSA", "ESSB", "ESSU", "ESOE", "ENBR"}
    assert sum(code.startswith("ES") for code in codes) >= 8
    assert Airport.objects.get(icao="ESOW").name == "Västerås/Hasslö"
    assert len(codes) == len(AIRPORTS)
    for flight in flights():
        home = flight.object.organization.reference_icao
        assert home in (flight.departure_airport.icao, flight.arrival_airport_id and flight.arrival_airport.icao)
    away = FlightLogEntry.objects.exclude(arrival_airport__icao__in=["ESOW", "ENBR"])
    assert away.count() >= 20
    assert FlightLogEntry.objects.exclude(via_route="").count() >= 20


def test_the_specials(world, ops):
    midnight = FlightLogEntry.objects.select_related("object__organization").get(pk=ops["midnight_flight_id"])
    zone = zone_of(midnight)
    blockoff = midnight.blockoff_at.astimezone(zone)
    assert (blockoff.date(), blockoff.hour, blockoff.minute) == (midnight.date, 23, 20)
    next_day = midnight.date + dt.timedelta(days=1)
    for point in (midnight.landing_at, midnight.blockon_at):
        assert point.astimezone(zone).date() == next_day
        assert point.astimezone(dt.UTC).date() == next_day  # after UTC midnight too
    assert midnight.takeoff_at.astimezone(zone).date() == midnight.date
    assert midnight.object.organization_id == world["organization"]["id"]
    assert midnight.transactions.count() == 1

    forgotten = FlightLogEntry.objects.get(pk=ops["missing_tachometer_flight_id"])
    assert forgotten.arrival_tachometer is None and forgotten.departure_tachometer is not None
    assert time_summary_of(forgotten)["tach_hours"] == 0

    hidden = Organization.objects.get(pk=ops["hidden_crew_organization_id"])
    assert hidden.hide_crew_in_log and hidden.pk == world["second_organization"]["id"]
    assert FlightLogEntry.objects.filter(object__organization=hidden).count() >= 50
    assert FlightLogEntry.objects.get(pk=ops["hidden_crew_flight_id"]).object.organization_id == hidden.pk
    assert not Organization.objects.get(pk=world["organization"]["id"]).hide_crew_in_log


def test_object_totals_are_the_starting_totals_plus_the_logged_flights(ops):
    by_object = defaultdict(list)
    for flight in flights():
        by_object[flight.object_id].append(flight)
    for obj in BookableObject.objects.filter(category=Category.AIRCRAFT):
        spec = SPECS[obj.registration]
        expected = dict(spec.start)
        for flight in by_object[obj.pk]:
            for key, value in time_summary_of(flight).items():
                expected[key] += value
        got = {key: getattr(obj, key) for key in expected}
        assert got == expected, obj.registration
        assert len(by_object[obj.pk]) >= 40
        # The meters run on: each departure reading is the previous arrival reading.
        previous = None
        for flight in by_object[obj.pk]:
            if previous is not None:
                if previous.arrival_tachometer is not None:
                    assert flight.departure_tachometer == previous.arrival_tachometer
                if previous.arrival_hobbs is not None:
                    assert flight.departure_hobbs == previous.arrival_hobbs
            previous = flight
        last = by_object[obj.pk][-1]
        if obj.pk != FlightLogEntry.objects.get(pk=ops["missing_tachometer_flight_id"]).object_id:
            assert obj.tach_hours == last.arrival_tachometer, obj.registration
        else:
            assert obj.tach_hours < last.arrival_tachometer
        assert (last.arrival_hobbs is None) == (not spec.hobbs)
    for room in BookableObject.objects.exclude(category=Category.AIRCRAFT):
        assert (room.airborne_minutes, room.block_minutes, room.tach_hours, room.landings) == (0, 0, 0, 0)


def test_times_are_realistic_local_times(ops):
    by_object = defaultdict(list)
    for flight in flights():
        zone = zone_of(flight)
        assert flight.blockoff_at < flight.takeoff_at < flight.landing_at < flight.blockon_at
        assert flight.blockoff_at.astimezone(zone).date() == flight.date
        assert flight.created_at >= flight.blockon_at
        assert flight.blockon_at <= clock.now()
        assert flight.date >= clock.today_in(zone.key) - dt.timedelta(days=366)
        if flight.pk != ops["midnight_flight_id"]:
            for point in (flight.blockoff_at, flight.blockon_at):
                local = point.astimezone(zone)
                assert 6 <= local.hour < 23 and local.date() == flight.date, (flight.pk, local)
        by_object[flight.object_id].append(flight)
    for rows in by_object.values():
        for before, after in itertools.pairwise(rows):
            assert before.blockon_at <= after.blockoff_at  # one aircraft, one flight at a time
    months = {flight.date.month for flight in FlightLogEntry.objects.all()}
    assert len(months) == 12
    summer = FlightLogEntry.objects.filter(date__month__in=(6, 7)).count()
    winter = FlightLogEntry.objects.filter(date__month__in=(12, 1)).count()
    assert summer > 2 * winter


def test_every_flight_has_its_booking_and_primary_bookings_do_not_overlap(ops):
    bookings = defaultdict(list)
    for booking in Booking.objects.order_by("start_at"):
        assert booking.start_at < booking.end_at
        assert booking.created_at <= booking.start_at
        bookings[booking.object_id].append(booking)
    for flight in FlightLogEntry.objects.all():
        assert any(
            b.start_at <= flight.blockoff_at and flight.blockon_at <= b.end_at for b in bookings[flight.object_id]
        ), flight.pk
    for rows in bookings.values():
        primary = [b for b in rows if b.is_primary]
        for before, after in itertools.pairwise(primary):
            assert before.end_at <= after.start_at
    assert Booking.objects.filter(is_primary=False).exists()
    assert Booking.objects.filter(start_at__gt=clock.now()).count() >= 10
    assert Booking.objects.filter(student__isnull=False, type="SKOL").exists()
    assert Booking.objects.filter(object_id=ops["objects"]["Briefing room"]).count() >= 30
    assert Booking.objects.filter(object_id=ops["objects"]["Simulator"]).count() >= 50
    assert Booking.objects.exclude(expected_airborne=None).exists()


def test_flights_by_members_with_instructors_types_and_approvals(world):
    club = world["organization"]["id"]
    own = FlightLogEntry.objects.filter(object__organization_id=club)
    assert own.filter(instructor__isnull=False, is_solo_instruction=False).count() >= 30
    assert own.filter(is_solo_instruction=True, instructor=None).exists()
    assert own.filter(scout__isnull=False).exists() or not own.filter(flight_type__name="Brandflyg").exists()
    names = set(FlightType.objects.filter(organization_id=club).values_list("name", flat=True))
    assert names == {name for name, _code, _charged in FLIGHT_TYPES.values()}
    used = set(own.values_list("flight_type__name", flat=True))
    assert {"Privat", "Skolflygning", "Uppvisning"} <= used
    show = own.filter(flight_type__name="Uppvisning")
    assert show.count() == 3 and len({flight.date for flight in show}) == 1
    for flight in show:  # the display day is kept free of other flying on the display aircraft
        assert own.filter(object=flight.object, date=flight.date).count() == 1 or flight.object.registration == "SE-MHN"
    assert own.filter(daily_check=True).exists() and own.exclude(uplift_fuel=None).exists()
    assert own.filter(number_of_flights__gt=1).exists()
    assert len(set(own.values_list("pilot_id", flat=True))) >= 15
    approvals = FlightApproval.objects.filter(member__organization_id=club)
    assert approvals.count() >= 30
    for approval in approvals.prefetch_related("flight_types").select_related("object", "member"):
        assert approval.object.organization_id == club
        assert all(t.organization_id == club for t in approval.flight_types.all())
    # Every pilot of a flight may log on that aircraft with that type.
    approved = {
        (member_id, object_id, type_id)
        for member_id, object_id, type_id in approvals.values_list("member_id", "object_id", "flight_types")
    }
    for pilot, obj, flight_type in own.values_list("pilot_id", "object_id", "flight_type_id"):
        assert (pilot, obj, flight_type) in approved


def test_everything_belongs_to_the_right_organization(world):
    shared_with = defaultdict(set)
    for object_id, org_id in ObjectShare.objects.values_list("object_id", "organization_id"):
        shared_with[object_id].add(org_id)
    for flight in flights():
        owner = flight.object.organization_id
        allowed = {owner} | shared_with[flight.object_id]
        for member in (flight.pilot, flight.instructor, flight.scout):
            assert member is None or member.organization_id in allowed
        assert flight.pilot is not None
        assert flight.flight_type is None or flight.flight_type.organization_id == owner
    members = defaultdict(set)
    for user_id, org_id in Member.objects.values_list("user_id", "organization_id"):
        members[user_id].add(org_id)
    for booking in Booking.objects.select_related("object"):
        allowed = {booking.object.organization_id} | shared_with[booking.object_id]
        assert members[booking.user_id] & allowed
        assert booking.student_id is None or members[booking.student_id] & allowed
    for remark in Remark.objects.select_related("object"):
        assert remark.created_by_id is None or members[remark.created_by_id] & {remark.object.organization_id}
    for item in MaintenanceItem.objects.select_related("object"):
        assert item.object.organization_id in (world["organization"]["id"], world["second_organization"]["id"])
    trial = world["trial_organization"]["id"]
    assert not BookableObject.objects.filter(organization_id=trial).exists()
    assert not Transaction.objects.filter(organization_id=trial).exists()


def test_charges_match_the_flights(world):
    charged = 0
    for flight in flights():
        rows = list(flight.transactions.all())
        if flight.flight_type.name not in CHARGED_NAMES:
            assert rows == []
            continue
        charged += 1
        (transaction_,) = rows
        minutes = round((flight.blockon_at - flight.blockoff_at).total_seconds() / 60)
        price = Decimal(SPECS[flight.object.registration].price)
        if flight.instructor_id is not None:
            assert flight.flight_type.name in ("Skolflygning", "Skoleflyging")
            price += INSTRUCTOR_FEE  # a lesson with an instructor
        assert transaction_.amount == -(price * minutes / 60).quantize(Decimal("0.01"))
        assert transaction_.amount < 0
        assert transaction_.organization_id == flight.object.organization_id
        assert transaction_.user_id == flight.pilot.user_id
        assert transaction_.date == flight.date
        assert flight.object.registration in transaction_.comment
    assert charged >= 1000
    assert {"private", "school"} == CHARGED
    for org_id in (world["organization"]["id"], world["second_organization"]["id"]):
        accounts = set(Account.objects.filter(organization_id=org_id).values_list("number", flat=True))
        assert all(number.isdigit() for number in accounts)
        assert Account.objects.filter(organization_id=org_id, is_default_debit=True).count() == 1
        assert Account.objects.filter(organization_id=org_id, is_default_credit=True).count() == 1
        centers = set(CostCenter.objects.filter(organization_id=org_id).values_list("code", flat=True))
        projects = set(Project.objects.filter(organization_id=org_id).values_list("code", flat=True))
        lock = Organization.objects.get(pk=org_id).transaction_lock_date
        assert lock is not None and lock < clock.today_in("Europe/Stockholm")
        rows = TransactionRow.objects.filter(transaction__organization_id=org_id, transaction__flightlog__isnull=False)
        assert rows.count() == 2 * Transaction.objects.filter(organization_id=org_id, flightlog__isnull=False).count()
        for row in rows.select_related("transaction"):
            assert row.account in accounts and row.cost_center in centers
            assert row.project == "" or row.project in projects
            amount = -row.transaction.amount
            assert (row.debit, row.credit) in ((amount, 0), (0, amount))
    assert Project.objects.filter(organization_id=world["organization"]["id"]).count() >= 2


def test_maintenance_near_and_past_due_and_remarks_with_history(world, ops):
    today = clock.today_in("Europe/Stockholm")
    items = MaintenanceItem.objects.select_related("object")
    assert items.filter(due_date__lt=today).exists()  # past due by date
    assert items.filter(due_date__gte=today, due_date__lte=today + dt.timedelta(days=30)).exists()
    hours = [(item, Decimal(item.object.airborne_minutes) / 60) for item in items]
    assert any(item.due_airborne is not None and item.due_airborne <= total for item, total in hours)
    assert any(item.hard_airborne is not None and item.hard_airborne <= total for item, total in hours)
    assert any(
        item.due_airborne is not None and total < item.due_airborne <= total + item.warning_hours
        for item, total in hours
    )
    states = set(Remark.objects.values_list("state", "category"))
    assert {state for state, _category in states} == {"open", "acknowledged", "closed"}
    assert {category for _state, category in states} == {0, 1, 2}
    for remark in Remark.objects.prefetch_related("history"):
        history = list(remark.history.all())
        assert all(event.at >= remark.created_at for event in history)
        if remark.state == "closed":
            assert history and history[-1].action == "closed"
        if remark.state == "acknowledged":
            assert history[0].action == "acknowledged"
        if remark.state == "open":
            assert history == []
    assert RemarkEvent.objects.filter(action="commented").exclude(text="").exists()
    assert Remark.objects.filter(object_id=ops["shared_object"]["id"], state="acknowledged").exists()
    assert FlightLogEntry.objects.exclude(remark=None).count() >= 3


def test_the_document_lists_the_operations_ids(world, ops):
    assert set(ops) == {
        "objects",
        "shared_object",
        "midnight_flight_id",
        "missing_tachometer_flight_id",
        "hidden_crew_organization_id",
        "hidden_crew_flight_id",
    }
    assert set(ops["objects"]) == {spec.registration for spec in VASTERAS_FLEET} | {"Simulator", "Briefing room"}
    first_two = list(FlightLogEntry.objects.order_by("pk").values_list("pk", flat=True)[:2])
    assert first_two == [ops["midnight_flight_id"], ops["missing_tachometer_flight_id"]]  # stable from day to day


def plan_once(when: dt.datetime) -> list[tuple]:
    """One aircraft's year planned at `when` from unsaved rows: (date, block off, block on, pilot, kind)."""
    org = Organization(name="Planner club", timezone="Europe/Stockholm", reference_icao="ESOW")
    members = [Member(user_id=100 + index, member_number=str(index)) for index in range(12)]
    crew = Crew(pilots=members[:8], students=members[8:10], instructors=members[10:])
    airports = {icao: Airport(icao=icao, name=name, latitude=lat, longitude=lon) for icao, name, lat, lon in AIRPORTS}
    types = {key: FlightType(name=name) for key, (name, _code, _charged) in FLIGHT_TYPES.items()}
    spec = VASTERAS_FLEET[0]
    obj = BookableObject(registration=spec.registration)
    with time_machine.travel(when, tick=False):
        planner = Planner(
            rng=random.Random(7),
            organization=org,
            today=clock.today_in(org.timezone),
            airports=airports,
            home="ESOW",
            destinations=("ESSA", "ESOE"),
            crew=crew,
            flight_types=types,
            booking_types={key: code for key, (_name, code, _charged) in FLIGHT_TYPES.items()},
        )
        year = Year()
        planner.plan(obj, spec, members[:8], year)
    return [(f.date, f.blockoff_at, f.blockon_at, f.pilot.user_id, f.flight_type.name) for f in year.flights]


def test_the_planner_is_deterministic_and_counts_from_today():
    first = plan_once(dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC))
    assert first == plan_once(dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC))
    assert 120 <= len(first) <= 320
    assert min(row[0] for row in first) >= dt.date(2025, 11, 26)
    assert max(row[1] for row in first) <= dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)
    later = plan_once(dt.datetime(2027, 3, 1, 12, 0, tzinfo=dt.UTC))
    assert min(row[0] for row in later) >= dt.date(2026, 3, 1)
    assert max(row[0] for row in later) <= dt.date(2027, 3, 1)
