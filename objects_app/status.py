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

The limits' hours are whole hundredths of an hour (their columns have two decimals; the lists read them so,
apicore.database.Hundredths), and the time left to a limit is counted in fifths of a minute (0.01 hour is 3/5
of a minute): every comparison and rounding is exact integer arithmetic, without Decimal (a page of 60 objects
does this a few hundred times). The roundings half up of the Decimal hours they replace never meet a half: a
fifth of a minute is a third of a hundredth of an hour, and a whole minute is never a half of a fifth's
multiple.
"""

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

OK, YELLOW, RED = 0, 1, 2
MINUTES_PER_HOUR = Decimal(60)
CENTS = Decimal("0.01")


class Limits(NamedTuple):
    """A maintenance item's limits; hours in whole hundredths of an hour (15050 is 150.50 hours)."""

    due_date: dt.date | None
    due_airborne: int | None
    hard_airborne: int | None
    warning_days: int
    warning_hours: int

    @classmethod
    def of(
        cls,
        due_date: dt.date | None,
        due_airborne: Decimal | None,
        hard_airborne: Decimal | None,
        warning_days: int | None,
        warning_hours: Decimal | None,
    ) -> "Limits":
        """The limits of a maintenance item's values as the model holds them (hours as Decimal)."""
        return cls(
            due_date,
            hundredths(due_airborne),
            hundredths(hard_airborne),
            warning_days or 0,
            hundredths(warning_hours) or 0,
        )


# --- numbers and texts ----------------------------------------------------------------------------------------


def hundredths(hours: Decimal | None) -> int | None:
    """Hours of two decimals as whole hundredths of an hour (exact)."""
    return None if hours is None else int(Decimal(hours).scaleb(2).to_integral_value(ROUND_HALF_UP))


def hours_number(hours: Decimal) -> float:
    """Hours as the APIs write them: a number with at most two decimals."""
    return float(Decimal(hours).quantize(CENTS, rounding=ROUND_HALF_UP))


def minutes_as_hours(minutes: int | Decimal) -> float:
    if type(minutes) is int:
        # Whole minutes are 5k/3 hundredths of an hour: never exactly a half, so the nearest hundredth is what
        # ROUND_HALF_UP gives, in integers.
        return ((10 * minutes + 3) // 6) / 100
    return hours_number(Decimal(minutes) / MINUTES_PER_HOUR)


_MINUTES = [f"{minute:02d}" for minute in range(60)]


def format_minutes(minutes: int | Decimal) -> str:
    """`H:MM` of a number of minutes (rounded to whole minutes); `-1:30` for minus 90 minutes."""
    whole = minutes if type(minutes) is int else int(Decimal(minutes).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    if whole < 0:
        return f"-{-whole // 60}:{_MINUTES[-whole % 60]}"
    return f"{whole // 60}:{_MINUTES[whole % 60]}"


def format_hours(hours: Decimal) -> str:
    return format_minutes(Decimal(hours) * MINUTES_PER_HOUR)


def hundredths_as_text(hundredths: int) -> str:
    """`H:MM` of hours given in hundredths (0.01 hour is 3/5 of a minute: the nearest minute is never a tie)."""
    return fifths_as_text(3 * hundredths)


def fifths_left(limit: int | None, airborne_minutes: int) -> int | None:
    """Airborne time left until a limit (hundredths of an hour), in fifths of a minute; negative when past."""
    return None if limit is None else 3 * limit - 5 * airborne_minutes


def fifths_as_hours(fifths: int) -> float:
    """Fifths of a minute as hours with two decimals (a third of a hundredth: the nearest is never a tie)."""
    return ((2 * fifths + 3) // 6) / 100


def fifths_as_text(fifths: int) -> str:
    """Fifths of a minute as `H:MM` of the nearest whole minute (never a tie)."""
    return format_minutes((2 * fifths + 5) // 10)


# --- one maintenance item -------------------------------------------------------------------------------------


def remaining_days(due_date: dt.date | None, today: dt.date) -> int | None:
    return None if due_date is None else (due_date - today).days


def item_status(limits: Limits, *, airborne_minutes: int, today: dt.date) -> int:
    return limits_status(*limits, airborne_minutes, today)


def limits_status(
    due_date: dt.date | None,
    due_airborne: int | None,
    hard_airborne: int | None,
    warning_days: int,
    warning_hours: int,
    airborne_minutes: int,
    today: dt.date,
) -> int:
    """item_status of the limits' values (a page's item rows hold them as they are)."""
    days = None if due_date is None else (due_date - today).days
    soft = None if due_airborne is None else 3 * due_airborne - 5 * airborne_minutes
    hard = None if hard_airborne is None else 3 * hard_airborne - 5 * airborne_minutes
    if (days is not None and days < 0) or (soft is not None and soft <= 0) or (hard is not None and hard <= 0):
        return RED
    warning = 3 * (warning_hours or 0)
    if (
        (days is not None and days <= (warning_days or 0))
        or (soft is not None and soft <= warning)
        or (hard is not None and hard <= warning)
    ):
        return YELLOW
    return OK


# --- the object -----------------------------------------------------------------------------------------------


def remaining_time(items: list[Limits], airborne_minutes: int) -> dict:
    soft = min((item.due_airborne for item in items if item.due_airborne is not None), default=None)
    hard = min((item.hard_airborne for item in items if item.hard_airborne is not None), default=None)
    return remaining_to(soft, hard, airborne_minutes)


def remaining_to(soft: int | None, hard: int | None, airborne_minutes: int) -> dict:
    """`remaining_time` to the nearest (lowest) soft and hard limits of the items, None where none has one."""
    soft_left = None if soft is None else 3 * soft - 5 * airborne_minutes
    hard_left = None if hard is None else 3 * hard - 5 * airborne_minutes
    return {
        "soft_airborne": None if soft_left is None else fifths_as_hours(soft_left),
        "soft_airborne_formatted": None if soft_left is None else fifths_as_text(soft_left),
        "hard_airborne": None if hard_left is None else fifths_as_hours(hard_left),
        "hard_airborne_formatted": None if hard_left is None else fifths_as_text(hard_left),
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


def no_status() -> dict:
    """The `status` block of an object that shows no status (a fresh copy: a reply may be changed afterwards)."""
    return {**NO_STATUS, "remaining_time": dict(NO_STATUS["remaining_time"])}


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
        return no_status()
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
