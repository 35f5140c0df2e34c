"""The one place "now" comes from. Tests move it with time-machine."""

import datetime as dt
import functools
import zoneinfo

from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()


def http_date(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")


@functools.lru_cache(maxsize=512)
def zone(timezone_name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(timezone_name)


def today_in(timezone_name: str) -> dt.date:
    """The local date now in an IANA zone (an organization's "today")."""
    return now().astimezone(zone(timezone_name)).date()


def local_day_bounds(day: dt.date, timezone_name: str) -> tuple[dt.datetime, dt.datetime]:
    """The UTC points in time where a local date begins and where the next one begins (23 or 25 hours apart
    on the days the clocks change)."""
    tz = zone(timezone_name)
    start = dt.datetime.combine(day, dt.time(), tzinfo=tz)
    end = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=tz)
    return start.astimezone(dt.UTC), end.astimezone(dt.UTC)
