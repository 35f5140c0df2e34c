"""Reads on bookings: the local-date window of the list, people's email addresses."""

import datetime as dt

from django.db.models import Q

from accounts.models import UserEmail
from apicore import clock


def emails_of(user_ids) -> list[tuple[int, str]]:
    """(login id, address) of the logins' email addresses, each login's first first; one query."""
    rows = UserEmail.objects.filter(user_id__in=list(user_ids)).order_by("user_id", "position", "id")
    return list(rows.values_list("user_id", "address"))


def local_midnight(day: dt.date, timezone_name: str) -> dt.datetime | None:
    """The UTC point in time where the local `day` begins in the zone; None when it lies outside the range a
    datetime can hold (the year 1 east of Greenwich). The day after 9999-12-31 has no beginning either."""
    try:
        return clock.local_day_bounds(day, timezone_name)[0]
    except OverflowError:
        # local_day_bounds also computes the next day's beginning, which 9999-12-31 lacks.
        try:
            return dt.datetime.combine(day, dt.time(), tzinfo=clock.zone(timezone_name)).astimezone(dt.UTC)
        except OverflowError:
            return None


def ends_on_or_after(day: dt.date, timezone_name: str) -> Q:
    """Bookings that still go on after the local `day` has begun: end > the day's first instant.

    A booking that ends exactly at local midnight ends on the day before (it takes no time of `day`)."""
    start = local_midnight(day, timezone_name)
    return Q() if start is None else Q(end_at__gt=start)


def starts_on_or_before(day: dt.date, timezone_name: str) -> Q:
    """Bookings that begin before the local `day` is over: start < the next day's first instant."""
    if day == dt.date.max:
        return Q()
    end = local_midnight(day + dt.timedelta(days=1), timezone_name)
    return Q() if end is None else Q(start_at__lt=end)
