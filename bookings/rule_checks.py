"""The checks of the booking rules 1 to 5 (bookings.rules, where the actions run them: docs/decisions.md §5
"Bookings") and what they answer: the refusal (409 10300 with the rule's text in the member's language,
`RuleProblem`), the messages of the reply (`Message`), the rules a caller may override (`Override`, `Checks`)
and the outcome of an action (`Outcome`).

1. the member may see the object (`visible_object`: the organization's own or shared with it, and active);
2. start before end in whole minutes, start not earlier than now minus 5 minutes, length at most the object's
   longest booking (`check_times`); the expected airborne time where the object uses it
   (`expected_airborne_check`);
3. the balance at least the organization's minimum balance to book (`check_balance`);
4. the expiry dates required for booking (`expiry_problems`, `check_expiry_dates`);
5. overlap with a primary booking of the object: a queue booking or refused (`place_in_time`; the caller holds
   the object's row lock).

Before any rule: `check_booking_on` (403 10301) and `check_not_locked` (403 10302). Refusals are ServiceError
(no HTTP).
"""

import datetime as dt
import enum
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.expiry import expired_with_image_rule
from accounts.models import Member
from accounts.selectors import types_with_dates_of
from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from economy.selectors import member_balance

from . import services
from .models import Booking

# How far in the past a booking may start (../shared/DECISIONS.md "Booking rules", rule 2; in whole minutes:
# docs/decisions.md §5.4 "Start, end and length").
START_GRACE = dt.timedelta(minutes=5)
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


def local_time(value: dt.datetime, zone_name: str) -> dt.datetime:
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
    last_day = local_time(end_at - dt.timedelta(microseconds=1), zone_name).date()
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
