"""The demo world's operations: objects and their sharing, maintenance items, remarks with their history, a year
of bookings and flights, the chart of accounts and the members' charges for their flights, for Västerås
(`club`) and Bergen (`second`). Called by demo.world.build_world; the data is in demo/data/ (fleet.yaml,
flying.yaml, clubs.yaml), the planner in demo/planner.py, the saving in demo/saving.py. Everything is drawn
from random.Random with a fixed seed in a fixed order, and every date is counted back from the organization's
today (apicore.clock), so a run on the same day gives the same rows.

The demo's specials: a night flight that passes local midnight (and UTC midnight: its landing and block-on
are on the next day in both), a flight whose arrival tachometer reading was forgotten, and a second
organization (Bergen Flyklubb) that hides the crew in its log, whose Cessna is shared with Västerås; and the
Katana SE-LKD, which allows no queue bookings (the others do).
"""

import datetime as dt
import random

from accounts.models import Member, Organization, User
from apicore import clock
from bookings.models import Booking
from demo.datafiles import load
from demo.fleet import (
    AIRPORTS,
    BERGEN_FLEET,
    CHARGED,
    FLIGHT_TYPES,
    INSTRUCTOR_FEE,
    NORWEGIAN_FLIGHT_TYPES,
    VASTERAS_FLEET,
    Aircraft,
    ensure_airports,
    make_fleet,
    make_flight_types,
    make_other_objects,
)
from demo.planner import UTC, Crew, Leg, Planner, Year, local_at, round_down, round_up
from demo.saving import (
    Books,
    lock_date,
    maintenance_plan,
    maintenance_rows,
    make_books,
    remark_plans,
    save_approvals,
    save_remarks,
    save_year,
)
from flightlog.models import FlightLogEntry
from objects_app.models import BookableObject, MaintenanceItem, ObjectShare

# The tests read the demo's fleet and flight types from here.
__all__ = [
    "AIRPORTS",
    "BERGEN_FLEET",
    "CHARGED",
    "FLIGHT_TYPES",
    "INSTRUCTOR_FEE",
    "VASTERAS_FLEET",
    "Crew",
    "Planner",
    "Year",
    "build_demo_operations",
]

SEED = 20260301
_FLYING = load("flying")
_CLUBS = load("clubs")
DISPLAY_AIRCRAFT = tuple(_FLYING["display_aircraft"])


def books_of(club: str, fleet) -> Books:
    """How the charges of `club`'s flights are booked (clubs.yaml: books)."""
    books = _CLUBS[club]["books"]
    return Books(
        debit=books["debit"],
        credit=books["credit"],
        cost_centers={spec.registration: spec.registration[3:] for spec in fleet},
        projects=books["projects_of"],
    )


def club_accounts(club: str) -> list[tuple]:
    """`club`'s accounts in clubs.yaml: (number, name, default debit, default credit)."""
    return [(number, *row) for number, row in _CLUBS[club]["books"]["accounts"].items()]


def make_club_books(organization: Organization, club: str, fleet, *, lock: dt.date) -> None:
    """The chart of accounts of clubs.yaml: accounts, a cost center per aircraft and the club's others, projects."""
    books = _CLUBS[club]["books"]
    make_books(
        organization,
        club_accounts(club),
        [(spec.registration[3:], spec.registration) for spec in fleet] + list(books["cost_centers"].items()),
        list(books["projects"].items()),
        lock_date=lock,
    )


VASTERAS_REMARKS = remark_plans(_FLYING["remarks"]["vasteras"])
BERGEN_REMARKS = remark_plans(_FLYING["remarks"]["bergen"])
VASTERAS_MAINTENANCE = {obj: maintenance_plan(rows) for obj, rows in _FLYING["maintenance"]["vasteras"].items()}
BERGEN_MAINTENANCE = {obj: maintenance_plan(rows) for obj, rows in _FLYING["maintenance"]["bergen"].items()}


def build_demo_operations(club: Organization, second: Organization) -> dict:
    """The demo's fleet, flying, remarks, maintenance and charges for Västerås (`club`) and Bergen
    (`second`, whose crew is hidden in its log and whose Cessna LN-NFT is shared with Västerås). Returns
    ids for the demo's JSON document (no dates: the same on every run)."""
    rng = random.Random(SEED)
    airports = ensure_airports()
    Organization.objects.filter(pk=second.pk).update(**_CLUBS["bergen"]["operations_settings"])
    second.hide_crew_in_log = _CLUBS["bergen"]["operations_settings"]["hide_crew_in_log"]
    today = clock.today_in(club.timezone)

    # Västerås: aircraft, a simulator and a briefing room.
    fleet = make_fleet(club, VASTERAS_FLEET)
    others = make_other_objects(club)
    simulator, briefing = others["Simulator"], others["Briefing room"]
    bergen_fleet = make_fleet(second, BERGEN_FLEET)
    shared = bergen_fleet["LN-NFT"][0]
    ObjectShare.objects.create(object=shared, organization=club)

    crew = Crew.of(club)
    vasteras_types = make_flight_types(club, FLIGHT_TYPES)
    make_club_books(club, "vasteras", VASTERAS_FLEET, lock=lock_date(today))
    books = books_of("vasteras", VASTERAS_FLEET)
    planner = Planner(
        rng=rng,
        organization=club,
        today=today,
        airports=airports,
        home=club.reference_icao,
        destinations=tuple(_FLYING["destinations"]["vasteras"]),
        crew=crew,
        flight_types=vasteras_types,
        booking_types={key: code for key, (_name, code, _charged) in FLIGHT_TYPES.items()},
    )
    pools = planner.pools(list(VASTERAS_FLEET))
    year = Year()
    show = display_day(today)
    for registration, (obj, spec) in fleet.items():
        specials = [midnight_flight] if spec.night else []
        reserved = ()
        if registration in DISPLAY_AIRCRAFT:
            specials.append(display_flight)
            reserved = (show,)
        planner.plan(obj, spec, pools[registration], year, specials=specials, reserved=reserved)
    # The forgotten tachometer: a private flight of SE-KXY about six weeks ago.
    kxy = sorted((f for f in year.flights if f.object.registration == "SE-KXY"), key=lambda f: f.blockoff_at)
    forgotten = next(
        f
        for f in reversed(kxy)
        if f.date <= today - dt.timedelta(days=40) and f.flight_type == vasteras_types["private"]
    )
    _forget_tachometer(forgotten, year)
    _ground_bookings(rng, simulator, briefing, crew, today, year)

    maintenance = [
        member
        for member in Member.objects.filter(organization=club, roles__role="maintenance").order_by("member_number")
    ]
    objects = {registration: obj for registration, (obj, _spec) in fleet.items()} | {"Simulator": simulator}
    save_remarks(
        VASTERAS_REMARKS,
        objects,
        year,
        writers=crew.pilots,
        fixers=maintenance or crew.instructors,
        zone=planner.zone,
        today=today,
        rng=rng,
    )
    save_year(year, organization=club, fleet=fleet, books=books)
    save_approvals(year, crew, fleet, vasteras_types)

    # Bergen: two aircraft, its own few members fly them; its log hides the crew.
    bergen_year = _bergen(rng, second, bergen_fleet, airports, today, guests=crew)

    for obj, _spec in [*fleet.values(), *bergen_fleet.values()]:
        obj.refresh_from_db(fields=["airborne_minutes"])
    items = []
    for registration, plan in VASTERAS_MAINTENANCE.items():
        items += maintenance_rows(objects[registration], plan, today)
    for registration, plan in BERGEN_MAINTENANCE.items():
        items += maintenance_rows(bergen_fleet[registration][0], plan, today)
    MaintenanceItem.objects.bulk_create(items)

    # Two members keep their contact details to themselves (the booking's user block shows null).
    User.objects.filter(pk__in=[crew.pilots[1].user_id]).update(email_visible=False)
    User.objects.filter(pk__in=[crew.pilots[2].user_id]).update(mobile_visible=False)

    return {
        "objects": {registration: obj.pk for registration, obj in objects.items()} | {"Briefing room": briefing.pk},
        "shared_object": {"id": shared.pk, "registration": shared.registration, "owner_id": second.pk},
        "midnight_flight_id": year.specials["midnight"].pk,
        "missing_tachometer_flight_id": year.specials["missing_tachometer"].pk,
        "hidden_crew_organization_id": second.pk,
        "hidden_crew_flight_id": min(f.pk for f in bergen_year.flights),
    }


def second_saturday_of_june(year: int) -> dt.date:
    june = dt.date(year, 6, 1)
    return june + dt.timedelta(days=(5 - june.weekday()) % 7 + 7)


def display_day(today: dt.date) -> dt.date:
    """The club's flight display day: the last second Saturday of June before today."""
    day = second_saturday_of_june(today.year)
    return day if day < today else second_saturday_of_june(today.year - 1)


def display_flight(planner: Planner, obj, spec: Aircraft, pool, year: Year) -> Leg:
    """The aircraft's display over the field on the display day (kept free of other flying), one after the
    other from 13:00, flown by an instructor."""
    index = DISPLAY_AIRCRAFT.index(spec.registration)
    day = display_day(planner.today)
    pilot = planner.crew.instructors[index % len(planner.crew.instructors)] if planner.crew.instructors else pool[0]
    start = local_at(day, 13.0 + 1.5 * index, planner.zone)
    leg = planner._leg("display", day, start + dt.timedelta(minutes=20), 20, planner.home, planner.home, pilot)
    leg.comment = "Display over the field for the visitors."
    booking = planner._booking(
        obj, spec, start, start + dt.timedelta(hours=1, minutes=30), pilot, None, "display", [leg]
    )
    booking.comment = "Flight display day."
    year.bookings.append(booking)
    return leg


def midnight_flight(planner: Planner, obj, spec: Aircraft, pool, year: Year) -> Leg:
    """A night cross-country that leaves at 23:20 local and is back after midnight, local and UTC: the
    landing and block-on are on the day after `date` in both."""
    zone = planner.zone
    day = planner.today - dt.timedelta(days=17)
    blockoff = local_at(day, 23 + 20 / 60, zone)
    utc_midnight = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=UTC)
    landing = utc_midnight + dt.timedelta(minutes=4)
    pilot = planner.crew.instructors[0] if planner.crew.instructors else pool[0]
    leg = Leg(
        kind="private",
        day=day,
        blockoff=blockoff.astimezone(UTC),
        takeoff=(blockoff + dt.timedelta(minutes=11)).astimezone(UTC),
        landing=landing,
        blockon=landing + dt.timedelta(minutes=7),
        departure=planner.home,
        arrival=planner.home,
        pilot=pilot,
        via="ESOE ESSL",
        special="midnight",
    )
    start = round_down(blockoff - dt.timedelta(minutes=20), 30)
    end = round_up((leg.blockon + dt.timedelta(minutes=20)).astimezone(zone), 30)
    booking = planner._booking(obj, spec, start, end, pilot, None, "private", [leg])
    booking.comment = "Night VFR cross-country."
    year.bookings.append(booking)
    return leg


def _forget_tachometer(flight: FlightLogEntry, year: Year) -> None:
    flight.arrival_tachometer = None
    flight.comment = "Forgot to read the tachometer after landing."
    year.specials["missing_tachometer"] = flight


def _ground_bookings(rng, simulator, briefing, crew: Crew, today: dt.date, year: Year) -> None:
    """The simulator twice a week and theory lessons in the briefing room once a week, past and coming."""
    zone = clock.zone(simulator.organization.timezone)
    now = clock.now()
    topics = _FLYING["theory_topics"]
    day = today - dt.timedelta(days=365)
    week = 0
    while day <= today + dt.timedelta(days=14):
        if day.weekday() in (1, 3) and crew.students:
            student = rng.choice(crew.students)
            instructor = rng.choice(crew.instructors)
            start = local_at(day, rng.choice((17.0, 18.0, 19.0)), zone)
            year.bookings.append(
                Booking(
                    object=simulator,
                    user_id=instructor.user_id,
                    student_id=student.user_id,
                    start_at=start.astimezone(UTC),
                    end_at=(start + dt.timedelta(hours=2)).astimezone(UTC),
                    type="SKOL",
                    comment="Instrument procedures." if rng.random() < 0.3 else "",
                    created_at=min(start.astimezone(UTC) - dt.timedelta(days=rng.randint(1, 10)), now),
                    created_by_id=instructor.user_id,
                )
            )
        if day.weekday() == 2 and day.month not in (6, 7):
            instructor = crew.instructors[week % len(crew.instructors)]
            start = local_at(day, 18.5, zone)
            year.bookings.append(
                Booking(
                    object=briefing,
                    user_id=instructor.user_id,
                    start_at=start.astimezone(UTC),
                    end_at=(start + dt.timedelta(hours=2, minutes=30)).astimezone(UTC),
                    type="SKOL",
                    comment=f"PPL theory: {topics[week % len(topics)]}.",
                    created_at=min(start.astimezone(UTC) - dt.timedelta(days=14), now),
                    created_by_id=instructor.user_id,
                )
            )
            week += 1
        day += dt.timedelta(days=1)


def _shared_bookings(shared: BookableObject, crew: Crew, today: dt.date, year: Year) -> None:
    """Västerås members book Bergen's Cessna for fjord trips: two coming, one not flown for the weather. Each
    takes the first free start (10:00, 12:00, ... local) among the Bergen bookings of its day; with none free
    it queues behind them, as the booking rules would make it."""
    zone = clock.zone(shared.organization.timezone)
    taken = [(b.start_at, b.end_at) for b in year.bookings if b.object is shared and b.is_primary]
    for days, length, comment in _FLYING["shared_bookings"]:
        member = crew.pilots[(days * 7) % len(crew.pilots)]
        day = today + dt.timedelta(days=days)
        free = None
        for hour in (10.0, 12.0, 14.0, 16.0):
            start = local_at(day, hour, zone).astimezone(UTC)
            end = start + dt.timedelta(hours=length)
            if all(end <= other_start or other_end <= start for other_start, other_end in taken):
                free = start, end
                break
        start, end = free or (
            local_at(day, 10.0, zone).astimezone(UTC),
            local_at(day, 10.0 + length, zone).astimezone(UTC),
        )
        taken.append((start, end))
        year.bookings.append(
            Booking(
                object=shared,
                user_id=member.user_id,
                start_at=start,
                end_at=end,
                type="PRIV",
                is_primary=free is not None,
                comment=comment,
                created_at=min(start - dt.timedelta(days=20), clock.now()),
                created_by_id=member.user_id,
            )
        )


def _bergen(rng, second: Organization, fleet, airports, today: dt.date, *, guests: Crew) -> Year:
    """Bergen's two aircraft flown by its own few members; `guests` (Västerås) book the shared one."""
    crew = Crew.of(second)
    types = make_flight_types(second, NORWEGIAN_FLIGHT_TYPES)
    make_club_books(second, "bergen", BERGEN_FLEET, lock=dt.date(today.year - 1, 12, 31))
    books = books_of("bergen", BERGEN_FLEET)
    planner = Planner(
        rng=rng,
        organization=second,
        today=clock.today_in(second.timezone),
        airports=airports,
        home=second.reference_icao,
        destinations=tuple(_FLYING["destinations"]["bergen"]),
        crew=crew,
        flight_types=types,
        booking_types={key: code for key, (_name, code, _charged) in NORWEGIAN_FLIGHT_TYPES.items()},
    )
    year = Year()
    for obj, spec in fleet.values():
        planner.plan(obj, spec, crew.pilots, year)
    _shared_bookings(fleet["LN-NFT"][0], guests, today, year)
    save_remarks(
        BERGEN_REMARKS,
        {r: o for r, (o, _s) in fleet.items()},
        year,
        writers=crew.pilots,
        fixers=crew.pilots[:1],
        zone=planner.zone,
        today=today,
        rng=rng,
    )
    save_year(year, organization=second, fleet=fleet, books=books)
    save_approvals(year, crew, fleet, types)
    return year
