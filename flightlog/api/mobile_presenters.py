"""Presenter of the Mobile API v5's flight log entry (document 2, Flight log entry).

The Main v5 flight (flightlog.api.presenters) without what document 2 leaves out: the meter readings of
departure and arrival, uplift, hobbs, daily check, transaction, remark and created_at. The departure holds the
times at the departure airport (block off, takeoff), the arrival those at the arrival airport (landing,
block on), as in Main v5. Crew: Main v5's crew entries (one query per role for the page), all null when
the object's organization hides the crew.
"""

from apicore.presenters import (
    BOOLEAN,
    INTEGER,
    Field,
    GeneratedItems,
    Presenter,
    nullable,
    obj,
    text_or_none,
    utc_text,
)

from ..selectors import CREW_HIDDEN
from .presenters import (
    AIRPORT,
    NULLABLE_DATETIME,
    NULLABLE_NUMBER,
    NULLABLE_TEXT,
    TOTALS_COLUMNS,
    FlightPresenter,
    crew_field,
    totals,
)

MOBILE_TOTALS = obj(
    block=NULLABLE_NUMBER,
    airborne=NULLABLE_NUMBER,
    tach=NULLABLE_NUMBER,
    block_minutes=nullable(INTEGER),
    airborne_minutes=nullable(INTEGER),
    tach_minutes=nullable(INTEGER),
)
MOBILE_TOTAL_NAMES = tuple(MOBILE_TOTALS["properties"])


def mobile_totals(block, airborne, tach, tach_minutes) -> dict:
    """Main v5's totals without hobbs: hours and whole minutes, null when one of the two readings is missing."""
    every = totals(block, airborne, tach, None, tach_minutes, None)
    return {name: every[name] for name in MOBILE_TOTAL_NAMES}


class MobileFlightPresenter(GeneratedItems, Presenter):
    """An item of GET /mobile/v5/flightlogs and /flightlogs/{id} (a FlightLogEntry)."""

    rows_by_keys = True  # the endpoints annotate nothing the presenter reads

    fields = {
        # The same as Main v5's flight: id, date, object {id, registration, organization}, flight_type.
        **{name: FlightPresenter.fields[name] for name in ("id", "date", "object", "flight_type")},
        "departure": Field(
            obj(airport=AIRPORT, blockoff_at=NULLABLE_DATETIME, takeoff_at=NULLABLE_DATETIME),
            "departure_airport__icao",
            "departure_airport__name",
            utc_text("blockoff_at"),
            utc_text("takeoff_at"),
            compute=lambda icao, name, blockoff, takeoff: {
                "airport": None if icao is None else {"icao": icao, "name": name},
                "blockoff_at": blockoff,
                "takeoff_at": takeoff,
            },
        ),
        "arrival": Field(
            obj(airport=AIRPORT, landing_at=NULLABLE_DATETIME, blockon_at=NULLABLE_DATETIME),
            "arrival_airport__icao",
            "arrival_airport__name",
            utc_text("landing_at"),
            utc_text("blockon_at"),
            compute=lambda icao, name, landing, blockon: {
                "airport": None if icao is None else {"icao": icao, "name": name},
                "landing_at": landing,
                "blockon_at": blockon,
            },
        ),
        "via_route": Field(NULLABLE_TEXT, "via_route", compute=text_or_none),
        "crew_hidden": Field(BOOLEAN, CREW_HIDDEN),
        "pilot": crew_field("pilot"),
        "instructor": crew_field("instructor"),
        "scout": crew_field("scout"),
        "is_solo_instruction": Field(nullable(BOOLEAN), "is_solo_instruction"),
        "totals": Field(
            MOBILE_TOTALS,
            *(TOTALS_COLUMNS[index] for index in (0, 1, 2, 4)),  # block, airborne, tach and its minutes
            compute=mobile_totals,
        ),
        "number_of_flights": Field(INTEGER, "number_of_flights"),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
    }
