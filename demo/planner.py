"""One aircraft's year of flying, planned day by day (docs/decisions.md §12.12): days from the season and the
day of the week, flights inside the day's daylight window in the organization's zone, bookings around them,
meter readings that run on from one flight to the next. The same planner makes the demo clubs' year
(demo/operations.py) and the benchmark's club (demo/bench_club.py); what it plans is saved by demo/saving.py.
Everything is drawn from the random.Random it is given, in a fixed order, and every date is counted back from
the organization's today (apicore.clock). Its figures are in demo/data/flying.yaml."""

import datetime as dt
import math
import random
from dataclasses import dataclass, field
from decimal import Decimal

from accounts.models import Member, MemberRole, Organization
from apicore import clock
from bookings.models import Booking
from demo.datafiles import load
from demo.fleet import CHARGED, Aircraft
from flightlog.models import Airport, FlightLogEntry, FlightType
from objects_app.models import BookableObject

UTC = dt.UTC
CENT = Decimal("0.01")

_FLYING = load("flying")
# Daylight window of club flying by month (local hours) and the season's share of the flying.
WINDOWS = {month: tuple(hours) for month, hours in _FLYING["daylight"].items()}
SEASON = _FLYING["season"]
WEEKDAY = tuple(_FLYING["weekday"])
FLIGHT_COMMENTS = tuple(_FLYING["flight_comments"])
BOOKING_COMMENTS = {kind: tuple(comments) for kind, comments in _FLYING["booking_comments"].items()}

# --- small helpers -------------------------------------------------------------------------------------


def _poisson(rng: random.Random, lam: float) -> int:
    limit, count, product = math.exp(-lam), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def _distance_nm(a: Airport, b: Airport) -> float:
    lat1, lon1, lat2, lon2 = map(
        math.radians, (float(a.latitude), float(a.longitude), float(b.latitude), float(b.longitude))
    )
    h = math.sin((lat2 - lat1) / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2
    return 2 * 3440.065 * math.asin(math.sqrt(h))


def local_at(day: dt.date, hours: float, zone) -> dt.datetime:
    minutes = round(hours * 60)
    return dt.datetime.combine(day, dt.time(minutes // 60, minutes % 60), tzinfo=zone)


def round_down(value: dt.datetime, step: int) -> dt.datetime:
    return value.replace(minute=value.minute - value.minute % step, second=0, microsecond=0)


def round_up(value: dt.datetime, step: int) -> dt.datetime:
    down = round_down(value, step)
    return down if down == value else down + dt.timedelta(minutes=step)


# --- the crew of an organization -------------------------------------------------------------------------


@dataclass
class Crew:
    pilots: list[Member]
    students: list[Member]
    instructors: list[Member]

    @classmethod
    def of(cls, organization: Organization) -> "Crew":
        """Active members: instructors (role), students (role), and pilots (the rest, save passive, honorary
        and junior members who are not students)."""
        members = list(
            Member.objects.filter(organization=organization, active=True)
            .select_related("membership")
            .order_by("member_number", "id")
        )
        roles: dict[int, set[str]] = {}
        for member_id, role in MemberRole.objects.filter(member__in=members).values_list("member_id", "role"):
            roles.setdefault(member_id, set()).add(role)
        instructors = [m for m in members if "instructor" in roles.get(m.pk, ())]
        students = [m for m in members if "student" in roles.get(m.pk, ())]
        grounded = {"Passive", "Honorary", "Junior", "Passiv"}
        pilots = [
            m for m in members if m not in students and (m.membership is None or m.membership.name not in grounded)
        ]
        return cls(pilots=pilots, students=students, instructors=instructors)


# --- one aircraft's year ----------------------------------------------------------------------------------


@dataclass
class Leg:
    """One flight as planned: clock times, airports, crew, kind; readings come later (in time order)."""

    kind: str
    day: dt.date
    blockoff: dt.datetime  # UTC from here on
    takeoff: dt.datetime
    landing: dt.datetime
    blockon: dt.datetime
    departure: str
    arrival: str
    pilot: Member
    instructor: Member | None = None
    scout: Member | None = None
    landings: int = 1
    via: str = ""
    solo: bool | None = None
    daily_check: bool | None = None
    comment: str = ""
    special: str = ""  # "midnight", "missing_tachometer"


@dataclass
class Year:
    """What the planner made for one organization: unsaved flights (with their charges) and bookings."""

    flights: list[FlightLogEntry] = field(default_factory=list)
    bookings: list[Booking] = field(default_factory=list)
    charges: list[tuple[FlightLogEntry, Member, str]] = field(default_factory=list)  # flight, payer, kind
    specials: dict[str, FlightLogEntry] = field(default_factory=dict)


class Planner:
    """Plans the flying of one organization's aircraft, day by day, in the organization's zone."""

    def __init__(
        self,
        *,
        rng: random.Random,
        organization: Organization,
        today: dt.date,
        airports: dict[str, Airport],
        home: str,
        destinations: tuple[str, ...],
        crew: Crew,
        flight_types: dict[str, FlightType],
        days: int = 365,
        booking_types: dict[str, str],
    ):
        self.rng, self.organization, self.today = rng, organization, today
        self.zone = clock.zone(organization.timezone)
        self.airports, self.home, self.destinations = airports, home, destinations
        self.crew, self.flight_types, self.days, self.booking_types = crew, flight_types, days, booking_types
        self.now = clock.now()

    # Which crew flies an aircraft: a few regulars each, drawn once.
    def pools(self, fleet: list[Aircraft]) -> dict[str, list[Member]]:
        pools: dict[str, list[Member]] = {spec.registration: [] for spec in fleet}
        flyable = [spec for spec in fleet if spec.sold_days_ago is None] or fleet
        for pilot in self.crew.pilots:
            for spec in self.rng.sample(flyable, min(len(flyable), self.rng.choice((1, 1, 2, 2, 3)))):
                pools[spec.registration].append(pilot)
        for spec in fleet:
            if not pools[spec.registration]:
                pools[spec.registration] = list(self.crew.pilots[:3])
        return pools

    def kind_of(self, spec: Aircraft, day: dt.date) -> str:
        roll = self.rng.random()
        summer = day.month in (5, 6, 7, 8)
        if spec.tow and summer and day.weekday() >= 5 and roll < 0.6:
            return "tow"
        if spec.school and self.crew.students and roll < 0.38 and "school" in self.flight_types:
            return "school"
        if summer and roll > 0.97 and "fire" in self.flight_types and not spec.tow:
            return "fire"
        if summer and day.weekday() >= 5 and 0.94 < roll <= 0.97 and "sightseeing" in self.flight_types:
            return "sightseeing"
        if 0.925 < roll <= 0.94 and "test" in self.flight_types:
            return "test"
        return "private"

    def airborne_minutes(self, kind: str, spec: Aircraft) -> tuple[int, int]:
        """(minutes in the air, landings) of a local flight of `kind`."""
        rng = self.rng
        if kind == "school":
            return rng.randint(40, 75), rng.randint(3, 9)
        if kind == "tow":
            return rng.randint(50, 120), rng.randint(5, 12)
        if kind == "fire":
            return rng.randint(90, 150), 1
        if kind == "sightseeing":
            return rng.randint(20, 35), rng.randint(1, 3)
        if kind == "display":
            return rng.randint(15, 30), 1
        if kind == "test":
            return rng.randint(20, 40), 1
        return rng.randint(35, 95), rng.choice((1, 1, 1, 2, 3))

    def legs_of_day(self, spec: Aircraft, day: dt.date, pool: list[Member], count: int) -> list[tuple]:
        """[(booking start, booking end, [Leg], booker, student, kind)] for the day's `count` flights."""
        rng, zone = self.rng, self.zone
        first, last = WINDOWS[day.month]
        window_end = local_at(day, last, zone)
        cursor = local_at(day, first, zone) + dt.timedelta(minutes=rng.choice((0, 15, 30, 45, 60, 90)))
        made = []
        for _ in range(count):
            kind = self.kind_of(spec, day)
            start = round_down(cursor, 15)
            blockoff = start + dt.timedelta(minutes=rng.randint(10, 30))
            instructor = student = scout = None
            solo = None
            if kind == "school":
                student = rng.choice(self.crew.students)
                pilot = student
                if rng.random() < 0.8 and self.crew.instructors:
                    instructor, solo = rng.choice(self.crew.instructors), False
                else:
                    solo = True
            else:
                pilot = rng.choice(pool)
                if kind == "fire":
                    scout = rng.choice([m for m in self.crew.pilots if m != pilot] or [pilot])
            legs = []
            trip = kind == "private" and rng.random() < 0.2 and self.destinations
            if trip:
                there = self.airports[rng.choice(self.destinations)]
                distance = _distance_nm(self.airports[self.home], there)
                air = round(distance / spec.cruise_kt * 60) + rng.randint(8, 16)
                out = self._leg(kind, day, blockoff, air, self.home, there.icao, pilot)
                back_off = out.blockon + dt.timedelta(minutes=rng.randint(60, 180))
                back = self._leg(kind, day, back_off, air + rng.randint(-6, 6), there.icao, self.home, pilot)
                legs = [out, back]
            else:
                air, landings = self.airborne_minutes(kind, spec)
                leg = self._leg(kind, day, blockoff, air, self.home, self.home, pilot, landings=landings)
                leg.instructor, leg.scout, leg.solo = instructor, scout, solo
                if kind == "private" and rng.random() < 0.25 and self.destinations:
                    leg.via = " ".join(rng.sample(self.destinations, rng.choice((1, 1, 2))))
                elif kind == "fire":
                    leg.via = f"Route {rng.randint(1, 4)}"
                legs = [leg]
            end = round_up(legs[-1].blockon.astimezone(zone) + dt.timedelta(minutes=rng.randint(10, 25)), 30)
            if end > window_end:
                break
            booker = instructor or pilot
            made.append((start, end, legs, booker, student if instructor else None, kind))
            cursor = end + dt.timedelta(minutes=rng.choice((0, 0, 15, 30, 60, 90)))
        return made

    def _leg(self, kind, day, blockoff, air, departure, arrival, pilot, landings=1) -> Leg:
        taxi_out, taxi_in = self.rng.randint(5, 12), self.rng.randint(3, 8)
        takeoff = blockoff + dt.timedelta(minutes=taxi_out)
        landing = takeoff + dt.timedelta(minutes=max(air, 10))
        blockon = landing + dt.timedelta(minutes=taxi_in)
        return Leg(
            kind=kind,
            day=day,
            blockoff=blockoff.astimezone(UTC),
            takeoff=takeoff.astimezone(UTC),
            landing=landing.astimezone(UTC),
            blockon=blockon.astimezone(UTC),
            departure=departure,
            arrival=arrival,
            pilot=pilot,
            landings=landings,
        )

    def plan(
        self, obj: BookableObject, spec: Aircraft, pool: list[Member], year: Year, *, specials=(), reserved=()
    ) -> None:
        """A year of `spec`'s flights and bookings (up to today, and bookings for the next two weeks). Each of
        `specials` adds one flight (planner, object, spec, pool, year -> Leg); on the `reserved` days the
        aircraft does no ordinary flying (the club has it for an event)."""
        rng = self.rng
        first_day = self.today - dt.timedelta(days=self.days)
        last_day = self.today + dt.timedelta(days=14)  # flown up to now, booked two weeks ahead
        if spec.sold_days_ago is not None:
            last_day = self.today - dt.timedelta(days=spec.sold_days_ago)
        per_day = spec.flights / 365
        legs: list[Leg] = []
        day = first_day
        while day <= self.today + dt.timedelta(days=14):
            lam = per_day * SEASON[day.month] * WEEKDAY[day.weekday()]
            count = min(_poisson(rng, lam), 6)
            if count and day <= last_day and day not in reserved:
                planned = self.legs_of_day(spec, day, pool, count)
                for index, (start, end, day_legs, booker, student, kind) in enumerate(planned):
                    past = end.astimezone(UTC) <= self.now
                    if not past and start.astimezone(UTC) <= self.now:
                        continue  # going on right now: neither a flight nor a booking to show
                    year.bookings.append(self._booking(obj, spec, start, end, booker, student, kind, day_legs))
                    if past:
                        if index == 0:
                            day_legs[0].daily_check = True
                        legs.extend(day_legs)
                    if rng.random() < 0.03:  # someone queued behind (where the aircraft allows a queue)
                        queued = rng.choice(pool)
                        if queued != booker:
                            booking = self._booking(obj, spec, start, end, queued, None, "private", [])
                            booking.is_primary = False
                            booking.comment = "In the queue, in case the weather stops the first."
                            if spec.queue_allowed:  # drawn all the same: the other aircraft's year stays as it was
                                year.bookings.append(booking)
            day += dt.timedelta(days=1)
        for special in specials:
            legs.append(special(self, obj, spec, pool, year))
        self._readings(obj, spec, sorted(legs, key=lambda leg: leg.blockoff), year)

    def _booking(self, obj, spec, start, end, booker, student, kind, legs) -> Booking:
        rng = self.rng
        made_days = rng.randint(0, 12)
        created = min(start.astimezone(UTC) - dt.timedelta(days=made_days, hours=rng.randint(1, 9)), self.now)
        expected = None
        if spec.expected_airborne and legs:
            airborne = sum((leg.landing - leg.takeoff).total_seconds() for leg in legs) / 3600
            expected = Decimal(str(round(airborne * 2) / 2 or 0.5)).quantize(CENT)
        return Booking(
            object=obj,
            user_id=booker.user_id,
            student_id=student.user_id if student else None,
            start_at=start.astimezone(UTC),
            end_at=end.astimezone(UTC),
            type=self.booking_types[kind],
            is_primary=True,
            expected_airborne=expected,
            comment=rng.choice(BOOKING_COMMENTS[kind]) if kind in BOOKING_COMMENTS and rng.random() < 0.15 else "",
            created_at=created,
            created_by_id=booker.user_id,
        )

    def _readings(self, obj: BookableObject, spec: Aircraft, legs: list[Leg], year: Year) -> None:
        """Flights with meters that run on from one flight to the next; one forgotten reading stays a gap."""
        rng = self.rng
        tach, hobbs = Decimal(spec.tach), spec.start_hobbs
        for leg in legs:
            block_hours = (leg.blockon - leg.blockoff).total_seconds() / 3600
            tach_step = Decimal(str(max(round(block_hours * rng.uniform(0.84, 0.92), 2), 0.1)))
            departure_tach, tach = tach, tach + tach_step
            departure_hobbs = hobbs
            if hobbs is not None:
                hobbs = hobbs + Decimal(str(max(round(block_hours - rng.randint(2, 5) / 60, 2), 0.1)))
            flight = FlightLogEntry(
                object=obj,
                date=leg.blockoff.astimezone(self.zone).date(),
                flight_type=self.flight_types.get(leg.kind),
                departure_airport=self.airports[leg.departure],
                arrival_airport=self.airports[leg.arrival],
                blockoff_at=leg.blockoff,
                takeoff_at=leg.takeoff,
                landing_at=leg.landing,
                blockon_at=leg.blockon,
                departure_tachometer=departure_tach,
                arrival_tachometer=None if leg.special == "missing_tachometer" else tach,
                departure_hobbs=departure_hobbs,
                arrival_hobbs=hobbs,
                via_route=leg.via,
                pilot=leg.pilot,
                instructor=leg.instructor,
                scout=leg.scout,
                is_solo_instruction=leg.solo,
                uplift_fuel=Decimal(rng.randint(20, 90)) if rng.random() < 0.4 else None,
                uplift_oil=Decimal("0.5") if rng.random() < 0.05 else None,
                number_of_flights=leg.landings,
                daily_check=leg.daily_check,
                comment=leg.comment or (rng.choice(FLIGHT_COMMENTS) if rng.random() < 0.1 else ""),
                created_at=min(leg.blockon + dt.timedelta(minutes=rng.randint(5, 90)), self.now),
            )
            year.flights.append(flight)
            if leg.special:
                year.specials[leg.special] = flight
            if leg.kind in CHARGED:
                year.charges.append((flight, leg.pilot, leg.kind))
