"""Reads on bookings: the local-date window of the list, people's email addresses."""

import datetime as dt

from django.db.models import Q

from accounts.models import User, UserEmail
from accounts.models.user import NAME_COLUMNS, full_name_of
from apicore import clock


def emails_of(user_ids) -> list[tuple[int, str]]:
    """(login id, address) of the logins' email addresses, each login's first first; one query."""
    rows = UserEmail.objects.filter(user_id__in_keys=list(user_ids)).order_by("user_id", "position", "id")
    return list(rows.values_list("user_id", "address"))


def mobile_text(country_code: str | None, prefix: str | None, number: str | None) -> str | None:
    """The mobile number as one text: "+46 701234567" (country code, a space, prefix and number); without a
    country code only prefix and number; null without prefix and number."""
    digits = f"{prefix or ''}{number or ''}".strip()
    if not digits:
        return None
    return f"+{country_code} {digits}" if country_code else digits


def people_of(user_ids) -> list[tuple[int, dict]]:
    """(login id, {id, name, email, mobile}) of the logins as a booking shows its booker and student: email
    (the first address) and mobile null where the person hides them. Two queries."""
    user_ids = list(user_ids)
    first_email: dict[int, str] = {}
    for user_id, address in emails_of(user_ids):
        first_email.setdefault(user_id, address)
    rows = User.objects.filter(pk__in_keys=user_ids).values_list(
        "pk",
        *NAME_COLUMNS,
        "email_visible",
        "mobile_country_code",
        "mobile_initial_number",
        "mobile_number",
        "mobile_visible",
    )
    people = []
    for user_id, name, first, particle, last, username, email_visible, cc, prefix, number, mobile_visible in rows:
        people.append(
            (
                user_id,
                {
                    "id": user_id,
                    "name": full_name_of(name or "", first or "", particle or "", last or "", username),
                    "email": first_email.get(user_id) if email_visible else None,
                    "mobile": mobile_text(cc, prefix, number) if mobile_visible else None,
                },
            )
        )
    return people


def ends_on_or_after(day: dt.date, timezone_name: str) -> Q:
    """Bookings that still go on after the local `day` has begun: end > the day's first instant.

    A booking that ends exactly at local midnight ends on the day before (it takes no time of `day`)."""
    start = clock.local_midnight(day, timezone_name)
    return Q() if start is None else Q(end_at__gt=start)


def starts_on_or_before(day: dt.date, timezone_name: str) -> Q:
    """Bookings that begin before the local `day` is over: start < the next day's first instant."""
    if day == dt.date.max:
        return Q()
    end = clock.local_midnight(day + dt.timedelta(days=1), timezone_name)
    return Q() if end is None else Q(start_at__lt=end)
