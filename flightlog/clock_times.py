"""The midnight rule: a flight's local date and local clock times made into UTC points in time.

A flight is entered (on the organization website) as its local date and the clock times of block off,
takeoff, landing and block on, in the zone of the object's organization; any of them may be missing. Document
1: "When a flight passes midnight, each time that is earlier than the time before it is on the day after
`date`." So the times are read in that order; the first one that is earlier on the clock than the given time
before it (a missing time is skipped) moves to the day after `date`, and so does every time after it. A flight
passes midnight at most once: a later time earlier again than its predecessor stays on the day after (and the
service refuses the flight, whose times are then out of order).

Local times are turned into UTC in the zone, so a flight on the day the clocks change gets its true length.
A clock time that does not exist on that day (the hour skipped in spring) is refused; one that exists twice
(the hour repeated in autumn) is its first occurrence, unless that is before the time before it, when it is
the second.
"""

import datetime as dt
from dataclasses import dataclass

from apicore import clock

# The clock times in the order the rule reads them, named as FlightLogEntry's columns.
ORDER = ("blockoff_at", "takeoff_at", "landing_at", "blockon_at")


class ClockTimeError(ValueError):
    """A clock time that does not exist on its day in the zone; `field` names it (a column of ORDER)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class LocalFlightTimes:
    """A flight's clock times as entered: local clock times (or None) on the flight's local `date`."""

    date: dt.date
    blockoff: dt.time | None = None
    takeoff: dt.time | None = None
    landing: dt.time | None = None
    blockon: dt.time | None = None


def utc_times(times: LocalFlightTimes, timezone_name: str) -> dict[str, dt.datetime | None]:
    """{column of ORDER: UTC point in time or None} by the midnight rule in the IANA zone."""
    zone = clock.zone(timezone_name)
    clock_values = (times.blockoff, times.takeoff, times.landing, times.blockon)
    result: dict[str, dt.datetime | None] = {}
    day = times.date
    previous_clock: dt.time | None = None
    previous_instant: dt.datetime | None = None
    for column, value in zip(ORDER, clock_values, strict=True):
        if value is None:
            result[column] = None
            continue
        value = value.replace(second=0, microsecond=0, tzinfo=None)
        if previous_clock is not None and value < previous_clock and day == times.date:
            day = times.date + dt.timedelta(days=1)
        instant = _to_utc(column, day, value, zone, previous_instant)
        result[column] = instant
        previous_clock, previous_instant = value, instant
    return result


def local_clock_times(flight, timezone_name: str) -> dict[str, dt.time | None]:
    """The stored points in time of a flight as the local clock times of the entry form."""
    zone = clock.zone(timezone_name)
    values = {}
    for column in ORDER:
        instant = getattr(flight, column)
        values[column] = None if instant is None else instant.astimezone(zone).time().replace(tzinfo=None)
    return values


def _to_utc(column: str, day: dt.date, value: dt.time, zone, previous: dt.datetime | None) -> dt.datetime:
    first = dt.datetime.combine(day, value, tzinfo=zone)
    second = first.replace(fold=1)
    first_utc, second_utc = first.astimezone(dt.UTC), second.astimezone(dt.UTC)
    if _wall(first_utc, zone) != (day, value):
        raise ClockTimeError(
            column, f"{value:%H:%M} does not exist on {day.isoformat()} in {zone.key}: the clocks skip it."
        )
    if first_utc != second_utc and previous is not None and first_utc < previous <= second_utc:
        return second_utc  # the repeated hour: its second occurrence keeps the times in order
    return first_utc


def _wall(instant: dt.datetime, zone) -> tuple[dt.date, dt.time]:
    local = instant.astimezone(zone)
    return local.date(), local.time().replace(tzinfo=None)
