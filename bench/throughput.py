"""Throughput on one machine: requests a second of `GET /mobile/v5/bookings` (a member's default calendar: no
parameters, so the bookings that end today or later, the first page of the list's default size) with 2 and
with 4 gunicorn workers, 16 clients calling at once, with the p50 and p99 of a call.

    .venv/bin/python bench/run.py --only throughput [--tput-seconds 10] [--tput-clients 16]   (part of make bench)

The production setup on loopback, as bench/run.py: a PostgreSQL database (its own, flyclub_bench_tput, and Redis
db 6 when run alone), the demo world and the operations club of 60 aircraft (demo.bench_club, two weeks of
bookings ahead of today), gunicorn with the real settings. The members are the club's; each client rotates over
logins of its own, minted as bench/mobile.py does, so that no call comes near a limit (120 a minute per login,
600 per app client): nothing in the settings changes. Each configuration has its own logins and app clients.

No goal on this machine: it is the figure a club's operator sizes servers by. The client is threads of
http.client in one process (a new connection per call, as gunicorn's sync workers close every connection); it
reads each reply whole and checks its status, and shares the 2 cores with the server, so the figures are a
floor. Writes bench/results/throughput.json.
"""

import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import mobile
import operations
from server import Gunicorn, log, machine, percentile

TPUT_DB = os.environ.get("BENCH_TPUT_DB", "flyclub_bench_tput")
TPUT_REDIS_URL = os.environ.get("BENCH_TPUT_REDIS_URL", "redis://127.0.0.1:6379/6")
PATH = f"{mobile.MOBILE}/bookings"
WORKER_COUNTS = (2, 4)
CALLS_PER_LOGIN = 100  # under the 120 a minute of a login
CALLS_PER_CLIENT = 500  # under the 600 a minute of an app client
MEMBERS = 40  # the calendar is read by this many of the club's members
EXPECTED_RATE = 150  # calls a second a configuration is planned for (logins enough for this and more)


class Logins:
    """The access tokens of one configuration, handed out so that no login or app client nears its limit."""

    def __init__(self, minted: list[dict]):
        self.minted = minted
        self.calls = [0] * len(minted)
        self.client_calls: dict[int, int] = {}
        self.lock = threading.Lock()
        self.next = 0

    def bearer(self) -> str | None:
        """A token with calls left, or None when every one has used its share."""
        with self.lock:
            for _ in range(len(self.minted)):
                index = self.next % len(self.minted)
                self.next += 1
                login = self.minted[index]
                client_calls = self.client_calls.get(login["client"], 0)
                if self.calls[index] < CALLS_PER_LOGIN and client_calls < CALLS_PER_CLIENT:
                    self.calls[index] += 1
                    self.client_calls[login["client"]] = client_calls + 1
                    return login["access_token"]
        return None


def plan(seconds: float) -> tuple[int, int, list[tuple[int, int]]]:
    """App clients, logins and the (client, member) of each login for one configuration."""
    calls = math.ceil(EXPECTED_RATE * 2 * seconds)  # room for twice the planned rate
    logins = math.ceil(calls / CALLS_PER_LOGIN)
    clients = math.ceil(calls / CALLS_PER_CLIENT)
    return clients, logins, [(i % clients, 1 + i % MEMBERS) for i in range(logins)]


def hammer(client, logins: Logins, *, clients: int, seconds: float, warmup: float = 2.0) -> dict:
    """`clients` threads calling PATH back to back for `seconds` (after `warmup` seconds not counted)."""
    times: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    start = time.monotonic()
    counted_from, stop_at = start + warmup, start + warmup + seconds
    ran_out = threading.Event()

    def worker() -> None:
        while True:
            now = time.monotonic()
            if now >= stop_at:
                return
            bearer = logins.bearer()
            if bearer is None:
                ran_out.set()
                return
            try:
                reply = client.get(PATH, bearer=bearer, timeout=30)
            except OSError as error:
                with lock:
                    errors.append(repr(error))
                continue
            if reply.status != 200:
                with lock:
                    errors.append(f"{reply.status}: {reply.body[:200]!r}")
                continue
            done = time.monotonic()
            if counted_from <= done <= stop_at:  # completed inside the measured window
                with lock:
                    times.append(reply.seconds)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    measured = seconds
    if ran_out.is_set():
        raise RuntimeError("out of logins: raise EXPECTED_RATE in bench/throughput.py")
    if errors:
        raise RuntimeError(f"{len(errors)} calls failed, e.g. {errors[:3]}")
    ordered = sorted(times)
    return {
        "calls": len(times),
        "seconds": round(measured, 2),
        "requests_per_second": round(len(times) / measured, 1),
        "p50_ms": round(percentile(ordered, 0.5) * 1000, 2),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


class ThroughputBench:
    """The throughput measurement on a prepared bench database; `made`: the operations club when another
    part made it already, else it is made here."""

    def __init__(self, env, *, made: dict | None = None, seconds: float = 10, clients: int = 16):
        self.env, self.seconds, self.clients = env, seconds, clients
        self.made = made or operations.seed(env, aircraft=60, members=300, flights=300)
        self.logins = {}
        for workers in WORKER_COUNTS:
            app_clients, count, logins = plan(seconds)
            log(f"minting {count} member logins over {app_clients} app clients for {workers} workers")
            minted = mobile.mint_logins(
                env, self.made["organization_id"], logins, clients=app_clients, members=MEMBERS + 1
            )
            self.logins[workers] = Logins(minted)

    def measure(self) -> dict:
        result = {}
        for workers in WORKER_COUNTS:
            server = Gunicorn(self.env, workers=workers)
            try:
                client = server.start()
                reply = client.get(PATH, bearer=self.logins[workers].bearer())
                if reply.status != 200:
                    raise RuntimeError(f"{PATH} answered {reply.status}: {reply.body[:300]!r}")
                page = reply.json()
                log(f"{workers} workers: {self.clients} clients for {self.seconds:.0f} s (after 2 s of warm-up)")
                result[str(workers)] = {
                    **hammer(client, self.logins[workers], clients=self.clients, seconds=self.seconds),
                    "items": page["meta"]["count"],
                    "reply_bytes": len(reply.body),
                    "load_average_after": list(os.getloadavg()),
                }
            finally:
                server.stop()
        return result

    def document(self, result: dict) -> dict:
        return {
            "call": f"GET {PATH} (a member's default calendar)",
            "clients": self.clients,
            "seconds_per_configuration": self.seconds,
            "workers": result,
            "machine": machine(),
        }


def print_table(document: dict) -> None:
    print()
    print(f"Throughput: {document['call']}, {document['clients']} clients at once")
    head = ("requests/s", 12), ("p50 ms", 10), ("p99 ms", 10), ("calls", 8), ("items", 7), ("load after", 22)
    print(f"{'gunicorn workers':<18}" + "".join(f"{name:>{width}}" for name, width in head))
    for workers, row in document["workers"].items():
        load = ", ".join(f"{value:.2f}" for value in row["load_average_after"])
        print(
            f"{workers:<18}{row['requests_per_second']:>12.1f}{row['p50_ms']:>10.1f}{row['p99_ms']:>10.1f}"
            f"{row['calls']:>8}{row['items']:>7}{load:>22}"
        )
