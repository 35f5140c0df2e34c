"""The booking rules of ../shared/DECISIONS.md "Booking rules", written once for the Mobile API, the member
website and the organization website (admin) (docs/decisions.md §5 "Bookings").

Checked in this order; the first rule that fails stops the action with 409 10300 and its text in the member's
language (the active one: Accept-Language), as `errors: [{code, message}]` without `field`:

1. the member may see the object (the organization's own or shared with it, and active);
2. start before end in whole minutes (seconds dropped), start not earlier than now minus 5 minutes, length at
   most the object's longest booking;
3. the balance at least the organization's minimum balance to book, when one is set;
4. each expiry date type that is required for booking and does not exclude the object: a date on or after the
   booking's last local day, not counted expired by the image rule (`warning_only`: booked, with a warning);
5. overlap with a primary booking of the object: a queue booking where the object allows a queue, else
   refused; the object's row is locked first (bookings.services.object_for_booking), so two concurrent
   requests never both get overlapping primary bookings;
6. the booking is the member's own private booking (PRIV). Cut: only while going on, the end becomes now (a
   whole minute, after the start). Cancel: before the end, with a reason where the organization requires one;
   a cancelled or cut primary lets the queue move up (bookings.services.queue_move_up).

Before any rule: 403 10301 when the member's organization has booking switched off (every booking endpoint),
403 10302 when a locked member books, cuts or cancels. Every write goes through bookings.services, so the
webhook events are recorded in the same transaction.

A member books for themselves (`book`, `cut`, `cancel`). The organization website books for a booker
(`booking_add`, `booking_change`, `booking_remove`) by the same rules 2 to 5 under the same lock; what an
administrator may override (`Override`: a start in the past, the length, the balance, the expiry dates, the
expected airborne time where the object does not ask for it or requires it) is named by the caller in
`override`: the rule is still checked, and when it fails the booking is made and `Outcome.overridden` says
what was overridden. Overlap is never overridden: two primary bookings of one object never overlap.

Refusals are ServiceError (no HTTP): 409 10300, 403 10301 and 403 10302 by the flavour's mapping of the code.

This module holds the actions, each in one transaction under the object's row lock; the checks of rules 1 to 5,
`Override` and the answers (`Outcome`, `Message`, `RuleProblem`) are in bookings.rule_checks and are named here
too, so that callers import the rules from one place.
"""

import datetime as dt
from decimal import Decimal

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import Member
from apicore import clock
from apicore.errors import ErrorCode, ServiceError
from objects_app.models import BookableObject, ObjectShare

from . import services
from .models import Booking
from .rule_checks import (
    ADMINISTRATOR,
    Checks,
    Message,
    Outcome,
    Override,
    RuleProblem,
    check_balance,
    check_booking_on,
    check_expiry_dates,
    check_not_locked,
    check_times,
    expected_airborne_check,
    local_time,
    place_in_time,
    refused,
    visible_object,
)

# The rules' names for their callers: the actions here, the checks and types of bookings.rule_checks.
__all__ = [
    "ADMINISTRATOR",
    "PRIVATE",
    "Message",
    "Outcome",
    "Override",
    "RuleProblem",
    "book",
    "booker_member",
    "booking_add",
    "booking_change",
    "booking_remove",
    "cancel",
    "check_booking_on",
    "check_not_locked",
    "cut",
    "expected_airborne_check",
    "is_own",
    "may_cancel",
    "may_cut",
]

PRIVATE = "PRIV"


@transaction.atomic
def book(
    member: Member,
    *,
    object_id: int,
    start_at: dt.datetime,
    end_at: dt.datetime,
    comment: str = "",
    expected_airborne: Decimal | None = None,
    seats_left: int | None = None,
) -> Outcome:
    """A private booking of the member by rules 1 to 6. The expected airborne time is checked (400) once the
    object is found, before rule 2."""
    check_booking_on(member)
    check_not_locked(member)
    now = clock.now()
    # Rule 1; the lock on the object's row serializes bookings of one object until this transaction ends.
    booking_object = visible_object(member, object_id, lock=True)
    expected_airborne_check(organization=member.organization, booking_object=booking_object, value=expected_airborne)
    start_at, end_at = check_times(booking_object, start_at, end_at, now=now)  # rule 2
    check_balance(member)  # rule 3
    messages = check_expiry_dates(member, booking_object, end_at)  # rule 4
    is_primary = place_in_time(booking_object, start_at, end_at)  # rule 5
    booking = services.booking_book(  # rule 6
        object=booking_object,
        user=member.user,
        start_at=start_at,
        end_at=end_at,
        type=PRIVATE,
        is_primary=is_primary,
        expected_airborne=expected_airborne,
        seats_left=seats_left,
        comment=comment,
        created_by=member.user,
    )
    if is_primary:
        made = _("Your booking is made.")
    else:
        made = _("The object is already booked at that time: your booking is in the queue.")
    return Outcome(booking, [Message("info", made), *messages])


# --- bookings made for a booker (the organization website) -------------------------------------------------------


def booker_member(user, booking_object) -> Member | None:
    """The member record whose balance and expiry dates rules 3 and 4 read for a booking of `booking_object`
    by `user`: in the object's organization, else in the first organization the object is shared with (None
    when the login may not book the object: bookings.services refuses it)."""
    rows = Member.objects.filter(user=user).select_related("organization", "user")
    own = rows.filter(organization_id=booking_object.organization_id).first()
    if own is not None:
        return own
    sharing = ObjectShare.objects.filter(object=booking_object).values("organization_id")
    return rows.filter(organization_id__in=sharing).order_by("organization_id", "id").first()


def _booker_checks(user, booking_object, end_at, checks: Checks, *, balance: bool, expiry: bool) -> list[Message]:
    """Rules 3 and 4 for the booker, spoken of by name."""
    member = booker_member(user, booking_object)
    if member is None:
        return []
    if balance:
        check_balance(member, checks=checks)
    if not expiry:
        return []
    return check_expiry_dates(member, booking_object, end_at, checks=checks, person=user.full_name)


def _locked_objects(*object_ids: int) -> dict[int, BookableObject]:
    """The objects' rows, locked in id order (two actions on the same two objects never wait for each other)."""
    rows = BookableObject.objects.select_for_update(of=("self",)).select_related("organization")
    return {row.pk: row for row in rows.filter(pk__in=set(object_ids)).order_by("pk")}


def _queued_message() -> Message:
    return Message("info", _("The object is already booked at that time: the booking is in the queue."))


@transaction.atomic
def booking_add(
    *,
    object: BookableObject,
    user,
    start_at: dt.datetime,
    end_at: dt.datetime,
    student=None,
    type: str = PRIVATE,
    is_primary: bool = True,
    expected_airborne: Decimal | None = None,
    comment: str = "",
    created_by=None,
    override: frozenset = frozenset(),
) -> Outcome:
    """A booking of `object` for the booker `user`, made by someone who manages the object's organization, by
    rules 2 to 5 under the object's row lock. A primary booking whose time is taken becomes a queue booking
    where the object allows a queue, else it is refused (409 10300); `is_primary=False` asks for a queue
    booking. The rules `override` names are noted in `Outcome.overridden` instead of refusing. Field problems
    (the booker or student not of the object's organization or one it is shared with) are 400 10006 first."""
    booking_object = _locked_objects(object.pk)[object.pk]
    values = {
        "object": booking_object,
        "user": user,
        "student": student,
        "start_at": services.whole_minute(start_at),
        "end_at": services.whole_minute(end_at),
        "expected_airborne": expected_airborne,
    }
    services.booking_check(values)
    checks = Checks(frozenset(override))
    organization = booking_object.organization
    expected_airborne_check(
        organization=organization, booking_object=booking_object, value=expected_airborne, checks=checks
    )
    start_at, end_at = check_times(booking_object, start_at, end_at, now=clock.now(), checks=checks)  # rule 2
    messages = _booker_checks(user, booking_object, end_at, checks, balance=True, expiry=True)  # rules 3, 4
    primary = is_primary and place_in_time(booking_object, start_at, end_at)  # rule 5
    booking = services.booking_create(
        object=booking_object,
        user=user,
        student=student,
        start_at=start_at,
        end_at=end_at,
        type=type,
        is_primary=primary,
        expected_airborne=expected_airborne,
        comment=comment,
        created_by=created_by,
    )
    if is_primary and not primary:
        messages.insert(0, _queued_message())
    return Outcome(booking, messages, checks.overridden)


@transaction.atomic
def booking_change(*, booking: Booking, override: frozenset = frozenset(), **changes) -> Outcome:
    """Change a booking (the fields of bookings.services.CHANGEABLE) by the rules of booking_add, under the row
    locks of its object and of the object it moves to. Only what the change touches is checked again: the
    times (rule 2) when the times or the object change (the start against now only when the start or the
    object changes: a booking going on may be made longer), the balance when the booker or the object changes, the
    expiry dates when the booker, the object or the end changes, the overlap when a primary booking's time or
    object changes or a booking is made primary. A primary booking moved into the queue is a new booking
    (bookings.services.booking_update); time a primary booking leaves goes to the queue
    (bookings.services.queue_move_up)."""
    unknown = set(changes) - set(services.CHANGEABLE)
    if unknown:
        raise TypeError(f"booking_change() got unexpected fields: {', '.join(sorted(unknown))}")
    current, locked = _current_with_objects(booking, changes.get("object"))
    values = {name: getattr(current, name) for name in services.CHANGEABLE}
    values.update(changes)
    for name in ("start_at", "end_at"):
        values[name] = services.whole_minute(values[name])
    changed = {name for name in services.CHANGEABLE if values[name] != getattr(current, name)}
    if not changed:
        return Outcome(current)
    target = locked[values["object"].pk]
    values["object"] = target
    services.booking_check(values)
    checks = Checks(frozenset(override))
    moved = bool(changed & {"object", "start_at", "end_at"})
    if changed & {"object", "expected_airborne"}:
        expected_airborne_check(
            organization=target.organization, booking_object=target, value=values["expected_airborne"], checks=checks
        )
    if moved:
        new_start = bool(changed & {"object", "start_at"})
        check_times(target, values["start_at"], values["end_at"], now=clock.now(), checks=checks, new_start=new_start)
    messages = _booker_checks(
        values["user"],
        target,
        values["end_at"],
        checks,
        balance=bool(changed & {"object", "user"}),
        expiry=bool(changed & {"object", "user", "end_at"}),
    )
    placed = values["is_primary"] and (moved or "is_primary" in changed)
    if placed and not place_in_time(target, values["start_at"], values["end_at"], leave_out=current.pk):
        values["is_primary"] = False
        messages.insert(0, _queued_message())
    was_primary, freed = current.is_primary, (current.object, current.start_at, current.end_at)
    written = {name: values[name] for name in services.CHANGEABLE if name in changed or name == "is_primary"}
    updated = services.booking_update(booking=current, **written)
    if was_primary and (moved or not updated.is_primary):
        services.queue_move_up(*freed, leave_out=None if updated.is_primary else updated.pk)
    return Outcome(updated, messages, checks.overridden)


def _current_with_objects(booking: Booking, new_object) -> tuple[Booking, dict[int, BookableObject]]:
    """The booking as it is now, read after its object's (and `new_object`'s) row lock; 404 when it is gone."""
    wanted = {booking.object_id, *([new_object.pk] if new_object is not None else [])}
    while True:
        locked = _locked_objects(*wanted)
        rows = Booking.objects.select_for_update(of=("self",)).select_related("object__organization", "user")
        current = rows.filter(pk=booking.pk).first()
        if current is None:
            raise ServiceError(ErrorCode.NOT_FOUND, "No such booking.")
        if current.object_id in locked:
            return current, locked
        wanted.add(current.object_id)  # moved to another object meanwhile: lock that one too


@transaction.atomic
def booking_remove(*, booking: Booking) -> None:
    """Delete a booking for whoever manages the object's organization (booking.delete); a primary booking's
    time goes to the queue, as after a cancel (no mail: the member did not cancel it)."""
    current, _locked = _current_with_objects(booking, None)
    was_primary, freed = current.is_primary, (current.object, current.start_at, current.end_at)
    services.booking_delete(booking=current)
    if was_primary:
        services.queue_move_up(*freed)


# --- cut and cancel ------------------------------------------------------------------------------------------


def is_own(member: Member, booking: Booking) -> bool:
    """Whose booking the member may cut or cancel: one they booked or made."""
    return member.user_id in (booking.user_id, booking.created_by_id)


def may_cut(member: Member, booking, *, now: dt.datetime) -> bool:
    """permissions.can_cut: the member's own booking, going on, with a whole minute since its start."""
    return (
        not member.locked
        and is_own(member, booking)
        and booking.start_at <= now < booking.end_at
        and services.whole_minute(now) > booking.start_at
    )


def may_cancel(member: Member, booking, *, now: dt.datetime) -> bool:
    """permissions.can_cancel (and can_edit): the member's own booking, before its end."""
    return not member.locked and is_own(member, booking) and now < booking.end_at


def _current(booking: Booking) -> Booking:
    """The booking as it is now, read under its object's row lock: a cut and a cancel of one booking run one
    after the other, and the second finds what the first left (404 when the booking is gone)."""
    BookableObject.objects.select_for_update(of=("self",)).filter(pk=booking.object_id).first()
    current = Booking.objects.select_related("object__organization").filter(pk=booking.pk).first()
    if current is None:
        raise ServiceError(ErrorCode.NOT_FOUND, "The booking is gone.")
    return current


def _check_own(member: Member, booking: Booking) -> None:
    if not is_own(member, booking):
        raise refused(_("Only the member who made the booking can change it."))


@transaction.atomic
def cut(member: Member, booking: Booking) -> Outcome:
    """The booking going on ends now (a whole minute, after its start)."""
    check_booking_on(member)
    check_not_locked(member)
    now = clock.now()
    booking = _current(booking)
    _check_own(member, booking)
    if not booking.start_at <= now < booking.end_at:
        raise refused(_("Only a booking that is going on can be cut."))
    end_at = services.whole_minute(now)
    if end_at <= booking.start_at:
        raise refused(_("The booking began less than a minute ago: it cannot be cut yet."))
    changed = services.booking_cut(booking=booking, end_at=end_at)
    local = local_time(end_at, changed.object.organization.timezone)
    return Outcome(changed, [Message("info", _("Your booking now ends at %(time)s.") % {"time": f"{local:%H:%M}"})])


@transaction.atomic
def cancel(member: Member, booking: Booking, *, reason: str | None) -> Outcome:
    """The booking goes, before its end; a reason where the organization requires one."""
    check_booking_on(member)
    check_not_locked(member)
    now = clock.now()
    booking = _current(booking)
    _check_own(member, booking)
    if booking.end_at <= now:
        raise refused(_("A booking that has ended cannot be cancelled."))
    if member.organization.booking_cancel_reason_required and not (reason or "").strip():
        raise refused(_("Give a reason for cancelling the booking."))
    services.booking_cancel(booking=booking, reason=(reason or "").strip(), cancelled_by=member.user)
    return Outcome(booking, [Message("info", _("Your booking is cancelled."))])
