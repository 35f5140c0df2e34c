"""The one place "now" comes from. Tests move it with time-machine."""

import datetime as dt
import functools
import zoneinfo

from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()


def http_date(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")


def offset_text(offset: dt.timedelta) -> str:
    """An offset from UTC as the APIs write it, "+01:00", to the minute (a local mean time of old has seconds:
    Stockholm +01:12:12 before 1900)."""
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@functools.lru_cache(maxsize=512)
def zone(timezone_name: str) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(timezone_name)


def today_in(timezone_name: str) -> dt.date:
    """The local date now in an IANA zone (an organization's "today")."""
    return now().astimezone(zone(timezone_name)).date()


def local_midnight(day: dt.date, timezone_name: str) -> dt.datetime | None:
    """The UTC point in time where the local `day` begins in an IANA zone; None where a datetime cannot hold
    it (the year 1 east of Greenwich), so that date filters at the extreme dates answer instead of failing."""
    try:
        return dt.datetime.combine(day, dt.time(), tzinfo=zone(timezone_name)).astimezone(dt.UTC)
    except OverflowError:
        return None
