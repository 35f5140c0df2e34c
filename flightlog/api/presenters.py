"""Presenters of the flight log (Main API v5): a flight, a flight type, a user's approved flight types.

A page of flights is its rows (the points in time written as text by the database, the transaction id a
sub-select) and one query per crew role for the page's crew members: joining pilot, instructor and scout
with their logins and organizations made a read of 15 tables, which PostgreSQL plans slowly on every call.
"""

from decimal import ROUND_HALF_UP, Decimal

from accounts.api.presenters import full_name
from accounts.models import Member
from accounts.models.user import name_columns
from apicore.presenters import (
    BOOLEAN,
    DATE,
    DATETIME,
    INTEGER,
    NUMBER,
    REF,
    STRING,
    Expr,
    Field,
    GeneratedItems,
    KeyedRows,
    Presenter,
    Related,
    array,
    iso_date,
    minutes_between_column,
    nullable,
    obj,
    text_or_none,
    utc_text,
)

from ..selectors import CREW_HIDDEN, approved_types, first_transaction_id
from ..totals import reading_difference

NULLABLE_NUMBER = nullable(NUMBER)
NULLABLE_DATETIME = nullable(DATETIME)
NULLABLE_TEXT = nullable(STRING)
AIRPORT = nullable(obj(icao=STRING, name=STRING))
CREW = nullable(
    obj(id=INTEGER, name=STRING, member_number=STRING, organization=nullable(REF)),
)
TOTALS = obj(
    block=NULLABLE_NUMBER,
    airborne=NULLABLE_NUMBER,
    tach=NULLABLE_NUMBER,
    hobbs=NULLABLE_NUMBER,
    block_minutes=nullable(INTEGER),
    airborne_minutes=nullable(INTEGER),
    tach_minutes=nullable(INTEGER),
    hobbs_minutes=nullable(INTEGER),
)


def number(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _airport(icao: str | None, name: str | None) -> dict | None:
    return None if icao is None else {"icao": icao, "name": name}


def _airport_columns(path: str) -> tuple[str, str]:
    return f"{path}__icao", f"{path}__name"


_CREW_ROWS = KeyedRows(
    lambda member_ids: Member.objects.filter(pk__in_keys=member_ids).values_list(
        "pk",
        "user_id",
        *name_columns("user"),
        "member_number",
        "organization_id",
        "organization__name",
    )
)


def _crew_members(_model, member_ids, _context):
    """(member id, crew entry) of the page's crew members of one role; one query."""
    rows = _CREW_ROWS.rows(member_ids)
    for member_id, user_id, name, first_name, particle, last_name, username, number_, org_id, org_name in rows:
        yield (
            member_id,
            {
                "id": user_id,
                "name": full_name(name, first_name, particle, last_name, username),
                "member_number": number_,
                "organization": None if org_id is None else {"id": org_id, "name": org_name},
            },
        )


def _crew(members, hidden):
    return None if hidden or not members else members[0]


def crew_field(role: str) -> Field:
    return Field(CREW, CREW_HIDDEN, related=Related(f"{role}_id", load=_crew_members), compute=_crew)


_WHOLE = Decimal(1)


def totals(block, airborne, tach_start, tach_end, hobbs_start, hobbs_end) -> dict:
    """The flight's totals (docs/decisions.md §6.6 "Totals") from its block and airborne minutes (computed by the
    database, null when a time is missing) and its meter readings: a total is null when one of its two readings
    is missing (flightlog.totals.reading_difference). Rounding written out here: 500 flights a page."""
    tach = reading_difference(tach_start, tach_end)
    hobbs = reading_difference(hobbs_start, hobbs_end)
    return {
        "block": None if block is None else round(block / 60, 2),
        "airborne": None if airborne is None else round(airborne / 60, 2),
        "tach": None if tach is None else float(tach),
        "hobbs": None if hobbs is None else float(hobbs),
        "block_minutes": block,
        "airborne_minutes": airborne,
        # Minutes of hours: times 60, rounded half up.
        "tach_minutes": None if tach is None else int((tach * 60).quantize(_WHOLE, ROUND_HALF_UP)),
        "hobbs_minutes": None if hobbs is None else int((hobbs * 60).quantize(_WHOLE, ROUND_HALF_UP)),
    }


class FlightPresenter(GeneratedItems, Presenter):
    """An item of GET /flightlogs and GET /flightlogs/{id} (a FlightLogEntry)."""

    rows_by_keys = True  # the endpoints annotate nothing the presenter reads

    fields = {
        "id": Field(INTEGER, "id"),
        "date": Field(DATE, "date", compute=iso_date),
        "object": Field(
            obj(id=INTEGER, registration=STRING, organization=REF),
            "object_id",
            "object__registration",
            "object__organization_id",
            "object__organization__name",
            compute=lambda id_, registration, org_id, org_name: {
                "id": id_,
                "registration": registration,
                "organization": {"id": org_id, "name": org_name},
            },
        ),
        "flight_type": Field(
            nullable(REF),
            "flight_type_id",
            "flight_type__name",
            compute=lambda id_, name: None if id_ is None else {"id": id_, "name": name},
        ),
        "departure": Field(
            obj(
                airport=AIRPORT,
                blockoff_at=NULLABLE_DATETIME,
                takeoff_at=NULLABLE_DATETIME,
                tachometer=NULLABLE_NUMBER,
                hobbs=NULLABLE_NUMBER,
            ),
            *_airport_columns("departure_airport"),
            utc_text("blockoff_at"),
            utc_text("takeoff_at"),
            "departure_tachometer",
            "departure_hobbs",
            compute=lambda icao, name, blockoff, takeoff, tach, hobbs: {
                "airport": _airport(icao, name),
                "blockoff_at": blockoff,
                "takeoff_at": takeoff,
                "tachometer": number(tach),
                "hobbs": number(hobbs),
            },
        ),
        "via_route": Field(NULLABLE_TEXT, "via_route", compute=text_or_none),
        "arrival": Field(
            obj(
                airport=AIRPORT,
                landing_at=NULLABLE_DATETIME,
                blockon_at=NULLABLE_DATETIME,
                tachometer=NULLABLE_NUMBER,
                hobbs=NULLABLE_NUMBER,
            ),
            *_airport_columns("arrival_airport"),
            utc_text("landing_at"),
            utc_text("blockon_at"),
            "arrival_tachometer",
            "arrival_hobbs",
            compute=lambda icao, name, landing, blockon, tach, hobbs: {
                "airport": _airport(icao, name),
                "landing_at": landing,
                "blockon_at": blockon,
                "tachometer": number(tach),
                "hobbs": number(hobbs),
            },
        ),
        "crew_hidden": Field(BOOLEAN, CREW_HIDDEN),
        "pilot": crew_field("pilot"),
        "instructor": crew_field("instructor"),
        "scout": crew_field("scout"),
        "is_solo_instruction": Field(nullable(BOOLEAN), "is_solo_instruction"),
        "uplift": Field(
            obj(fuel=NULLABLE_NUMBER, oil=NULLABLE_NUMBER),
            "uplift_fuel",
            "uplift_oil",
            compute=lambda fuel, oil: {"fuel": number(fuel), "oil": number(oil)},
        ),
        "totals": Field(
            TOTALS,
            minutes_between_column("blockoff_at", "blockon_at"),
            minutes_between_column("takeoff_at", "landing_at"),
            "departure_tachometer",
            "arrival_tachometer",
            "departure_hobbs",
            "arrival_hobbs",
            compute=totals,
        ),
        "number_of_flights": Field(INTEGER, "number_of_flights"),
        "daily_check": Field(nullable(BOOLEAN), "daily_check"),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
        "transaction_id": Field(nullable(INTEGER), Expr("first_transaction_id", first_transaction_id)),
        "remark_id": Field(nullable(INTEGER), "remark_id"),
        "created_at": Field(DATETIME, utc_text("created_at")),
    }


class FlightTypePresenter(Presenter):
    """An item of GET /flight-types."""

    fields = {"id": Field(INTEGER, "id"), "name": Field(STRING, "name")}


def _approved_types(_model, approval_ids, _context):
    for approval_id, type_id, name in approved_types(approval_ids):
        yield approval_id, {"id": type_id, "name": name}


class ApprovedFlightTypesPresenter(Presenter):
    """An item of GET /users/{id}/approved-flight-types: one object the user may log flights on (a
    FlightApproval), with the flight types allowed on it."""

    fields = {
        "object": Field(
            obj(id=INTEGER, registration=STRING),
            "object_id",
            "object__registration",
            compute=lambda id_, registration: {"id": id_, "registration": registration},
        ),
        "flight_types": Field(array(REF), related=Related("id", load=_approved_types)),
    }
