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
"""

import datetime as dt
import enum
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.expiry import expired_with_image_rule
from accounts.models import Member
from accounts.selectors import types_with_dates_of
from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from economy.selectors import member_balance
from objects_app.models import BookableObject, ObjectShare

from . import services
from .models import Booking

# How far in the past a booking may start (../shared/DECISIONS.md "Booking rules", rule 2; in whole minutes:
# docs/decisions.md §5.4 "Start, end and length").
START_GRACE = dt.timedelta(minutes=5)
PRIVATE = "PRIV"
RULE = ErrorCode.BOOKING_RULE.code


class Override(enum.StrEnum):
    """A rule that the caller may override on purpose: checked, and when it fails, noted instead of refused."""

    PAST = "past"  # rule 2: the start earlier than now minus 5 minutes
    LENGTH = "length"  # rule 2: longer than the object's longest booking
    BALANCE = "balance"  # rule 3
    EXPIRY_DATES = "expiry_dates"  # rule 4
    EXPECTED_AIRBORNE = "expected_airborne"  # given where not used, or missing where the object requires it


# What an organization's administrator may override on the organization website.
ADMINISTRATOR = frozenset(Override)


@dataclass(frozen=True)
class RuleProblem:
    """One item of `errors` for a booking rule: no `field`, the rule's text for the member."""

    code: int
    message: str
    field = None  # names no field (the organization website shows it above the form)

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
    # The rules that failed and were overridden (Override), each as a text for whoever overrode them.
    overridden: list[str] = field(default_factory=list)


def refused(text: str) -> ServiceError:
    """409 10300 with the rule's text (already in the member's language)."""
    return ServiceError(ErrorCode.BOOKING_RULE, text, errors=[RuleProblem(RULE, text)], localized=True)


@dataclass
class Checks:
    """The rule checks of one action: a failing rule refuses, unless `override` names it; then the notice is
    kept in `overridden`."""

    override: frozenset = frozenset()
    overridden: list[str] = field(default_factory=list)

    def failed(self, rule: Override, refusal: ServiceError, notice: str) -> None:
        if rule not in self.override:
            raise refusal
        self.overridden.append(_("Booking rule overridden: %(rule)s") % {"rule": notice})


# --- before the rules ---------------------------------------------------------------------------------------


def check_booking_on(member: Member) -> None:
    """403 10301 when the member's organization has booking switched off (reads too)."""
    if not member.organization.booking_enabled:
        raise ServiceError(ErrorCode.BOOKING_OFF, _("Booking is switched off in your club."), localized=True)


def check_not_locked(member: Member) -> None:
    """403 10302: a locked member may read but not book, cut or cancel."""
    if member.locked:
        raise ServiceError(
            ErrorCode.MEMBER_LOCKED, _("Your membership is locked: you cannot book, cut or cancel."), localized=True
        )


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


def expected_airborne_check(*, organization, booking_object, value: Decimal | None, checks: Checks | None = None):
    """The expected airborne time is given only where the organization and the object both use it, and is
    required where the object forces it (and both use it): otherwise 400 10006 naming it (Override.EXPECTED_
    AIRBORNE notes it instead). Its range is bookings.services' (never overridden)."""
    checks = checks or Checks()
    used = organization.booking_use_expected_airborne and booking_object.use_expected_airborne
    if value is not None and not used:
        checks.failed(
            Override.EXPECTED_AIRBORNE,
            _field_refusal("expected_airborne is not used by the organization for this object."),
            _("Expected airborne time is not used for this object."),
        )
    if not services.expected_airborne_in_range(value):
        raise _field_refusal(services.EXPECTED_AIRBORNE_RANGE)
    if value is None and used and booking_object.force_expected_time:
        checks.failed(
            Override.EXPECTED_AIRBORNE,
            _field_refusal("expected_airborne is required for this object."),
            _("Expected airborne time is required for this object."),
        )


def _field_refusal(problem: str) -> ServiceError:
    """400 10006 naming expected_airborne (field problems stay English, as everywhere in the APIs)."""
    return ServiceError(
        ErrorCode.INVALID_FIELD,
        problem,
        errors=[FieldProblem("expected_airborne", ErrorCode.INVALID_FIELD.code, problem)],
    )


def check_times(
    booking_object,
    start_at: dt.datetime,
    end_at: dt.datetime,
    *,
    now: dt.datetime,
    checks: Checks | None = None,
    new_start: bool = True,
) -> tuple:
    """Rule 2; the times in whole minutes. Without `new_start` (a change that keeps the start and the object)
    the start is not checked against now."""
    checks = checks or Checks()
    start_at, end_at = services.whole_minute(start_at), services.whole_minute(end_at)
    if start_at >= end_at:
        raise refused(_("The booking must end after it starts."))
    # In whole minutes as the booking: at 12:00:59 a booking may start at 11:55.
    if new_start and start_at < services.whole_minute(now) - START_GRACE:
        checks.failed(
            Override.PAST, refused(_("A booking cannot start in the past.")), _("The booking starts in the past.")
        )
    longest = booking_object.max_booking_length
    if longest is not None and end_at - start_at > dt.timedelta(minutes=longest):
        hours, minutes = divmod(longest, 60)
        text = _("The booking is longer than this object may be booked for (%(length)s).") % {
            "length": f"{hours}:{minutes:02d}"
        }
        checks.failed(Override.LENGTH, refused(text), text)
    return start_at, end_at


def check_balance(member: Member, *, checks: Checks | None = None) -> None:
    """Rule 3."""
    checks = checks or Checks()
    minimum = member.organization.booking_minimum_balance
    if minimum is None:
        return
    balance = member_balance(member)
    if balance < minimum:
        currency = member.organization.currency_symbol
        checks.failed(
            Override.BALANCE,
            refused(
                _("Your balance is below %(minimum)s %(currency)s, the least your club needs to book.")
                % {"minimum": _money(minimum), "currency": currency}
            ),
            _("The balance of %(name)s is %(balance)s %(currency)s, below the %(minimum)s %(currency)s the club needs.")
            % {
                "name": member.user.full_name,
                "balance": _money(balance),
                "minimum": _money(minimum),
                "currency": currency,
            },
        )


def expiry_problems(
    member: Member, booking_object, end_at: dt.datetime, *, person: str | None = None
) -> list[tuple[bool, str]]:
    """Rule 4: (warning only, text) of each required expiry date type the member does not meet for a booking
    that ends at `end_at`. The last local day is the day of the booking's last minute, in the object's
    organization's zone (a booking that ends at midnight ends the day before). The texts speak to the member,
    or of `person` (a name) to whoever books for them."""
    zone_name = booking_object.organization.timezone
    last_day = _local(end_at - dt.timedelta(microseconds=1), zone_name).date()
    problems = []
    types = types_with_dates_of(member).filter(booking_required=True).order_by("name", "id")
    for date_type in types:
        if booking_object.pk in (date_type.booking_excluded_object_ids or []):
            continue
        date = date_type.expiry_date
        if date is None:
            text = _no_date(date_type.name, person)
        elif expired_with_image_rule(
            date, today=last_day, image_required=date_type.image_required, has_image=bool(date_type.date_image)
        ):
            if date < last_day:
                text = _date_before_end(date_type.name, date, person)
            else:
                text = _date_needs_image(date_type.name, person)
        else:
            continue
        problems.append((date_type.booking_warning_only, text))
    return problems


def _no_date(name: str, person: str | None) -> str:
    if person is None:
        return _("You have no %(name)s date, which booking needs.") % {"name": name}
    return _("%(person)s has no %(name)s date, which booking needs.") % {"person": person, "name": name}


def _date_before_end(name: str, date: dt.date, person: str | None) -> str:
    if person is None:
        return _("Your %(name)s date (%(date)s) comes before the booking ends.") % {
            "name": name,
            "date": date.isoformat(),
        }
    return _("The %(name)s date of %(person)s (%(date)s) comes before the booking ends.") % {
        "name": name,
        "person": person,
        "date": date.isoformat(),
    }


def _date_needs_image(name: str, person: str | None) -> str:
    if person is None:
        return _("Your %(name)s date needs an image before it counts for booking.") % {"name": name}
    return _("The %(name)s date of %(person)s needs an image before it counts for booking.") % {
        "name": name,
        "person": person,
    }


def check_expiry_dates(
    member: Member, booking_object, end_at: dt.datetime, *, checks: Checks | None = None, person: str | None = None
) -> list[Message]:
    """Rule 4: the first date that stops the booking is refused; the warnings are the reply's messages."""
    checks = checks or Checks()
    problems = expiry_problems(member, booking_object, end_at, person=person)
    warnings = []
    for warning_only, text in problems:
        if warning_only:
            warnings.append(Message("info", text))
        else:
            checks.failed(Override.EXPIRY_DATES, refused(text), text)
    return warnings


def primary_overlaps(booking_object, start_at: dt.datetime, end_at: dt.datetime, *, leave_out=None) -> bool:
    rows = Booking.objects.filter(object=booking_object, is_primary=True, start_at__lt=end_at, end_at__gt=start_at)
    if leave_out is not None:
        rows = rows.exclude(pk=leave_out)
    return rows.exists()


def place_in_time(booking_object, start_at: dt.datetime, end_at: dt.datetime, *, leave_out=None) -> bool:
    """Rule 5: True for a primary booking, False for a queue booking; refused when the time is taken and the
    object has no queue. Never overridden. The caller holds the object's lock."""
    if not primary_overlaps(booking_object, start_at, end_at, leave_out=leave_out):
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
