"""The Object and Remark resources of the Main API v5 (shapes: ../shared/DECISIONS.md "Objects: contents left
open"; docs/decisions.md §4 "Objects").

Every block costs at most one query for the whole page: columns of the page's query (settings, time summary),
a sub-select column (the highest open remark category), or one Related query (maintenance items, active
remarks, a remark's history). Nothing sums flights: the time summary is the object's own columns.
"""

from apicore.clock import utc_iso
from apicore.database import Hundredths
from apicore.presenters import (
    BOOLEAN,
    DATE,
    DATETIME,
    INTEGER,
    NUMBER,
    REF,
    STRING,
    Block,
    Expr,
    Field,
    Presenter,
    Related,
    array,
    enum,
    nullable,
    obj,
    read_path,
    ref,
    text_or_none,
)

from .. import selectors
from ..models import Category, RemarkAction, RemarkState
from ..status import (
    OK,
    fifths_as_hours,
    format_minutes,
    hundredths,
    hundredths_as_text,
    limits_status,
    minutes_as_hours,
    no_status,
    remaining_to,
)

# The API names categories in English, whatever the website's language.
CATEGORY_NAMES = {Category.AIRCRAFT: "Aircraft", Category.EQUIPMENT: "Equipment", Category.PREMISES: "Premises"}
# Made once: a page of bookings shows a category 500 times (plain int keys: an enum member's hash and
# equality are slow in a loop of that size).
CATEGORY_REFS = {int(category): {"id": int(category), "name": name} for category, name in CATEGORY_NAMES.items()}
AIRCRAFT = int(Category.AIRCRAFT)
NULLABLE_TEXT = nullable(STRING)
NULLABLE_NUMBER = nullable(NUMBER)
NULLABLE_INTEGER = nullable(INTEGER)
LEVEL = {"type": "integer", "enum": [0, 1, 2]}
NULLABLE_LEVEL = {"type": ["integer", "null"], "enum": [0, 1, 2, None]}
PERSON = nullable(REF)


def category_ref(category: int) -> dict:
    return CATEGORY_REFS.get(category) or {"id": category, "name": str(category)}


def aircraft_text(value: str, category: int) -> str | None:
    """A text only aircraft have (type designator, type name): null for other objects and when empty."""
    return (value or None) if category == AIRCRAFT else None


# --- status --------------------------------------------------------------------------------------------------

REMAINING_TIME = obj(
    soft_airborne=NULLABLE_NUMBER,
    soft_airborne_formatted=NULLABLE_TEXT,
    hard_airborne=NULLABLE_NUMBER,
    hard_airborne_formatted=NULLABLE_TEXT,
)
STATUS = obj(
    total_id=NULLABLE_LEVEL,
    maintenance_id=NULLABLE_LEVEL,
    remarks_id=NULLABLE_LEVEL,
    remaining_time=REMAINING_TIME,
)


# The status and the maintenance_items and active_remarks blocks read the same rows, with the page's own statement
# (or one query each for all).
MAINTENANCE = Related("id", rows=selectors.maintenance_item_rows, element=selectors.maintenance_item)
ACTIVE_REMARKS = Related("id", rows=selectors.active_remark_rows)


def _item_statuses(items: list[list], airborne_minutes: int, today) -> int:
    """Each item's status, computed once per item (into its last place: selectors.maintenance_item) for the status
    and the maintenance_items block alike; the worst of them (OK without items)."""
    worst = OK
    for item in items:
        status = item[7]
        if status is None:
            status = item[7] = limits_status(item[2], item[3], item[4], item[5], item[6], airborne_minutes, today)
        if status > worst:
            worst = status
    return worst


def _status(context, items, remarks, has_status, airborne_minutes, zone):
    if not has_status:
        return no_status()
    maintenance = _item_statuses(items, airborne_minutes, context.today_in(zone))
    # The remarks not closed are the active_remarks block's: one read for both (their category is the 4th value).
    remarks_id = OK
    for remark in remarks:
        if remark[3] > remarks_id:
            remarks_id = remark[3]
    soft = hard = None  # the lowest limits, in hundredths of an hour
    for item in items:
        if item[3] is not None and (soft is None or item[3] < soft):
            soft = item[3]
        if item[4] is not None and (hard is None or item[4] < hard):
            hard = item[4]
    return {
        "total_id": max(maintenance, remarks_id),
        "maintenance_id": maintenance,
        "remarks_id": remarks_id,
        "remaining_time": remaining_to(soft, hard, airborne_minutes),
    }


# --- active remarks ------------------------------------------------------------------------------------------

ACTIVE_REMARK = obj(id=INTEGER, created_date=DATE, created_by=PERSON, description=STRING, category_id=LEVEL)


def _active_remarks_block(remarks, zone_name):
    return [selectors.active_remark(remark, zone_name) for remark in remarks]


# --- maintenance items ---------------------------------------------------------------------------------------

MAINTENANCE_ITEM = obj(
    id=INTEGER,
    name=STRING,
    due_date=nullable(DATE),
    due_airborne=NULLABLE_NUMBER,
    hard_airborne=NULLABLE_NUMBER,
    warning_days=INTEGER,
    warning_hours=NUMBER,
    remaining_days=NULLABLE_INTEGER,
    remaining_hours=NULLABLE_NUMBER,
    status_id=LEVEL,
)


def _maintenance_items(context, elements, airborne_minutes, zone):
    # Hours in hundredths (objects_app.status): a hundredth's float is the number the API writes.
    today = context.today_in(zone)
    _item_statuses(elements, airborne_minutes, today)
    items = []
    for item_id, name, due_date, due, hard, warning_days, warning_hours, status in elements:
        items.append(
            {
                "id": item_id,
                "name": name,
                "due_date": None if due_date is None else due_date.isoformat(),
                "due_airborne": None if due is None else due / 100,
                "hard_airborne": None if hard is None else hard / 100,
                "warning_days": warning_days,
                "warning_hours": warning_hours / 100,
                "remaining_days": None if due_date is None else (due_date - today).days,
                "remaining_hours": None if due is None else fifths_as_hours(3 * due - 5 * airborne_minutes),
                "status_id": status,
            }
        )
    return items


# --- settings and time summary -------------------------------------------------------------------------------

SETTINGS = obj(use_expected_airborne=BOOLEAN, force_expected_time=BOOLEAN, max_booking_length=NULLABLE_INTEGER)


def _settings(category, use_expected_airborne, force_expected_time, max_booking_length):
    if category != AIRCRAFT:
        return None
    return {
        "use_expected_airborne": use_expected_airborne,
        "force_expected_time": force_expected_time,
        "max_booking_length": max_booking_length,
    }


TIME_SUMMARY = obj(
    total=obj(
        airborne=NUMBER,
        airborne_formatted=STRING,
        block=NUMBER,
        block_formatted=STRING,
        tach=NUMBER,
        tach_formatted=STRING,
        landings=INTEGER,
    )
)


def _time_summary(airborne_minutes, block_minutes, tach, landings):
    # The tachometer total in hundredths of an hour (TACH_HUNDREDTHS): a hundredth's float is the number written.
    return {
        "total": {
            "airborne": minutes_as_hours(airborne_minutes),
            "airborne_formatted": format_minutes(airborne_minutes),
            "block": minutes_as_hours(block_minutes),
            "block_formatted": format_minutes(block_minutes),
            "tach": tach / 100,
            "tach_formatted": hundredths_as_text(tach),
            "landings": landings,
        }
    }


TACH_HUNDREDTHS = Expr(
    "tach_hundredths", lambda: Hundredths("tach_hours"), read=lambda obj: hundredths(read_path(obj, "tach_hours"))
)


class ObjectPresenter(Presenter):
    # An organization has tens of objects, not thousands: one statement reads a page.
    keys_first = False
    fields = {
        "id": Field(INTEGER, "id"),
        "registration": Field(STRING, "registration"),
        "category": Field(obj(id=INTEGER, name=STRING), "category", compute=category_ref),
        "type_designator": Field(NULLABLE_TEXT, "type_designator", "category", compute=aircraft_text),
        "type_name": Field(NULLABLE_TEXT, "type_name", "category", compute=aircraft_text),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
        "organization": ref("organization"),
        "active": Field(BOOLEAN, "active"),
    }
    blocks = {
        "status": Block(
            STATUS,
            "has_status",
            "airborne_minutes",
            "organization__timezone",
            related=(MAINTENANCE, ACTIVE_REMARKS),
            compute=_status,
            uses_context=True,
        ),
        "active_remarks": Block(
            array(ACTIVE_REMARK), "organization__timezone", related=ACTIVE_REMARKS, compute=_active_remarks_block
        ),
        "maintenance_items": Block(
            array(MAINTENANCE_ITEM),
            "airborne_minutes",
            "organization__timezone",
            related=MAINTENANCE,
            compute=_maintenance_items,
            uses_context=True,
        ),
        "settings": Block(
            nullable(SETTINGS),
            "category",
            "use_expected_airborne",
            "force_expected_time",
            "max_booking_length",
            compute=_settings,
        ),
        "time_summary": Block(
            TIME_SUMMARY, "airborne_minutes", "block_minutes", TACH_HUNDREDTHS, "landings", compute=_time_summary
        ),
    }


# --- remarks -------------------------------------------------------------------------------------------------

HISTORY_EVENT = obj(action=enum(RemarkAction.values), text=NULLABLE_TEXT, at=DATETIME, by=PERSON)


def _history(_model, remark_ids, _context):
    return selectors.remark_history_of(remark_ids, at=utc_iso)


def _remark_object(object_id, registration, organization_id, organization_name):
    return {
        "id": object_id,
        "registration": registration,
        "organization": {"id": organization_id, "name": organization_name},
    }


class RemarkPresenter(Presenter):
    fields = {
        "id": Field(INTEGER, "id"),
        "object": Field(
            obj(id=INTEGER, registration=STRING, organization=REF),
            "object_id",
            "object__registration",
            "object__organization_id",
            "object__organization__name",
            compute=_remark_object,
        ),
        "description": Field(STRING, "description"),
        "category_id": Field(LEVEL, "category"),
        "state": Field(enum(RemarkState.values), "state"),
        "created_at": Field(DATETIME, "created_at", compute=utc_iso),
        "created_by": Field(PERSON, *selectors.person_columns("created_by"), compute=selectors.person_ref),
        "history": Field(array(HISTORY_EVENT), related=Related("id", load=_history)),
    }
