"""Reads on bookings: the local-date window of the list, people's email addresses."""

import datetime as dt

from django.db.models import Q, QuerySet

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


PERSON_COLUMNS = (
    "pk",
    *NAME_COLUMNS,
    "email_visible",
    "emails__address",
    "mobile_visible",
    "mobile_country_code",
    "mobile_initial_number",
    "mobile_number",
)
NUMBER_COLUMNS = ("members__organization_id", "members__member_number")


def people_rows(user_ids: list, *, member_numbers: bool = False) -> QuerySet:
    """The rows of people_of: each login joined to its addresses (at most two; a sub-select per login would
    scan the small address table once per login), by address position; with `member_numbers` also joined to
    its memberships, then in organization order."""
    order = ("emails__position", "members__organization_id") if member_numbers else ("emails__position",)
    columns = (*PERSON_COLUMNS, *NUMBER_COLUMNS) if member_numbers else PERSON_COLUMNS
    return User.objects.filter(pk__in_keys=user_ids).order_by(*order).values_list(*columns)


def people_of(user_ids, *, member_numbers: bool = False) -> list[tuple[int, dict]]:
    """(login id, {id, name, email, mobile}) of the logins as a booking shows its booker and student: email
    (the first address) and mobile null where the person hides them. One query (people_rows) for a page's
    people, a few hundred at most, each once however many bookings they have.

    With `member_numbers`, each person also has `numbers`, {organization id: member number} of every
    membership in organization order, from the same query."""
    rows = people_rows(list(user_ids), member_numbers=member_numbers)
    return people_from_rows(rows, member_numbers=member_numbers)


def people_from_rows(rows, *, member_numbers: bool = False) -> list[tuple[int, dict]]:
    """people_of's people from people_rows' rows (which the API reads by a statement compiled once)."""
    people: dict[int, dict] = {}
    # Rows come by address position (then organization): a login's first row has its first address, and its
    # first rows (of that address) each of its memberships in organization order.
    for user_id, name, first, particle, last, username, email_visible, email, mobile_visible, *rest in rows:
        person = people.get(user_id)
        if person is None:
            person = people[user_id] = {
                "id": user_id,
                "name": full_name_of(name or "", first or "", particle or "", last or "", username),
                "email": email if email_visible else None,
                "mobile": mobile_text(*rest[:3]) if mobile_visible else None,
            }
            if member_numbers:
                person["numbers"] = {}
        if member_numbers and rest[3] is not None:
            person["numbers"].setdefault(rest[3], rest[4])
    return list(people.items())


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
