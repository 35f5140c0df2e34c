"""What a planned year becomes in the database: flights, bookings, the members' charges with their account rows
and the objects' totals; the approvals to log, remarks with their history, maintenance items and an
organization's chart of accounts. For the demo clubs and the benchmark's club alike, in bulk inserts."""

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from accounts.models import Member, Organization
from apicore import clock
from bookings.models import Booking
from demo.fleet import Aircraft, hourly_price
from demo.planner import CENT, UTC, Crew, Year, local_at
from economy.models import Account, CostCenter, Project, Transaction, TransactionRow
from flightlog.models import FlightApproval, FlightLogEntry, FlightType
from flightlog.totals import time_summary_of
from objects_app.models import BookableObject, MaintenanceItem, Remark, RemarkEvent, StatusLevel
from objects_app.time_summary import object_totals_move


def hours_text(minutes: int) -> str:
    return f"{minutes // 60}:{minutes % 60:02d}"


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


def remark_plans(rows) -> tuple[RemarkPlan, ...]:
    """flying.yaml's remarks of one club."""
    return tuple(
        RemarkPlan(
            row["object"],
            row["days_ago"],
            int(StatusLevel[row["level"].upper()]),
            row["state"],
            row["description"],
            tuple(tuple(step) for step in row.get("history", ())),
        )
        for row in rows
    )


def maintenance_plan(rows) -> tuple:
    """flying.yaml's maintenance items of one object, as `maintenance_rows` takes them."""
    return tuple(
        (
            row["name"],
            row.get("due_days"),
            row.get("soft_hours"),
            row.get("hard_hours"),
            row.get("warning_days", 0),
            row.get("warning_hours", 0),
        )
        for row in rows
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
            created, flight = local_at(day, 10 + rng.random() * 6, zone).astimezone(UTC), None
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


def lock_date(today: dt.date) -> dt.date:
    """The last day of the month before last: the books are closed through it."""
    first_of_month = today.replace(day=1)
    return (first_of_month - dt.timedelta(days=1)).replace(day=1) - dt.timedelta(days=1)
