"""The one place "now" comes from. Tests move it with time-machine."""

import datetime as dt

from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()


def format_utc(value: dt.datetime | None) -> str | None:
    """`*_at` fields: UTC, whole seconds, `Z`."""
    if value is None:
        return None
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")


def today_in(timezone_name: str) -> dt.date:
    """The local date now in an IANA zone (an organization's "today")."""
    import zoneinfo

    return now().astimezone(zoneinfo.ZoneInfo(timezone_name)).date()
