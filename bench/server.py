"""Shared pieces of the benchmarks (bench/run.py, bench/throttle.py) and of tests/test_live_throttle.py.

The production server setup on loopback only: a PostgreSQL database, a Redis db for the cache (and so
for the rate-limit counters), gunicorn with 2 sync workers and the real settings (config.settings), with
REQUIRE_HTTPS=false because the server speaks plain HTTP on 127.0.0.1. Nothing here imports Django:
the service always runs in subprocesses (manage.py, gunicorn) with their own environment.
"""

import base64
import contextlib
import http.client
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
HOST = "127.0.0.1"
API = "/main/v5"

# Overridable, but loopback only (see _require_loopback).
PG_ADMIN_URL = os.environ.get("BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
BENCH_DB = os.environ.get("BENCH_DB", "flyclub_bench")
BENCH_REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/5")

LIMIT_PER_MINUTE = 120  # settings.MAIN_API_CALLS_PER_MINUTE; read back from RateLimit-Limit, never changed
TOO_MANY_REQUESTS_CODE = 10013

LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1", "[::1]"}


def _require_loopback(host: str | None, what: str) -> None:
    if host not in LOOPBACK_NAMES:
        raise SystemExit(f"{what} must be on a loopback address, not {host!r}")


def stop_on_sigterm() -> None:
    """SIGTERM raises SystemExit in the main thread, so that `finally` blocks still stop gunicorn."""

    def handler(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- PostgreSQL and Redis -------------------------------------------------------------------------


def postgres_url(*, name: str, host: str = "127.0.0.1", port: int | str = 5432, user: str = "postgres", password=""):
    _require_loopback(host or "127.0.0.1", "PostgreSQL")
    credentials = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    return f"postgres://{credentials}@{host or '127.0.0.1'}:{port or 5432}/{quote(name, safe='')}"


def database_url_of(settings_dict: dict) -> str:
    """The URL of a Django DATABASES entry (the pytest-django test database, for one)."""
    return postgres_url(
        name=settings_dict["NAME"],
        host=settings_dict.get("HOST") or "127.0.0.1",
        port=settings_dict.get("PORT") or 5432,
        user=settings_dict.get("USER") or "postgres",
        password=settings_dict.get("PASSWORD") or "",
    )


def recreate_database(name: str, admin_url: str = PG_ADMIN_URL) -> str:
    """Drop and create database `name`; returns its DATABASE_URL."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_url, autocommit=True, connect_timeout=10) as conn:
        info = conn.info
        _require_loopback(info.host, "PostgreSQL")
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return postgres_url(name=name, host=info.host, port=info.port, user=info.user)


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    _require_loopback(client.connection_pool.connection_kwargs.get("host"), "Redis")
    try:
        client.flushdb()
    finally:
        client.close()


# --- The service in subprocesses ------------------------------------------------------------------


def service_env(*, database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of the production settings on plain-HTTP loopback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        REQUIRE_HTTPS="false",
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECRET_KEY="bench-only-secret-key-not-for-production-use",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


def manage(env: dict[str, str], *args: str, timeout: float = 120) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args[:1])} failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return result.stdout


def django_script(env: dict[str, str], code: str, *, timeout: float = 120):
    """Run `code` in `manage.py shell`; it must print one JSON document on its last line."""
    out = manage(env, "shell", "--no-imports", "-c", code, timeout=timeout)
    return json.loads(out.strip().splitlines()[-1])


def prepare_bench_database(name: str = BENCH_DB, redis_url: str = BENCH_REDIS_URL) -> tuple[dict[str, str], dict]:
    """A fresh database with the demo world and an empty Redis db; returns (environment, demo world)."""
    log(f"recreating database {name}")
    database_url = recreate_database(name)
    flush_redis(redis_url)
    env = service_env(database_url=database_url, redis_url=redis_url)
    log("migrating")
    manage(env, "migrate", "--noinput", timeout=300)
    log("loading the demo world")
    world = json.loads(manage(env, "demo"))
    return env, world


TOKENS_SCRIPT = """
import json
from accounts.models import Organization, User
from main_api.models import MODULES
from main_api.services import api_token_create
organization = Organization.objects.get(pk={organization_id})
owner = User.objects.get(username={owner!r})
made = []
for number in range({count}):
    token, secret = api_token_create(
        organization=organization, owner=owner, description="bench {{}}".format(number),
        rights={{module: "rw" for module in MODULES}},
    )
    made.append({{"client_id": str(token.client_id), "secret": secret}})
print(json.dumps(made))
"""


def create_tokens(env: dict[str, str], world: dict, count: int) -> list[dict]:
    """`count` new full-rights tokens of the demo club, owned by its administrator."""
    code = TOKENS_SCRIPT.format(
        organization_id=int(world["organization"]["id"]), owner=world["admin"]["username"], count=count
    )
    return django_script(env, code)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


class Gunicorn:
    """gunicorn config.wsgi on 127.0.0.1:<free port>; a context manager that always stops it."""

    def __init__(
        self, env: dict[str, str], *, workers: int = 2, start_timeout: float = 30, log_path=None, extra_args=()
    ):
        self.env = env
        self.extra_args = list(extra_args)
        self.workers = workers
        self.start_timeout = start_timeout
        self.log_path = Path(log_path) if log_path else RESULTS_DIR / "gunicorn.log"
        self.port: int | None = None
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "Client":
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def start(self) -> "Client":
        self.port = free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--config",
            str(ROOT / "config" / "gunicorn.conf.py"),
            "--workers",
            str(self.workers),
            "--bind",
            f"{HOST}:{self.port}",
            "--timeout",
            "30",
            "--graceful-timeout",
            "5",
            "--log-level",
            "warning",
            # gunicorn's control socket is one path per user ($HOME/.gunicorn/gunicorn.ctl) unless told
            # otherwise: servers of parallel runs (benchmarks, live tests, `make run`) would take it from
            # one another. Nothing here controls gunicorn through it.
            "--no-control-socket",
            *self.extra_args,
        ]
        with open(self.log_path, "wb") as log_file:
            # Own session: the workers can be reached through the master's process group on the way out.
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=self.env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
            )
        log(f"gunicorn pid {self.process.pid} on http://{HOST}:{self.port} ({self.workers} workers)")
        client = Client(self.port)
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if client.get("/health", timeout=2).status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"gunicorn did not answer /health within {self.start_timeout}s:\n{self.log_tail()}")
            time.sleep(0.1)
        # Both workers boot independently: give the second one a moment, then touch the server a few times.
        time.sleep(0.5)
        for _ in range(4 * self.workers):
            client.get("/health", timeout=5)
        return client

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        pid = process.pid
        process.terminate()  # SIGTERM to the master: it stops its workers
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)
        # Workers left behind (if any) are in the process group that this gunicorn master leads.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        log(f"gunicorn pid {pid} stopped")

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


# --- A small HTTP client --------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    def json(self):
        return json.loads(self.body or b"null")

    def header_int(self, name: str) -> int | None:
        value = self.headers.get(name.lower())
        return int(value) if value is not None else None


class Client:
    """One new connection per call (gunicorn's sync workers close every connection anyway)."""

    def __init__(self, port: int):
        self.port = port

    def request(self, method: str, path: str, *, headers=None, body: bytes | None = None, timeout: float = 10):
        started = time.perf_counter()
        conn = http.client.HTTPConnection(HOST, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
        finally:
            conn.close()
        elapsed = time.perf_counter() - started
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, data, elapsed)

    def get(self, path: str, *, bearer: str | None = None, timeout: float = 10) -> Reply:
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        return self.request("GET", path, headers=headers, timeout=timeout)

    def fetch_access_token(self, client_id: str, secret: str, *, timeout: float = 10) -> tuple[str, Reply]:
        basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        reply = self.request(
            "POST",
            f"{API}/oauth/token",
            headers={"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
            body=b"grant_type=client_credentials",
            timeout=timeout,
        )
        if reply.status != 200:
            raise RuntimeError(f"token fetch answered {reply.status}: {reply.body[:300]!r}")
        return reply.json()["access_token"], reply


# --- Statistics -----------------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def summary_ms(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "median_ms": round(percentile(ms, 0.5), 3),
        "p90_ms": round(percentile(ms, 0.9), 3),
        "mean_ms": round(sum(ms) / len(ms), 3),
        "min_ms": round(min(ms), 3),
        "max_ms": round(max(ms), 3),
    }


def write_results(name: str, document: dict) -> Path:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / name
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def measured_document(
    bench,
    env: dict[str, str],
    *,
    workers: int,
    max_seconds: float,
    run_started: float,
    results_name: str,
    log_path=None,
) -> dict:
    """`bench` measured against its own gunicorn of `workers` workers; its document, written as `results_name`."""
    server = Gunicorn(env, workers=workers, log_path=log_path)
    try:
        client = server.start()
        result = bench.measure(client, server.port, max_seconds=max_seconds)
    finally:
        server.stop()
    document = bench.document(result, workers=workers)
    document["total_run_s"] = round(time.monotonic() - run_started, 1)
    document["written"] = str(write_results(results_name, document).relative_to(ROOT))
    return document


def machine() -> dict:
    import platform

    return {
        "cpus": os.cpu_count(),
        "load_average_1_5_15": [round(load, 2) for load in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


# --- The throttle check ---------------------------------------------------------------------------


@dataclass
class ThrottleResult:
    total: int
    threads: int
    ok: int = 0
    limited: int = 0
    statuses: Counter = field(default_factory=Counter)
    limited_codes: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    limit: int | None = None
    remaining_after_fetch: int | None = None
    window_left_at_start: int | None = None
    waited_for_window_s: float = 0.0
    elapsed_s: float = 0.0

    @property
    def expected_ok(self) -> int:
        return min((self.limit or LIMIT_PER_MINUTE) - 1, self.total)  # the token fetch was call 1

    @property
    def exact(self) -> bool:
        return (
            self.ok == self.expected_ok
            and self.limited == self.total - self.expected_ok
            and set(self.limited_codes) <= {TOO_MANY_REQUESTS_CODE}
            and not self.errors
        )

    def as_dict(self) -> dict:
        return {
            "calls": self.total,
            "threads": self.threads,
            "limit_per_minute": self.limit,
            "token_fetch_counted": True,
            "remaining_after_fetch": self.remaining_after_fetch,
            "expected_ok": self.expected_ok,
            "ok_200": self.ok,
            "limited_429": self.limited,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "codes_of_429": {str(k): v for k, v in sorted(self.limited_codes.items())},
            "errors": self.errors[:10],
            "window_left_at_start_s": self.window_left_at_start,
            "waited_for_fresh_window_s": round(self.waited_for_window_s, 1),
            "elapsed_s": round(self.elapsed_s, 3),
            "exact": self.exact,
        }


def access_token_in_fresh_window(client: Client, client_id: str, secret: str, *, min_left: int, result):
    """Fetch the access token so that at least `min_left` seconds of its minute window remain.

    The fetch is one call of the token. When too little of the window is left, wait for the next one
    (RateLimit-Reset) and fetch again: that second fetch is call 1 of the new window.
    """
    access, reply = client.fetch_access_token(client_id, secret)
    left = reply.header_int("RateLimit-Reset")
    if left is None:
        raise RuntimeError("the token fetch carried no RateLimit-Reset")
    if left < min_left:
        wait = left + 1.5
        log(f"only {left}s left in this token's rate window: waiting {wait:.1f}s for a fresh one")
        time.sleep(wait)
        result.waited_for_window_s = wait
        access, reply = client.fetch_access_token(client_id, secret)
        left = reply.header_int("RateLimit-Reset")
    result.limit = reply.header_int("RateLimit-Limit")
    result.remaining_after_fetch = reply.header_int("RateLimit-Remaining")
    result.window_left_at_start = left
    if result.limit is None or result.remaining_after_fetch != result.limit - 1 or left < min_left:
        raise RuntimeError(f"not at the start of a fresh rate window: {reply.headers}")
    return access


def hammer_token(
    client: Client,
    client_id: str,
    secret: str,
    *,
    total: int = 200,
    threads: int = 8,
    min_window_left: int = 25,
    request_timeout: float = 10,
    deadline_s: float = 60,
) -> ThrottleResult:
    """A fresh token's access token, then `total` GET /token from `threads` concurrent threads."""
    result = ThrottleResult(total=total, threads=threads)
    access = access_token_in_fresh_window(client, client_id, secret, min_left=min_window_left, result=result)
    lock = threading.Lock()
    stop_at = time.monotonic() + deadline_s

    def one(_index: int) -> None:
        if time.monotonic() > stop_at:
            outcome = ("error", "run deadline passed")
        else:
            try:
                reply = client.get(f"{API}/token", bearer=access, timeout=request_timeout)
                code = reply.json().get("code") if reply.status == 429 else None
                outcome = (reply.status, code)
            except (OSError, ValueError) as error:
                outcome = ("error", repr(error))
        with lock:
            if outcome[0] == "error":
                result.errors.append(outcome[1])
                return
            status, code = outcome
            result.statuses[status] += 1
            if status == 200:
                result.ok += 1
            elif status == 429:
                result.limited += 1
                result.limited_codes[code] += 1

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(one, range(total)))
    result.elapsed_s = time.monotonic() - started
    if result.elapsed_s >= (result.window_left_at_start or 0) - 1:
        result.errors.append(f"the run ({result.elapsed_s:.1f}s) may have crossed the end of the rate window")
    return result
