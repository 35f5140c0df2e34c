"""Latency of the Mobile API v5 member endpoints: GET /me beside GET /health, and the bookings and objects
lists of the operations club beside hand-written SQL.

    .venv/bin/python bench/run.py --only mobile [--mobile-n 300] [--mobile-lists-n 200]   (part of make bench)

The production setup on loopback, as bench/run.py: a PostgreSQL database (its own, flyclub_bench_mobile, and
Redis db 10 when run alone), the demo world, gunicorn with 2 workers, REQUIRE_HTTPS=false. The members are those
of the operations part's club (bench/operations.py: demo.bench_club.build_bench_club, 60 aircraft,
300 members, a year of bookings), made before the server starts unless the operations part made it already.

Member tokens are minted directly in a `manage.py shell` script, as tests/mobile_helpers.py does (an access
token, its refresh token of a new family, the MobileLogin of that family), for enough app clients and logins
that no call comes near a limit (120 a minute per login, 600 a minute per client): nothing in the settings
changes. A call with a member's token pays what every Mobile call pays: the access token's lookup, the login's
lookup and both rate counters.

1. `GET /mobile/v5/me` beside `GET /health`, one at a time, alternating which goes first (as the token part).
2. Each round, for each list, one page two ways, one right after the other, alternating which goes first:
   - `GET /mobile/v5/bookings?limit=500&date_from=<a year back>&offset=N` (N = 0, 500, 1000, 1500 in turn; the
     default date_from is today, and the club's year of bookings lies behind it),
     `GET /mobile/v5/objects?include=status,active_remarks,time_summary,disclaimer,settings` and
     `GET /mobile/v5/flightlogs?limit=500&offset=N` (the club's year of flights, oldest first);
   - the baseline: one psycopg connection, hand-written SQL for the same rows and fields, the same document
     built in Python (bench/operations_baseline.py's object item for the shared blocks; the flight log's in
     bench/mobile_flightlog.py) and written by orjson.
   Every API reply is compared with the baseline's (parsed JSON, links included).
The SQL queries of each call are counted afterwards (Django test client, a fresh login). Writes
bench/results/mobile.json.
"""

import datetime as dt
import json
import math
import os
import time
import zoneinfo
from urllib.parse import urlencode

import mobile_flightlog
import operations
import operations_baseline
from server import HOST, django_script, log, machine, summary_ms
from users_list import first_difference

MOBILE = "/mobile/v5"
# Overridable (loopback only), so that two runs at the same time do not drop each other's database.
MOBILE_DB = os.environ.get("BENCH_MOBILE_DB", "flyclub_bench_mobile")
MOBILE_REDIS_URL = os.environ.get("BENCH_MOBILE_REDIS_URL", "redis://127.0.0.1:6379/10")
PAGE = 500
BOOKING_OFFSETS = (0, PAGE, 2 * PAGE, 3 * PAGE)
OBJECT_BLOCKS = "status,active_remarks,time_summary,disclaimer,settings"
OBJECTS_LIMIT = 100  # the list's default limit (document 2): the club's 60 aircraft fit one page
LISTS = ("bookings", "objects", "flightlogs")
CALLS_PER_LOGIN = 40  # far under the 120 a minute of a login
CALLS_PER_CLIENT = 150  # far under the 600 a minute of an app client
ME_MEMBERS = 20  # the /me calls rotate over the logins of this many members

MINT_SCRIPT = """
import datetime as dt, json, secrets, uuid
from oauth2_provider.models import AccessToken, RefreshToken, set_token_value
from accounts.models import Member, Organization
from mobile_api.models import MOBILE_MODULES
from mobile_api.services.app_clients import app_client_create
from mobile_api.services.logins import mobile_login_start
from apicore import clock
organization = Organization.objects.get(pk={organization_id})
members = list(
    Member.objects.filter(organization=organization, active=True, locked=False, user__is_active=True)
    .select_related("user").order_by("id")[:{members}]
)
clients = []
for number in range({clients}):
    client, _key = app_client_create(
        name="Bench Apps AB", app_name="Bench Flyer {{}}".format(number),
        rights={{module: "rw" for module in MOBILE_MODULES}}, organizations=[organization],
        redirect_uris=["se.example.benchflyer:/oauth"], confidential=True,
    )
    clients.append(client)
made = []
for number, (client_index, member_index) in enumerate({logins!r}):
    client, member = clients[client_index], members[member_index]
    raw = secrets.token_urlsafe(30)
    access = AccessToken(
        user=member.user, application=client.application, scope=client.scope,
        expires=clock.now() + dt.timedelta(hours=2),
    )
    set_token_value(access, raw)
    access.save()
    family = uuid.uuid4()
    refresh = RefreshToken(user=member.user, application=client.application, access_token=access, token_family=family)
    set_token_value(refresh, secrets.token_urlsafe(30))
    refresh.save()
    mobile_login_start(
        app_client=client, member=member, token_family=family, code_digest=secrets.token_hex(32),
        device_name="Bench phone {{}}".format(number),
    )
    made.append({{
        "access_token": raw, "client": client_index, "member_id": member.pk, "user_id": member.user_id,
        "locked": member.locked, "organization_id": member.organization_id,
        "hides_booker": organization.booking_hide_booker_details,
    }})
print(json.dumps(made))
"""

QUERIES_SCRIPT = """
import json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client(SERVER_NAME="127.0.0.1")
bearer = "Bearer {access}"
counted = {{}}
for name, path in {paths!r}.items():
    runs = []
    for _ in range(3):
        with CaptureQueriesContext(connection) as page:
            reply = client.get(path, HTTP_AUTHORIZATION=bearer) if name != "health" else client.get(path)
        assert reply.status_code == 200, (path, reply.status_code, reply.content[:500])
        runs.append([q["sql"][:600] for q in page.captured_queries])
    counted[name] = {{"calls": [len(run) for run in runs], "sql": runs[-1]}}
print(json.dumps(counted))
"""


def mint_logins(env, organization_id: int, logins: list[tuple[int, int]], *, clients: int, members: int) -> list:
    """Member logins with an access token each: `logins` is a list of (client index, member index)."""
    code = MINT_SCRIPT.format(organization_id=organization_id, clients=clients, members=members, logins=logins)
    return django_script(env, code, timeout=300)


def bookings_date_from(timezone: str) -> dt.date:
    return dt.datetime.now(zoneinfo.ZoneInfo(timezone)).date() - dt.timedelta(days=365)


def list_query(name: str, offset: int, date_from: dt.date) -> str:
    if name == "flightlogs":  # no date filter by default: the club's year of flights, oldest first
        return urlencode({"limit": PAGE, "offset": offset})
    if name == "objects":
        query = {"include": OBJECT_BLOCKS}
        return urlencode({**query, "offset": offset}) if offset else urlencode(query)
    return urlencode({"limit": PAGE, "date_from": date_from.isoformat(), "offset": offset})


# --- the baseline ---------------------------------------------------------------------------------------------

UTC = operations_baseline.utc_text
VISIBLE_ACTIVE = """
    o.active AND (o.organization_id = %(org)s
                  OR o.id IN (SELECT s.object_id FROM objects_app_objectshare s WHERE s.organization_id = %(org)s))
"""
BOOKINGS_SQL = f"""
WITH page AS (
    SELECT b.*
      FROM bookings_booking b
      JOIN objects_app_bookableobject o ON o.id = b.object_id
     WHERE {VISIBLE_ACTIVE} AND b.end_at > %(from)s
     ORDER BY b.is_primary DESC, b.start_at, b.id
     LIMIT %(limit)s OFFSET %(offset)s
)
SELECT b.id, {UTC("b.start_at")}, {UTC("b.end_at")}, b.start_at, b.end_at, org.timezone,
       o.id, o.registration, o.category, org.id, org.name, org.booking_hide_booker_details, o.queue_allowed,
       b.user_id, b.student_id, b.created_by_id, b.type, b.is_primary, b.expected_airborne::float8, b.seats_left,
       b.comment, {UTC("b.created_at")}
  FROM page b
  JOIN objects_app_bookableobject o ON o.id = b.object_id
  JOIN accounts_organization org ON org.id = o.organization_id
 ORDER BY b.is_primary DESC, b.start_at, b.id
"""
PEOPLE_SQL = """
SELECT u.id, u.name, u.first_name, u.last_name_particle, u.last_name, u.username,
       (SELECT e.address FROM accounts_useremail e WHERE e.user_id = u.id ORDER BY e.position, e.id LIMIT 1),
       u.email_visible, u.mobile_country_code, u.mobile_initial_number, u.mobile_number, u.mobile_visible
  FROM accounts_user u WHERE u.id = ANY(%(ids)s)
"""
NUMBERS_SQL = """
SELECT user_id, organization_id, member_number FROM accounts_member WHERE user_id = ANY(%(ids)s)
 ORDER BY user_id, organization_id
"""
# The operations part's one statement (operations_baseline.objects_sql) with the Mobile fields and the calendar's
# order: own objects first.
OBJECTS_SQL = operations_baseline.objects_sql(
    columns=", o.thumbnail, o.thumbnail_small_source, o.thumbnail_small, o.disclaimer_headline, o.disclaimer_text",
    where=VISIBLE_ACTIVE.replace("o.", "{t}."),
    order="({t}.organization_id <> %(org)s), {t}.category, lower({t}.registration), {t}.id",
)


class Member:
    """The caller as the baseline sees it: the login's member (from the mint script)."""

    def __init__(self, login: dict):
        self.user_id = login["user_id"]
        self.organization_id = login["organization_id"]
        self.locked = login["locked"]
        self.hides_booker = login["hides_booker"]


class Baseline:
    """The same pages as the API, for one member, from one psycopg connection, written by orjson."""

    def __init__(self, database_url: str, member: Member, base_address: str, date_from: dt.date, timezone: str):
        import orjson
        import psycopg
        import psycopg.types.json

        self.dumps = orjson.dumps
        self.conn = psycopg.connect(database_url, autocommit=True)
        self.conn.execute("SET TIME ZONE 'UTC'")
        self.conn.execute("SET join_collapse_limit = 1")
        psycopg.types.json.set_json_loads(orjson.loads, self.conn)
        self.member = member
        self.base_address = base_address
        self.date_from = date_from
        self.from_instant = dt.datetime.combine(date_from, dt.time(), zoneinfo.ZoneInfo(timezone))
        self.zones = operations_baseline.Zones()

    def close(self) -> None:
        self.conn.close()

    def page(self, name: str, offset: int) -> bytes:
        member = self.member
        if name == "bookings":
            limit = PAGE
            arguments = {"org": member.organization_id, "limit": limit + 1, "offset": offset}
            rows = self.conn.execute(BOOKINGS_SQL, {**arguments, "from": self.from_instant}).fetchall()[: limit + 1]
            data = self.bookings(rows[:limit])
        elif name == "flightlogs":
            limit = PAGE
            rows = mobile_flightlog.page_rows(self.conn, member.organization_id, limit=limit, offset=offset)
            data = [mobile_flightlog.flight_item(row) for row in rows[:limit]]
        else:
            limit = OBJECTS_LIMIT
            arguments = {"org": member.organization_id, "limit": limit + 1, "offset": offset}
            rows = self.conn.execute(OBJECTS_SQL, arguments).fetchall()
            data = [self.object_item(row) for row in rows[:limit]]
        has_more = len(rows) > limit
        next_link = f"{self.base_address}/{name}?{list_query(name, offset + limit, self.date_from)}"
        document = {
            "data": data,
            "meta": {"count": len(data), "limit": limit, "offset": offset, "has_more": has_more},
            "links": {"next": next_link if has_more else None},
        }
        return self.dumps(document)

    def bookings(self, rows) -> list[dict]:
        member, zones = self.member, self.zones
        ids = list({user for row in rows for user in row[13:16] if user is not None})
        people = {row[0]: row for row in self.conn.execute(PEOPLE_SQL, {"ids": ids}).fetchall()}
        numbers: dict[int, dict] = {}
        for user_id, organization_id, number in self.conn.execute(NUMBERS_SQL, {"ids": ids}).fetchall():
            numbers.setdefault(user_id, {})[organization_id] = number
        now = dt.datetime.now(dt.UTC)
        data = []
        for row in rows:
            (
                id_, start_text, end_text, start, end, timezone, object_id, registration, category, org_id, org_name,
                owner_hides, queue_allowed, user_id, student_id, created_by_id, type_, is_primary, expected, seats,
                comment, created_text,
            ) = row  # fmt: skip
            zone = zones(timezone)
            own = member.user_id in (user_id, student_id)
            hidden = bool(owner_hides or member.hides_booker) and not own
            may_change = member.user_id in (user_id, created_by_id) and not member.locked
            can_cancel = may_change and now < end
            data.append(
                {
                    "id": id_,
                    "start_at": start_text,
                    "end_at": end_text,
                    "start_local": start.astimezone(zone).replace(microsecond=0).isoformat(),
                    "end_local": end.astimezone(zone).replace(microsecond=0).isoformat(),
                    "timezone": timezone,
                    "object": {
                        "id": object_id,
                        "registration": registration,
                        "category": {"id": category, "name": operations_baseline.CATEGORY_NAMES[category]},
                        "organization": {"id": org_id, "name": org_name},
                    },
                    "user": self.person(people.get(user_id), numbers.get(user_id), hidden, org_id),
                    "student": self.person(people.get(student_id), numbers.get(student_id), hidden, org_id),
                    "type": type_,
                    "is_primary": is_primary,
                    "is_queue": not is_primary,
                    "is_own": own,
                    "is_student": member.user_id == student_id,
                    "is_active_now": start <= now < end,
                    "is_passed": end <= now,
                    "details_hidden": hidden,
                    "permissions": {
                        "can_edit": can_cancel,
                        "can_cancel": can_cancel,
                        "can_cut": may_change and start <= now < end and now.replace(second=0, microsecond=0) > start,
                        "queue_allowed": queue_allowed,
                    },
                    "expected_airborne": expected,
                    "seats_left": seats,
                    "comment": comment or None,
                    "created_at": created_text,
                    "created_by": self.creator(people.get(created_by_id), hidden),
                }
            )
        return data

    def person(self, row, numbers: dict | None, hidden: bool, object_organization_id: int) -> dict | None:
        if row is None:
            return None
        if hidden:
            return {"id": row[0], "name": None, "member_number": None, "email": None, "mobile": None}
        (id_, name, first, particle, last, username, email, email_visible, cc, prefix, mobile, mobile_visible) = row
        number = None
        if numbers:
            for organization_id in (object_organization_id, self.member.organization_id):
                if organization_id in numbers:
                    number = numbers[organization_id] or None
                    break
            else:
                number = next(iter(numbers.values())) or None
        digits = f"{prefix or ''}{mobile or ''}".strip()
        return {
            "id": id_,
            "name": operations_baseline.full_name(name, first, particle, last, username),
            "member_number": number,
            "email": email if email_visible else None,
            "mobile": ((f"+{cc} {digits}" if cc else digits) if digits else None) if mobile_visible else None,
        }

    @staticmethod
    def creator(row, hidden: bool) -> dict | None:
        if row is None:
            return None
        return {"id": row[0], "name": None if hidden else operations_baseline.full_name(*row[1:6])}

    def object_item(self, row) -> dict:
        # OBJECTS_SQL's row: the operations part's 18 columns, the 5 Mobile ones, then the items and remarks.
        main = operations_baseline.object_item((*row[:18], *row[23:]), self.zones)
        category, designator, type_name = row[2], row[3], row[4]
        picture, source, small, headline, text = row[18:23]
        aircraft = category == 0
        return {
            "id": main["id"],
            "registration": main["registration"],
            "category": main["category"],
            "model": {
                "designator": (designator or None) if aircraft else None,
                "name": (type_name or None) if aircraft else None,
            },
            "comment": main["comment"],
            "organization": main["organization"],
            "has_thumbnail": bool(picture) and not (source == picture and not small),
            "status": main["status"],
            "active_remarks": main["active_remarks"],
            "time_summary": main["time_summary"],
            "disclaimer": {"headline": headline or None, "text": text or None} if headline or text else None,
            "settings": main["settings"],
        }


# --- the measurement ------------------------------------------------------------------------------------------


class Budget:
    """Logins used round-robin, each call counted for its login and its client; never near a limit."""

    def __init__(self, logins: list[dict], client_calls: list[int]):
        self.logins, self.client_calls = logins, client_calls
        self.login_calls = [0] * len(logins)
        self.next = 0

    def bearer(self) -> str:
        index = self.next % len(self.logins)
        self.next += 1
        login = self.logins[index]
        if self.login_calls[index] >= CALLS_PER_LOGIN or self.client_calls[login["client"]] >= CALLS_PER_CLIENT:
            raise RuntimeError("out of call budget (a login or a client would come near its limit)")
        self.login_calls[index] += 1
        self.client_calls[login["client"]] += 1
        return login["access_token"]


def measure_me(client, budget: Budget, *, n: int, warmup: int, max_seconds: float) -> dict:
    def pair(i: int) -> tuple[float, float]:
        order = ("me", "health") if i % 2 else ("health", "me")
        times = {}
        for kind in order:
            reply = client.get(f"{MOBILE}/me", bearer=budget.bearer()) if kind == "me" else client.get("/health")
            if reply.status != 200:
                raise RuntimeError(f"{kind} answered {reply.status}: {reply.body[:300]!r}")
            times[kind] = reply.seconds
        return times["me"], times["health"]

    log(f"/me: warm-up {warmup} pairs, then {n} pairs")
    for i in range(warmup):
        pair(i)
    me_times, health_times = [], []
    started = time.monotonic()
    for i in range(n):
        if time.monotonic() - started > max_seconds:
            log(f"stopping after {i} pairs: bounded to {max_seconds:.0f}s")
            break
        me_time, health_time = pair(i)
        me_times.append(me_time)
        health_times.append(health_time)
    me, health = summary_ms(me_times), summary_ms(health_times)
    return {
        "me": me,
        "health": health,
        "seconds": round(time.monotonic() - started, 2),
        "stopped_early": len(me_times) < n,
        **{f"ratio_{stat}": round(me[f"{stat}_ms"] / health[f"{stat}_ms"], 2) for stat in ("median", "p90", "mean")},
    }


def offsets_of(name: str) -> tuple[int, ...]:
    return BOOKING_OFFSETS if name in ("bookings", "flightlogs") else (0,)


def measure_lists(client, baseline: Baseline, budget: Budget, *, n: int, warmup: int, max_seconds: float) -> dict:
    def api_call(name: str, offset: int):
        path = f"{MOBILE}/{name}?{list_query(name, offset, baseline.date_from)}"
        reply = client.get(path, bearer=budget.bearer(), timeout=60)
        if reply.status != 200:
            raise RuntimeError(f"GET /{name} answered {reply.status}: {reply.body[:300]!r}")
        return reply.seconds, reply.body

    def baseline_call(name: str, offset: int):
        started = time.perf_counter()
        body = baseline.page(name, offset)
        return time.perf_counter() - started, body

    def pair(i: int, name: str):
        offsets = offsets_of(name)
        offset = offsets[i % len(offsets)]
        kinds = (("api", api_call), ("baseline", baseline_call))
        results = {kind: call(name, offset) for kind, call in (kinds if i % 2 == 0 else reversed(kinds))}
        (api_s, api_body), (base_s, base_body) = results["api"], results["baseline"]
        difference = first_difference(json.loads(api_body), json.loads(base_body))
        if difference:
            raise RuntimeError(f"/{name} offset {offset}: the baseline's document differs from the API's: {difference}")
        return api_s, base_s, len(api_body), json.loads(api_body)["meta"]["count"]

    log(f"lists: warm-up {warmup} rounds, then {n} rounds of {len(LISTS)} lists")
    for i in range(warmup):
        for name in LISTS:
            pair(i, name)
    times = {name: ([], [], [], []) for name in LISTS}
    started = time.monotonic()
    for i in range(warmup, warmup + n):
        if time.monotonic() - started > max_seconds:
            log(f"stopping after {len(times[LISTS[0]][0])} rounds: bounded to {max_seconds:.0f}s")
            break
        for name in LISTS:
            for bucket, value in zip(times[name], pair(i, name), strict=True):
                bucket.append(value)
    result = {"seconds": round(time.monotonic() - started, 2)}
    for name, (api_times, base_times, sizes, counts) in times.items():
        api, base = summary_ms(api_times), summary_ms(base_times)
        result[name] = {
            "api": api,
            "baseline": base,
            "reply_bytes_mean": round(sum(sizes) / len(sizes)),
            "items_per_page": sorted(set(counts)),
            "identical_documents": True,  # checked on every round, warm-up included
            "stopped_early": len(api_times) < n,
            **{f"ratio_{stat}": round(api[f"{stat}_ms"] / base[f"{stat}_ms"], 2) for stat in ("median", "p90", "mean")},
        }
    return result


class MobileBench:
    """The Mobile measurement on a prepared bench database (server.prepare_bench_database). `made`: the
    operations club when bench/operations.py's part made it already, else it is made here."""

    def __init__(self, env, *, made: dict | None = None, n=300, warmup=30, lists_n=200, lists_warmup=10):
        self.env, self.n, self.warmup, self.lists_n, self.lists_warmup = env, n, warmup, lists_n, lists_warmup
        self.made = made or operations.seed(env, aircraft=60, members=300, flights=300)
        me_logins = math.ceil((n + warmup) / CALLS_PER_LOGIN) + 1
        list_logins = math.ceil(len(LISTS) * (lists_n + lists_warmup) / CALLS_PER_LOGIN) + 1
        total_calls = n + warmup + len(LISTS) * (lists_n + lists_warmup)
        clients = math.ceil(total_calls / (CALLS_PER_CLIENT * 0.8))
        # Member 0 of the club is its administrator; the lists are read by member 1, /me by several members.
        plan = [(i % clients, 2 + i % ME_MEMBERS) for i in range(me_logins)]
        plan += [((me_logins + i) % clients, 1) for i in range(list_logins)]
        plan.append((0, 1))  # the query count's own login
        log(f"minting {len(plan)} member logins over {clients} app clients")
        minted = mint_logins(env, self.made["organization_id"], plan, clients=clients, members=ME_MEMBERS + 2)
        self.query_login = minted.pop()
        self.me_logins, self.list_logins = minted[:me_logins], minted[me_logins:]
        self.clients = clients
        self.client_calls = [0] * clients

    def measure(self, client, port: int, *, max_seconds: float = 120) -> dict:
        member = Member(self.list_logins[0])
        timezone = "Europe/Stockholm"  # the operations club's (build_bench_club)
        date_from = bookings_date_from(timezone)
        base_address = f"http://{HOST}:{port}{MOBILE}"
        result = {"date_from": date_from.isoformat()}
        result["me_vs_health"] = measure_me(
            client, Budget(self.me_logins, self.client_calls), n=self.n, warmup=self.warmup, max_seconds=max_seconds
        )
        baseline = Baseline(self.env["DATABASE_URL"], member, base_address, date_from, timezone)
        try:
            result["lists"] = measure_lists(
                client,
                baseline,
                Budget(self.list_logins, self.client_calls),
                n=self.lists_n,
                warmup=self.lists_warmup,
                max_seconds=max_seconds,
            )
        finally:
            baseline.close()
        result["calls_per_client"] = list(self.client_calls)
        return result

    def paths(self, date_from: str) -> dict[str, str]:
        day = dt.date.fromisoformat(date_from)
        return {
            "me": f"{MOBILE}/me",
            "health": "/health",
            "bookings": f"{MOBILE}/bookings?{list_query('bookings', 0, day)}",
            "objects": f"{MOBILE}/objects?{list_query('objects', 0, day)}",
            "flightlogs": f"{MOBILE}/flightlogs?{list_query('flightlogs', 0, day)}",
        }

    def document(self, result: dict, *, workers: int) -> dict:
        log("counting queries")
        paths = self.paths(result["date_from"])
        code = QUERIES_SCRIPT.format(access=self.query_login["access_token"], paths=paths)
        queries = django_script(self.env, code)
        result["me_vs_health"]["queries_me"] = queries["me"]
        result["me_vs_health"]["queries_health"] = queries["health"]["calls"][-1]
        for name in LISTS:
            part = result["lists"][name]
            part["path"] = paths[name].replace("offset=0", "offset=N")
            part["queries_per_call"] = queries[name]["calls"][-1]
            part["queries_calls"] = queries[name]["calls"]
            part["queries_sql"] = queries[name]["sql"]
        return {
            "what": (
                "GET /mobile/v5/me (member's access token) beside GET /health, alternating; GET /mobile/v5/bookings "
                "(limit=500, a year of bookings, offsets 0/500/1000/1500), /objects with every block and /flightlogs "
                "(limit=500, offsets 0/500/1000/1500), each beside "
                "one psycopg connection with hand-written SQL building the same document (orjson), alternating"
            ),
            "server": f"gunicorn config.wsgi, {workers} sync workers, 127.0.0.1, PostgreSQL, Redis cache",
            "data": self.made,
            "warmup_pairs": self.warmup,
            "warmup_rounds": self.lists_warmup,
            "app_clients": self.clients,
            "logins": {"me": len(self.me_logins), "lists": len(self.list_logins), "me_members": ME_MEMBERS},
            "limits_untouched": {
                "per_login_calls_at_most": CALLS_PER_LOGIN,
                "per_client_calls_at_most": CALLS_PER_CLIENT,
            },
            **result,
            "machine": machine(),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }


def print_table(document: dict) -> None:
    me = document["me_vs_health"]
    print()
    print(f"{'Mobile API v5':<44} {'n':>5} {'median ms':>10} {'p90 ms':>8} {'mean ms':>8}")
    for label, row in (("GET /mobile/v5/me (member token)", me["me"]), ("GET /health", me["health"])):
        print(f"{label:<44} {row['n']:>5} {row['median_ms']:>10.2f} {row['p90_ms']:>8.2f} {row['mean_ms']:>8.2f}")
    ratios = f"{me['ratio_median']:>10.2f} {me['ratio_p90']:>8.2f} {me['ratio_mean']:>8.2f}"
    print(f"{'  ratio me / health':<44} {'':>5} {ratios}")
    print(f"{'  SQL queries of /me (1st, 2nd, 3rd call)':<44} {me['queries_me']['calls']}")
    for name in LISTS:
        part = document["lists"][name]
        for label, row in ((f"GET /mobile/v5/{name} API", part["api"]), (f"GET /{name} baseline", part["baseline"])):
            print(f"{label:<44} {row['n']:>5} {row['median_ms']:>10.2f} {row['p90_ms']:>8.2f} {row['mean_ms']:>8.2f}")
        ratios = f"{part['ratio_median']:>10.2f} {part['ratio_p90']:>8.2f} {part['ratio_mean']:>8.2f}"
        print(f"{'  ratio API / baseline':<44} {'':>5} {ratios}")
        print(
            f"{'  SQL queries per call':<44} {part['queries_per_call']:>5} (calls {part['queries_calls']});"
            f" {part['items_per_page']} items, {part['reply_bytes_mean']} bytes"
        )
    print("documents identical on every round")
