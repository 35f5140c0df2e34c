"""Latency of the operations lists (flight log, bookings, objects with every block) beside hand-written SQL.

    .venv/bin/python bench/run.py --only operations [--ops-n 40] [--ops-warmup 4]       (part of make bench)
    .venv/bin/python bench/operations.py [--n 40] [--warmup 4]                            (the same, alone)

The production setup on loopback, as bench/run.py: its own PostgreSQL database (recreated), the demo world,
a Redis db (flushed) as the cache, gunicorn with 2 workers, REQUIRE_HTTPS=false. On top of the demo world one
organization, "Bench Operations Flygklubb", is made with bulk inserts before the server starts
(demo.bench_club.build_bench_club, the planner of the demo world): 60 aircraft with a year of
flying (about 300 flights each, a booking for each flight), 300 members (instructors and students among
them), three remarks with history and three maintenance items per aircraft, and a charge with two account
rows for each charged flight.

Each round reads, for each of three lists, one page two ways, one right after the other and alternating
which goes first:
- the API, the whole HTTP call as the client sees it (Bearer access token; the calls rotate over enough
  tokens that none comes near its limit of 120 calls a minute):
    GET /main/v5/flightlogs?limit=500&offset=N        (N = 0, 500, 1000, 1500 in turn)
    GET /main/v5/bookings?limit=500&offset=N
    GET /main/v5/objects?include=status,active_remarks,maintenance_items,settings,time_summary&limit=500
- the baseline: one psycopg connection, hand-written SQL for the same rows and fields, the same document
  built in Python and written by orjson.
Every API reply is checked to be the same document as the baseline's (parsed JSON, links included). The SQL
queries of one API call of each list are counted afterwards. Writes bench/results/operations.json.
"""

import argparse
import datetime as dt
import json
import math
import os
import sys
import time
import zoneinfo
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from urllib.parse import urlencode

from server import (
    API,
    HOST,
    Gunicorn,
    create_tokens,
    django_script,
    log,
    machine,
    prepare_bench_database,
    stop_on_sigterm,
    summary_ms,
    write_results,
)
from users_list import first_difference

PAGE = 500
RESULTS_ROOT = Path(__file__).resolve().parents[1]
# Overridable (loopback only), so that two runs at the same time do not drop each other's database.
OPS_DB = os.environ.get("BENCH_OPS_DB", "flyclub_bench_ops")
OPS_REDIS_URL = os.environ.get("BENCH_OPS_REDIS_URL", "redis://127.0.0.1:6379/7")
OBJECT_BLOCKS = "status,active_remarks,maintenance_items,settings,time_summary"
OFFSETS = (0, PAGE, 2 * PAGE, 3 * PAGE)
CALLS_PER_TOKEN = 40
MIN_TOKENS = 4
LISTS = ("flightlogs", "bookings", "objects")

SEED_SCRIPT = """
import json
from django.db import transaction
from demo.bench_club import build_bench_club
with transaction.atomic():
    made = build_bench_club(aircraft={aircraft}, members={members}, flights={flights})
print(json.dumps(made))
"""

QUERIES_SCRIPT = """
import base64, json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client(SERVER_NAME="127.0.0.1")
basic = base64.b64encode("{client_id}:{secret}".encode()).decode()
reply = client.post("{api}/oauth/token", {{"grant_type": "client_credentials"}}, HTTP_AUTHORIZATION="Basic " + basic)
assert reply.status_code == 200, reply.content
access = reply.json()["access_token"]
for _ in range(3):  # the worker's token cache holds the credential from the third call on, as in the run
    assert client.get("{api}/token", HTTP_AUTHORIZATION="Bearer " + access).status_code == 200
counted = {{}}
for name, path in {paths!r}.items():
    runs = []
    for _ in range(2):
        with CaptureQueriesContext(connection) as page:
            reply = client.get(path, HTTP_AUTHORIZATION="Bearer " + access)
        assert reply.status_code == 200, reply.content[:500]
        runs.append([q["sql"][:600] for q in page.captured_queries])
    counted[name] = {{"first": len(runs[0]), "second": len(runs[1]), "sql": runs[1]}}
print(json.dumps(counted))
"""


def list_query(name: str, offset: int) -> str:
    if name == "objects":
        return urlencode({"include": OBJECT_BLOCKS, "limit": PAGE, "offset": offset})
    return urlencode({"limit": PAGE, "offset": offset})


def offsets_of(name: str) -> tuple[int, ...]:
    return (0,) if name == "objects" else OFFSETS


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


OBJECTS_SQL = f"""
SELECT o.id, o.registration, o.category, o.type_designator, o.type_name, o.comment, org.id, org.name, o.active,
       o.has_status, o.airborne_minutes, org.timezone,
       coalesce((SELECT max(r.category) FROM objects_app_remark r WHERE r.object_id = o.id AND r.state <> 'closed'), 0),
       o.use_expected_airborne, o.force_expected_time, o.max_booking_length,
       o.block_minutes, o.tach_hours, o.landings
  FROM objects_app_bookableobject o
  JOIN accounts_organization org ON org.id = o.organization_id
 WHERE o.id IN ({VISIBLE})
 ORDER BY o.category, lower(o.registration), o.id
 LIMIT %(limit)s OFFSET %(offset)s
"""
MAINTENANCE_SQL = """
SELECT object_id, id, name, due_date, due_airborne, hard_airborne, warning_days, warning_hours
  FROM objects_app_maintenanceitem WHERE object_id = ANY(%(ids)s)
 ORDER BY object_id, due_date NULLS LAST, lower(name), id
"""
ACTIVE_REMARKS_SQL = """
SELECT r.object_id, r.id, r.created_at, r.description, r.category,
       u.id, u.name, u.first_name, u.last_name_particle, u.last_name, u.username
  FROM objects_app_remark r LEFT JOIN accounts_user u ON u.id = r.created_by_id
 WHERE r.object_id = ANY(%(ids)s) AND r.state <> 'closed'
 ORDER BY r.object_id, r.created_at DESC, r.id DESC
"""


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


def object_item(row, items: list, remarks: list, zones: Zones) -> dict:
    (
        id_, registration, category, designator, type_name, comment, org_id, org_name, active,
        has_status, airborne_minutes, timezone, remarks_category,
        use_expected, force_expected, max_length, block_minutes, tach_hours, landings,
    ) = row  # fmt: skip
    today = dt.datetime.now(zones(timezone)).date()
    statuses = [_item_status(*item[3:], airborne_minutes, today) for item in items]
    if has_status:
        soft = [item[4] * SIXTY - airborne_minutes for item in items if item[4] is not None]
        hard = [item[5] * SIXTY - airborne_minutes for item in items if item[5] is not None]
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
    for (_object_id, item_id, name, due_date, due, hard, warn_days, warn_hours), item_status in zip(
        items, statuses, strict=True
    ):
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
    zone = zones(timezone)
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
                "created_date": created.astimezone(zone).date().isoformat(),
                "created_by": None if user_id is None else {"id": user_id, "name": full_name(*name)},
                "description": description,
                "category_id": remark_category,
            }
            for _object_id, remark_id, created, description, remark_category, user_id, *name in remarks
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

        self.dumps = orjson.dumps
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute("SET TIME ZONE 'UTC'")
        # The joins run in the order written (the page's rows first, then their references): without this,
        # planning the dozen outer joins of a flight costs more than running them (~120 ms against ~30 ms).
        self.conn.execute("SET join_collapse_limit = 1")
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
            ids = [row[0] for row in rows[:PAGE]]
            items, remarks = {}, {}
            for item in self.conn.execute(MAINTENANCE_SQL, {"ids": ids}).fetchall():
                items.setdefault(item[0], []).append(item)
            for remark in self.conn.execute(ACTIVE_REMARKS_SQL, {"ids": ids}).fetchall():
                remarks.setdefault(remark[0], []).append(remark)
            data = [object_item(row, items.get(row[0], []), remarks.get(row[0], []), self.zones) for row in rows[:PAGE]]
        has_more = len(rows) > PAGE
        document = {
            "data": data,
            "meta": {"count": len(data), "limit": PAGE, "offset": offset, "has_more": has_more},
            "links": {"next": f"{self.base_address}/{name}?{list_query(name, offset + PAGE)}" if has_more else None},
        }
        return self.dumps(document)


# --- the measurement ---------------------------------------------------------------------------------------


def measure(client, baseline: Baseline, tokens: list[dict], *, n: int, warmup: int, max_seconds: float) -> dict:
    sessions = [client.fetch_access_token(token["client_id"], token["secret"])[0] for token in tokens]
    used = [1] * len(sessions)  # the token fetch is call 1 of each token's minute
    calls = [0]

    def bearer() -> str:
        index = calls[0] % len(sessions)
        calls[0] += 1
        if used[index] >= CALLS_PER_TOKEN:
            raise RuntimeError("out of token budget")
        used[index] += 1
        return sessions[index]

    def api_call(name: str, offset: int):
        reply = client.get(f"{API}/{name}?{list_query(name, offset)}", bearer=bearer(), timeout=60)
        if reply.status != 200:
            raise RuntimeError(f"GET /{name} answered {reply.status}: {reply.body[:300]!r}")
        return reply.seconds, reply.body

    def baseline_call(name: str, offset: int):
        started = time.perf_counter()
        body = baseline.page(name, offset)
        return time.perf_counter() - started, body

    def pair(i: int, name: str) -> tuple[float, float, int]:
        offsets = offsets_of(name)
        offset = offsets[i % len(offsets)]
        kinds = (("api", api_call), ("baseline", baseline_call))
        results = {}
        for kind, call in kinds if i % 2 == 0 else reversed(kinds):
            results[kind] = call(name, offset)
        (api_s, api_body), (base_s, base_body) = results["api"], results["baseline"]
        difference = first_difference(json.loads(api_body), json.loads(base_body))
        if difference:
            raise RuntimeError(f"/{name} offset {offset}: the baseline's document differs from the API's: {difference}")
        return api_s, base_s, len(api_body)

    log(f"warm-up: {warmup} rounds of {len(LISTS)} lists")
    for i in range(warmup):
        for name in LISTS:
            pair(i, name)
    log(f"measuring: {n} rounds (pages of {PAGE}; offsets {list(OFFSETS)} in turn for the flight log and bookings)")
    times = {name: ([], [], []) for name in LISTS}
    started = time.monotonic()
    for i in range(warmup, warmup + n):
        if time.monotonic() - started > max_seconds:
            log(f"stopping after {len(times[LISTS[0]][0])} rounds: the measurement is bounded to {max_seconds:.0f}s")
            break
        for name in LISTS:
            api_s, base_s, size = pair(i, name)
            times[name][0].append(api_s)
            times[name][1].append(base_s)
            times[name][2].append(size)
    result = {"seconds": round(time.monotonic() - started, 2), "calls_per_token": used}
    for name, (api_times, base_times, sizes) in times.items():
        api, base = summary_ms(api_times), summary_ms(base_times)
        result[name] = {
            "api": api,
            "baseline": base,
            "reply_bytes_mean": round(sum(sizes) / len(sizes)),
            "identical_documents": True,  # checked on every round, warm-up included
            "stopped_early": len(api_times) < n,
            **{f"ratio_{stat}": round(api[f"{stat}_ms"] / base[f"{stat}_ms"], 2) for stat in ("median", "p90", "mean")},
        }
    return result


def paths() -> dict[str, str]:
    return {name: f"{API}/{name}?{list_query(name, 0)}" for name in LISTS}


def count_queries(env: dict[str, str], token: dict) -> dict:
    code = QUERIES_SCRIPT.format(client_id=token["client_id"], secret=token["secret"], api=API, paths=paths())
    return django_script(env, code)


def seed(env: dict[str, str], *, aircraft: int, members: int, flights: int) -> dict:
    log(f"creating the operations club: {aircraft} aircraft, {members} members, ~{flights} flights each (bulk inserts)")
    started = time.monotonic()
    made = django_script(env, SEED_SCRIPT.format(aircraft=aircraft, members=members, flights=flights), timeout=600)
    made["seed_seconds"] = round(time.monotonic() - started, 1)
    import psycopg

    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")  # fresh statistics and visibility map before the measurement
    log(f"made: {made}")
    return made


class OperationsBench:
    """The operations measurement on a prepared bench database (server.prepare_bench_database): the club and
    its tokens are made first, then `measure` runs on a server started afterwards (bench/run.py)."""

    def __init__(self, env, *, aircraft=60, members=300, flights=300, n=40, warmup=4):
        self.env, self.n, self.warmup = env, n, warmup
        self.made = seed(env, aircraft=aircraft, members=members, flights=flights)
        token_count = max(MIN_TOKENS, math.ceil(len(LISTS) * (n + warmup) / (CALLS_PER_TOKEN - 1)))
        log(f"creating {token_count + 1} tokens of the operations club")
        owner = {"organization": {"id": self.made["organization_id"]}, "admin": {"username": self.made["admin"]}}
        self.query_token, *self.tokens = create_tokens(env, owner, token_count + 1)

    def measure(self, client, port: int, *, max_seconds: float = 120) -> dict:
        baseline = Baseline(self.env["DATABASE_URL"], self.made["organization_id"], f"http://{HOST}:{port}{API}")
        try:
            return measure(client, baseline, self.tokens, n=self.n, warmup=self.warmup, max_seconds=max_seconds)
        finally:
            baseline.close()

    def document(self, result: dict, *, workers: int) -> dict:
        log("counting queries")
        queries = count_queries(self.env, self.query_token)
        for name in LISTS:
            result[name]["queries_per_call"] = queries[name]["second"]
            result[name]["queries_first_call"] = queries[name]["first"]
            result[name]["queries_sql"] = queries[name]["sql"]
            result[name]["path"] = paths()[name].replace("offset=0", "offset=N") if name != "objects" else paths()[name]
        return {
            "what": (
                "GET /main/v5/flightlogs, /bookings (limit=500, offsets 0/500/1000/1500) and /objects with every "
                "block (limit=500), each beside one psycopg connection with hand-written SQL building the same "
                "document (orjson), alternating"
            ),
            "server": f"gunicorn config.wsgi, {workers} sync workers, 127.0.0.1, PostgreSQL, Redis cache",
            "data": self.made,
            "warmup_rounds": self.warmup,
            "tokens_rotated": len(self.tokens),
            **result,
            "machine": machine(),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }


def print_table(document: dict) -> None:
    print()
    print(f"{'operations lists (limit=500)':<40} {'n':>4} {'median ms':>10} {'p90 ms':>8} {'mean ms':>8}")
    for name in LISTS:
        part = document[name]
        for label, row in ((f"GET /{name} API", part["api"]), (f"GET /{name} baseline", part["baseline"])):
            print(f"{label:<40} {row['n']:>4} {row['median_ms']:>10.1f} {row['p90_ms']:>8.1f} {row['mean_ms']:>8.1f}")
        ratios = f"{part['ratio_median']:>10.2f} {part['ratio_p90']:>8.2f} {part['ratio_mean']:>8.2f}"
        print(f"{'  ratio API / baseline':<40} {'':>4} {ratios}")
        print(
            f"{'  SQL queries per call':<40} {part['queries_per_call']:>4} (first call of a fresh token"
            f" {part['queries_first_call']}); reply {part['reply_bytes_mean']} bytes"
        )
    print()
    print("documents identical on every round")


def run_operations(*, n=40, warmup=4, aircraft=60, members=300, flights=300, workers=2, max_seconds=150) -> dict:
    """The whole operations measurement on its own database (flyclub_bench_ops) and Redis db (7); returns the
    document, also written to bench/results/operations.json."""
    run_started = time.monotonic()
    env, _world = prepare_bench_database(OPS_DB, OPS_REDIS_URL)
    bench = OperationsBench(env, aircraft=aircraft, members=members, flights=flights, n=n, warmup=warmup)
    server = Gunicorn(env, workers=workers, log_path=RESULTS_ROOT / "bench" / "results" / "gunicorn-operations.log")
    try:
        client = server.start()
        result = bench.measure(client, server.port, max_seconds=max_seconds)
    finally:
        server.stop()
    document = bench.document(result, workers=workers)
    document["total_run_s"] = round(time.monotonic() - run_started, 1)
    document["written"] = str(write_results("operations.json", document).relative_to(RESULTS_ROOT))
    return document


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40, help="measured rounds of the three lists (default 40)")
    parser.add_argument("--warmup", type=int, default=4, help="unmeasured rounds first (default 4)")
    parser.add_argument("--aircraft", type=int, default=60)
    parser.add_argument("--members", type=int, default=300)
    parser.add_argument("--flights", type=int, default=300, help="flights a year per aircraft, about (300)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=150, help="bound of the measured part (default 150)")
    args = parser.parse_args()
    if args.n < 1 or args.warmup < 0:
        parser.error("--n must be at least 1, --warmup at least 0")
    stop_on_sigterm()
    document = run_operations(
        n=args.n,
        warmup=args.warmup,
        aircraft=args.aircraft,
        members=args.members,
        flights=args.flights,
        workers=args.workers,
        max_seconds=args.max_seconds,
    )
    print_table(document)
    print(f"load average (1, 5, 15 min) at the end: {document['machine']['load_average_1_5_15']}")
    print(f"\nwritten: {document['written']} (whole run {document['total_run_s']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
