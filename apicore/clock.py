"""The one place "now" comes from. Tests move it with time-machine."""

import datetime as dt
import zoneinfo

from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()


def http_date(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")


def today_in(timezone_name: str) -> dt.date:
    """The local date now in an IANA zone (an organization's "today")."""
    return now().astimezone(zoneinfo.ZoneInfo(timezone_name)).date()
