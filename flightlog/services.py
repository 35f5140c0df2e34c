"""Writes on the flight log: log, change, endorse and delete a flight.

Each is one transaction that also moves the object's time summary (objects_app.time_summary) by what the
flight adds, takes away or changes, so that an object's totals are always the sum of its flights (and the
totals it had before its first logged flight). The webhooks of document 3 are recorded here too, in the same
transaction: flightlog.create, flightlog.update (also on endorsement, with change "endorsed") and
flightlog.delete.

An endorsed flight (signed in the object's logbook) is locked: changing, deleting or endorsing it again is
refused with 409 10105, the code of a change the item's state does not allow (as a closed remark's).

The caller scopes: the organization website offers only the organization's own objects and members; these
functions check what must hold whoever calls them (the crew, the flight type and the remark belong with the
object; times and readings in order) and refuse with ServiceError (400 10006, one FieldProblem per field).
"""

import datetime as dt
from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext

from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from objects_app.events import object_event_record
from objects_app.models import BookableObject, ObjectShare
from objects_app.time_summary import object_totals_move

from .clock_times import ORDER
from .models import FlightApproval, FlightLogEntry
from .totals import negated, time_summary_of

# The fields a flight is logged with (besides its object), as FlightLogEntry names them.
FLIGHT_FIELDS = (
    "date",
    "flight_type",
    "departure_airport",
    "arrival_airport",
    "blockoff_at",
    "takeoff_at",
    "landing_at",
    "blockon_at",
    "departure_tachometer",
    "arrival_tachometer",
    "departure_hobbs",
    "arrival_hobbs",
    "via_route",
    "pilot",
    "instructor",
    "scout",
    "is_solo_instruction",
    "uplift_fuel",
    "uplift_oil",
    "number_of_flights",
    "daily_check",
    "comment",
    "remark",
)
CREW = ("pilot", "instructor", "scout")
READINGS = (("departure_tachometer", "arrival_tachometer"), ("departure_hobbs", "arrival_hobbs"))
INVALID = ErrorCode.INVALID_FIELD.code


@transaction.atomic
def flight_create(*, object: BookableObject, date: dt.date, **fields) -> FlightLogEntry:
    """Log a flight on the object and add it to the object's time summary."""
    _check_names(fields)
    flight = FlightLogEntry(object=object, date=date, created_at=clock.now(), **fields)
    _check(flight)
    flight.save()
    object_totals_move(object_id=flight.object_id, **time_summary_of(flight))
    object_event_record(event_type="flightlog.create", object=object, entity_id=flight.pk)
    return flight


@transaction.atomic
def flight_update(*, flight: FlightLogEntry, object: BookableObject | None = None, **changes) -> FlightLogEntry:
    """Change fields of a logged flight (its object too) and return it as stored; the object's totals move by
    the difference (both objects' when the flight moves to another). Refused (409) for an endorsed flight.
    Webhooks hear of it only when a value really changed (the website sends every field on each save)."""
    _check_names(changes)
    stored = _locked(flight)
    _refuse_endorsed(stored, "An endorsed flight cannot be changed.")
    before_object_id, before = stored.object_id, time_summary_of(stored)
    before_values = _values(stored)
    previous_object = stored.object
    if object is not None:
        stored.object = object
    for name, value in changes.items():
        setattr(stored, name, value)
    _check(stored)
    stored.save()
    after = time_summary_of(stored)
    if stored.object_id == before_object_id:
        object_totals_move(object_id=stored.object_id, **{key: after[key] - before[key] for key in after})
    else:
        object_totals_move(object_id=before_object_id, **negated(before))
        object_totals_move(object_id=stored.object_id, **after)
    if _values(stored) != before_values:
        object_event_record(
            event_type="flightlog.update", object=stored.object, entity_id=stored.pk, previous_object=previous_object
        )
    return stored


@transaction.atomic
def flight_endorse(*, flight: FlightLogEntry, by) -> FlightLogEntry:
    """Endorse (sign) a logged flight in the object's logbook, now, by the login `by`; from then on the flight
    is locked. Refused (409) when it is endorsed already; 404 when it is gone."""
    stored = _locked(flight)
    _refuse_endorsed(stored, "The flight is already endorsed.")
    stored.endorsed_at, stored.endorsed_by = clock.now(), by
    stored.save(update_fields=["endorsed_at", "endorsed_by"])
    object_event_record(event_type="flightlog.update", object=stored.object, entity_id=stored.pk, change="endorsed")
    return stored


@transaction.atomic
def flight_delete(*, flight: FlightLogEntry) -> None:
    """Delete a logged flight and take it away from the object's time summary. Its transactions stay (their
    flight becomes empty). Refused (409) for an endorsed flight."""
    stored = _locked(flight)
    _refuse_endorsed(stored, "An endorsed flight cannot be deleted.")
    flight_id, summary = stored.pk, time_summary_of(stored)
    stored.delete()
    object_totals_move(object_id=stored.object_id, **negated(summary))
    object_event_record(event_type="flightlog.delete", object=stored.object, entity_id=flight_id)


def _locked(flight: FlightLogEntry) -> FlightLogEntry:
    """The flight's row (with its object), locked until the transaction ends; 404 when it is gone."""
    rows = FlightLogEntry.objects.select_for_update(of=("self",)).select_related("object")
    stored = rows.filter(pk=flight.pk).first()
    if stored is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such flight.")
    return stored


def _refuse_endorsed(flight: FlightLogEntry, message: str) -> None:
    if flight.endorsed_at is not None:
        raise ServiceError(ErrorCode.NOT_MODIFIED, message)


def _values(flight: FlightLogEntry) -> dict:
    """The flight's stored columns (foreign keys as ids), to tell whether a change changed anything."""
    return {field.attname: getattr(flight, field.attname) for field in flight._meta.concrete_fields}


# --- flight approvals ---------------------------------------------------------------------------------------


def _approval_problems(approval: FlightApproval | None, member, obj, flight_types) -> list[FieldProblem]:
    problems = []
    owners = {obj.organization_id, *ObjectShare.objects.filter(object=obj).values_list("organization_id", flat=True)}
    if member.organization_id not in owners:
        problems.append(
            FieldProblem("object", INVALID, gettext("The member's organization neither owns nor shares this object."))
        )
    else:
        twins = FlightApproval.objects.filter(member=member, object=obj)
        if approval is not None:
            twins = twins.exclude(pk=approval.pk)
        if twins.exists():
            message = gettext("The member is already approved on this object.")
            problems.append(FieldProblem("object", ErrorCode.DUPLICATE.code, message))
    wrong = [str(flight_type) for flight_type in flight_types if flight_type.organization_id != obj.organization_id]
    if wrong:
        problems.append(
            FieldProblem(
                "flight_types",
                INVALID,
                gettext("Not flight types of the object's organization: %(names)s") % {"names": ", ".join(wrong)},
            )
        )
    return problems


def _approval_check(approval: FlightApproval | None, member, obj, flight_types) -> None:
    problems = _approval_problems(approval, member, obj, flight_types)
    if problems:
        error = (
            ErrorCode.DUPLICATE
            if all(p.code == ErrorCode.DUPLICATE.code for p in problems)
            else ErrorCode.INVALID_FIELD
        )
        raise ServiceError(error, "Check the flight approval.", errors=problems)


@transaction.atomic
def flight_approval_create(*, member, object: BookableObject, flight_types=()) -> FlightApproval:
    """Approve a member to log flights on an object of their organization or shared with it, of these flight
    types of the object's organization (none: flights without a type). Once per member and object."""
    flight_types = list(flight_types)
    _approval_check(None, member, object, flight_types)
    approval = FlightApproval.objects.create(member=member, object=object)
    approval.flight_types.set(flight_types)
    return approval


@transaction.atomic
def flight_approval_update(*, approval: FlightApproval, **changes) -> FlightApproval:
    """Change an approval's member, object or flight types (a list replaces the list), checked as
    flight_approval_create checks a new one."""
    unknown = sorted(set(changes) - {"member", "object", "flight_types"})
    if unknown:
        raise TypeError(f"not fields of a flight approval: {', '.join(unknown)}")
    current = FlightApproval.objects.select_for_update(of=("self",)).filter(pk=approval.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such flight approval.")
    member = changes.get("member", current.member)
    obj = changes.get("object", current.object)
    flight_types = list(changes["flight_types"]) if "flight_types" in changes else list(current.flight_types.all())
    _approval_check(current, member, obj, flight_types)
    columns = [name for name in ("member", "object") if name in changes]
    for name in columns:
        setattr(current, name, changes[name])
    if columns:
        current.save(update_fields=columns)
    if "flight_types" in changes:
        current.flight_types.set(flight_types)
    return current


# --- checks ---------------------------------------------------------------------------------------------


def _check_names(fields: dict) -> None:
    unknown = sorted(set(fields) - set(FLIGHT_FIELDS))
    if unknown:
        raise TypeError(f"not fields of a flight: {', '.join(unknown)}")


def _check(flight: FlightLogEntry) -> None:
    problems = flight_problems(flight)
    if problems:
        raise ServiceError(ErrorCode.INVALID_FIELD, "Check the flight's fields.", errors=problems)


def flight_problems(flight: FlightLogEntry) -> list[FieldProblem]:
    """What is wrong with a flight about to be saved (nothing: [])."""
    problems = []
    obj = flight.object
    if flight.date is None:
        problems.append(FieldProblem("date", INVALID, "date is required."))
    if flight.flight_type_id is not None and flight.flight_type.organization_id != obj.organization_id:
        problems.append(FieldProblem("flight_type", INVALID, "flight_type is not a flight type of the object's owner."))
    crew = [(name, getattr(flight, name)) for name in CREW if getattr(flight, f"{name}_id") is not None]
    if crew:
        shared = ObjectShare.objects.filter(object=obj).values_list("organization_id", flat=True)
        allowed = {obj.organization_id, *shared}
        for name, member in crew:
            if member.organization_id not in allowed:
                problems.append(
                    FieldProblem(name, INVALID, f"{name} must be a member of an organization that flies the object.")
                )
    if flight.remark_id is not None and flight.remark.object_id != obj.pk:
        problems.append(FieldProblem("remark", INVALID, "remark must be a remark on the flight's object."))
    problems += _order_problems(flight)
    for start, end in READINGS:
        first, last = getattr(flight, start), getattr(flight, end)
        if first is not None and last is not None and Decimal(last) < Decimal(first):
            problems.append(FieldProblem(end, INVALID, f"{end} must not be less than {start}."))
    for name in ("departure_tachometer", "arrival_tachometer", "departure_hobbs", "arrival_hobbs", "uplift_fuel"):
        value = getattr(flight, name)
        if value is not None and Decimal(value) < 0:
            problems.append(FieldProblem(name, INVALID, f"{name} must not be negative."))
    if flight.uplift_oil is not None and Decimal(flight.uplift_oil) < 0:
        problems.append(FieldProblem("uplift_oil", INVALID, "uplift_oil must not be negative."))
    if flight.number_of_flights is None or flight.number_of_flights < 1:
        problems.append(FieldProblem("number_of_flights", INVALID, "number_of_flights must be at least 1."))
    return problems


def _order_problems(flight: FlightLogEntry) -> list[FieldProblem]:
    """Block off, takeoff, landing and block on in this order (the missing ones left out)."""
    problems, previous = [], None
    for name in ORDER:
        value = getattr(flight, name)
        if value is None:
            continue
        if previous is not None and value < previous[1]:
            problems.append(FieldProblem(name, INVALID, f"{name} must not be before {previous[0]}."))
        previous = (name, value)
    return problems
