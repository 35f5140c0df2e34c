"""Writes on bookings: create, change and delete, one transaction each.

Every write of a booking goes through these functions (called by the booking rules, bookings.rules, for the
Mobile API, the member website and the organization website), so that the webhooks of document 3 are recorded
here, in the same transaction as the change (../shared/DECISIONS.md "Webhooks": outbox; docs/decisions.md §10.15
"Where events are recorded"): booking.create, booking.update and booking.delete. What every booking must be
(booking_check) is here; whether a member or an administrator may make it (overlap, times, balance, expiry
dates, the expected airborne time) is the rules'.
"""

import datetime as dt
from decimal import Decimal

from django.core.mail import send_mail
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import Member
from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from objects_app.events import object_event_record
from objects_app.models import BookableObject, ObjectShare

from .models import Booking

INVALID = ErrorCode.INVALID_FIELD.code
# The expected airborne time of a booking: 0 to 999.99 hours with at most two decimals (the column holds five
# digits, two of them decimals). The one definition of the range; whether a booking may or must carry the time
# is a booking rule (bookings.rules.expected_airborne_check).
EXPECTED_AIRBORNE_LARGEST = Decimal("999.99")
EXPECTED_AIRBORNE_RANGE = "expected_airborne must be 0 to 999.99 hours, with at most two decimals."
# The fields a change may set (booking_update); the object and the times are checked together.
CHANGEABLE = ("object", "user", "student", "start_at", "end_at", "type", "is_primary", "expected_airborne", "comment")
# A change of one of these is a booking.update (document 3: time, aircraft, person it is for, queue place); a
# change of only the type, the comment or the expected airborne time is not told to webhooks.
NOTIFIED = ("object", "user", "student", "start_at", "end_at", "is_primary")


def whole_minute(value: dt.datetime) -> dt.datetime:
    """Bookings are kept in whole minutes (../shared/DECISIONS.md "Booking rules": seconds are dropped; for every
    caller: docs/decisions.md §5.4 "Start, end and length")."""
    return value.replace(second=0, microsecond=0)


def expected_airborne_in_range(value: Decimal | None) -> bool:
    """True when `value` is empty or an expected airborne time the booking can keep."""
    if value is None:
        return True
    return not (value < 0 or value > EXPECTED_AIRBORNE_LARGEST or value != value.quantize(Decimal("0.01")))


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


def booking_check(values: dict) -> None:
    """What every booking must be, whoever makes it: 400 10006 naming each field that is wrong (the end not
    after the start, a booker or student who may not book the object, the expected airborne time's range).
    `values` are a booking's fields by name (object, user, student, start_at, end_at, expected_airborne)."""
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
    if not expected_airborne_in_range(values.get("expected_airborne")):
        problems.append(FieldProblem("expected_airborne", INVALID, EXPECTED_AIRBORNE_RANGE))
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
    booking_check(values)
    booking = Booking.objects.create(**values, created_at=clock.now(), created_by=created_by)
    object_event_record(event_type="booking.create", object=object, entity_id=booking.pk)
    return booking


@transaction.atomic
def booking_update(*, booking: Booking, **changes) -> Booking:
    """Change fields of a booking (names of CHANGEABLE); the result is checked as booking_create checks a new
    one. Saves only the fields that changed; nothing when none did.

    A move into the queue (primary to not primary) makes a new booking: document 3 tells it as booking.delete
    of the old id and booking.create of the new one, so the old row goes and a new row (same creation time and
    creator) takes the changed values. The booking returned is then the new one, with a new id."""
    unknown = set(changes) - set(CHANGEABLE)
    if unknown:
        raise TypeError(f"booking_update() got unexpected fields: {', '.join(sorted(unknown))}")
    current = Booking.objects.select_for_update(of=("self",)).select_related("object").get(pk=booking.pk)
    values = {name: getattr(current, name) for name in CHANGEABLE}
    values.update(changes)
    for name in ("start_at", "end_at"):
        values[name] = whole_minute(values[name])
    values["comment"] = values["comment"] or ""
    values["type"] = values["type"] or "PRIV"
    booking_check(values)
    changed = [name for name in CHANGEABLE if values[name] != getattr(current, name)]
    if not changed:
        return current
    if current.is_primary and not values["is_primary"]:
        return _into_queue(current, values)
    previous_object = current.object
    for name in changed:
        setattr(current, name, values[name])
    current.save(update_fields=changed)
    if set(changed) & set(NOTIFIED):
        object_event_record(
            event_type="booking.update", object=current.object, entity_id=current.pk, previous_object=previous_object
        )
    return current


def _into_queue(current: Booking, values: dict) -> Booking:
    """The booking moved into the queue: the old row goes, a new one with the new values comes."""
    old_id, old_object = current.pk, current.object
    current.delete()
    object_event_record(event_type="booking.delete", object=old_object, entity_id=old_id)
    moved = Booking.objects.create(
        **values, seats_left=current.seats_left, created_at=current.created_at, created_by_id=current.created_by_id
    )
    object_event_record(event_type="booking.create", object=moved.object, entity_id=moved.pk)
    return moved


@transaction.atomic
def booking_delete(*, booking: Booking) -> None:
    """Delete a booking (404 10100 when it is already gone)."""
    current = Booking.objects.select_for_update(of=("self",)).select_related("object").filter(pk=booking.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "No such booking.")
    booking_id = current.pk
    current.delete()
    object_event_record(event_type="booking.delete", object=current.object, entity_id=booking_id)


def bookings_going_record(bookings) -> None:
    """Record booking.delete for each of `bookings` (a queryset) that goes with something else being deleted,
    such as its object (objects_app.services.object_delete). Call it inside that deletion's transaction and
    before it, while the objects' shares still name the organizations to tell."""
    for booking in bookings.select_related("object").order_by("start_at", "id"):
        object_event_record(event_type="booking.delete", object=booking.object, entity_id=booking.pk)


# --- the booking rules' writes (bookings.rules: the Mobile API and the member website) ---------------------


def object_for_booking(object_id: int, *, organization, lock: bool) -> BookableObject | None:
    """The object a member of `organization` may book (the organization's own or shared with it, active), or
    None. With `lock`, its row is locked (SELECT ... FOR UPDATE) until the caller's transaction ends: every
    booking of one object by the rules takes this lock before it looks for overlaps, so two concurrent requests
    never both see the time free (PostgreSQL; SQLite serializes writers anyway)."""
    rows = BookableObject.objects.visible_to(organization).filter(pk=object_id, active=True)
    if lock:
        rows = rows.select_for_update(of=("self",))
    return rows.select_related("organization").first()


@transaction.atomic
def booking_book(*, seats_left: int | None = None, **values) -> Booking:
    """booking_create (booking.create recorded) with the free seats offered to others."""
    booking = booking_create(**values)
    if seats_left is not None:
        # Not a change webhooks are told of (NOTIFIED): set on the new row in the same transaction.
        Booking.objects.filter(pk=booking.pk).update(seats_left=seats_left)
        booking.seats_left = seats_left
    return booking


def queue_move_up(
    booking_object: BookableObject, start_at: dt.datetime, end_at: dt.datetime, *, leave_out: int | None = None
) -> list[Booking]:
    """After time from `start_at` to `end_at` became free on the object: each queue booking in that time, in
    queue order (the earliest made first), becomes primary when no primary booking overlaps it any more
    (booking.update recorded). `leave_out` stays where it is (a booking just put into the queue on purpose).
    The caller holds the object's lock."""
    moved = []
    queued = Booking.objects.filter(
        object=booking_object, is_primary=False, start_at__lt=end_at, end_at__gt=start_at
    ).order_by("created_at", "id")
    if leave_out is not None:
        queued = queued.exclude(pk=leave_out)
    for waiting in queued:
        taken = Booking.objects.filter(
            object=booking_object, is_primary=True, start_at__lt=waiting.end_at, end_at__gt=waiting.start_at
        )
        if not taken.exists():
            moved.append(booking_update(booking=waiting, is_primary=True))
    return moved


def _locked_object(booking: Booking) -> BookableObject:
    return (
        BookableObject.objects.select_for_update(of=("self",)).select_related("organization").get(pk=booking.object_id)
    )


@transaction.atomic
def booking_cut(*, booking: Booking, end_at: dt.datetime) -> Booking:
    """The booking ends at `end_at` (booking.update); a primary booking's freed time goes to the queue."""
    booking_object = _locked_object(booking)
    freed_from, freed_to = whole_minute(end_at), booking.end_at
    changed = booking_update(booking=booking, end_at=end_at)
    if changed.is_primary:
        queue_move_up(booking_object, freed_from, freed_to)
    return changed


@transaction.atomic
def booking_cancel(*, booking: Booking, reason: str = "", cancelled_by=None) -> None:
    """The booking goes (booking.delete); when it was primary, the earliest queue bookings that no longer
    overlap a primary booking become primary (booking.update). `reason` and `cancelled_by` are for the
    cancellation mail (bookings.mails)."""
    booking_object = _locked_object(booking)
    was_primary, start_at, end_at = booking.is_primary, booking.start_at, booking.end_at
    people = [booking.user_id, *([booking.student_id] if booking.student_id else [])]
    booking_delete(booking=booking)
    if was_primary:
        queue_move_up(booking_object, start_at, end_at)
    mail = cancellation_mail(booking_object, start_at, end_at, reason=reason, cancelled_by=cancelled_by)
    transaction.on_commit(lambda: _send_to(people, *mail))


def cancellation_mail(booking_object, start_at, end_at, *, reason: str, cancelled_by) -> tuple[str, str]:
    """(subject, text) of the mail telling the booker and the student that a booking is cancelled, in the
    object's organization's language and zone."""
    organization = booking_object.organization
    zone = clock.zone(organization.timezone)
    with translation.override(organization.locale or "en"):
        subject = gettext("Booking cancelled: %(object)s") % {"object": booking_object.registration}
        lines = [
            gettext("The booking of %(object)s from %(start)s to %(end)s is cancelled.")
            % {
                "object": booking_object.registration,
                "start": f"{start_at.astimezone(zone):%Y-%m-%d %H:%M}",
                "end": f"{end_at.astimezone(zone):%Y-%m-%d %H:%M}",
            }
        ]
        if cancelled_by is not None:
            lines.append(gettext("Cancelled by: %(name)s") % {"name": cancelled_by.full_name})
        if reason:
            lines.append(gettext("Reason: %(reason)s") % {"reason": reason})
    return subject, "\n\n".join(lines) + "\n"


def _send_to(user_ids, subject: str, text: str) -> None:
    from .selectors import emails_of

    first: dict[int, str] = {}
    for user_id, address in emails_of(user_ids):
        first.setdefault(user_id, address)
    if first:
        send_mail(subject, text, None, sorted(set(first.values())), fail_silently=True)
