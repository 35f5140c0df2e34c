"""The demo world's airports, flight types and aircraft (demo/data/fleet.yaml), and the makers of their rows:
the same for the demo clubs and the benchmark's club."""

from dataclasses import dataclass
from decimal import Decimal

from accounts.models import Organization
from demo.datafiles import load
from flightlog.models import Airport, FlightLogEntry, FlightType
from objects_app.models import BookableObject, Category

_FLEET = load("fleet")

# ICAO code, name, latitude, longitude.
AIRPORTS = tuple((icao, name, lat, lon) for icao, (name, lat, lon) in _FLEET["airports"].items())

# The flight types of a Swedish club: key -> (name, booking type, charged to the member).
FLIGHT_TYPES = {key: tuple(row) for key, row in _FLEET["flight_types"]["swedish"].items()}
NORWEGIAN_FLIGHT_TYPES = {key: tuple(row) for key, row in _FLEET["flight_types"]["norwegian"].items()}
CHARGED = {"private", "school"}  # the kinds charged to the member (pilot, or the student of a lesson)
INSTRUCTOR_FEE = Decimal("450")  # per block hour on top of the aircraft's price, for a lesson with an instructor


def hourly_price(aircraft_price: str, flight: FlightLogEntry) -> Decimal:
    """What a charged flight costs an hour: the aircraft type's price, plus the instructor's fee on a lesson
    flown with an instructor (a solo lesson pays the aircraft only)."""
    return Decimal(aircraft_price) + (INSTRUCTOR_FEE if flight.instructor_id is not None else 0)


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


VASTERAS_FLEET = tuple(Aircraft(**row) for row in _FLEET["aircraft"]["vasteras"])
BERGEN_FLEET = tuple(Aircraft(**row) for row in _FLEET["aircraft"]["bergen"])
# The type pool of the benchmark's fleet: designator, name, price, cruise speed, school, hobbs.
BENCH_TYPES = tuple(tuple(row) for row in _FLEET["bench_types"])


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


def make_fleet(organization: Organization, fleet) -> dict[str, tuple[BookableObject, Aircraft]]:
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


def make_other_objects(organization: Organization) -> dict[str, BookableObject]:
    """The club's objects besides its aircraft (fleet.yaml: other_objects), by name."""
    return {
        name: BookableObject.objects.create(
            organization=organization,
            registration=name,
            **{key: Category[value.upper()] if key == "category" else value for key, value in fields.items()},
        )
        for name, fields in _FLEET["other_objects"].items()
    }


def make_flight_types(organization: Organization, types: dict) -> dict[str, FlightType]:
    made = {key: FlightType(organization=organization, name=name) for key, (name, _code, _charged) in types.items()}
    FlightType.objects.bulk_create(made.values())
    return made
