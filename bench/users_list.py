"""Latency of GET /main/v5/users?limit=500 with every block, beside hand-written SQL for the same rows.

    .venv/bin/python bench/users_list.py [--n 80] [--warmup 8] [--members 2000]      (or: make bench-users)

The production setup on loopback, as bench/run.py: its own PostgreSQL database (flyclub_bench, recreated),
the demo world, Redis db 5 (flushed) as the cache, gunicorn with 2 workers, REQUIRE_HTTPS=false. On top of
the demo world, one more organization gets 2,000 members with the data of every block (2 emails, address,
phones, 2 user groups, roles, 3 expiry dates, transactions, account, misc info, personal identification
number, internal notes, emergency contact, access card), made with bulk inserts.

Each round reads one page of 500 (offsets 0, 500, 1000 and 1500 in turn) twice, one right after the other
and alternating which goes first:
- the API: GET /main/v5/users?limit=500&offset=N&include=<all 12 blocks>, the whole HTTP call as the client
  sees it (Bearer access token; the calls rotate over several tokens so that none comes near its limit of
  120 calls a minute);
- the baseline: one psycopg connection, one hand-written SQL statement (joins, sub-selects, json_agg) for
  the same 500 rows, the same JSON document written by orjson (as the API writes it; its json_agg columns read
  with orjson too).
Every API reply is checked to be the same document as the baseline's (parsed JSON, links included), so the
two do the same work. Also counts the SQL queries of one API page. Writes bench/results/users_list.json.
"""

import argparse
import datetime as dt
import json
import math
import sys
import time
import zoneinfo
from urllib.parse import urlencode

from server import (
    API,
    HOST,
    create_tokens,
    django_script,
    log,
    machine,
    measured_document,
    prepare_bench_database,
    stop_on_sigterm,
    summary_ms,
)

PAGE = 500
BLOCKS = (
    "email,address,phone,user_groups,roles,expiry_dates,account,misc_info,"
    "personal_identification_number,internal_notes,emergency_contact,access_card"
)
ROLE_ORDER = ("admin", "instructor", "student", "board_member", "maintenance")  # accounts.models.Role
CALLS_PER_TOKEN = 40  # per token and run; a run of --max-seconds 90 stays far under 120 a minute
MIN_TOKENS = 4

SEED_SCRIPT = """
import datetime as dt, json, random
from decimal import Decimal
from django.db import transaction
from accounts.models import (
    ExpiryDateType, Member, MemberRole, Membership, Organization, User, UserEmail, UserExpiryDate, UserGroup,
)
from accounts.models.user import join_name
from economy.models import Transaction

COUNT = {count}
rng = random.Random(4711)
FIRST = (
    "Anna Erik Lars Karin Åsa Björn Märta Gustaf Ingrid Johan Elsa Oskar Maja Nils Linnea Henrik Ebba Axel Frida "
    "Mikael Agneta Kjell Ulla Fredrik Emma Hugo Olle Birgitta Anders Sara Viktor Malin Göran Helena Tobias Ida "
    "Rasmus Sven Per Astrid Sigrid Ove Bo Gunnel Torbjörn Håkan Sölve Åke Örjan Kerstin"
).split()
LAST = (
    "Johansson Berg Nilsson Lindqvist Öberg Åkesson Håkansson Sjöström Ekström Lundgren Bergqvist Engström "
    "Holmberg Törnqvist Sundberg Forsberg Wallin Hedlund Blom Söderberg Göransson Nyström Dahlgren Sandström "
    "Jönsson Hellström Strömberg Fält Ljungberg Åström Lindahl Vikström Nordin Bäckström Karlsson Persson"
).split()
PARTICLES = ("von", "af", "de")
STREETS = ("Storgatan", "Vasagatan", "Kopparbergsvägen", "Sigurdsgatan", "Bäckbygatan", "Djäknegatan")
CITIES = (("Västerås", "722"), ("Köping", "731"), ("Sala", "733"), ("Enköping", "745"))
today = dt.date.today()

with transaction.atomic():
    org = Organization.objects.create(
        name="Bench Flygklubb", timezone="Europe/Stockholm", reference_icao="ESSA", country="SE",
        latitude="59.651944", longitude="17.918611",
    )
    memberships = Membership.objects.bulk_create(
        Membership(organization=org, name=name) for name in ("Senior", "Junior", "Passive", "Family")
    )
    groups = UserGroup.objects.bulk_create(
        UserGroup(organization=org, name=name)
        for name in ("Instructors", "Board", "Aircraft partners", "Youth section", "Maintenance team",
                     "PPL course", "Glider section", "Flight safety committee", "Tuesday group", "Social committee")
    )
    types = ExpiryDateType.objects.bulk_create([
        ExpiryDateType(organization=org, name="Medical class 2", booking_required=True),
        ExpiryDateType(organization=org, name="SEP rating", booking_required=True, booking_warning_only=True),
        ExpiryDateType(organization=org, name="Radio licence", may_never_expire=True),
        ExpiryDateType(organization=org, name="Security check", image_required=True),
        ExpiryDateType(organization=org, name="English proficiency", may_never_expire=True),
    ])
    users = []
    for index in range(COUNT):
        first, last = rng.choice(FIRST), rng.choice(LAST)
        particle = PARTICLES[index % 3] if index % 25 == 7 else ""
        city, postal = CITIES[index % len(CITIES)]
        users.append(User(
            username=f"{{org.pk}}-bench{{index:05d}}", password="!", first_name=first, last_name=last,
            last_name_particle=particle, name=join_name(first, particle, last),
            locked_login=index % 97 == 5,
            street_address_1=f"{{rng.choice(STREETS)}} {{rng.randrange(1, 90)}}",
            street_address_2=f"Lgh {{rng.randrange(1001, 1404)}}" if index % 4 == 1 else "",
            postal_code=f"{{postal}} {{rng.randrange(10, 99)}}", city=city, country="SE",
            phone_home=f"021-{{rng.randrange(100000, 999999)}}", phone_work=f"021-{{rng.randrange(100000, 999999)}}",
            mobile_country_code="46", mobile_initial_number=rng.choice(("70", "72", "73", "76")),
            mobile_number=str(rng.randrange(1000000, 9999999)),
            personal_identification_number=(
                f"19{{rng.randrange(40, 99)}}0{{rng.randrange(1, 9)}}1{{rng.randrange(0, 9)}}-"
                f"{{rng.randrange(1000, 9999)}}"
            ),
            emergency_contact_name=f"{{rng.choice(FIRST)}} {{last}}",
            emergency_contact_phone=f"+46 70 {{rng.randrange(1000000, 9999999)}}",
            emergency_contact_relation=rng.choice(("Spouse", "Partner", "Parent", "Sibling")),
            ksak_member_number=str(500000 + index) if index % 2 else None,
            nlf_member_number=str(900000 + index) if index % 10 == 3 else "",
        ))
    User.objects.bulk_create(users, batch_size=500)
    members = Member.objects.bulk_create(
        (
            Member(
                user=user, organization=org, member_number=str(20000 + index), membership=memberships[index % 4],
                active=index % 13 != 4, locked=index % 41 == 9,
                annual_fee=Decimal(("1800.00", "600.00", "400.00", "1200.00")[index % 4]),
                external_customer_number=f"K{{30000 + index}}", misc_info=f"Share {{index % 7}} in SE-KX{{index % 9}}.",
                internal_notes="Invoice by post." if index % 3 else "Pays by direct debit.",
                access_card_number=f"0004{{700000 + index}}", access_card_code=str(1000 + index % 9000),
                access_card_expiry_date=today + dt.timedelta(days=100 + index % 700),
            )
            for index, user in enumerate(users)
        ),
        batch_size=500,
    )
    UserEmail.objects.bulk_create(
        (
            UserEmail(
                user=user, position=position, address=f"bench{{index}}.{{position}}@example.com",
                invalid=position == 1 and index % 11 == 0,
                invalid_reason="Mailbox full" if position == 1 and index % 11 == 0 else "",
            )
            for index, user in enumerate(users) for position in (0, 1)
        ),
        batch_size=2000,
    )
    Through = Member.user_groups.through
    Through.objects.bulk_create(
        (
            Through(member_id=member.pk, usergroup_id=group.pk)
            for index, member in enumerate(members)
            for group in (groups[index % 10], groups[(index + 3) % 10])
        ),
        batch_size=2000,
    )
    roles = [MemberRole(member=members[0], role="admin")]
    for index, member in enumerate(members):
        wanted = {{("student", "instructor", "board_member", "maintenance")[index % 4]}}
        if index % 5 == 0:
            wanted.add("board_member")
        roles += [MemberRole(member=member, role=role) for role in sorted(wanted)]
    MemberRole.objects.bulk_create(roles, batch_size=2000)
    UserExpiryDate.objects.bulk_create(
        (
            UserExpiryDate(
                member=member, type=expiry_type,
                expiry_date=dt.date(2999, 12, 31) if expiry_type.may_never_expire and index % 2
                else today + dt.timedelta(days=rng.randrange(-200, 900)),
            )
            for index, member in enumerate(members)
            for expiry_type in rng.sample(types, 3)
        ),
        batch_size=2000,
    )
    Transaction.objects.bulk_create(
        (
            Transaction(organization=org, user=user, date=today - dt.timedelta(days=days), amount=Decimal(amount),
                        comment=comment)
            for index, user in enumerate(users)
            for days, amount, comment in (
                (120, "-1800.00", "Annual fee"), (100, "1800.00", "Payment"),
                (10 + index % 30, f"-{{500 + index % 900}}.50", "Flight SE-KXY"),
            )
        ),
        batch_size=2000,
    )
print(json.dumps({{"organization_id": org.pk, "admin": users[0].username, "members": len(members)}}))
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
with CaptureQueriesContext(connection) as page:
    reply = client.get("{path}", HTTP_AUTHORIZATION="Bearer " + access)
assert reply.status_code == 200, reply.content[:500]
print(json.dumps({{"count": len(page.captured_queries), "sql": [q["sql"][:400] for q in page.captured_queries]}}))
"""

BASELINE_SQL = """
WITH page AS (
    -- The page's rows first, so that the per-row sub-selects run for these 501 rows only.
    SELECT m.id, m.user_id, lower(u.name) AS sort_name
      FROM accounts_member m JOIN accounts_user u ON u.id = m.user_id
     WHERE m.organization_id = %s
     ORDER BY lower(u.name), m.user_id
     LIMIT %s OFFSET %s
)
SELECT
    m.user_id, u.username, m.member_number, u.ksak_member_number, u.nlf_member_number,
    u.name, u.first_name, u.last_name_particle, u.last_name,
    ms.id, ms.name, m.active, m.locked, u.locked_login,
    EXISTS (SELECT 1 FROM accounts_useremail ie WHERE ie.user_id = m.user_id AND ie.invalid),
    (SELECT json_agg(json_build_array(e.address, e.invalid, e.invalid_reason) ORDER BY e.position)
       FROM accounts_useremail e WHERE e.user_id = m.user_id),
    u.street_address_1, u.street_address_2, u.postal_code, u.city, u.country,
    u.phone_home, u.phone_work, u.mobile_country_code, u.mobile_initial_number, u.mobile_number,
    (SELECT json_agg(json_build_array(g.id, g.name) ORDER BY lower(g.name), g.id)
       FROM accounts_member_user_groups mg JOIN accounts_usergroup g ON g.id = mg.usergroup_id
      WHERE mg.member_id = m.id),
    (SELECT array_agg(r.role) FROM accounts_memberrole r WHERE r.member_id = m.id),
    (SELECT json_agg(json_build_array(d.type_id, t.name, d.expiry_date) ORDER BY lower(t.name), d.type_id)
       FROM accounts_userexpirydate d JOIN accounts_expirydatetype t ON t.id = d.type_id
      WHERE d.member_id = m.id),
    (SELECT coalesce(sum(x.amount), 0) FROM economy_transaction x
      WHERE x.organization_id = m.organization_id AND x.user_id = m.user_id),
    m.annual_fee, m.external_customer_number, m.misc_info, u.personal_identification_number, m.internal_notes,
    u.emergency_contact_name, u.emergency_contact_phone, u.emergency_contact_relation,
    m.access_card_number, m.access_card_code, m.access_card_expiry_date
FROM page
JOIN accounts_member m ON m.id = page.id
JOIN accounts_user u ON u.id = m.user_id
LEFT JOIN accounts_membership ms ON ms.id = m.membership_id
ORDER BY page.sort_name, page.user_id
"""


def page_query(offset: int) -> str:
    return urlencode({"limit": PAGE, "offset": offset, "include": BLOCKS})


def _money(value):
    return None if value is None else float(value)


class Baseline:
    """The same page as the API, from one psycopg connection and hand-written SQL, written by orjson."""

    def __init__(self, database_url: str, organization_id: int, base_address: str):
        import orjson
        import psycopg
        from psycopg.types.json import set_json_loads

        self.dumps = orjson.dumps
        self.conn = psycopg.connect(database_url, autocommit=True)
        set_json_loads(orjson.loads, self.conn)  # the json_agg columns, parsed by orjson as the API's JSON is written
        self.organization_id = organization_id
        self.base_address = base_address
        self.timezone = zoneinfo.ZoneInfo(
            self.conn.execute(
                "SELECT timezone FROM accounts_organization WHERE id = %s", (organization_id,)
            ).fetchone()[0]
        )

    def close(self) -> None:
        self.conn.close()

    def page(self, offset: int) -> bytes:
        rows = self.conn.execute(BASELINE_SQL, (self.organization_id, PAGE + 1, offset)).fetchall()
        has_more = len(rows) > PAGE
        rows = rows[:PAGE]
        today = dt.datetime.now(self.timezone).date().isoformat()
        data = [self.item(row, today) for row in rows]
        document = {
            "data": data,
            "meta": {"count": len(data), "limit": PAGE, "offset": offset, "has_more": has_more},
            "links": {"next": f"{self.base_address}?{page_query(offset + PAGE)}" if has_more else None},
        }
        return self.dumps(document)

    @staticmethod
    def item(row, today: str) -> dict:
        (
            user_id, username, member_number, ksak, nlf, name, first, particle, last,
            membership_id, membership_name, active, locked, locked_login, has_invalid, emails,
            street_1, street_2, postal_code, city, country, home, work, mobile_code, mobile_initial, mobile_number,
            groups, roles, dates, balance, annual_fee, customer_number, misc_info, pin, notes,
            contact_name, contact_phone, contact_relation, card_number, card_code, card_expiry,
        ) = row  # fmt: skip
        first_part = " ".join(part for part in (first, particle) if part)
        return {
            "id": user_id,
            "username": username,
            "member_number": member_number,
            "ksak_member_number": ksak or None,
            "nlf_member_number": nlf or None,
            "name": name,
            "first_name": first,
            "last_name_particle": particle or None,
            "last_name": last,
            "last_first_name": f"{last}, {first_part}" if first_part else last,
            "membership": None if membership_id is None else {"id": membership_id, "name": membership_name},
            "active": active,
            "locked": locked,
            "locked_login": locked_login,
            "has_invalid_email_address": has_invalid,
            "email": [
                {"address": address, "invalid": invalid, "invalid_reason": reason or None}
                for address, invalid, reason in emails or ()
            ],
            "address": {
                "street_address": [street for street in (street_1, street_2) if street],
                "postal_code": postal_code or None,
                "city": city or None,
                "country": country or None,
            },
            "phone": {
                "home": home or None,
                "work": work or None,
                "mobile": {
                    "country_code": mobile_code or None,
                    "initial_number": mobile_initial or None,
                    "number": mobile_number or None,
                },
            },
            "user_groups": [{"id": group_id, "name": group_name} for group_id, group_name in groups or ()],
            "roles": sorted(roles or (), key=ROLE_ORDER.index),
            "expiry_dates": [
                {"id": type_id, "name": type_name, "expiry_date": date, "expired": date < today}
                for type_id, type_name, date in dates or ()
            ],
            "account": {
                "balance": float(balance),
                "annual_fee": _money(annual_fee),
                "external_customer_number": customer_number or None,
            },
            "misc_info": misc_info or None,
            "personal_identification_number": pin or None,
            "internal_notes": notes or None,
            "emergency_contact": {
                "name": contact_name or None,
                "phone": contact_phone or None,
                "relation": contact_relation or None,
            },
            "access_card": {
                "number": card_number or None,
                "code": card_code or None,
                "expiry_date": None if card_expiry is None else card_expiry.isoformat(),
            },
        }


def first_difference(api, baseline, path: str = "") -> str | None:
    """Where two parsed documents first differ, for the error message."""
    if isinstance(api, dict) and isinstance(baseline, dict):
        if api.keys() != baseline.keys():
            return f"{path or '/'}: keys {sorted(api.keys() ^ baseline.keys())}"
        for key in api:
            found = first_difference(api[key], baseline[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(api, list) and isinstance(baseline, list):
        if len(api) != len(baseline):
            return f"{path}: {len(api)} items in the API, {len(baseline)} in the baseline"
        for index, (left, right) in enumerate(zip(api, baseline, strict=True)):
            found = first_difference(left, right, f"{path}/{index}")
            if found:
                return found
        return None
    if api != baseline or type(api) is not type(baseline):
        return f"{path}: API {api!r}, baseline {baseline!r}"
    return None


def measure(client, baseline: Baseline, tokens: list[dict], *, n: int, warmup: int, max_seconds: float) -> dict:
    sessions = [client.fetch_access_token(token["client_id"], token["secret"])[0] for token in tokens]
    used = [1] * len(sessions)  # the token fetch is call 1 of each token's minute
    offsets = [0, PAGE, 2 * PAGE, 3 * PAGE]

    def bearer(i: int) -> str:
        index = i % len(sessions)
        if used[index] >= CALLS_PER_TOKEN:
            raise RuntimeError("out of token budget")
        used[index] += 1
        return sessions[index]

    def api_call(i: int, offset: int):
        reply = client.get(f"{API}/users?{page_query(offset)}", bearer=bearer(i), timeout=30)
        if reply.status != 200:
            raise RuntimeError(f"GET /users answered {reply.status}: {reply.body[:300]!r}")
        return reply.seconds, reply.body

    def baseline_call(_i: int, offset: int):
        started = time.perf_counter()
        body = baseline.page(offset)
        return time.perf_counter() - started, body

    def round_(i: int) -> tuple[float, float, int, int]:
        offset = offsets[i % len(offsets)]
        calls = (("api", api_call), ("baseline", baseline_call))
        results = {}
        for kind, call in calls if i % 2 == 0 else reversed(calls):
            results[kind] = call(i, offset)
        (api_s, api_body), (base_s, base_body) = results["api"], results["baseline"]
        difference = first_difference(json.loads(api_body), json.loads(base_body))
        if difference:
            raise RuntimeError(f"offset {offset}: the baseline's document differs from the API's: {difference}")
        return api_s, base_s, len(api_body), len(base_body)

    log(f"warm-up: {warmup} rounds")
    for i in range(warmup):
        round_(i)
    log(f"measuring: {n} rounds (pages of {PAGE} at offsets {offsets} in turn)")
    api_times, base_times, api_bytes, base_bytes = [], [], [], []
    started = time.monotonic()
    for i in range(warmup, warmup + n):
        if time.monotonic() - started > max_seconds:
            log(f"stopping after {len(api_times)} rounds: the measurement is bounded to {max_seconds:.0f}s")
            break
        api_s, base_s, size_api, size_base = round_(i)
        api_times.append(api_s)
        base_times.append(base_s)
        api_bytes.append(size_api)
        base_bytes.append(size_base)
    return {
        "api": summary_ms(api_times),
        "baseline": summary_ms(base_times),
        "reply_bytes": {
            "api_mean": round(sum(api_bytes) / len(api_bytes)),
            "baseline_mean": round(sum(base_bytes) / len(base_bytes)),
        },
        "identical_documents": True,  # checked on every round, warm-up included
        "seconds": round(time.monotonic() - started, 2),
        "stopped_early": len(api_times) < n,
        "calls_per_token": used,
    }


def print_table(result: dict, queries: dict) -> None:
    rows = (
        ("API (HTTP, gunicorn, 2 workers)", result["api"]),
        ("baseline (psycopg, 1 SQL, orjson)", result["baseline"]),
    )
    print()
    print(f"{'GET /users?limit=500, 12 blocks':<34} {'n':>4} {'median ms':>10} {'p90 ms':>8} {'mean ms':>8}")
    for name, row in rows:
        print(f"{name:<34} {row['n']:>4} {row['median_ms']:>10.1f} {row['p90_ms']:>8.1f} {row['mean_ms']:>8.1f}")
    ratios = f"{result['ratio_median']:>10.2f} {result['ratio_p90']:>8.2f} {result['ratio_mean']:>8.2f}"
    print(f"{'ratio API / baseline':<34} {'':>4} {ratios}")
    print()
    print(f"documents identical on every round; reply {result['reply_bytes']['api_mean']} bytes on average")
    print(f"SQL queries of one API page: {queries['count']}")


def seed(env: dict[str, str], count: int) -> dict:
    log(f"creating {count} members with every block's data (bulk inserts)")
    made = django_script(env, SEED_SCRIPT.format(count=count), timeout=300)
    import psycopg

    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as conn:
        conn.execute("ANALYZE")  # fresh statistics, so that no autovacuum run changes the plans mid-measurement
    return made


def count_queries(env: dict[str, str], token: dict) -> dict:
    path = f"{API}/users?{page_query(PAGE)}"
    return django_script(
        env, QUERIES_SCRIPT.format(client_id=token["client_id"], secret=token["secret"], api=API, path=path)
    )


class UsersListBench:
    """The users measurement on a prepared bench database (bench/server.py's prepare_bench_database) and a
    server of it: the seeded organization and its tokens are made first, then `measure` runs on a server
    started afterwards. bench/run.py uses this to run both ratios on one database and one server."""

    def __init__(self, env: dict[str, str], *, members: int = 2000, n: int = 80, warmup: int = 8):
        if members < 4 * PAGE:
            raise ValueError(f"members must be at least {4 * PAGE} (four full pages)")
        self.env, self.n, self.warmup = env, n, warmup
        self.made = seed(env, members)
        token_count = max(MIN_TOKENS, math.ceil((n + warmup) / (CALLS_PER_TOKEN - 1)))
        log(f"creating {token_count + 1} tokens of the measured organization")
        owner = {"organization": {"id": self.made["organization_id"]}, "admin": {"username": self.made["admin"]}}
        self.query_token, *self.tokens = create_tokens(env, owner, token_count + 1)

    def measure(self, client, port: int, *, max_seconds: float = 75) -> dict:
        """The API beside the baseline, on a running server; the result with its ratios."""
        address = f"http://{HOST}:{port}{API}/users"
        baseline = Baseline(self.env["DATABASE_URL"], self.made["organization_id"], address)
        try:
            result = measure(client, baseline, self.tokens, n=self.n, warmup=self.warmup, max_seconds=max_seconds)
        finally:
            baseline.close()
        api, base = result["api"], result["baseline"]
        for name in ("median", "p90", "mean"):
            result[f"ratio_{name}"] = round(api[f"{name}_ms"] / base[f"{name}_ms"], 2)
        return result

    def document(self, result: dict, *, workers: int) -> dict:
        """The results document: the measurement, the queries of one page (counted after the server
        stopped), the machine."""
        log("counting queries")
        queries = count_queries(self.env, self.query_token)
        return {
            "what": (
                f"GET {API}/users?limit={PAGE}&offset=0|500|1000|1500&include=<12 blocks> beside one psycopg "
                "connection with hand-written SQL building the same document (orjson), alternating"
            ),
            "server": f"gunicorn config.wsgi, {workers} sync workers, 127.0.0.1, PostgreSQL, Redis cache",
            "members": self.made["members"],
            "include": BLOCKS,
            "warmup_rounds": self.warmup,
            "tokens_rotated": len(self.tokens),
            **result,
            "queries_per_api_page": queries["count"],
            "queries_sql": queries["sql"],
            "machine": machine(),
            "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }


def run_users_list(
    *, n: int = 80, warmup: int = 8, members: int = 2000, workers: int = 2, max_seconds: float = 75
) -> dict:
    """The whole users measurement on its own database and server (BENCH_DB, BENCH_REDIS_URL); returns the
    results document (also written to bench/results/users_list.json): `ratio_median`, `ratio_p90`,
    `ratio_mean`, `api` and `baseline` ({n, median_ms, p90_ms, mean_ms, ...}), `queries_per_api_page`."""
    run_started = time.monotonic()
    env, _world = prepare_bench_database()
    bench = UsersListBench(env, members=members, n=n, warmup=warmup)
    return measured_document(
        bench,
        env,
        workers=workers,
        max_seconds=max_seconds,
        run_started=run_started,
        results_name="users_list.json",
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=80, help="measured rounds, one API call and one baseline each (80)")
    parser.add_argument("--warmup", type=int, default=8, help="unmeasured rounds first (default 8)")
    parser.add_argument("--members", type=int, default=2000, help="members of the measured organization (2000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=75, help="bound of the measured part (default 75)")
    args = parser.parse_args()
    if args.n < 1 or args.warmup < 0 or args.members < 4 * PAGE:
        parser.error("--n must be at least 1, --warmup at least 0 and --members at least 2000 (four full pages)")
    stop_on_sigterm()
    document = run_users_list(
        n=args.n, warmup=args.warmup, members=args.members, workers=args.workers, max_seconds=args.max_seconds
    )
    print_table(document, {"count": document["queries_per_api_page"]})
    print(f"load average (1, 5, 15 min) at the end: {document['machine']['load_average_1_5_15']}")
    print(f"\nwritten: {document['written']} (whole run {document['total_run_s']}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
