"""The ratios of the benchmarks in one run, on one server: GET /main/v5/token beside GET /health;
GET /main/v5/users?limit=500 with every block beside hand-written SQL + JSON (bench/users_list.py); the
operations lists (flight log, bookings, objects with every block) beside hand-written SQL + JSON
(bench/operations.py); the Mobile API's GET /me beside GET /health and its bookings and objects lists beside
hand-written SQL + JSON (bench/mobile.py); webhook delivery, commit to verified receipt over 1,000 events with
one Celery worker (bench/webhook_delivery.py).

    .venv/bin/python bench/run.py [--n 400] [--warmup 40] [--users-n 80] [--no-users] [--ops-n 40]
                                  [--mobile-n 300] [--mobile-lists-n 200]
                                  [--only token|users|operations|mobile|webhooks]            (or: make bench)

The production setup on loopback: its own PostgreSQL database (flyclub_bench, recreated), the demo world
and an organization of 2,000 members, Redis db 5 (flushed) as the cache, gunicorn with 2 workers
(config/gunicorn.conf.py). Token part: the authenticated and the unauthenticated call alternate, one at a
time, so that both see the same server state; the limit of 120 calls a minute per token stays as it is:
the calls rotate over enough fresh tokens. Users part: as bench/users_list.py. Operations part: as
bench/operations.py (its organization of 60 aircraft is made before the server starts). Also counts the SQL
queries of each (in a `manage.py shell` on the same database). Writes bench/results/token_vs_health.json,
users_list.json, operations.json and mobile.json. `--only operations` runs that part alone on its own database
(flyclub_bench_ops) and Redis db 7; `--only mobile` on flyclub_bench_mobile and Redis db 10.
"""

import argparse
import math
import sys
import time

import mobile
import operations
import throughput
import users_list
import webhook_delivery
from server import (
    API,
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

PARTS = ("token", "users", "operations", "mobile", "throughput", "webhooks")
# The goals of issue 19 for the ratios of medians (README, Performance).
GOALS = {
    "token": 1.5,
    "users": 1.3,
    "flightlogs": 1.5,
    "bookings": 1.5,
    "objects": 1.5,
    "me": 1.5,
    "mobile bookings": 1.5,
    "mobile objects": 1.5,
    "mobile flightlogs": 1.5,
}
CALLS_PER_TOKEN = 100  # well under the 119 GETs a token has in a minute after its token fetch

QUERIES_SCRIPT = """
import base64, json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
client = Client(SERVER_NAME="127.0.0.1")
basic = base64.b64encode("{client_id}:{secret}".encode()).decode()
with CaptureQueriesContext(connection) as fetch:
    reply = client.post(
        "{api}/oauth/token", {{"grant_type": "client_credentials"}}, HTTP_AUTHORIZATION="Basic " + basic
    )
assert reply.status_code == 200, reply.content
access = reply.json()["access_token"]
calls = []
for _ in range(3):
    with CaptureQueriesContext(connection) as get:
        reply = client.get("{api}/token", HTTP_AUTHORIZATION="Bearer " + access)
    assert reply.status_code == 200, reply.content
    calls.append([query["sql"] for query in get.captured_queries])
with CaptureQueriesContext(connection) as health:
    reply = client.get("/health")
assert reply.status_code == 200, reply.content
print(json.dumps({{
    "token_fetch": len(fetch.captured_queries),
    "get_token": [len(sqls) for sqls in calls],
    "get_token_sql": calls[-1],
    "health": len(health.captured_queries),
}}))
"""


def count_queries(env: dict[str, str], token: dict) -> dict:
    """Queries of a token fetch, three GET /token and one /health, through Django's test client."""
    code = QUERIES_SCRIPT.format(client_id=token["client_id"], secret=token["secret"], api=API)
    return django_script(env, code)


def measure(client, tokens: list[dict], *, n: int, warmup: int, max_seconds: float) -> dict:
    sessions = []  # one access token per bench token, fetched before the timed part
    for token in tokens:
        access, _reply = client.fetch_access_token(token["client_id"], token["secret"])
        sessions.append(access)
    budget = [CALLS_PER_TOKEN] * len(sessions)

    def bearer() -> str:
        for index, left in enumerate(budget):
            if left:
                budget[index] -= 1
                return sessions[index]
        raise RuntimeError("out of token budget")

    def pair(i: int) -> tuple[float, float]:
        # Alternate which call goes first, so neither always follows the other.
        order = ("token", "health") if i % 2 else ("health", "token")
        times = {}
        for kind in order:
            reply = client.get(f"{API}/token", bearer=bearer()) if kind == "token" else client.get("/health")
            if reply.status != 200:
                raise RuntimeError(f"{kind} answered {reply.status}: {reply.body[:300]!r}")
            times[kind] = reply.seconds
        return times["token"], times["health"]

    log(f"warm-up: {warmup} pairs")
    for i in range(warmup):
        pair(i)
    log(f"measuring: {n} pairs")
    token_times, health_times = [], []
    started = time.monotonic()
    for i in range(n):
        if time.monotonic() - started > max_seconds:
            log(f"stopping after {i} pairs: the measurement is bounded to {max_seconds:.0f}s (--max-seconds)")
            break
        token_time, health_time = pair(i)
        token_times.append(token_time)
        health_times.append(health_time)
    return {
        "token": summary_ms(token_times),
        "health": summary_ms(health_times),
        "seconds": round(time.monotonic() - started, 2),
        "stopped_early": len(token_times) < n,
    }


def print_table(result: dict, queries: dict) -> None:
    token, health = result["token"], result["health"]
    rows = [
        ("GET /main/v5/token (Bearer)", token),
        ("GET /health", health),
    ]
    print()
    print(f"{'call':<30} {'n':>5} {'median ms':>10} {'p90 ms':>8} {'mean ms':>8}")
    for name, row in rows:
        print(f"{name:<30} {row['n']:>5} {row['median_ms']:>10.2f} {row['p90_ms']:>8.2f} {row['mean_ms']:>8.2f}")
    print(
        f"{'ratio token/health':<30} {'':>5} {result['ratio_median']:>10.2f} {result['ratio_p90']:>8.2f}"
        f" {result['ratio_mean']:>8.2f}"
    )
    print()
    print(
        f"SQL queries: GET /token {queries['get_token']} (first, second, third call);"
        f" token fetch {queries['token_fetch']}; /health {queries['health']}"
    )
    for number, sql in enumerate(queries["get_token_sql"], 1):
        print(f"  {number}. {sql[:300]}{'...' if len(sql) > 300 else ''}")


def token_document(result: dict, queries: dict, args, tokens: list[dict]) -> dict:
    token, health = result["token"], result["health"]
    for name in ("median", "p90", "mean"):
        result[f"ratio_{name}"] = round(token[f"{name}_ms"] / health[f"{name}_ms"], 2)
    return {
        "what": "sequential GET /main/v5/token (Bearer access token) beside GET /health, alternating",
        "server": f"gunicorn config.wsgi, {args.workers} sync workers, 127.0.0.1, PostgreSQL, Redis cache",
        "warmup_pairs": args.warmup,
        "tokens_rotated": len(tokens),
        "calls_per_token": CALLS_PER_TOKEN,
        **result,
        "queries": queries,
        "machine": machine(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=400, help="measured calls of each kind (default 400)")
    parser.add_argument("--warmup", type=int, default=40, help="unmeasured pairs first (default 40)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=45, help="bound of the measured part (default 45)")
    parser.add_argument(
        "--only",
        choices=("all", *PARTS),
        default="all",
        help="run one part only (operations alone uses its own database, flyclub_bench_ops, and Redis db 7; mobile"
        " flyclub_bench_mobile and Redis db 10; throughput flyclub_bench_tput and Redis db 6)",
    )
    parser.add_argument("--no-users", action="store_true", help="leave the users part out")
    parser.add_argument("--users-n", type=int, default=80, help="measured users rounds (default 80)")
    parser.add_argument("--users-warmup", type=int, default=8, help="unmeasured users rounds first (default 8)")
    parser.add_argument("--members", type=int, default=2000, help="members of the users organization (2000)")
    parser.add_argument("--users-max-seconds", type=float, default=75, help="bound of the users part (default 75)")
    parser.add_argument("--ops-n", type=int, default=40, help="measured operations rounds (default 40)")
    parser.add_argument("--ops-warmup", type=int, default=4, help="unmeasured operations rounds first (default 4)")
    parser.add_argument("--ops-aircraft", type=int, default=60, help="aircraft of the operations club (60)")
    parser.add_argument("--ops-members", type=int, default=300, help="members of the operations club (300)")
    parser.add_argument("--ops-flights", type=int, default=300, help="flights a year per aircraft, about (300)")
    parser.add_argument("--ops-max-seconds", type=float, default=150, help="bound of the operations part (default 150)")
    parser.add_argument("--mobile-n", type=int, default=300, help="measured /me and /health pairs (default 300)")
    parser.add_argument("--mobile-warmup", type=int, default=30, help="unmeasured /me pairs first (default 30)")
    parser.add_argument("--mobile-lists-n", type=int, default=200, help="measured Mobile list rounds (default 200)")
    parser.add_argument("--mobile-lists-warmup", type=int, default=10, help="unmeasured list rounds first (10)")
    parser.add_argument("--mobile-max-seconds", type=float, default=120, help="bound of each Mobile measure (120)")
    parser.add_argument("--tput-seconds", type=float, default=10, help="measured seconds per worker count (10)")
    parser.add_argument("--tput-clients", type=int, default=16, help="clients calling at once (default 16)")
    parser.add_argument("--webhook-events", type=int, default=1000, help="measured webhook events (default 1000)")
    parser.add_argument("--webhook-warmup", type=int, default=50, help="unmeasured webhook events first (50)")
    parser.add_argument("--webhook-pool", default="threads", help="the worker's pool (default threads)")
    parser.add_argument("--webhook-concurrency", type=int, default=8, help="the worker's concurrency (default 8)")
    parser.add_argument(
        "--webhook-producers", type=int, default=webhook_delivery.PRODUCERS, help="processes making bookings at once"
    )
    args = parser.parse_args()
    counts = (args.n, args.users_n, args.ops_n, args.mobile_n, args.mobile_lists_n)
    warmups = (args.warmup, args.users_warmup, args.ops_warmup, args.mobile_warmup, args.mobile_lists_warmup)
    if min(counts) < 1 or min(warmups) < 0:
        parser.error(
            "--n, --users-n, --ops-n, --mobile-n and --mobile-lists-n must be at least 1, the warm-ups at least 0"
        )
    parts = set(PARTS) if args.only == "all" else {args.only}
    if args.no_users:
        parts.discard("users")
    stop_on_sigterm()

    run_started = time.monotonic()
    webhooks_document = None
    if "webhooks" in parts:
        # Its own database, broker and worker, before the API parts so that they do not share the machine.
        webhooks_document = webhook_delivery.WebhooksBench(
            events=args.webhook_events,
            warmup=args.webhook_warmup,
            pool=args.webhook_pool,
            concurrency=args.webhook_concurrency,
            producers=args.webhook_producers,
            log_dir=webhook_delivery.ROOT / "var",
        ).run()
        parts.discard("webhooks")
    written = []
    if webhooks_document:
        written.append(write_results("webhooks.json", webhooks_document))
        webhook_delivery.print_table(webhooks_document)
    if not parts:
        names = ", ".join(str(p.relative_to(p.parents[2])) for p in written)
        print(f"\nwritten: {names}")
        return 0
    if parts == {"operations"}:
        env, world = prepare_bench_database(operations.OPS_DB, operations.OPS_REDIS_URL)
    elif parts == {"mobile"}:
        env, world = prepare_bench_database(mobile.MOBILE_DB, mobile.MOBILE_REDIS_URL)
    elif parts == {"throughput"}:
        env, world = prepare_bench_database(throughput.TPUT_DB, throughput.TPUT_REDIS_URL)
    else:
        env, world = prepare_bench_database()
    tokens = query_token = None
    if "token" in parts:
        token_count = math.ceil((args.n + args.warmup) / CALLS_PER_TOKEN)
        log(f"creating {token_count + 1} tokens")
        query_token, *tokens = create_tokens(env, world, token_count + 1)
    users = ops = mobile_bench = None
    if "users" in parts:
        users = users_list.UsersListBench(env, members=args.members, n=args.users_n, warmup=args.users_warmup)
    if "operations" in parts:
        ops = operations.OperationsBench(
            env,
            aircraft=args.ops_aircraft,
            members=args.ops_members,
            flights=args.ops_flights,
            n=args.ops_n,
            warmup=args.ops_warmup,
        )
    if "mobile" in parts:
        # The operations part's club when it made one, else the same club made here.
        mobile_bench = mobile.MobileBench(
            env,
            made=ops.made if ops else None,
            n=args.mobile_n,
            warmup=args.mobile_warmup,
            lists_n=args.mobile_lists_n,
            lists_warmup=args.mobile_lists_warmup,
        )

    tput = None
    if "throughput" in parts:
        club = ops.made if ops else mobile_bench.made if mobile_bench else None
        tput = throughput.ThroughputBench(env, made=club, seconds=args.tput_seconds, clients=args.tput_clients)

    result = users_result = ops_result = mobile_result = tput_result = None
    server = Gunicorn(env, workers=args.workers)
    try:
        client = server.start() if parts - {"throughput"} else None
        if tokens:
            result = measure(client, tokens, n=args.n, warmup=args.warmup, max_seconds=args.max_seconds)
        if users:
            users_result = users.measure(client, server.port, max_seconds=args.users_max_seconds)
        if ops:
            ops_result = ops.measure(client, server.port, max_seconds=args.ops_max_seconds)
        if mobile_bench:
            mobile_result = mobile_bench.measure(client, server.port, max_seconds=args.mobile_max_seconds)
    finally:
        server.stop()
    if tput:
        # Its own servers (2, then 4 workers), after the others so that they do not share the machine.
        tput_result = tput.measure()
    total = round(time.monotonic() - run_started, 1)
    if tokens:
        log("counting queries")
        document = token_document(result, count_queries(env, query_token), args, tokens)
        document["total_run_s"] = total
        written.append(write_results("token_vs_health.json", document))
        print_table(result, document["queries"])
    if users:
        users_document = users.document(users_result, workers=args.workers)
        users_document["total_run_s"] = total
        written.append(write_results("users_list.json", users_document))
        users_list.print_table(users_document, {"count": users_document["queries_per_api_page"]})
    if ops:
        ops_document = ops.document(ops_result, workers=args.workers)
        ops_document["total_run_s"] = total
        written.append(write_results("operations.json", ops_document))
        operations.print_table(ops_document)
    if mobile_bench:
        mobile_document = mobile_bench.document(mobile_result, workers=args.workers)
        mobile_document["total_run_s"] = total
        written.append(write_results("mobile.json", mobile_document))
        mobile.print_table(mobile_document)
    if tput:
        tput_document = tput.document(tput_result)
        tput_document["total_run_s"] = total
        written.append(write_results("throughput.json", tput_document))
        throughput.print_table(tput_document)
    print()
    print(f"load average (1, 5, 15 min) at the end: {machine()['load_average_1_5_15']}")
    ratios = []  # (what, ratio of medians, goal, SQL queries)
    if tokens:
        ratios.append(("Main GET /token / GET /health", result["ratio_median"], GOALS["token"], None))
    if users:
        ratios.append(("Main GET /users all blocks / SQL+JSON", users_result["ratio_median"], GOALS["users"], None))
    if ops:
        for name in operations.LISTS:
            part = ops_result[name]
            ratios.append((f"Main GET /{name} / SQL+JSON", part["ratio_median"], GOALS[name], part["queries_per_call"]))
    if mobile_bench:
        me = mobile_result["me_vs_health"]
        ratios.append(("Mobile GET /me / GET /health", me["ratio_median"], GOALS["me"], me["queries_me"]["calls"]))
        for name in mobile.LISTS:
            part = mobile_result["lists"][name]
            what = f"Mobile GET /{name} / SQL+JSON"
            ratios.append((what, part["ratio_median"], GOALS[f"mobile {name}"], part["queries_per_call"]))
    for what, ratio, goal, queries in ratios:
        verdict = "ok" if ratio <= goal else "OVER THE GOAL"
        sql = f"; SQL queries {queries}" if queries is not None else ""
        print(f"ratio {what} (median): {ratio:.2f}  (goal <= {goal}: {verdict}){sql}")
    names = ", ".join(str(p.relative_to(p.parents[2])) for p in written)
    print(f"\nwritten: {names} (whole run {total}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
