"""What a flight adds to its object's time summary, and its totals as the APIs show them.

One rule for the flight log's services, the demo world and the presenters: a total is the difference of its
two readings (clock times or meter readings), null when either is missing.
"""

import datetime as dt
from decimal import Decimal


def minutes_between(start: dt.datetime | None, end: dt.datetime | None) -> int | None:
    if start is None or end is None:
        return None
    return round((end - start).total_seconds() / 60)


def reading_difference(start: Decimal | None, end: Decimal | None) -> Decimal | None:
    if start is None or end is None:
        return None
    return end - start


def time_summary_of(flight) -> dict:
    """The amounts one flight adds to its object's totals (objects_app.time_summary.object_totals_move)."""
    return {
        "airborne_minutes": minutes_between(flight.takeoff_at, flight.landing_at) or 0,
        "block_minutes": minutes_between(flight.blockoff_at, flight.blockon_at) or 0,
        "tach_hours": reading_difference(flight.departure_tachometer, flight.arrival_tachometer) or Decimal(0),
        "landings": flight.number_of_flights or 0,
    }


def negated(summary: dict) -> dict:
    return {key: -value for key, value in summary.items()}
