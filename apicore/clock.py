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


@functools.lru_cache(maxsize=8192)
def local_date_of_utc_text(utc_text: str, timezone_name: str) -> str:
    """The local date (YYYY-MM-DD) in an IANA zone of a point in time written as `*_at` text (UtcText). Kept per
    process: a list shows the same rows (an object's remarks) on every call."""
    return dt.datetime.fromisoformat(utc_text).astimezone(zone(timezone_name)).date().isoformat()


def utc_iso(value: dt.datetime | None) -> str | None:
    """A point in time as the APIs write `*_at`: UTC, whole seconds, with Z."""
    if value is None:
        return None
    if value.tzinfo is not dt.UTC:  # the database's values are UTC already: skip the conversion
        value = value.astimezone(dt.UTC)
    return value.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


def local_iso(value: dt.datetime | None, zone) -> str | None:
    """A point in time as the APIs write `*_local`: in `zone` (a ZoneInfo), whole seconds, with its offset."""
    if value is None:
        return None
    local = value.astimezone(zone)
    offset = local.utcoffset()
    if offset is not None and offset.seconds % 60:
        # A local mean time of old: the offset to the minute (clock.offset_text), and the clock time with it.
        local = value.astimezone(dt.timezone(dt.timedelta(minutes=round(offset.total_seconds() / 60))))
    return local.replace(microsecond=0).isoformat()


def local_text(value: dt.datetime | None, timezone_name: str, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A point in time as a person reads it: in the organization's zone (UTC when the zone is unknown), in
    `fmt`; "-" for none."""
    if value is None:
        return "-"
    try:
        local_zone = zone(timezone_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        local_zone = dt.UTC
    return value.astimezone(local_zone).strftime(fmt)
