"""Writes on bookings: create, change and delete, one transaction each.

Every write of a booking goes through these functions (the organization website today; the Mobile API and the
member website's booking rules later), so that the webhooks of document 3 can be recorded here, in the same
transaction as the change (DECISIONS.md, Webhooks: outbox).
"""

import datetime as dt
from decimal import Decimal

from django.db import transaction

from accounts.models import Member
from apicore import clock
from apicore.errors import ErrorCode
from apicore.exceptions import FieldProblem, ServiceError
from objects_app.models import BookableObject, ObjectShare

from .models import Booking

INVALID = ErrorCode.INVALID_FIELD.code
# The fields a change may set (booking_update); the object and the times are checked together.
CHANGEABLE = ("object", "user", "student", "start_at", "end_at", "type", "is_primary", "expected_airborne", "comment")


def whole_minute(value: dt.datetime) -> dt.datetime:
    """Bookings are kept in whole minutes (DECISIONS.md, Booking rules: seconds are dropped)."""
    return value.replace(second=0, microsecond=0)


def _refused(problems: list[FieldProblem]) -> ServiceError:
    return ServiceError(ErrorCode.INVALID_FIELD, "Check " + ", ".join(p.field for p in problems) + ".", errors=problems)


def may_book(user, booking_object: BookableObject) -> bool:
    """A login may be booker or student of an object when it is a member of the object's organization or of
    one that the object is shared with."""
    sharing = ObjectShare.objects.filter(object=booking_object).values("organization_id")
    organizations = Member.objects.filter(user=user).values("organization_id")
    return (
        Member.objects.filter(user=user, organization_id=booking_object.organization_id).exists()
        or sharing.filter(organization_id__in=organizations).exists()
    )


def _check(values: dict) -> None:
    problems = []
    start_at, end_at = values["start_at"], values["end_at"]
    if start_at >= end_at:
        problems.append(FieldProblem("end_at", INVALID, "end_at must be after start_at."))
    booking_object = values["object"]
    for name in ("user", "student"):
        person = values.get(name)
        if person is not None and not may_book(person, booking_object):
            problems.append(
                FieldProblem(name, INVALID, f"{name} is not a member of an organization that books this object.")
            )
    expected = values.get("expected_airborne")
    if expected is not None and not (Decimal(0) <= expected < Decimal(1000)):
        problems.append(FieldProblem("expected_airborne", INVALID, "expected_airborne must be 0 to 999.99 hours."))
    if problems:
        raise _refused(problems)


@transaction.atomic
def booking_create(
    *,
    object: BookableObject,
    user,
    start_at: dt.datetime,
    end_at: dt.datetime,
    student=None,
    type: str = "PRIV",
    is_primary: bool = True,
    expected_airborne: Decimal | None = None,
    comment: str = "",
    created_by=None,
) -> Booking:
    """Make a booking of `object` for `user` (the booker), from `start_at` to `end_at` (whole minutes).

    Refused (400 10006 naming the field) when the end is not after the start, or when the booker or the student
    is not a member of the object's organization or of one it is shared with."""
    values = {
        "object": object,
        "user": user,
        "student": student,
        "start_at": whole_minute(start_at),
        "end_at": whole_minute(end_at),
        "type": type or "PRIV",
        "is_primary": is_primary,
        "expected_airborne": expected_airborne,
        "comment": comment or "",
    }
    _check(values)
    return Booking.objects.create(**values, created_at=clock.now(), created_by=created_by)


@transaction.atomic
def booking_update(*, booking: Booking, **changes) -> Booking:
    """Change fields of a booking (names of CHANGEABLE); the result is checked as booking_create checks a new
    one. Saves only the fields that changed; nothing when none did."""
    unknown = set(changes) - set(CHANGEABLE)
    if unknown:
        raise TypeError(f"booking_update() got unexpected fields: {', '.join(sorted(unknown))}")
    current = Booking.objects.select_for_update().get(pk=booking.pk)
    values = {name: getattr(current, name) for name in CHANGEABLE}
    values.update(changes)
    for name in ("start_at", "end_at"):
        values[name] = whole_minute(values[name])
    values["comment"] = values["comment"] or ""
    values["type"] = values["type"] or "PRIV"
    _check(values)
    changed = [name for name in CHANGEABLE if values[name] != getattr(current, name)]
    if changed:
        for name in changed:
            setattr(current, name, values[name])
        current.save(update_fields=changed)
    return current


@transaction.atomic
def booking_delete(*, booking: Booking) -> None:
    """Delete a booking (404 10100 when it is already gone)."""
    deleted, _ = Booking.objects.filter(pk=booking.pk).delete()
    if not deleted:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such booking.")
