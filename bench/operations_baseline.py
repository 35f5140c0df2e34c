"""The operations benchmark's baseline (bench/operations.py): the same pages as GET /main/v5/flightlogs,
/bookings and /objects with every block, read by one psycopg connection with hand-written SQL and built in
Python as the API writes them, then written by orjson. bench/mobile.py reuses the object item and its SQL.

Fair, not naïve (docs/decisions.md §12.10): the page's rows are chosen first in a CTE, the first email of the
page's people in one DISTINCT ON pass, UTC texts by `to_char`, the joins in the written order.
"""

import datetime as dt
import zoneinfo
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import urlencode

PAGE = 500
OBJECT_BLOCKS = "status,active_remarks,maintenance_items,settings,time_summary"


def list_query(name: str, offset: int) -> str:
    if name == "objects":
        return urlencode({"include": OBJECT_BLOCKS, "limit": PAGE, "offset": offset})
    return urlencode({"limit": PAGE, "offset": offset})


# --- what the API computes, written out again (docs/decisions.md §4 "Objects", §6 "Flight log") -----------

CENTS = Decimal("0.01")
SIXTY = Decimal(60)
CATEGORY_NAMES = {0: "Aircraft", 1: "Equipment", 2: "Premises"}


def full_name(name, first, particle, last, username) -> str:
    return name or " ".join(part for part in (first, particle, last) if part) or username


def hours2(value: Decimal) -> float:
    return float(Decimal(value).quantize(CENTS, rounding=ROUND_HALF_UP))


def hm(minutes) -> str:
    whole = int(Decimal(minutes).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    hours, rest = divmod(abs(whole), 60)
    return f"{'-' if whole < 0 else ''}{hours}:{rest:02d}"


def number(value) -> float | None:
    return None if value is None else float(value)


class Zones:
    def __init__(self):
        self.zones: dict[str, zoneinfo.ZoneInfo] = {}

    def __call__(self, name: str) -> zoneinfo.ZoneInfo:
        zone = self.zones.get(name)
        if zone is None:
            zone = self.zones[name] = zoneinfo.ZoneInfo(name)
        return zone


UTC_TEXT = """to_char({0} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"""


def utc_text(column: str) -> str:
    return UTC_TEXT.format(column)


# Visible objects of an organization: its own and those shared with it. (Written as one filter on the objects
# rather than a UNION: then PostgreSQL can walk the bookings in start order and check each object.)
VISIBLE = """
    SELECT v.id FROM objects_app_bookableobject v
     WHERE v.organization_id = %(org)s
        OR v.id IN (SELECT s.object_id FROM objects_app_objectshare s WHERE s.organization_id = %(org)s)
"""


def crew_sql(alias: str, column: str) -> tuple[str, str]:
    """(select list, joins) of a crew member: user id, name parts, member number, organization."""
    select = (
        f"{alias}.user_id, {alias}u.name, {alias}u.first_name, {alias}u.last_name_particle, {alias}u.last_name, "
        f"{alias}u.username, {alias}.member_number, {alias}.organization_id, {alias}o.name"
    )
    joins = (
        f"LEFT JOIN accounts_member {alias} ON {alias}.id = f.{column} "
        f"LEFT JOIN accounts_user {alias}u ON {alias}u.id = {alias}.user_id "
        f"LEFT JOIN accounts_organization {alias}o ON {alias}o.id = {alias}.organization_id"
    )
    return select, joins


PILOT, INSTRUCTOR, SCOUT = crew_sql("p", "pilot_id"), crew_sql("i", "instructor_id"), crew_sql("s", "scout_id")
FLIGHTS_SQL = f"""
WITH page AS (
    -- The page's rows first (index on date, blockoff_at, id), so that the joins and the transaction
    -- sub-select run for these rows only, not for the rows before the offset.
    SELECT f.*
      FROM flightlog_flightlogentry f
      JOIN objects_app_bookableobject o ON o.id = f.object_id
      JOIN accounts_organization org ON org.id = o.organization_id
     WHERE o.organization_id = %(org)s AND org.uses_flight_log
     ORDER BY f.date, f.blockoff_at NULLS LAST, f.id
     LIMIT %(limit)s OFFSET %(offset)s
)
SELECT f.id, f.date::text, o.id, o.registration, org.id, org.name, f.flight_type_id, ft.name,
       da.icao, da.name, {utc_text("f.blockoff_at")}, {utc_text("f.takeoff_at")},
       f.departure_tachometer::float8, f.departure_hobbs::float8, f.via_route,
       aa.icao, aa.name, {utc_text("f.landing_at")}, {utc_text("f.blockon_at")},
       f.arrival_tachometer::float8, f.arrival_hobbs::float8,
       org.hide_crew_in_log, {PILOT[0]}, {INSTRUCTOR[0]}, {SCOUT[0]},
       f.is_solo_instruction, f.uplift_fuel::float8, f.uplift_oil::float8,
       round(extract(epoch FROM f.blockon_at - f.blockoff_at) / 60)::int,
       round(extract(epoch FROM f.landing_at - f.takeoff_at) / 60)::int,
       (f.arrival_tachometer - f.departure_tachometer)::float8,
       round((f.arrival_tachometer - f.departure_tachometer) * 60)::int,
       (f.arrival_hobbs - f.departure_hobbs)::float8,
       round((f.arrival_hobbs - f.departure_hobbs) * 60)::int,
       f.number_of_flights, f.daily_check, f.comment,
       (SELECT min(t.id) FROM economy_transaction t WHERE t.flightlog_id = f.id),
       f.remark_id, {utc_text("f.created_at")}
  FROM page f
  JOIN objects_app_bookableobject o ON o.id = f.object_id
  JOIN accounts_organization org ON org.id = o.organization_id
  LEFT JOIN flightlog_flighttype ft ON ft.id = f.flight_type_id
  LEFT JOIN flightlog_airport da ON da.id = f.departure_airport_id
  LEFT JOIN flightlog_airport aa ON aa.id = f.arrival_airport_id
  {PILOT[1]} {INSTRUCTOR[1]} {SCOUT[1]}
 ORDER BY f.date, f.blockoff_at NULLS LAST, f.id
"""


def _crew(hidden, user_id, name, first, particle, last, username, member_number, org_id, org_name):
    if hidden or user_id is None:
        return None
    return {
        "id": user_id,
        "name": full_name(name, first, particle, last, username),
        "member_number": member_number,
        "organization": None if org_id is None else {"id": org_id, "name": org_name},
    }


def flight_item(row) -> dict:
    (
        id_, date, object_id, registration, org_id, org_name, type_id, type_name,
        dep_icao, dep_name, blockoff, takeoff, dep_tach, dep_hobbs, via,
        arr_icao, arr_name, landing, blockon, arr_tach, arr_hobbs, hidden,
    ) = row[:22]  # fmt: skip
    pilot, instructor, scout = row[22:31], row[31:40], row[40:49]
    (
        solo, fuel, oil, block_min, air_min, tach, tach_min, hobbs, hobbs_min,
        landings, daily_check, comment, transaction_id, remark_id, created,
    ) = row[49:]  # fmt: skip
    return {
        "id": id_,
        "date": date,
        "object": {"id": object_id, "registration": registration, "organization": {"id": org_id, "name": org_name}},
        "flight_type": None if type_id is None else {"id": type_id, "name": type_name},
        "departure": {
            "airport": None if dep_icao is None else {"icao": dep_icao, "name": dep_name},
            "blockoff_at": blockoff,
            "takeoff_at": takeoff,
            "tachometer": dep_tach,
            "hobbs": dep_hobbs,
        },
        "via_route": via or None,
        "arrival": {
            "airport": None if arr_icao is None else {"icao": arr_icao, "name": arr_name},
            "landing_at": landing,
            "blockon_at": blockon,
            "tachometer": arr_tach,
            "hobbs": arr_hobbs,
        },
        "crew_hidden": hidden,
        "pilot": _crew(hidden, *pilot),
        "instructor": _crew(hidden, *instructor),
        "scout": _crew(hidden, *scout),
        "is_solo_instruction": solo,
        "uplift": {"fuel": fuel, "oil": oil},
        "totals": {
            "block": None if block_min is None else round(block_min / 60, 2),
            "airborne": None if air_min is None else round(air_min / 60, 2),
            "tach": tach,
            "hobbs": hobbs,
            "block_minutes": block_min,
            "airborne_minutes": air_min,
            "tach_minutes": tach_min,
            "hobbs_minutes": hobbs_min,
        },
        "number_of_flights": landings,
        "daily_check": daily_check,
        "comment": comment or None,
        "transaction_id": transaction_id,
        "remark_id": remark_id,
        "created_at": created,
    }


def person_sql(alias: str, column: str) -> tuple[str, str]:
    select = (
        f"{alias}.id, {alias}.name, {alias}.first_name, {alias}.last_name_particle, {alias}.last_name, "
        f"{alias}.username, {alias}e.address, {alias}.email_visible, {alias}.mobile_country_code, "
        f"{alias}.mobile_initial_number, {alias}.mobile_number, {alias}.mobile_visible"
    )
    joins = (
        f"LEFT JOIN accounts_user {alias} ON {alias}.id = b.{column} "
        f"LEFT JOIN emails {alias}e ON {alias}e.user_id = b.{column}"
    )
    return select, joins


BOOKER, STUDENT = person_sql("u", "user_id"), person_sql("s", "student_id")
BOOKINGS_SQL = f"""
WITH page AS (
    -- The page's rows first (index on start_at, end_at), then the first email address of each person of
    -- the page in one pass (a sub-select per row would scan the small email table once per row).
    SELECT b.*
      FROM bookings_booking b
     WHERE b.object_id IN ({VISIBLE})
     ORDER BY b.start_at, b.id
     LIMIT %(limit)s OFFSET %(offset)s
), emails AS (
    SELECT DISTINCT ON (e.user_id) e.user_id, e.address
      FROM accounts_useremail e
     WHERE e.user_id IN (SELECT user_id FROM page UNION SELECT student_id FROM page)
     ORDER BY e.user_id, e.position, e.id
)
SELECT b.id, {utc_text("b.start_at")}, {utc_text("b.end_at")}, b.start_at, b.end_at, org.timezone,
       o.id, o.registration, o.type_designator, o.category, org.id, org.name,
       {BOOKER[0]}, {STUDENT[0]},
       b.type, b.is_primary, b.expected_airborne::float8, b.comment
  FROM page b
  JOIN objects_app_bookableobject o ON o.id = b.object_id
  JOIN accounts_organization org ON org.id = o.organization_id
  {BOOKER[1]} {STUDENT[1]}
 ORDER BY b.start_at, b.id
"""


def _person(id_, name, first, particle, last, username, email, email_visible, cc, prefix, mobile, mobile_visible):
    if id_ is None:
        return None
    digits = f"{prefix or ''}{mobile or ''}".strip()
    return {
        "id": id_,
        "name": full_name(name, first, particle, last, username),
        "email": (email or None) if email_visible else None,
        "mobile": ((f"+{cc} {digits}" if cc else digits) if digits else None) if mobile_visible else None,
    }


def booking_item(row, zones: Zones) -> dict:
    (
        id_, start_text, end_text, start, end, timezone, object_id, registration, designator, category,
        org_id, org_name,
    ) = row[:12]  # fmt: skip
    booker, student = row[12:24], row[24:36]
    type_, is_primary, expected, comment = row[36:]
    zone = zones(timezone)
    return {
        "id": id_,
        "start_at": start_text,
        "end_at": end_text,
        "start_local": start.astimezone(zone).replace(microsecond=0).isoformat(),
        "end_local": end.astimezone(zone).replace(microsecond=0).isoformat(),
        "timezone": timezone,
        "object": {
            "id": object_id,
            "registration": registration,
            "type_designator": (designator or None) if category == 0 else None,
            "category": {"id": category, "name": CATEGORY_NAMES[category]},
            "organization": {"id": org_id, "name": org_name},
        },
        "user": _person(*booker),
        "student": _person(*student),
        "type": type_,
        "is_primary": is_primary,
        "expected_airborne": expected,
        "comment": comment or None,
    }


# The objects page in one statement (docs/decisions.md §12.10): the page's objects first (a CTE), then their
# maintenance items and their remarks not closed, each read once for the page's objects and aggregated per object
# in the block's order (json_agg), joined to the page; numbers of hours as text (exact Decimals in Python), a
# remark's local date by the database. The highest category of the remarks not closed is that of the active
# remarks read here. `columns`: more columns of the object (the Mobile part's); `where` and `order` name the
# object's table `{t}` (o in the CTE, page outside).
OBJECT_COLUMNS = (
    "o.id, o.registration, o.category, o.type_designator, o.type_name, o.comment, o.organization_id, "
    "org.name AS organization_name, o.active, o.has_status, o.airborne_minutes, org.timezone, "
    "o.use_expected_airborne, o.force_expected_time, o.max_booking_length, o.block_minutes, o.tach_hours, o.landings"
)


def objects_sql(*, where: str, order: str, columns: str = "") -> str:
    return f"""
WITH page AS (
    SELECT {OBJECT_COLUMNS}{columns}
      FROM objects_app_bookableobject o
      JOIN accounts_organization org ON org.id = o.organization_id
     WHERE {where.format(t="o")}
     ORDER BY {order.format(t="o")}
     LIMIT %(limit)s OFFSET %(offset)s
), items AS (
    SELECT m.object_id,
           json_agg(json_build_array(m.id, m.name, m.due_date, m.due_airborne::text, m.hard_airborne::text,
                                     m.warning_days, m.warning_hours::text)
                    ORDER BY m.due_date NULLS LAST, lower(m.name), m.id) AS items
      FROM page p JOIN objects_app_maintenanceitem m ON m.object_id = p.id
     GROUP BY m.object_id
), remarks AS (
    SELECT r.object_id,
           json_agg(json_build_array(r.id, to_char(r.created_at AT TIME ZONE p.timezone, 'YYYY-MM-DD'), r.description,
                                     r.category, u.id, u.name, u.first_name, u.last_name_particle, u.last_name,
                                     u.username)
                    ORDER BY r.created_at DESC, r.id DESC) AS remarks
      FROM page p JOIN objects_app_remark r ON r.object_id = p.id AND r.state <> 'closed'
      LEFT JOIN accounts_user u ON u.id = r.created_by_id
     GROUP BY r.object_id
)
SELECT page.*, items.items, remarks.remarks
  FROM page
  LEFT JOIN items ON items.object_id = page.id
  LEFT JOIN remarks ON remarks.object_id = page.id
 ORDER BY {order.format(t="page")}
"""


OBJECTS_SQL = objects_sql(
    where="{t}.organization_id = %(org)s OR {t}.id IN "
    "(SELECT s.object_id FROM objects_app_objectshare s WHERE s.organization_id = %(org)s)",
    order="{t}.category, lower({t}.registration), {t}.id",
)


def _decimal(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


def _item_status(due_date, due_airborne, hard_airborne, warning_days, warning_hours, airborne_minutes, today):
    days = None if due_date is None else (due_date - today).days
    left = [limit * SIXTY - airborne_minutes for limit in (due_airborne, hard_airborne) if limit is not None]
    if (days is not None and days < 0) or any(minutes <= 0 for minutes in left):
        return 2
    warning = (warning_hours or 0) * SIXTY
    if (days is not None and days <= (warning_days or 0)) or any(minutes <= warning for minutes in left):
        return 1
    return 0


def _nearest(minutes: list) -> tuple:
    if not minutes:
        return None, None
    least = min(minutes)
    return hours2(least / SIXTY), hm(least)


def object_item(row, zones: Zones) -> dict:
    """An object of OBJECTS_SQL's row (its 18 columns, then the JSON of its items and of its active remarks)."""
    (
        id_, registration, category, designator, type_name, comment, org_id, org_name, active,
        has_status, airborne_minutes, timezone,
        use_expected, force_expected, max_length, block_minutes, tach_hours, landings, item_rows, remark_rows,
    ) = row[:20]  # fmt: skip
    items = [
        (item_id, name, None if due_date is None else dt.date.fromisoformat(due_date), _decimal(due), _decimal(hard),
         warn_days, Decimal(warn_hours))
        for item_id, name, due_date, due, hard, warn_days, warn_hours in item_rows or ()
    ]  # fmt: skip
    remarks = remark_rows or ()
    remarks_category = max((remark[3] for remark in remarks), default=0)
    today = dt.datetime.now(zones(timezone)).date()
    statuses = [_item_status(*item[2:], airborne_minutes, today) for item in items]
    if has_status:
        soft = [item[3] * SIXTY - airborne_minutes for item in items if item[3] is not None]
        hard = [item[4] * SIXTY - airborne_minutes for item in items if item[4] is not None]
        soft_hours, soft_text = _nearest(soft)
        hard_hours, hard_text = _nearest(hard)
        maintenance = max(statuses, default=0)
        status = {
            "total_id": max(maintenance, remarks_category),
            "maintenance_id": maintenance,
            "remarks_id": remarks_category,
            "remaining_time": {
                "soft_airborne": soft_hours,
                "soft_airborne_formatted": soft_text,
                "hard_airborne": hard_hours,
                "hard_airborne_formatted": hard_text,
            },
        }
    else:
        status = {
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
    aircraft = category == 0
    maintenance_items = []
    for (item_id, name, due_date, due, hard, warn_days, warn_hours), item_status in zip(items, statuses, strict=True):
        maintenance_items.append(
            {
                "id": item_id,
                "name": name,
                "due_date": None if due_date is None else due_date.isoformat(),
                "due_airborne": None if due is None else hours2(due),
                "hard_airborne": None if hard is None else hours2(hard),
                "warning_days": warn_days,
                "warning_hours": hours2(warn_hours),
                "remaining_days": None if due_date is None else (due_date - today).days,
                "remaining_hours": None if due is None else hours2((due * SIXTY - airborne_minutes) / SIXTY),
                "status_id": item_status,
            }
        )
    return {
        "id": id_,
        "registration": registration,
        "category": {"id": category, "name": CATEGORY_NAMES[category]},
        "type_designator": (designator or None) if aircraft else None,
        "type_name": (type_name or None) if aircraft else None,
        "comment": comment or None,
        "organization": {"id": org_id, "name": org_name},
        "active": active,
        "status": status,
        "active_remarks": [
            {
                "id": remark_id,
                "created_date": created_date,
                "created_by": None if user_id is None else {"id": user_id, "name": full_name(*name)},
                "description": description,
                "category_id": remark_category,
            }
            for remark_id, created_date, description, remark_category, user_id, *name in remarks
        ],
        "maintenance_items": maintenance_items,
        "settings": {
            "use_expected_airborne": use_expected,
            "force_expected_time": force_expected,
            "max_booking_length": max_length,
        }
        if aircraft
        else None,
        "time_summary": {
            "total": {
                "airborne": hours2(Decimal(airborne_minutes) / SIXTY),
                "airborne_formatted": hm(airborne_minutes),
                "block": hours2(Decimal(block_minutes) / SIXTY),
                "block_formatted": hm(block_minutes),
                "tach": hours2(tach_hours),
                "tach_formatted": hm(tach_hours * SIXTY),
                "landings": landings,
            }
        },
    }


class Baseline:
    """The same pages as the API, from one psycopg connection and hand-written SQL, written by orjson."""

    def __init__(self, database_url: str, organization_id: int, base_address: str):
        import orjson
        import psycopg
        import psycopg.types.json

        self.dumps = orjson.dumps
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute("SET TIME ZONE 'UTC'")
        # The joins run in the order written (the page's rows first, then their references): without this,
        # planning the dozen outer joins of a flight costs more than running them (~120 ms against ~30 ms).
        self.conn.execute("SET join_collapse_limit = 1")
        # json_agg's documents parsed by orjson, as the API reads its JSON.
        psycopg.types.json.set_json_loads(orjson.loads, self.conn)
        self.organization_id = organization_id
        self.base_address = base_address
        self.zones = Zones()

    def close(self) -> None:
        self.conn.close()

    def page(self, name: str, offset: int) -> bytes:
        arguments = {"org": self.organization_id, "limit": PAGE + 1, "offset": offset}
        if name == "flightlogs":
            rows = self.conn.execute(FLIGHTS_SQL, arguments).fetchall()
            data = [flight_item(row) for row in rows[:PAGE]]
        elif name == "bookings":
            rows = self.conn.execute(BOOKINGS_SQL, arguments).fetchall()
            data = [booking_item(row, self.zones) for row in rows[:PAGE]]
        else:
            rows = self.conn.execute(OBJECTS_SQL, arguments).fetchall()
            data = [object_item(row, self.zones) for row in rows[:PAGE]]
        has_more = len(rows) > PAGE
        document = {
            "data": data,
            "meta": {"count": len(data), "limit": PAGE, "offset": offset, "has_more": has_more},
            "links": {"next": f"{self.base_address}/{name}?{list_query(name, offset + PAGE)}" if has_more else None},
        }
        return self.dumps(document)
