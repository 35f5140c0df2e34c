"""Operations data of the demo world and of the operations benchmark: objects and their sharing, maintenance
items, remarks with their history, airports, flight types and approvals, a year of bookings and flights, the
chart of accounts and the members' charges for their flights.

One planner makes a year of flying for one aircraft (`plan_aircraft_year`): days from the season and the day of
the week, flights inside the day's daylight window in the organization's zone, bookings around them, meter
readings that run on from one flight to the next. `build_demo_operations` (called by demo.world.build_world)
gives the demo clubs their fleet; `build_bench_club` (bench/operations.py) makes one large organization with
the same planner. Everything is drawn from random.Random with a fixed seed in a fixed order, and every date is
counted back from the organization's today (apicore.clock), so a run on the same day gives the same rows.

The demo's specials: a night flight that passes local midnight (and UTC midnight: its landing and block-on
are on the next day in both), a flight whose arrival tachometer reading was forgotten, and a second
organization (Bergen Flyklubb) that hides the crew in its log, whose Cessna is shared with Västerås; and the
Katana SE-LKD, which allows no queue bookings (the others do).
"""

import datetime as dt
import math
import random
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from accounts.models import Member, MemberRole, Membership, Organization, User, UserEmail
from accounts.models.user import join_name
from accounts.usernames import username_skeleton
from apicore import clock
from bookings.models import Booking
from economy.models import Account, CostCenter, Project, Transaction, TransactionRow
from flightlog.models import Airport, FlightApproval, FlightLogEntry, FlightType
from flightlog.totals import time_summary_of
from objects_app.models import BookableObject, Category, MaintenanceItem, ObjectShare, Remark, RemarkEvent
from objects_app.time_summary import object_totals_move

SEED = 20260301
UTC = dt.UTC
CENT = Decimal("0.01")

# ICAO code, name, latitude, longitude (real airports; the home fields of the demo clubs among them).
AIRPORTS = (
    ("ESOW", "Västerås/Hasslö", "59.589444", "16.633611"),
    ("ESSX", "Västerås/Johannisberg", "59.575833", "16.503056"),
    ("ESSA", "Stockholm/Arlanda", "59.651944", "17.918611"),
    ("ESSB", "Stockholm/Bromma", "59.354372", "17.941650"),
    ("ESSU", "Eskilstuna/Kjula", "59.351111", "16.708333"),
    ("ESOE", "Örebro", "59.223611", "15.038056"),
    ("ESSL", "Linköping/Saab", "58.406111", "15.680556"),
    ("ESSP", "Norrköping/Kungsängen", "58.586111", "16.250556"),
    ("ESKN", "Stockholm/Skavsta", "58.788611", "16.912222"),
    ("ESSD", "Borlänge/Dala Airport", "60.422000", "15.515000"),
    ("ESOK", "Karlstad", "59.444722", "13.337500"),
    ("ESNQ", "Kiruna", "67.821944", "20.336667"),
    ("ENBR", "Bergen/Flesland", "60.293611", "5.218056"),
    ("ENSO", "Stord/Sørstokken", "59.791944", "5.340833"),
    ("ENHD", "Haugesund/Karmøy", "59.345278", "5.208333"),
    ("ENFL", "Florø", "61.583611", "5.024722"),
    ("ENSG", "Sogndal/Haukåsen", "61.156111", "7.137778"),
)

# The flight types of a Swedish club: key -> (name, booking type, charged to the member).
FLIGHT_TYPES = {
    "private": ("Privat", "PRIV", True),
    "school": ("Skolflygning", "SKOL", True),
    "display": ("Uppvisning", "UPPV", False),
    "sightseeing": ("Rundflygning", "RUND", False),
    "fire": ("Brandflyg", "BRAND", False),
    "tow": ("Bogsering", "BOGS", False),
    "test": ("Teknisk flygning", "TEKN", False),
}
CHARGED = {"private", "school"}  # the kinds charged to the member (pilot, or the student of a lesson)
INSTRUCTOR_FEE = Decimal("450")  # per block hour on top of the aircraft's price, for a lesson with an instructor


def hourly_price(aircraft_price: str, flight: FlightLogEntry) -> Decimal:
    """What a charged flight costs an hour: the aircraft type's price, plus the instructor's fee on a lesson
    flown with an instructor (a solo lesson pays the aircraft only)."""
    return Decimal(aircraft_price) + (INSTRUCTOR_FEE if flight.instructor_id is not None else 0)


NORWEGIAN_FLIGHT_TYPES = {
    "private": ("Privat", "PRIV", True),
    "school": ("Skoleflyging", "SKOL", True),
    "test": ("Teknisk flyging", "TEKN", False),
}


@dataclass(frozen=True)
class Aircraft:
    """One aircraft and its totals before the year of the demo (airborne hours, tachometer, landings)."""

    registration: str
    designator: str
    type_name: str
    price: str  # per block hour, in the organization's currency
    cruise_kt: int
    airborne_hours: int
    tach: str
    landings: int
    flights: int  # a year, about
    school: bool = False
    hobbs: bool = False
    tow: bool = False
    night: bool = False
    expected_airborne: bool = False
    max_booking_minutes: int | None = None
    queue_allowed: bool = True  # a booking over another becomes a queue booking; False: it is refused
    comment: str = ""
    sold_days_ago: int | None = None  # inactive: no flights after that

    @property
    def start(self) -> dict:
        """The object's time summary columns before the first flight of the year."""
        return {
            "airborne_minutes": self.airborne_hours * 60,
            "block_minutes": self.airborne_hours * 69,  # block time runs about 15 % over airborne time
            "tach_hours": Decimal(self.tach),
            "landings": self.landings,
        }

    @property
    def start_hobbs(self) -> Decimal | None:
        return Decimal(self.airborne_hours * 112) / 100 if self.hobbs else None


VASTERAS_FLEET = (
    Aircraft("SE-KXY", "C172", "Cessna 172 Skyhawk", "1650", 110, 6120, "4890.40", 14230, 210, school=True),
    Aircraft("SE-MIX", "P28A", "Piper PA-28-161 Warrior", "1550", 105, 8450, "6712.85", 17905, 170, school=True),
    Aircraft("SE-KMO", "C152", "Cessna 152", "1250", 95, 9810, "8020.10", 26544, 150, school=True),
    Aircraft("SE-LKD", "DV20", "Diamond DV20 Katana", "1350", 100, 3988, "3301.75", 9120, 110, queue_allowed=False),
    Aircraft(
        "SE-MHN",
        "SR20",
        "Cirrus SR20",
        "2450",
        150,
        2140,
        "1822.30",
        3010,
        90,
        hobbs=True,
        night=True,
        expected_airborne=True,
        max_booking_minutes=3 * 24 * 60,
        comment="IFR and night equipped. Checkout with the CFI required.",
    ),
    Aircraft("SE-LDR", "DA40", "Diamond DA40 Diamond Star", "2100", 130, 4410, "3780.60", 7220, 100, hobbs=True),
    Aircraft(
        "SE-GVT",
        "PA18",
        "Piper PA-18 Super Cub",
        "1400",
        85,
        7302,
        "5961.15",
        31870,
        120,
        tow=True,
        comment="Glider towing and tailwheel training.",
    ),
    Aircraft("SE-MGK", "C182", "Cessna 182 Skylane", "2300", 135, 5533, "4705.95", 8861, 60, sold_days_ago=75),
)
BERGEN_FLEET = (
    Aircraft(
        "LN-NFT",
        "C172",
        "Cessna 172 Skyhawk",
        "2150",
        110,
        7011,
        "5880.20",
        15012,
        110,
        school=True,
        comment="Shared with Västerås Flygklubb.",
    ),
    Aircraft("LN-BIR", "DA40", "Diamond DA40 Diamond Star", "2600", 130, 3120, "2655.00", 5402, 80, hobbs=True),
)
# The type pool of the benchmark's fleet.
BENCH_TYPES = (
    ("C172", "Cessna 172 Skyhawk", "1650", 110, True, False),
    ("P28A", "Piper PA-28-161 Warrior", "1550", 105, True, False),
    ("C152", "Cessna 152", "1250", 95, True, False),
    ("DV20", "Diamond DV20 Katana", "1350", 100, False, False),
    ("SR20", "Cirrus SR20", "2450", 150, False, True),
    ("DA40", "Diamond DA40 Diamond Star", "2100", 130, False, True),
    ("C182", "Cessna 182 Skylane", "2300", 135, False, False),
    ("PA18", "Piper PA-18 Super Cub", "1400", 85, False, False),
    ("TB20", "Socata TB-20 Trinidad", "2400", 145, False, False),
    ("BE76", "Beechcraft 76 Duchess", "3900", 150, True, True),
)

# Daylight window of club flying by month (local hours) and the season's share of the flying.
WINDOWS = {
    1: (9.0, 15.0),
    2: (8.5, 16.5),
    3: (8.0, 18.0),
    4: (7.5, 20.0),
    5: (7.0, 21.0),
    6: (7.0, 21.5),
    7: (7.0, 21.5),
    8: (7.5, 20.5),
    9: (8.0, 19.0),
    10: (8.5, 17.5),
    11: (9.0, 15.5),
    12: (9.0, 14.5),
}
SEASON = {1: 0.35, 2: 0.45, 3: 0.7, 4: 1.0, 5: 1.4, 6: 1.7, 7: 1.6, 8: 1.5, 9: 1.1, 10: 0.8, 11: 0.45, 12: 0.35}
WEEKDAY = (0.75, 0.75, 0.75, 0.75, 1.0, 1.7, 1.7)

FLIGHT_COMMENTS = (
    "Touch-and-goes runway 01.",
    "Crosswind practice.",
    "Some turbulence below 2000 ft.",
    "Fuel receipt in the folder.",
    "Stalls and steep turns.",
    "Navigation exercise.",
    "Passenger flight with family.",
    "Washed the aircraft afterwards.",
)
BOOKING_COMMENTS = {
    "private": ("Local flight, back by lunch.", "Trip with a friend.", "Weather permitting.", "Photo flight."),
    "school": ("Lesson 12: navigation.", "Circuits.", "Checkout flight.", "Stalls and slow flight."),
}


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


def _local(day: dt.date, hours: float, zone) -> dt.datetime:
    minutes = round(hours * 60)
    return dt.datetime.combine(day, dt.time(minutes // 60, minutes % 60), tzinfo=zone)


def _round_down(value: dt.datetime, step: int) -> dt.datetime:
    return value.replace(minute=value.minute - value.minute % step, second=0, microsecond=0)


def _round_up(value: dt.datetime, step: int) -> dt.datetime:
    down = _round_down(value, step)
    return down if down == value else down + dt.timedelta(minutes=step)


def hours_text(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


def ensure_airports() -> dict[str, Airport]:
    """The airports of AIRPORTS by ICAO code (made once; the bench adds its club to a demo world)."""
    Airport.objects.bulk_create(
        [
            Airport(icao=icao, name=name, latitude=Decimal(lat), longitude=Decimal(lon))
            for icao, name, lat, lon in AIRPORTS
        ],
        ignore_conflicts=True,
    )
    return {airport.icao: airport for airport in Airport.objects.filter(icao__in=[row[0] for row in AIRPORTS])}


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
        window_end = _local(day, last, zone)
        cursor = _local(day, first, zone) + dt.timedelta(minutes=rng.choice((0, 15, 30, 45, 60, 90)))
        made = []
        for _ in range(count):
            kind = self.kind_of(spec, day)
            start = _round_down(cursor, 15)
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
            end = _round_up(legs[-1].blockon.astimezone(zone) + dt.timedelta(minutes=rng.randint(10, 25)), 30)
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


def midnight_flight(planner: Planner, obj, spec: Aircraft, pool, year: Year) -> Leg:
    """A night cross-country that leaves at 23:20 local and is back after midnight, local and UTC: the
    landing and block-on are on the day after `date` in both."""
    zone = planner.zone
    day = planner.today - dt.timedelta(days=17)
    blockoff = _local(day, 23 + 20 / 60, zone)
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
    start = _round_down(blockoff - dt.timedelta(minutes=20), 30)
    end = _round_up((leg.blockon + dt.timedelta(minutes=20)).astimezone(zone), 30)
    booking = planner._booking(obj, spec, start, end, pilot, None, "private", [leg])
    booking.comment = "Night VFR cross-country."
    year.bookings.append(booking)
    return leg


# --- saving a year ---------------------------------------------------------------------------------------


@dataclass
class Books:
    """An organization's chart of accounts as the charges use it."""

    debit: str
    credit: dict[str, str]  # flight kind -> revenue account
    cost_centers: dict[str, str]  # registration -> code
    projects: dict[str, str]  # flight kind -> project code


def save_year(
    year: Year, *, organization: Organization, fleet: dict[str, tuple[BookableObject, Aircraft]], books: Books
):
    """Bulk-insert the flights (specials first: their ids stay the same from one day to the next), the
    bookings, one charge per charged flight with its two account rows, and move the objects' totals."""
    specials = list(year.specials.values())
    ordered = specials + sorted(
        (flight for flight in year.flights if flight not in specials),
        key=lambda f: (f.blockoff_at, f.object.registration),
    )
    FlightLogEntry.objects.bulk_create(ordered, batch_size=2000)
    Booking.objects.bulk_create(sorted(year.bookings, key=lambda b: (b.created_at, b.start_at)), batch_size=2000)

    transactions, rows_of = [], []
    for flight, payer, kind in year.charges:
        spec = fleet[flight.object.registration][1]
        minutes = round((flight.blockon_at - flight.blockoff_at).total_seconds() / 60)
        amount = (hourly_price(spec.price, flight) * minutes / 60).quantize(CENT, ROUND_HALF_UP)
        comment = f"Flight {spec.registration} {hours_text(minutes)}"
        if flight.instructor_id is not None:
            comment += " with instructor"
        transactions.append(
            Transaction(
                organization=organization,
                user_id=payer.user_id,
                date=flight.date,
                amount=-amount,
                comment=comment,
                flightlog=flight,
            )
        )
        cost_center = books.cost_centers.get(spec.registration, "")
        project = books.projects.get(kind, "")
        rows_of.append(
            [
                dict(account=books.debit, description=comment, debit=amount, cost_center=cost_center, project=project),
                dict(
                    account=books.credit[kind], description="", credit=amount, cost_center=cost_center, project=project
                ),
            ]
        )
    Transaction.objects.bulk_create(transactions, batch_size=2000)
    TransactionRow.objects.bulk_create(
        [
            TransactionRow(transaction=transaction, position=position, **row)
            for transaction, rows in zip(transactions, rows_of, strict=True)
            for position, row in enumerate(rows)
        ],
        batch_size=4000,
    )

    sums: dict[int, dict] = {}
    for flight in ordered:
        total = sums.setdefault(
            flight.object_id, {"airborne_minutes": 0, "block_minutes": 0, "tach_hours": Decimal(0), "landings": 0}
        )
        for key, value in time_summary_of(flight).items():
            total[key] += value
    for object_id, total in sums.items():
        object_totals_move(object_id=object_id, **total)


# --- approvals, remarks, maintenance -----------------------------------------------------------------


def save_approvals(year: Year, crew: Crew, fleet: dict, flight_types: dict[str, FlightType], extra=()) -> None:
    """Each member may log on the aircraft they flew, with the types they flew; instructors on every school
    aircraft with every type; `extra` (member, object, [kinds]) for approvals without flights yet."""
    wanted: dict[tuple[int, int], set[str]] = {}
    members: dict[int, Member] = {}
    for flight in year.flights:
        for member in (flight.pilot, flight.instructor):
            if member is not None and member.organization_id == flight.object.organization_id:
                kind = next((k for k, t in flight_types.items() if t == flight.flight_type), None)
                wanted.setdefault((member.pk, flight.object_id), set()).update([kind] if kind else [])
                members[member.pk] = member
    for obj, spec in fleet.values():
        if spec.school:
            for instructor in crew.instructors:
                wanted.setdefault((instructor.pk, obj.pk), set()).update(flight_types)
    for member, obj, kinds in extra:
        wanted.setdefault((member.pk, obj.pk), set()).update(kinds)
    approvals = [FlightApproval(member_id=member_id, object_id=object_id) for member_id, object_id in sorted(wanted)]
    FlightApproval.objects.bulk_create(approvals, batch_size=2000)
    Through = FlightApproval.flight_types.through
    Through.objects.bulk_create(
        [
            Through(flightapproval_id=approval.pk, flighttype_id=flight_types[kind].pk)
            for approval in approvals
            for kind in sorted(wanted[(approval.member_id, approval.object_id)])
        ],
        batch_size=4000,
    )


@dataclass(frozen=True)
class RemarkPlan:
    registration: str
    days_ago: int
    category: int
    state: str
    description: str
    history: tuple = ()  # (action, text, days after, "maintenance"|"writer"|"instructor")


VASTERAS_REMARKS = (
    RemarkPlan(
        "SE-KXY",
        64,
        0,
        "closed",
        "Left brake squeaks when taxiing.",
        (
            ("acknowledged", "", 1, "maintenance"),
            ("commented", "Brake pads replaced.", 5, "maintenance"),
            ("closed", "", 5, "maintenance"),
        ),
    ),
    RemarkPlan("SE-KXY", 3, 1, "open", "Cabin door hard to lock from the outside."),
    RemarkPlan(
        "SE-MIX",
        6,
        2,
        "acknowledged",
        "Oil pressure fluctuates in cruise.",
        (
            ("acknowledged", "", 0, "maintenance"),
            ("commented", "Grounded until the oil pressure sender is checked.", 1, "maintenance"),
        ),
    ),
    RemarkPlan(
        "SE-LKD", 21, 1, "acknowledged", "Landing light inoperative.", (("acknowledged", "", 2, "maintenance"),)
    ),
    RemarkPlan("SE-MHN", 9, 0, "open", "Headset jack in the left seat crackles."),
    RemarkPlan(
        "SE-LDR",
        130,
        0,
        "closed",
        "Scratch on the left wing's leading edge.",
        (
            ("commented", "Photographed, within limits per the manual.", 3, "maintenance"),
            ("closed", "", 3, "maintenance"),
        ),
    ),
    RemarkPlan(
        "SE-GVT",
        95,
        1,
        "closed",
        "Tow release sticks now and then.",
        (
            ("acknowledged", "", 0, "maintenance"),
            ("commented", "Release cleaned and lubricated; please report if it happens again.", 2, "maintenance"),
            ("commented", "Worked fine on eight tows today.", 4, "writer"),
            ("closed", "", 6, "maintenance"),
        ),
    ),
    RemarkPlan(
        "SE-MGK",
        180,
        2,
        "closed",
        "Vacuum pump failure: attitude indicator unreliable.",
        (("acknowledged", "", 0, "maintenance"), ("closed", "Pump replaced, ground test OK.", 12, "maintenance")),
    ),
    RemarkPlan("Simulator", 12, 1, "open", "Rudder pedals out of calibration."),
    RemarkPlan("SE-KMO", 1, 0, "open", "Fuel cap on the right wing is loose."),
)
BERGEN_REMARKS = (
    RemarkPlan(
        "LN-NFT",
        15,
        1,
        "acknowledged",
        "Transponder drops out now and then (Mode S).",
        (("acknowledged", "", 1, "maintenance"), ("commented", "Ordered a new antenna cable.", 4, "maintenance")),
    ),
    RemarkPlan("LN-BIR", 40, 0, "closed", "Seat belt buckle worn.", (("closed", "Replaced.", 7, "maintenance"),)),
)


def save_remarks(
    plans,
    objects: dict[str, BookableObject],
    year: Year,
    *,
    writers: list[Member],
    fixers: list[Member],
    zone,
    today,
    rng,
) -> list[Remark]:
    """Remarks with their history; a remark written after a flight is the flight's remark (set before the
    flights are saved)."""
    flights_by_object: dict[str, list[FlightLogEntry]] = {}
    for flight in year.flights:
        flights_by_object.setdefault(flight.object.registration, []).append(flight)
    remarks, events = [], []
    for plan in plans:
        obj = objects[plan.registration]
        day = today - dt.timedelta(days=plan.days_ago)
        candidates = [f for f in flights_by_object.get(plan.registration, []) if f.date <= day and f.remark is None]
        flight = max(candidates, key=lambda f: f.blockon_at) if candidates else None
        writer = flight.pilot if flight else rng.choice(writers)
        if flight and flight.date >= day - dt.timedelta(days=10):
            created = flight.blockon_at + dt.timedelta(minutes=rng.randint(5, 30))
        else:
            created, flight = _local(day, 10 + rng.random() * 6, zone).astimezone(UTC), None
        remark = Remark(
            object=obj,
            description=plan.description,
            category=plan.category,
            state=plan.state,
            created_at=created,
            created_by_id=writer.user_id if writer else None,
        )
        remarks.append((remark, flight))
        if flight is not None:
            flight.remark = remark  # saved below, before the flights
        fixer = rng.choice(fixers)
        for step, (action, text, days_after, who) in enumerate(plan.history):
            by = writer if who == "writer" else fixer
            at = min(created + dt.timedelta(days=days_after, hours=2 + step), clock.now())
            events.append(RemarkEvent(remark=remark, action=action, text=text, at=at, by_id=by.user_id if by else None))
    Remark.objects.bulk_create([remark for remark, _flight in remarks])
    RemarkEvent.objects.bulk_create(events)
    return [remark for remark, _flight in remarks]


def maintenance_rows(obj: BookableObject, items, today: dt.date) -> list[MaintenanceItem]:
    """`items`: (name, due in days or None, hours from the final airborne total to the soft limit or None,
    hours to the hard limit or None, warning days, warning hours)."""
    total = Decimal(obj.airborne_minutes) / 60
    rows = []
    for name, days, soft, hard, warn_days, warn_hours in items:
        rows.append(
            MaintenanceItem(
                object=obj,
                name=name,
                due_date=None if days is None else today + dt.timedelta(days=days),
                due_airborne=None if soft is None else (total + Decimal(str(soft))).quantize(CENT),
                hard_airborne=None if hard is None else (total + Decimal(str(hard))).quantize(CENT),
                warning_days=warn_days,
                warning_hours=Decimal(str(warn_hours)),
            )
        )
    return rows


VASTERAS_MAINTENANCE = {
    # past due by hours (red), date ahead
    "SE-KXY": (("100-hour inspection", None, -0.6, None, 0, 5), ("Annual inspection", 40, None, None, 30, 0)),
    # past due by date (red), near by hours (yellow)
    "SE-MIX": (("Annual inspection", -4, None, None, 30, 0), ("100-hour inspection", None, 3.2, None, 0, 5)),
    "SE-KMO": (
        ("100-hour inspection", None, 2.5, None, 0, 5),
        ("Engine overhaul (TBO)", None, 35, 45, 0, 10),
    ),
    "SE-LKD": (("Airworthiness review (ARC)", 12, None, None, 30, 0), ("50-hour oil change", None, 31, None, 0, 3)),
    "SE-MHN": (("CAPS parachute repack", 300, None, None, 60, 0), ("50-hour oil change", None, 22, None, 0, 3)),
    "SE-LDR": (("100-hour inspection", None, 61, None, 0, 5), ("ELT battery replacement", 500, None, None, 30, 0)),
    "SE-GVT": (("Annual inspection", 150, None, None, 30, 0), ("Tow hook inspection", None, 8, None, 0, 10)),
    # grounded: past the hard limit
    "SE-MGK": (("Engine overhaul (TBO)", None, -11, -1, 0, 10),),
    "Simulator": (("Software licence renewal", 20, None, None, 30, 0),),
}
BERGEN_MAINTENANCE = {
    "LN-NFT": (("100-timers ettersyn", None, 14, None, 0, 5), ("Årlig ettersyn", 75, None, None, 30, 0)),
    "LN-BIR": (("50-timers ettersyn", None, 4.5, None, 0, 5),),
}


def make_fleet(
    organization: Organization, fleet, *, rng: random.Random | None = None
) -> dict[str, tuple[BookableObject, Aircraft]]:
    objects = [
        BookableObject(
            organization=organization,
            category=Category.AIRCRAFT,
            registration=spec.registration,
            type_designator=spec.designator,
            type_name=spec.type_name,
            comment=spec.comment,
            active=spec.sold_days_ago is None,
            use_expected_airborne=spec.expected_airborne,
            force_expected_time=spec.expected_airborne and spec.max_booking_minutes is not None,
            max_booking_length=spec.max_booking_minutes,
            queue_allowed=spec.queue_allowed,
            **spec.start,
        )
        for spec in fleet
    ]
    BookableObject.objects.bulk_create(objects, batch_size=1000)
    return {spec.registration: (obj, spec) for obj, spec in zip(objects, fleet, strict=True)}


def make_flight_types(organization: Organization, types: dict) -> dict[str, FlightType]:
    made = {key: FlightType(organization=organization, name=name) for key, (name, _code, _charged) in types.items()}
    FlightType.objects.bulk_create(made.values())
    return made


def make_books(organization: Organization, accounts, cost_centers, projects, *, lock_date) -> None:
    Account.objects.bulk_create(
        Account(organization=organization, number=number, name=name, is_default_debit=debit, is_default_credit=credit)
        for number, name, debit, credit in accounts
    )
    CostCenter.objects.bulk_create(
        CostCenter(organization=organization, code=code, name=name) for code, name in cost_centers
    )
    Project.objects.bulk_create(Project(organization=organization, code=code, name=name) for code, name in projects)
    Organization.objects.filter(pk=organization.pk).update(transaction_lock_date=lock_date)


def _lock_date(today: dt.date) -> dt.date:
    """The last day of the month before last: the books are closed through it."""
    first_of_month = today.replace(day=1)
    return (first_of_month - dt.timedelta(days=1)).replace(day=1) - dt.timedelta(days=1)


# --- the demo clubs ----------------------------------------------------------------------------------------

VASTERAS_ACCOUNTS = (
    ("1510", "Member receivables", True, False),
    ("1930", "Bank account", False, False),
    ("3010", "Flight revenue", False, True),
    ("3020", "School flight revenue", False, False),
    ("3110", "Membership fees", False, False),
    ("3890", "Other revenue", False, False),
    ("4010", "Fuel", False, False),
    ("5170", "Aircraft maintenance", False, False),
    ("6570", "Bank charges", False, False),
)
BERGEN_ACCOUNTS = (
    ("1500", "Kundefordringer", True, False),
    ("1920", "Bankinnskudd", False, False),
    ("3000", "Salgsinntekt flyging", False, True),
    ("3010", "Skoleflyging", False, False),
)


def build_demo_operations(club: Organization, second: Organization) -> dict:
    """The demo's fleet, flying, remarks, maintenance and charges for Västerås (`club`) and Bergen
    (`second`, whose crew is hidden in its log and whose Cessna LN-NFT is shared with Västerås). Returns
    ids for the demo's JSON document (no dates: the same on every run)."""
    rng = random.Random(SEED)
    airports = ensure_airports()
    Organization.objects.filter(pk=second.pk).update(hide_crew_in_log=True, currency_code="NOK", currency_symbol="kr")
    second.hide_crew_in_log = True
    today = clock.today_in(club.timezone)

    # Västerås: aircraft, a simulator and a briefing room.
    fleet = make_fleet(club, VASTERAS_FLEET)
    simulator = BookableObject.objects.create(
        organization=club,
        category=Category.EQUIPMENT,
        registration="Simulator",
        comment="ALSIM AL42 flight simulator, room 2. Book two hours at a time.",
        max_booking_length=240,
    )
    briefing = BookableObject.objects.create(
        organization=club,
        category=Category.PREMISES,
        registration="Briefing room",
        comment="Upstairs in the clubhouse; projector and whiteboard.",
        has_status=False,
    )
    bergen_fleet = make_fleet(second, BERGEN_FLEET)
    shared = bergen_fleet["LN-NFT"][0]
    ObjectShare.objects.create(object=shared, organization=club)

    crew = Crew.of(club)
    vasteras_types = make_flight_types(club, FLIGHT_TYPES)
    make_books(
        club,
        VASTERAS_ACCOUNTS,
        [(spec.registration[3:], spec.registration) for spec in VASTERAS_FLEET]
        + [("SIM", "Simulator"), ("ADM", "Administration")],
        [("PPL26", "PPL course 2026"), ("UNG", "Youth section"), ("FLYGDAG", "Flight display day")],
        lock_date=_lock_date(today),
    )
    books = Books(
        debit="1510",
        credit={"private": "3010", "school": "3020"},
        cost_centers={spec.registration: spec.registration[3:] for spec in VASTERAS_FLEET},
        projects={"school": "PPL26"},
    )
    planner = Planner(
        rng=rng,
        organization=club,
        today=today,
        airports=airports,
        home=club.reference_icao,
        destinations=("ESSX", "ESSA", "ESSB", "ESSU", "ESOE", "ESSL", "ESSP", "ESKN", "ESSD", "ESOK"),
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


DISPLAY_AIRCRAFT = ("SE-MHN", "SE-LDR", "SE-GVT")


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
    start = _local(day, 13.0 + 1.5 * index, planner.zone)
    leg = planner._leg("display", day, start + dt.timedelta(minutes=20), 20, planner.home, planner.home, pilot)
    leg.comment = "Display over the field for the visitors."
    booking = planner._booking(
        obj, spec, start, start + dt.timedelta(hours=1, minutes=30), pilot, None, "display", [leg]
    )
    booking.comment = "Flight display day."
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
    topics = ("Meteorology", "Air law", "Navigation", "Human performance", "Flight planning", "Radio procedures")
    day = today - dt.timedelta(days=365)
    week = 0
    while day <= today + dt.timedelta(days=14):
        if day.weekday() in (1, 3) and crew.students:
            student = rng.choice(crew.students)
            instructor = rng.choice(crew.instructors)
            start = _local(day, rng.choice((17.0, 18.0, 19.0)), zone)
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
            start = _local(day, 18.5, zone)
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
    for days, length, comment in (
        (9, 3, "Fjord trip to Sogndal."),
        (12, 2, "Checkout with the Bergen instructor."),
        (-30, 4, "Not flown: low clouds over the fjords."),
    ):
        member = crew.pilots[(days * 7) % len(crew.pilots)]
        day = today + dt.timedelta(days=days)
        free = None
        for hour in (10.0, 12.0, 14.0, 16.0):
            start = _local(day, hour, zone).astimezone(UTC)
            end = start + dt.timedelta(hours=length)
            if all(end <= other_start or other_end <= start for other_start, other_end in taken):
                free = start, end
                break
        start, end = free or (_local(day, 10.0, zone).astimezone(UTC), _local(day, 10.0 + length, zone).astimezone(UTC))
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
    make_books(
        second,
        BERGEN_ACCOUNTS,
        [(spec.registration[3:], spec.registration) for spec in BERGEN_FLEET],
        [],
        lock_date=dt.date(today.year - 1, 12, 31),
    )
    books = Books(
        debit="1500",
        credit={"private": "3000", "school": "3010"},
        cost_centers={spec.registration: spec.registration[3:] for spec in BERGEN_FLEET},
        projects={},
    )
    planner = Planner(
        rng=rng,
        organization=second,
        today=clock.today_in(second.timezone),
        airports=airports,
        home=second.reference_icao,
        destinations=("ENSO", "ENHD", "ENFL", "ENSG"),
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


# --- the benchmark's organization ------------------------------------------------------------------------

BENCH_FIRST = (
    "Anna Erik Lars Karin Åsa Björn Märta Gustaf Ingrid Johan Elsa Oskar Maja Nils Linnea Henrik Ebba Axel Frida "
    "Mikael Agneta Kjell Ulla Fredrik Emma Hugo Olle Birgitta Anders Sara Viktor Malin Göran Helena Tobias Ida"
)
BENCH_LAST = (
    "Johansson Berg Nilsson Lindqvist Öberg Åkesson Håkansson Sjöström Ekström Lundgren Bergqvist Engström "
    "Holmberg Törnqvist Sundberg Forsberg Wallin Hedlund Blom Söderberg Göransson Nyström Dahlgren Sandström"
)


def bench_fleet(count: int, flights: int, rng: random.Random) -> list[Aircraft]:
    fleet = []
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    for index in range(count):
        designator, name, price, cruise, school, hobbs = BENCH_TYPES[index % len(BENCH_TYPES)]
        hours = rng.randint(800, 9000)
        fleet.append(
            Aircraft(
                f"SE-B{letters[index // 26 % 26]}{letters[index % 26]}",
                designator,
                name,
                price,
                cruise,
                hours,
                f"{hours * 0.85:.2f}",
                hours * 2,
                flights,
                school=school,
                hobbs=hobbs,
                tow=designator == "PA18",
                expected_airborne=hobbs,
                max_booking_minutes=24 * 60 if index % 3 == 0 else None,
                comment="" if index % 4 else f"Hangar {index % 5 + 1}.",
            )
        )
    return fleet


def build_bench_club(*, aircraft: int = 60, members: int = 300, flights: int = 300, seed: int = 4711) -> dict:
    """One large organization for the operations benchmark: `aircraft` aircraft with about `flights`
    flights a year each and a booking for each, `members` members (instructors and students among them),
    remarks with history and maintenance items on every aircraft, a charge for each charged flight.
    Returns {organization_id, admin (username), counts}."""
    rng = random.Random(seed)
    airports = ensure_airports()
    org = Organization.objects.create(
        name="Bench Operations Flygklubb",
        timezone="Europe/Stockholm",
        reference_icao="ESOW",
        country="SE",
        latitude=Decimal("59.589444"),
        longitude=Decimal("16.633611"),
    )
    today = clock.today_in(org.timezone)
    senior, junior = Membership.objects.bulk_create(
        [Membership(organization=org, name="Senior"), Membership(organization=org, name="Junior")]
    )
    users, first_names, last_names = [], BENCH_FIRST.split(), BENCH_LAST.split()
    for index in range(members):
        first, last = rng.choice(first_names), rng.choice(last_names)
        users.append(
            User(
                username=f"{org.pk}-ops{index:04d}",
                username_skeleton=username_skeleton(f"{org.pk}-ops{index:04d}"),  # bulk_create skips save()
                password="!",
                first_name=first,
                last_name=last,
                name=join_name(first, last),
                mobile_country_code="46",
                mobile_initial_number=rng.choice(("70", "72", "73", "76")),
                mobile_number=str(rng.randrange(1000000, 9999999)),
                email_visible=index % 17 != 3,
                mobile_visible=index % 13 != 5,
            )
        )
    User.objects.bulk_create(users, batch_size=1000)
    UserEmail.objects.bulk_create(
        [
            UserEmail(user=user, position=0, address=f"ops{index}@example.com")
            for index, user in enumerate(users)
            if index % 23 != 7
        ],
        batch_size=2000,
    )
    made = Member.objects.bulk_create(
        [
            Member(
                user=user,
                organization=org,
                member_number=str(5000 + index),
                membership=junior if index % 9 == 4 else senior,
            )
            for index, user in enumerate(users)
        ],
        batch_size=1000,
    )
    roles = [MemberRole(member=made[0], role="admin")]
    for index, member in enumerate(made):
        if index % 15 == 1:
            roles.append(MemberRole(member=member, role="instructor"))
        elif index % 6 == 2:
            roles.append(MemberRole(member=member, role="student"))
        elif index % 25 == 3:
            roles.append(MemberRole(member=member, role="maintenance"))
    MemberRole.objects.bulk_create(roles, batch_size=2000)

    crew = Crew.of(org)
    types = make_flight_types(org, FLIGHT_TYPES)
    fleet_specs = bench_fleet(aircraft, flights, rng)
    fleet = make_fleet(org, fleet_specs)
    make_books(
        org,
        VASTERAS_ACCOUNTS,
        [(spec.registration[3:], spec.registration) for spec in fleet_specs],
        [("PPL26", "PPL course 2026")],
        lock_date=_lock_date(today),
    )
    books = Books(
        debit="1510",
        credit={"private": "3010", "school": "3020"},
        cost_centers={spec.registration: spec.registration[3:] for spec in fleet_specs},
        projects={"school": "PPL26"},
    )
    planner = Planner(
        rng=rng,
        organization=org,
        today=today,
        airports=airports,
        home="ESOW",
        destinations=("ESSX", "ESSA", "ESSB", "ESSU", "ESOE", "ESSL", "ESSP", "ESKN", "ESSD", "ESOK"),
        crew=crew,
        flight_types=types,
        booking_types={key: code for key, (_name, code, _charged) in FLIGHT_TYPES.items()},
    )
    pools = planner.pools(fleet_specs)
    year = Year()
    for registration, (obj, spec) in fleet.items():
        planner.plan(obj, spec, pools[registration], year)
    fixers = [m for m in made if m.pk in {r.member_id for r in roles if r.role == "maintenance"}]
    plans = []
    descriptions = (
        ("Left brake squeaks when taxiing.", 0),
        ("Landing light inoperative.", 1),
        ("Oil leak at the lower cowling.", 2),
        ("Headset jack crackles.", 0),
        ("Fuel gauge reads low on the left tank.", 1),
    )
    for index, spec in enumerate(fleet_specs):
        for step in range(3):
            description, category = descriptions[(index + step) % len(descriptions)]
            state = ("open", "acknowledged", "closed")[(index + step) % 3]
            history = {
                "open": (),
                "acknowledged": (("acknowledged", "", 1, "maintenance"),),
                "closed": (
                    ("acknowledged", "", 0, "maintenance"),
                    ("commented", "Fixed and tested on the ground.", 2, "maintenance"),
                    ("closed", "", 2, "maintenance"),
                ),
            }[state]
            plans.append(
                RemarkPlan(spec.registration, 5 + 37 * step + index % 30, category, state, description, history)
            )
    objects = {registration: obj for registration, (obj, _spec) in fleet.items()}
    remarks = save_remarks(
        plans,
        objects,
        year,
        writers=crew.pilots,
        fixers=fixers or crew.instructors,
        zone=planner.zone,
        today=today,
        rng=rng,
    )
    save_year(year, organization=org, fleet=fleet, books=books)
    save_approvals(year, crew, fleet, types)
    for obj in objects.values():
        obj.refresh_from_db(fields=["airborne_minutes"])
    items = []
    for index, obj in enumerate(objects.values()):
        items += maintenance_rows(
            obj,
            (
                ("100-hour inspection", None, (index % 7) * 9 - 4.5, None, 0, 5),
                ("Annual inspection", (index % 11) * 35 - 20, None, None, 30, 0),
                ("Engine overhaul (TBO)", None, 40 + index, 55 + index, 0, 10),
            ),
            today,
        )
    MaintenanceItem.objects.bulk_create(items, batch_size=1000)
    return {
        "organization_id": org.pk,
        "admin": users[0].username,
        "members": len(made),
        "objects": len(objects),
        "flights": len(year.flights),
        "bookings": len(year.bookings),
        "remarks": len(remarks),
        "maintenance_items": len(items),
        "transactions": len(year.charges),
    }
