"""The booking rules of ../shared/DECISIONS.md "Booking rules", written once for the Mobile API and the member
website (docs/decisions.md §5 "Bookings").

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
"""

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.expiry import expired_with_image_rule
from accounts.models import Member
from accounts.selectors import types_with_dates_of
from apicore import clock
from apicore.errors import ErrorCode, ServiceError
from apicore.exceptions import ApiError
from economy.selectors import member_balance
from objects_app.models import BookableObject

from . import services
from .models import Booking

# How far in the past a booking may start (../shared/DECISIONS.md "Booking rules", rule 2; in whole minutes:
# docs/decisions.md §5.4 "Start, end and length").
START_GRACE = dt.timedelta(minutes=5)
PRIVATE = "PRIV"
RULE = ErrorCode.BOOKING_RULE.code


@dataclass(frozen=True)
class RuleProblem:
    """One item of `errors` for a booking rule: no `field`, the rule's text for the member."""

    code: int
    message: str

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


@dataclass(frozen=True)
class Message:
    """What the website would tell the member after the action (`messages` of the reply)."""

    kind: str  # always "info" (document 2: `messages: [{kind: 'info', text}]`), a warning included
    text: str

    def as_dict(self) -> dict:
        return {"kind": self.kind, "text": self.text}


@dataclass
class Outcome:
    booking: Booking
    messages: list[Message] = field(default_factory=list)


def refused(text: str) -> ServiceError:
    """409 10300 with the rule's text (already in the member's language)."""
    return ServiceError(ErrorCode.BOOKING_RULE, text, errors=[RuleProblem(RULE, text)])


# --- before the rules ---------------------------------------------------------------------------------------


def check_booking_on(member: Member) -> None:
    """403 10301 when the member's organization has booking switched off (reads too)."""
    if not member.organization.booking_enabled:
        raise ApiError(ErrorCode.BOOKING_OFF, _("Booking is switched off in your club."))


def check_not_locked(member: Member) -> None:
    """403 10302: a locked member may read but not book, cut or cancel."""
    if member.locked:
        raise ApiError(ErrorCode.MEMBER_LOCKED, _("Your membership is locked: you cannot book, cut or cancel."))


# --- texts ---------------------------------------------------------------------------------------------------


def _local(value: dt.datetime, zone_name: str) -> dt.datetime:
    return value.astimezone(clock.zone(zone_name))


def _money(amount: Decimal) -> str:
    return number_format(amount, decimal_pos=2)


# --- rules 1 to 6: a new booking --------------------------------------------------------------------------------


def visible_object(member: Member, object_id: int, *, lock: bool):
    """Rule 1: the object, when the member may see it (own organization's or shared with it, active); locked
    (select_for_update) inside the caller's transaction when `lock`."""
    found = services.object_for_booking(object_id, organization=member.organization, lock=lock)
    if found is None:
        raise refused(_("You cannot book this object."))
    return found


def check_times(booking_object, start_at: dt.datetime, end_at: dt.datetime, *, now: dt.datetime) -> tuple:
    """Rule 2; the times in whole minutes."""
    start_at, end_at = services.whole_minute(start_at), services.whole_minute(end_at)
    if start_at >= end_at:
        raise refused(_("The booking must end after it starts."))
    # In whole minutes as the booking: at 12:00:59 a booking may start at 11:55.
    if start_at < services.whole_minute(now) - START_GRACE:
        raise refused(_("A booking cannot start in the past."))
    longest = booking_object.max_booking_length
    if longest is not None and end_at - start_at > dt.timedelta(minutes=longest):
        hours, minutes = divmod(longest, 60)
        raise refused(
            _("The booking is longer than this object may be booked for (%(length)s).")
            % {"length": f"{hours}:{minutes:02d}"}
        )
    return start_at, end_at


def check_balance(member: Member) -> None:
    """Rule 3."""
    minimum = member.organization.booking_minimum_balance
    if minimum is None:
        return
    if member_balance(member) < minimum:
        raise refused(
            _("Your balance is below %(minimum)s %(currency)s, the least your club needs to book.")
            % {"minimum": _money(minimum), "currency": member.organization.currency_symbol}
        )


def expiry_problems(member: Member, booking_object, end_at: dt.datetime) -> list[tuple[bool, str]]:
    """Rule 4: (warning only, text) of each required expiry date type the member does not meet for a booking
    that ends at `end_at`. The last local day is the day of the booking's last minute, in the object's
    organization's zone (a booking that ends at midnight ends the day before)."""
    zone_name = booking_object.organization.timezone
    last_day = _local(end_at - dt.timedelta(microseconds=1), zone_name).date()
    problems = []
    types = types_with_dates_of(member).filter(booking_required=True).order_by("name", "id")
    for date_type in types:
        if booking_object.pk in (date_type.booking_excluded_object_ids or []):
            continue
        date = date_type.expiry_date
        if date is None:
            text = _("You have no %(name)s date, which booking needs.") % {"name": date_type.name}
        elif expired_with_image_rule(
            date, today=last_day, image_required=date_type.image_required, has_image=bool(date_type.date_image)
        ):
            if date < last_day:
                text = _("Your %(name)s date (%(date)s) comes before the booking ends.") % {
                    "name": date_type.name,
                    "date": date.isoformat(),
                }
            else:
                text = _("Your %(name)s date needs an image before it counts for booking.") % {"name": date_type.name}
        else:
            continue
        problems.append((date_type.booking_warning_only, text))
    return problems


def check_expiry_dates(member: Member, booking_object, end_at: dt.datetime) -> list[Message]:
    """Rule 4: the first date that stops the booking is refused; the warnings are the reply's messages."""
    problems = expiry_problems(member, booking_object, end_at)
    for warning_only, text in problems:
        if not warning_only:
            raise refused(text)
    return [Message("info", text) for _warning, text in problems]


def primary_overlaps(booking_object, start_at: dt.datetime, end_at: dt.datetime, *, leave_out=None) -> bool:
    rows = Booking.objects.filter(object=booking_object, is_primary=True, start_at__lt=end_at, end_at__gt=start_at)
    if leave_out is not None:
        rows = rows.exclude(pk=leave_out)
    return rows.exists()


def place_in_time(booking_object, start_at: dt.datetime, end_at: dt.datetime) -> bool:
    """Rule 5: True for a primary booking, False for a queue booking; refused when the time is taken and the
    object has no queue. The caller holds the object's lock."""
    if not primary_overlaps(booking_object, start_at, end_at):
        return True
    if booking_object.queue_allowed:
        return False
    raise refused(_("The object is already booked at that time."))


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
    check_fields=None,
) -> Outcome:
    """A private booking of the member by rules 1 to 6. `check_fields(object)` may refuse fields that depend
    on the object (400) once it is found."""
    check_booking_on(member)
    check_not_locked(member)
    now = clock.now()
    # Rule 1; the lock on the object's row serializes bookings of one object until this transaction ends.
    booking_object = visible_object(member, object_id, lock=True)
    if check_fields is not None:
        check_fields(booking_object)
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
    local = _local(end_at, changed.object.organization.timezone)
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
