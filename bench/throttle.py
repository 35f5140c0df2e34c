"""The limit of 120 calls a minute per token, under concurrency, across gunicorn workers sharing Redis.

    .venv/bin/python bench/throttle.py [--calls 200] [--threads 8]

Same setup as bench/run.py (database flyclub_bench with the demo world, Redis db 5 flushed, gunicorn
with 2 workers). One fresh token fetches its access token (call 1 of its minute; when too little of the
minute is left, it waits for the next one and fetches again) and 8 threads send GET /main/v5/token with
it. Exactly 119 must answer 200 and all the others 429 (code 10013). Exits 1 otherwise. Writes
bench/results/throttle.json.
"""

import argparse
import sys
import time

from server import (
    Gunicorn,
    create_tokens,
    hammer_token,
    log,
    machine,
    prepare_bench_database,
    stop_on_sigterm,
    write_results,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="GET /token calls in all (default 200)")
    parser.add_argument("--threads", type=int, default=8, help="concurrent client threads (default 8)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.calls < 1 or args.threads < 1:
        parser.error("--calls and --threads must be at least 1")
    stop_on_sigterm()

    run_started = time.monotonic()
    env, world = prepare_bench_database()
    (token,) = create_tokens(env, world, 1)
    server = Gunicorn(env, workers=args.workers)
    try:
        client = server.start()
        result = hammer_token(client, token["client_id"], token["secret"], total=args.calls, threads=args.threads)
    finally:
        server.stop()

    document = {
        "what": f"{args.calls} GET /main/v5/token with one access token from {args.threads} threads",
        "server": f"gunicorn config.wsgi, {args.workers} sync workers, 127.0.0.1, PostgreSQL, Redis cache",
        **result.as_dict(),
        "machine": machine(),
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "total_run_s": round(time.monotonic() - run_started, 1),
    }
    path = write_results("throttle.json", document)
    print()
    print(
        f"limit {result.limit}/min; token fetch = call 1 (RateLimit-Remaining after it: {result.remaining_after_fetch})"
    )
    print(f"{args.calls} GET /token from {args.threads} threads in {result.elapsed_s:.2f}s:")
    print(f"  200: {result.ok}   (expected {result.expected_ok})")
    print(f"  429: {result.limited}   (expected {args.calls - result.expected_ok}); codes {dict(result.limited_codes)}")
    other = {k: v for k, v in result.statuses.items() if k not in (200, 429)}
    if other or result.errors:
        print(f"  other statuses {other}; errors {result.errors[:5]}")
    print(f"{'EXACT' if result.exact else 'NOT EXACT'}; written: {path.relative_to(path.parents[2])}")
    if not result.exact:
        log("the throttle did not let exactly the expected number of calls through")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
