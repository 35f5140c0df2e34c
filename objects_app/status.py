"""An object's status (0 OK, 1 yellow, 2 red) and the remaining time to its nearest airborne limits.

Pure functions of values already read (the object's airborne total, its maintenance items' limits, the
highest category of its remarks not closed, today in the object's organization's zone), so that a page of
objects costs no query per object and both APIs compute the same status.

- A maintenance item is red when it is past due: its date is before today, or the airborne total has
  reached its soft limit (`due_airborne`) or its hard limit (`hard_airborne`). It is yellow within its
  warning margin: at most `warning_days` days before its date (the due date itself included), or at most
  `warning_hours` hours before either airborne limit. Otherwise OK.
- `maintenance_id` is the worst item's; `remarks_id` the highest category of the remarks not closed (0 when
  none); `total_id` the worse of the two.
- `remaining_time`: hours from the airborne total to the nearest soft and hard limit over all items
  (negative when past), as numbers with two decimals and as `H:MM` texts; null where no item has that limit.
"""

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

OK, YELLOW, RED = 0, 1, 2
MINUTES_PER_HOUR = Decimal(60)
CENTS = Decimal("0.01")


class Limits(NamedTuple):
    """A maintenance item's limits, as read from its row."""

    due_date: dt.date | None
    due_airborne: Decimal | None
    hard_airborne: Decimal | None
    warning_days: int
    warning_hours: Decimal


# --- numbers and texts ----------------------------------------------------------------------------------------


def hours_number(hours: Decimal) -> float:
    """Hours as the APIs write them: a number with at most two decimals."""
    return float(Decimal(hours).quantize(CENTS, rounding=ROUND_HALF_UP))


def minutes_as_hours(minutes: int | Decimal) -> float:
    if type(minutes) is int:
        # Whole minutes are k/60 hours: their hundredths are never exactly half (5k/3 is whole or a third), so
        # float rounding gives what ROUND_HALF_UP gives, without Decimal (a page of objects does this 500 times).
        return round(minutes / 60, 2)
    return hours_number(Decimal(minutes) / MINUTES_PER_HOUR)


def format_minutes(minutes: int | Decimal) -> str:
    """`H:MM` of a number of minutes (rounded to whole minutes); `-1:30` for minus 90 minutes."""
    whole = minutes if type(minutes) is int else int(Decimal(minutes).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    sign = "-" if whole < 0 else ""
    hours, rest = divmod(abs(whole), 60)
    return f"{sign}{hours}:{rest:02d}"


def format_hours(hours: Decimal) -> str:
    return format_minutes(Decimal(hours) * MINUTES_PER_HOUR)


# --- one maintenance item -------------------------------------------------------------------------------------


def remaining_days(due_date: dt.date | None, today: dt.date) -> int | None:
    return None if due_date is None else (due_date - today).days


def remaining_minutes(limit_hours: Decimal | None, airborne_minutes: int) -> Decimal | None:
    """Minutes of airborne time left until a limit given in hours (negative when past), exact."""
    return None if limit_hours is None else Decimal(limit_hours) * MINUTES_PER_HOUR - airborne_minutes


def item_status(limits: Limits, *, airborne_minutes: int, today: dt.date) -> int:
    days = remaining_days(limits.due_date, today)
    airborne = [
        minutes
        for minutes in (
            remaining_minutes(limits.due_airborne, airborne_minutes),
            remaining_minutes(limits.hard_airborne, airborne_minutes),
        )
        if minutes is not None
    ]
    if (days is not None and days < 0) or any(minutes <= 0 for minutes in airborne):
        return RED
    warning_minutes = Decimal(limits.warning_hours or 0) * MINUTES_PER_HOUR
    if (days is not None and days <= (limits.warning_days or 0)) or any(
        minutes <= warning_minutes for minutes in airborne
    ):
        return YELLOW
    return OK


# --- the object -----------------------------------------------------------------------------------------------


def _nearest(minutes: list[Decimal]) -> tuple[float | None, str | None]:
    if not minutes:
        return None, None
    least = min(minutes)
    return hours_number(least / MINUTES_PER_HOUR), format_minutes(least)


def remaining_time(items: list[Limits], airborne_minutes: int) -> dict:
    soft = [remaining_minutes(item.due_airborne, airborne_minutes) for item in items if item.due_airborne is not None]
    hard = [remaining_minutes(item.hard_airborne, airborne_minutes) for item in items if item.hard_airborne is not None]
    soft_hours, soft_text = _nearest(soft)
    hard_hours, hard_text = _nearest(hard)
    return {
        "soft_airborne": soft_hours,
        "soft_airborne_formatted": soft_text,
        "hard_airborne": hard_hours,
        "hard_airborne_formatted": hard_text,
    }


NO_STATUS = {
    "total_id": None,
    "maintenance_id": None,
    "remarks_id": None,
    "remaining_time": {
        "soft_airborne": None,
        "soft_airborne_formatted": None,
        "hard_airborne": None,
        "hard_airborne_formatted": None,
    },
}


def object_status(
    *,
    has_status: bool,
    airborne_minutes: int,
    items: list[Limits],
    open_remarks_category: int | None,
    today: dt.date,
    statuses: list[int] | None = None,
) -> dict:
    """The `status` block of an object (null values for an object that shows no status). `statuses`: the
    items' own statuses when they are known already (a page reads them with the items)."""
    if not has_status:
        return {**NO_STATUS, "remaining_time": dict(NO_STATUS["remaining_time"])}
    if statuses is None:
        statuses = [item_status(item, airborne_minutes=airborne_minutes, today=today) for item in items]
    maintenance = max(statuses, default=OK)
    remarks = open_remarks_category or OK
    return {
        "total_id": max(maintenance, remarks),
        "maintenance_id": maintenance,
        "remarks_id": remarks,
        "remaining_time": remaining_time(items, airborne_minutes),
    }
