"""The operations benchmark's organization (bench/operations.py): one large club made with the demo world's
planner, in bulk inserts, on top of a demo world. Its names and remark texts are in demo/data/bench.yaml, its
fleet drawn from the type pool of fleet.yaml, its chart of accounts Västerås's (clubs.yaml)."""

import random
from decimal import Decimal

from accounts.models import Member, MemberRole, Membership, Organization, User, UserEmail
from accounts.models.user import join_name
from accounts.usernames import username_skeleton
from apicore import clock
from demo.datafiles import load
from demo.fleet import BENCH_TYPES, FLIGHT_TYPES, Aircraft, ensure_airports, make_fleet, make_flight_types
from demo.operations import books_of, club_accounts
from demo.planner import Crew, Planner, Year
from demo.saving import RemarkPlan, lock_date, maintenance_rows, make_books, save_approvals, save_remarks, save_year
from objects_app.models import MaintenanceItem

_BENCH = load("bench")
BENCH_FIRST = _BENCH["first_names"]
BENCH_LAST = _BENCH["last_names"]


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
    where = _BENCH["organization"]
    org = Organization.objects.create(**where | {key: Decimal(where[key]) for key in ("latitude", "longitude")})
    today = clock.today_in(org.timezone)
    senior, junior = Membership.objects.bulk_create(
        [Membership(organization=org, name=name) for name in _BENCH["memberships"]]
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
        club_accounts("vasteras"),
        [(spec.registration[3:], spec.registration) for spec in fleet_specs],
        list(_BENCH["projects"].items()),
        lock_date=lock_date(today),
    )
    books = books_of("vasteras", fleet_specs)
    planner = Planner(
        rng=rng,
        organization=org,
        today=today,
        airports=airports,
        home=org.reference_icao,
        destinations=tuple(load("flying")["destinations"]["vasteras"]),
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
    descriptions = _BENCH["remarks"]
    for index, spec in enumerate(fleet_specs):
        for step in range(3):
            description, category = descriptions[(index + step) % len(descriptions)]
            state = ("open", "acknowledged", "closed")[(index + step) % 3]
            history = tuple(tuple(step) for step in _BENCH["remark_history"][state])
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
