"""Presenters of the flight log (Main API v5): a flight, a flight type, a user's approved flight types.

A page of flights is its rows (the points in time written as text by the database, the readings as floats and
their totals computed by it, the transaction id a sub-select) and one query for the page's crew members of the
three roles (docs/decisions.md §6.12): joining pilot, instructor and scout with their logins and organizations
made a read of 15 tables, which PostgreSQL plans slowly on every call. Items are built by a generated function
and a page is one statement (apicore.presenters.GeneratedItems, docs/decisions.md §1.34).
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

from ..selectors import (
    CREW_HIDDEN,
    DateText,
    ReadingFloat,
    ReadingHours,
    ReadingMinutes,
    WholeMinutes,
    approved_types,
    first_transaction_id,
)
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


def _minutes_of_hours(hours: Decimal | None) -> int | None:
    """Minutes of a reading total: times 60, rounded half up."""
    return None if hours is None else int((hours * 60).quantize(_WHOLE, ROUND_HALF_UP))


def reading(path: str) -> Expr:
    """A meter reading or an uplift (two decimals) as a float, read by the database (flightlog.selectors)."""
    return Expr(f"{path}_float", lambda: ReadingFloat(path), read=lambda obj: number(getattr(obj, path)))


def reading_hours(start: str, end: str) -> Expr:
    """The total of two readings (§6.6: the exact difference, null when one is missing) as a float."""
    return Expr(
        f"{start}_{end}_hours",
        lambda: ReadingHours(start, end),
        read=lambda obj: number(reading_difference(getattr(obj, start), getattr(obj, end))),
    )


def reading_minutes(start: str, end: str) -> Expr:
    """The total of two readings in whole minutes (§6.6: times 60, rounded half up)."""
    return Expr(
        f"{start}_{end}_minutes",
        lambda: ReadingMinutes(start, end),
        read=lambda obj: _minutes_of_hours(reading_difference(getattr(obj, start), getattr(obj, end))),
    )


def totals(block, airborne, tach, hobbs, tach_minutes, hobbs_minutes) -> dict:
    """The flight's totals (docs/decisions.md §6.6 "Totals"): block and airborne minutes and the readings' totals,
    computed by the database (null when a time or a reading is missing); the hours of minutes here."""
    return {
        "block": None if block is None else round(block / 60, 2),
        "airborne": None if airborne is None else round(airborne / 60, 2),
        "tach": tach,
        "hobbs": hobbs,
        "block_minutes": block,
        "airborne_minutes": airborne,
        "tach_minutes": tach_minutes,
        "hobbs_minutes": hobbs_minutes,
    }


def whole_minutes(start: str, end: str) -> Expr:
    """apicore.presenters.minutes_between_column (the same annotation and value), read as the database's integer
    (flightlog.selectors.WholeMinutes)."""
    column = minutes_between_column(start, end)
    return Expr(column.name, lambda: WholeMinutes(start, end), read=column.read)


DATE_TEXT = Expr("date_text", lambda: DateText("date"), read=lambda obj: iso_date(obj.date))

TOTALS_COLUMNS = (
    whole_minutes("blockoff_at", "blockon_at"),
    whole_minutes("takeoff_at", "landing_at"),
    reading_hours("departure_tachometer", "arrival_tachometer"),
    reading_hours("departure_hobbs", "arrival_hobbs"),
    reading_minutes("departure_tachometer", "arrival_tachometer"),
    reading_minutes("departure_hobbs", "arrival_hobbs"),
)


class FlightPresenter(GeneratedItems, Presenter):
    """An item of GET /flightlogs and GET /flightlogs/{id} (a FlightLogEntry)."""

    rows_by_keys = True  # the endpoints annotate nothing the presenter reads

    fields = {
        "id": Field(INTEGER, "id"),
        "date": Field(DATE, DATE_TEXT),
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
            reading("departure_tachometer"),
            reading("departure_hobbs"),
            compute=lambda icao, name, blockoff, takeoff, tach, hobbs: {
                "airport": None if icao is None else {"icao": icao, "name": name},
                "blockoff_at": blockoff,
                "takeoff_at": takeoff,
                "tachometer": tach,
                "hobbs": hobbs,
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
            reading("arrival_tachometer"),
            reading("arrival_hobbs"),
            compute=lambda icao, name, landing, blockon, tach, hobbs: {
                "airport": None if icao is None else {"icao": icao, "name": name},
                "landing_at": landing,
                "blockon_at": blockon,
                "tachometer": tach,
                "hobbs": hobbs,
            },
        ),
        "crew_hidden": Field(BOOLEAN, CREW_HIDDEN),
        "pilot": crew_field("pilot"),
        "instructor": crew_field("instructor"),
        "scout": crew_field("scout"),
        "is_solo_instruction": Field(nullable(BOOLEAN), "is_solo_instruction"),
        "uplift": Field(
            obj(fuel=NULLABLE_NUMBER, oil=NULLABLE_NUMBER),
            reading("uplift_fuel"),
            reading("uplift_oil"),
            compute=lambda fuel, oil: {"fuel": fuel, "oil": oil},
        ),
        "totals": Field(TOTALS, *TOTALS_COLUMNS, compute=totals),
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
