"""Cost as a club grows (issue 19 item 3): the same list pages on the operations club at 1x and at 10x its history.

    .venv/bin/python bench/growth.py [--n 50] [--warmup 5] [--bound 1.2] [--reuse [--only TEXT]]   (make bench-growth)

Two databases, built before the servers start:

- 1x, `flyclub_bench_growth` (recreated, migrated, the demo world): the operations club of bench/operations.py
  (demo.bench_club.build_bench_club: 60 aircraft, 300 members, one year of flights, bookings, charges and
  remarks), its members' expiry dates, and organizations of 450 members each until the service has 2,000 members
  (demo/bench_growth.py: logins with one or two email addresses, memberships, user groups, roles, expiry dates);
  the Main API tokens and Mobile logins of the run are made here, so that both databases have them.
- 10x, `flyclub_bench_growth10`: `CREATE DATABASE ... TEMPLATE` the 1x one, then nine earlier years of the
  club copied back in SQL (bench/growth_data.py: flights, bookings, charges with their account rows, remarks
  with their history; ten years in all) and organizations of members until the service has 20,000 members.
Both: VACUUM ANALYZE.

Two gunicorn servers (2 workers each, the production settings on loopback, Redis dbs 11 and 12), one a database.
Each round reads every page once from each server, one right after the other, alternating which goes first, so
that the machine's load falls on both alike. Each page is a first page and a page deep in the list, at the same
offset at 1x and 10x and full at both, with the default filters unless noted (Main: users, expiry dates,
flight log, bookings, transactions, remarks, objects; Mobile: bookings, flight log, transactions, objects). Goal:
p50 at 10x within `--bound` (1.2) times p50 at 1x, for every page; a page over it is measured once more, alone,
and judged on that (the machine is shared: a burst of other work can hold one p50 up). The users page with the
`account` block is measured too but not gated: each member's balance sums the member's whole history
(docs/decisions.md §12.23).

`--reuse` measures the databases of the last build again (migrated first, so that a new index is there; the
tokens and logins are in var/); `--only TEXT` keeps the pages whose key contains TEXT and writes
bench/results/growth-partial.json instead.

Then the statements of every page are captured and explained on both databases (bench/growth_explain.py): a
sequential scan of a table of more than 10,000 rows fails the run too. Writes bench/results/growth.json; exit 1
when a page misses its bound or a plan scans a large table.
"""

import argparse
import datetime as dt
import json
import math
import os
import sys
import time
import zoneinfo
from dataclasses import dataclass
from urllib.parse import urlencode

import psycopg
from growth_data import grow_history
from growth_explain import explain_pages, large_seq_scans, summary_lines
from mobile import mint_logins
from operations import seed
from psycopg import sql
from server import (
    PG_ADMIN_URL,
    RESULTS_DIR,
    ROOT,
    Gunicorn,
    create_tokens,
    django_script,
    flush_redis,
    log,
    machine,
    manage,
    percentile,
    postgres_url,
    prepare_bench_database,
    service_env,
    stop_on_sigterm,
    write_results,
)

DB_1X = os.environ.get("BENCH_GROWTH_DB", "flyclub_bench_growth")
DB_10X = os.environ.get("BENCH_GROWTH10_DB", "flyclub_bench_growth10")
REDIS_1X = os.environ.get("BENCH_GROWTH_REDIS_URL", "redis://127.0.0.1:6379/11")
REDIS_10X = os.environ.get("BENCH_GROWTH10_REDIS_URL", "redis://127.0.0.1:6379/12")
MEMBERS_1X, MEMBERS_10X = 2_000, 20_000
EARLIER_YEARS = 9
CALLS_PER_TOKEN = 40  # far under the 120 a minute of a Main token
CALLS_PER_LOGIN = 40  # far under the 120 a minute of a Mobile login
CALLS_PER_CLIENT = 150  # far under the 600 a minute of an app client
TIMEZONE = "Europe/Stockholm"  # the operations club's (build_bench_club)
OBJECT_BLOCKS = "status,active_remarks,maintenance_items,settings,time_summary"
MOBILE_OBJECT_BLOCKS = "status,active_remarks,time_summary,disclaimer,settings"

# What --reuse needs of the last build: the databases' addresses, the tokens and logins (secrets: not committed).
STATE = ROOT / "var" / "bench-growth-state.json"

MEMBERS_SCRIPT = """
import json
from django.db import transaction
from demo.bench_growth import club_expiry_dates, grow_organizations
with transaction.atomic():
    made = grow_organizations({total})
    made["club_expiry_dates"] = club_expiry_dates({organization_id})
print(json.dumps(made))
"""


@dataclass(frozen=True)
class Page:
    key: str
    api: str  # "main" or "mobile"
    path: str
    note: str = ""
    gated: bool = True  # False: measured and explained, but outside the bound (a known cost, see the note)


def pages(today: dt.date) -> list[Page]:
    """The measured pages: for each list a first page and one deep in it (the same offset at 1x and 10x, a full
    page at both: the 1x club has 300 members, ~690 expiry dates, 180 remarks, ~20,000 flights, ~18,000
    bookings and ~19,000 transactions; the Mobile member ~60 transactions in the year)."""
    year_back = (today - dt.timedelta(days=365)).isoformat()

    def main(name, note="", gated=True, **query):
        return Page(f"main {name} {urlencode(query)}", "main", f"/main/v5/{name}?{urlencode(query)}", note, gated)

    def mobile(name, note="", **query):
        return Page(f"mobile {name} {urlencode(query)}", "mobile", f"/mobile/v5/{name}?{urlencode(query)}", note)

    account = "not gated: each member's balance sums the member's whole history (bench/README.md)"
    return [
        main("users", limit=100),
        main("users", limit=100, offset=200),
        main("users", account, False, limit=100, include="account"),
        main("expiry-dates", limit=100),
        main("expiry-dates", limit=100, offset=500),
        main("flightlogs", limit=500),
        main("flightlogs", limit=500, offset=5000),
        main("bookings", limit=500),
        main("bookings", limit=500, offset=5000),
        main("transactions", limit=500),
        main("transactions", limit=500, offset=5000),
        main("remarks", limit=100),
        main("remarks", limit=100, offset=50),
        main("objects", include=OBJECT_BLOCKS, limit=500),
        mobile("bookings", limit=500),
        mobile(
            "bookings", "date_from a year back (today's list is short)", limit=500, date_from=year_back, offset=5000
        ),
        mobile("flightlogs", limit=500),
        mobile("flightlogs", limit=500, offset=5000),
        mobile("flightlogs", limit=500, order="desc"),
        mobile("transactions"),
        mobile("transactions", offset=40),
        mobile("objects", include=MOBILE_OBJECT_BLOCKS),
    ]


# --- building the two databases -----------------------------------------------------------------------------


def analyze(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def add_members(env: dict[str, str], total: int, organization_id: int) -> dict:
    log(f"members until the service has {total:,}")
    return django_script(env, MEMBERS_SCRIPT.format(total=total, organization_id=organization_id), timeout=900)


def mobile_member_index(database_url: str, organization_id: int) -> tuple[int, int]:
    """(index in mobile.MINT_SCRIPT's order, count to take) of the club's member with the most transactions in
    the last year: the Mobile pages are read as that member."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            """
            SELECT m.id, (SELECT count(*) FROM economy_transaction t WHERE t.organization_id = m.organization_id
                          AND t.user_id = m.user_id AND t.date >= current_date - 365)
              FROM accounts_member m JOIN accounts_user u ON u.id = m.user_id
             WHERE m.organization_id = %s AND m.active AND NOT m.locked AND u.is_active
             ORDER BY m.id
            """,
            (organization_id,),
        ).fetchall()
    best = max(range(len(rows)), key=lambda index: rows[index][1])
    return best, best + 1


def build(n: int, warmup: int, page_count: tuple[int, int]) -> dict:
    """Both databases, the tokens and the logins; returns what the measurement needs."""
    started = time.monotonic()
    env1, _world = prepare_bench_database(DB_1X, REDIS_1X)
    made = seed(env1, aircraft=60, members=300, flights=300)
    org = made["organization_id"]
    made["members_1x"] = add_members(env1, MEMBERS_1X, org)
    main_pages, mobile_pages = page_count
    tokens_needed = math.ceil(main_pages * (n + warmup) / (CALLS_PER_TOKEN - 1)) + 1
    log(f"creating {tokens_needed + 1} Main API tokens of the club")
    owner = {"organization": {"id": org}, "admin": {"username": made["admin"]}}
    query_token, *tokens = create_tokens(env1, owner, tokens_needed + 1)
    logins_needed = math.ceil(mobile_pages * (n + warmup) / CALLS_PER_LOGIN) + 1
    clients = math.ceil(mobile_pages * (n + warmup) / (CALLS_PER_CLIENT * 0.8))
    member_index, take = mobile_member_index(env1["DATABASE_URL"], org)
    plan = [(i % clients, member_index) for i in range(logins_needed)] + [(0, member_index)]
    log(f"minting {len(plan)} Mobile logins of member {member_index} over {clients} app clients")
    query_login, *logins = reversed(mint_logins(env1, org, plan, clients=clients, members=take))
    analyze(env1["DATABASE_URL"])
    one_x_seconds = time.monotonic() - started

    log(f"10x: {DB_10X} as a copy of {DB_1X}, then {EARLIER_YEARS} earlier years and members")
    started_10x = time.monotonic()
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DB_10X)))
        # The template must have no other connection: nothing else uses the 1x database at this point.
        conn.execute(sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(DB_10X), sql.Identifier(DB_1X)))
    flush_redis(REDIS_10X)
    env10 = service_env(database_url=postgres_url(name=DB_10X), redis_url=REDIS_10X)
    history_started = time.monotonic()
    made["copied_10x"] = grow_history(env10["DATABASE_URL"], org, years=EARLIER_YEARS)
    made["history_copy_seconds"] = round(time.monotonic() - history_started, 1)
    log(f"copied: {made['copied_10x']} in {made['history_copy_seconds']}s")
    made["members_10x"] = add_members(env10, MEMBERS_10X, org)
    analyze(env10["DATABASE_URL"])
    made["build_seconds"] = {"1x": round(one_x_seconds, 1), "10x": round(time.monotonic() - started_10x, 1)}
    made["rows"] = {"1x": table_rows(env1["DATABASE_URL"]), "10x": table_rows(env10["DATABASE_URL"])}
    return {
        "env": {"1x": env1, "10x": env10},
        "made": made,
        "tokens": tokens,
        "query_token": query_token,
        "logins": logins,
        "query_login": query_login,
        "clients": clients,
        "mobile_member_index": member_index,
    }


def table_rows(database_url: str) -> dict[str, int]:
    tables = (
        "accounts_user",
        "accounts_member",
        "accounts_userexpirydate",
        "flightlog_flightlogentry",
        "bookings_booking",
        "economy_transaction",
        "economy_transactionrow",
        "objects_app_remark",
    )
    with psycopg.connect(database_url) as conn:
        count = sql.SQL("SELECT count(*) FROM {}")
        return {table: conn.execute(count.format(sql.Identifier(table))).fetchone()[0] for table in tables}


# --- the measurement ----------------------------------------------------------------------------------------


class Budget:
    """Calls per key (a token, a login, an app client) in windows of 61 seconds: at most `limit` in each, so that
    no 60 seconds hold more than twice `limit`, far under the service's limit a minute."""

    WINDOW_S = 61

    def __init__(self, limit: int):
        self.limit = limit
        self.windows: dict = {}  # key -> [start, calls]

    def has_room(self, key) -> bool:
        start, calls = self.windows.get(key, (0.0, 0))
        return time.monotonic() - start > self.WINDOW_S or calls < self.limit

    def take(self, key) -> None:
        window = self.windows.get(key)
        if window is None or time.monotonic() - window[0] > self.WINDOW_S:
            window = self.windows[key] = [time.monotonic(), 0]
        window[1] += 1


class Callers:
    """Bearer values of one server, used round-robin within their budgets: Main access tokens fetched from the
    server, the minted Mobile logins (each server counts its own calls in its own Redis db). When every one has
    used its budget of the current window, the run waits for the next window."""

    def __init__(self, client, tokens: list[dict], logins: list[dict]):
        self.main, self.main_budget = [], Budget(CALLS_PER_TOKEN)
        for index, token in enumerate(tokens):
            self.main.append(client.fetch_access_token(token["client_id"], token["secret"])[0])
            self.main_budget.take(index)  # the token fetch is a call of the token
        self.logins = logins
        self.login_budget, self.client_budget = Budget(CALLS_PER_LOGIN), Budget(CALLS_PER_CLIENT)
        self.turn = {"main": 0, "mobile": 0}
        self.waited_s = 0.0

    def _next(self, api: str) -> int | None:
        count = len(self.main) if api == "main" else len(self.logins)
        for step in range(count):
            index = (self.turn[api] + step) % count
            if api == "main" and self.main_budget.has_room(index):
                self.main_budget.take(index)
            elif (
                api == "mobile"
                and self.login_budget.has_room(index)
                and self.client_budget.has_room(self.logins[index]["client"])
            ):
                self.login_budget.take(index)
                self.client_budget.take(self.logins[index]["client"])
            else:
                continue
            self.turn[api] = index + 1
            return index
        return None

    def bearer(self, api: str) -> str:
        while (index := self._next(api)) is None:
            time.sleep(1)
            self.waited_s += 1
        return self.main[index] if api == "main" else self.logins[index]["access_token"]


def call(client, callers: Callers, page: Page) -> tuple[float, int, int]:
    reply = client.get(page.path, bearer=callers.bearer(page.api), timeout=60)
    if reply.status != 200:
        raise RuntimeError(f"GET {page.path} answered {reply.status}: {reply.body[:300]!r}")
    return reply.seconds, json.loads(reply.body)["meta"]["count"], len(reply.body)


def measure(servers: dict, callers: dict, page_list: list[Page], *, n: int, warmup: int) -> dict:
    scales = ("1x", "10x")
    times = {page.key: {scale: [] for scale in scales} for page in page_list}
    counts = {page.key: {scale: set() for scale in scales} for page in page_list}
    sizes = {page.key: {scale: 0 for scale in scales} for page in page_list}
    log(f"{warmup} unmeasured rounds, then {n} rounds of {len(page_list)} pages on both servers")
    started = time.monotonic()
    for round_ in range(warmup + n):
        for index, page in enumerate(page_list):
            order = scales if (round_ + index) % 2 == 0 else scales[::-1]
            for scale in order:
                seconds, count, size = call(servers[scale], callers[scale], page)
                counts[page.key][scale].add(count)
                sizes[page.key][scale] = size
                if round_ >= warmup:
                    times[page.key][scale].append(seconds)
    result = {"seconds": round(time.monotonic() - started, 1), "rounds": n, "warmup_rounds": warmup, "pages": {}}
    for page in page_list:
        row = {"path": page.path, "note": page.note or None}
        for scale in scales:
            ms = [s * 1000 for s in times[page.key][scale]]
            row[scale] = {
                "p50_ms": round(percentile(ms, 0.5), 2),
                "p90_ms": round(percentile(ms, 0.9), 2),
                "mean_ms": round(sum(ms) / len(ms), 2),
                "items": sorted(counts[page.key][scale]),
                "reply_bytes": sizes[page.key][scale],
            }
        row["ratio_p50"] = round(row["10x"]["p50_ms"] / row["1x"]["p50_ms"], 3)
        row["ratio_p90"] = round(row["10x"]["p90_ms"] / row["1x"]["p90_ms"], 3)
        row["same_items"] = row["1x"]["items"] == row["10x"]["items"]
        result["pages"][page.key] = row
    return result


def reused_build() -> dict:
    """The state of the last build (--reuse): its databases are migrated (an index added since) and analyzed, their
    Redis dbs flushed."""
    built = json.loads(STATE.read_text())
    for scale, url in (("1x", REDIS_1X), ("10x", REDIS_10X)):
        flush_redis(url)
        env = built["env"][scale] = service_env(database_url=built["env"][scale]["DATABASE_URL"], redis_url=url)
        log(f"{scale}: migrating (new indexes), then ANALYZE")
        manage(env, "migrate", "--noinput", timeout=600)
        analyze(env["DATABASE_URL"])
    return built


def run(*, n: int, warmup: int, bound: float, workers: int, reuse: bool = False, only: str = "") -> dict:
    run_started = time.monotonic()
    today = dt.datetime.now(zoneinfo.ZoneInfo(TIMEZONE)).date()
    page_list = [page for page in pages(today) if only in page.key]
    if not page_list:
        raise SystemExit(f"no page matches {only!r}")
    page_count = (sum(p.api == "main" for p in page_list), sum(p.api == "mobile" for p in page_list))
    if reuse:
        built = reused_build()
    else:
        built = build(n, warmup, page_count)
        STATE.parent.mkdir(parents=True, exist_ok=True)
        STATE.write_text(json.dumps(built))  # var/ is not committed: the tokens' secrets stay on this machine
    envs = built["env"]
    gunicorns = {
        scale: Gunicorn(envs[scale], workers=workers, log_path=RESULTS_DIR / f"gunicorn-growth-{scale}.log")
        for scale in ("1x", "10x")
    }
    try:
        servers = {scale: server.start() for scale, server in gunicorns.items()}
        callers = {scale: Callers(servers[scale], built["tokens"], built["logins"]) for scale in servers}
        measured = measure(servers, callers, page_list, n=n, warmup=warmup)
        # The machine is shared: a burst of other work can hold one page's p50 over the bound for a whole run. A
        # page over it is measured once more, alone, as many rounds; it is judged on that second measurement, and
        # the first stays in the results beside it.
        over = [p for p in page_list if p.gated and measured["pages"][p.key]["ratio_p50"] > bound]
        if over:
            log(f"measuring again: {', '.join(p.key for p in over)}")
            again = measure(servers, callers, over, n=n, warmup=1)
            for page in over:
                row = again["pages"][page.key]
                row["first_measurement"] = measured["pages"][page.key]
                measured["pages"][page.key] = row
        measured["measured_again"] = [p.key for p in over]
        measured["waited_for_rate_windows_s"] = {scale: caller.waited_s for scale, caller in callers.items()}
    finally:
        for server in gunicorns.values():
            server.stop()
    log("explaining every page's statements on both databases")
    explain_args = {
        "token": built["query_token"],
        "mobile_access": built["query_login"]["access_token"],
        "pages": {page.key: (page.api, page.path) for page in page_list},
    }
    plans = {scale: explain_pages(envs[scale], **explain_args) for scale in ("1x", "10x")}
    scans = large_seq_scans(plans["10x"])
    for page in plans["1x"].values():  # at 1x the times and indexes are kept, the plans themselves only at 10x
        for statement in page["statements"]:
            statement.pop("plan", None)
    gated = {page.key: page.gated for page in page_list}
    failures = []
    for key, row in measured["pages"].items():
        row["seq_scans_10x"] = scans[key]
        row["gated"] = gated[key]
        row["passes"] = row["ratio_p50"] <= bound and not scans[key] and row["same_items"]
        if gated[key] and not row["passes"]:
            failures.append(key)
    document = {
        "what": (
            "The same list pages (Main and Mobile API v5) on the operations club at 1x and at 10x its history, "
            "two servers, calls interleaved; p50 at 10x within the bound of p50 at 1x; no plan with a sequential "
            "scan of a large table"
        ),
        "bound_ratio_p50": bound,
        "server": f"two gunicorn config.wsgi, {workers} sync workers each, 127.0.0.1, PostgreSQL, Redis cache",
        "data": built["made"],
        "mobile_member_index": built["mobile_member_index"],
        **measured,
        "failures": failures,
        "plans": plans,
        "machine": machine(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "total_run_s": round(time.monotonic() - run_started, 1),
    }
    name = "growth-partial.json" if only else "growth.json"  # a part (--only) never replaces the whole run's
    document["written"] = str(write_results(name, document).relative_to(ROOT))
    return document


def print_report(document: dict) -> None:
    print()
    print(f"{'page':<70} {'1x p50':>8} {'p90':>7} {'10x p50':>8} {'p90':>7} {'ratio':>6}  items")
    for key, row in document["pages"].items():
        one, ten = row["1x"], row["10x"]
        mark = "" if row["passes"] else "  FAIL" if row["gated"] else "  (over the bound; not gated)"
        if row["seq_scans_10x"]:
            mark += f" (seq scan: {', '.join(row['seq_scans_10x'])})"
        items = one["items"] if row["same_items"] else f"{one['items']} / {ten['items']}"
        if "first_measurement" in row:
            mark += f"  (measured again; first {row['first_measurement']['ratio_p50']:.2f})"
        print(
            f"{key[:70]:<70} {one['p50_ms']:>8.1f} {one['p90_ms']:>7.1f} {ten['p50_ms']:>8.1f} {ten['p90_ms']:>7.1f}"
            f" {row['ratio_p50']:>6.2f}  {items}{mark}"
        )
    print()
    print("statements of each page at 10x, those of 0.25 ms or more (the fastest of three EXPLAIN ANALYZE; at 1x in")
    print("brackets; the indexes the plan reads):")
    for line in summary_lines(document["plans"]["10x"], document["plans"]["1x"]):
        print(line)
    data = document["data"]
    print()
    print(f"rows: {json.dumps(data['rows'])}")
    print(f"build: {data['build_seconds']} s (history copy {data['history_copy_seconds']} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50, help="measured rounds (default 50)")
    parser.add_argument("--warmup", type=int, default=5, help="unmeasured rounds first (default 5)")
    parser.add_argument("--bound", type=float, default=1.2, help="largest p50 ratio 10x / 1x (default 1.2)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--reuse", action="store_true", help="measure the databases of the last build again (tokens from var/)"
    )
    parser.add_argument("--only", default="", help="only the pages whose key contains this text (with --reuse)")
    args = parser.parse_args()
    if args.n < 1 or args.warmup < 0:
        parser.error("--n must be at least 1, --warmup at least 0")
    if args.only and not args.reuse:
        parser.error("--only measures the databases of the last build: give --reuse too")
    stop_on_sigterm()
    document = run(
        n=args.n, warmup=args.warmup, bound=args.bound, workers=args.workers, reuse=args.reuse, only=args.only
    )
    print_report(document)
    print(f"load average (1, 5, 15 min) at the end: {document['machine']['load_average_1_5_15']}")
    print(f"\nwritten: {document['written']} (whole run {document['total_run_s']}s)")
    if document["failures"]:
        print(f"\n{len(document['failures'])} page(s) miss the bound or scan a large table:")
        for key in document["failures"]:
            print(f"  {key}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
