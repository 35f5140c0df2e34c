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
import json
import math
import os
import sys
import time

from operations_baseline import PAGE, Baseline, list_query
from server import (
    API,
    HOST,
    RESULTS_DIR,
    create_tokens,
    django_script,
    log,
    machine,
    measured_document,
    prepare_bench_database,
    stop_on_sigterm,
    summary_ms,
)
from users_list import first_difference

# Overridable (loopback only), so that two runs at the same time do not drop each other's database.
OPS_DB = os.environ.get("BENCH_OPS_DB", "flyclub_bench_ops")
OPS_REDIS_URL = os.environ.get("BENCH_OPS_REDIS_URL", "redis://127.0.0.1:6379/7")
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


def offsets_of(name: str) -> tuple[int, ...]:
    return (0,) if name == "objects" else OFFSETS


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
    return measured_document(
        bench,
        env,
        workers=workers,
        max_seconds=max_seconds,
        run_started=run_started,
        results_name="operations.json",
        log_path=RESULTS_DIR / "gunicorn-operations.log",
    )


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
