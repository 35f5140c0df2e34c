"""The APIs keep answering while Redis or the broker is away (docs/decisions.md §12.21), against a real
gunicorn (2 workers).

Redis: a redis-server of the test's own (a free port, nothing saved) is the cache; it is shut down while the
server runs and started again. The shared Redis on 6379 is never stopped. The broker: an address where
nothing listens. Needs PostgreSQL (the server process must see the committed test data) and redis-server.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/flyclub TEST_REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/pytest tests/test_live_outage.py
"""

import datetime as dt
import json
import shutil
import subprocess
import time

import pytest
from django.conf import settings
from django.db import connection

from apicore import clock
from bench.server import Gunicorn, database_url_of, flush_redis, free_port, service_env
from main_api.models import MODULES
from main_api.services import api_token_create, api_token_update
from tests.factories import MemberFactory, OrganizationFactory, make_admin
from tests.factories_operations import ObjectFactory
from tests.mobile_helpers import issue_member_tokens, make_app_client
from webhooks.models import Delivery, DeliveryState
from webhooks.services import webhook_create

DATABASE_ENGINE = settings.DATABASES["default"]["ENGINE"]
REDIS_SERVER, REDIS_CLI = shutil.which("redis-server"), shutil.which("redis-cli")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        "postgresql" not in DATABASE_ENGINE,
        reason=f"live outage test needs PostgreSQL (DATABASE_URL=postgres://...), not {DATABASE_ENGINE}",
    ),
]
needs_redis_server = pytest.mark.skipif(
    not (REDIS_SERVER and REDIS_CLI), reason="live outage test needs redis-server and redis-cli"
)

# A call while Redis is away costs no wait for it (a refused connect, then only every few seconds a retry).
QUICK_SECONDS = 2.0


class OwnRedis:
    """A redis-server of this test only, on a free port, nothing saved; shut down and started at will."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def cli(self, *args: str, timeout: float = 5) -> subprocess.CompletedProcess:
        command = [REDIS_CLI, "-h", "127.0.0.1", "-p", str(self.port), *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)

    def answers(self) -> bool:
        return self.cli("ping", timeout=2).stdout.strip() == "PONG"

    def start(self) -> None:
        command = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--daemonize", "yes", "--dir", "/tmp"]
        subprocess.run(command, capture_output=True, timeout=10, check=True)
        self._until(self.answers, "redis-server did not answer")

    def stop(self) -> None:
        if self.answers():
            self.cli("shutdown", "nosave")
        self._until(lambda: not self.answers(), "redis-server did not stop")

    def keys(self) -> int:
        return int(self.cli("dbsize").stdout.strip() or 0)

    @staticmethod
    def _until(condition, message: str, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(message)
            time.sleep(0.05)


@pytest.fixture
def own_redis():
    redis = OwnRedis()
    redis.start()
    try:
        yield redis
    finally:
        redis.stop()


def timed(call):
    started = time.monotonic()
    reply = call()
    return reply, time.monotonic() - started


@needs_redis_server
def test_the_apis_answer_while_redis_is_away_and_use_it_again_when_it_is_back(transactional_db, tmp_path, own_redis):
    organization = OrganizationFactory()
    token, secret = api_token_create(
        organization=organization,
        owner=make_admin(organization),
        description="Before",
        rights={module: "rw" for module in MODULES},
    )
    env = service_env(database_url=database_url_of(connection.settings_dict), redis_url=own_redis.url)
    env.update(REDIS_RETRY_SECONDS="1")
    log_path = tmp_path / "gunicorn.log"
    server = Gunicorn(env, workers=2, start_timeout=30, log_path=log_path)

    def api_calls(access: str) -> list:
        replies = []
        for _ in range(6):
            for path in ("/main/v5/token", "/main/v5/users"):
                reply, seconds = timed(lambda path=path: client.get(path, bearer=access))
                replies.append((path, reply.status, seconds < QUICK_SECONDS, reply.header_int("ratelimit-limit")))
        return replies

    def ready() -> tuple[int, dict]:
        reply = client.get("/ready")
        return reply.status, reply.json()

    try:
        client = server.start()
        access, fetched = client.fetch_access_token(str(token.client_id), secret)
        assert fetched.status == 200
        before = api_calls(access)
        ready_before = ready()
        assert own_redis.keys() > 0  # the counters and stamps are in Redis

        own_redis.stop()
        during = api_calls(access)
        (access_during, fetched_during), fetch_seconds = timed(
            lambda: client.fetch_access_token(str(token.client_id), secret)
        )
        # A change while Redis is away reaches every worker on its next call (no row from memory meanwhile).
        api_token_update(token=token, description="During", rights={module: "rw" for module in MODULES}, allowed_ips=[])
        descriptions = {client.get("/main/v5/token", bearer=access).json()["data"]["description"] for _ in range(8)}
        ready_during, health_during = ready(), client.get("/health")

        own_redis.start()
        assert own_redis.keys() == 0
        time.sleep(1.2)  # past the retry back-off of every worker
        after = api_calls(access_during)
        ready_after = ready()
        keys_after = own_redis.keys()
    finally:
        server.stop()

    assert {(path, status, quick, limit) for path, status, quick, limit in before} == {
        ("/main/v5/token", 200, True, 120),
        ("/main/v5/users", 200, True, 120),
    }
    assert ready_before == (200, {"status": "ok", "dependencies": {"database": "ok", "cache": "ok", "broker": "ok"}})

    assert {(path, status, quick, limit) for path, status, quick, limit in during} == {
        ("/main/v5/token", 200, True, 120),
        ("/main/v5/users", 200, True, 120),
    }, during
    assert fetched_during.status == 200 and fetch_seconds < QUICK_SECONDS
    assert descriptions == {"During"}
    assert ready_during == (
        200,
        {"status": "degraded", "dependencies": {"database": "ok", "cache": "down", "broker": "ok"}},
    )
    assert (health_during.status, health_during.json()) == (200, {"status": "ok"})

    assert {(path, status) for path, status, _quick, _limit in after} == {
        ("/main/v5/token", 200),
        ("/main/v5/users", 200),
    }
    assert ready_after[0] == 200 and ready_after[1]["status"] == "ok"
    assert keys_after > 0  # the workers count in Redis again
    log = log_path.read_text(errors="replace")
    # Each worker says so once each way (a worker that got no call while Redis was away says nothing).
    assert 1 <= log.count("Redis cache unreachable") <= 2, log
    assert log.count("Redis cache answers again") == log.count("Redis cache unreachable"), log
    assert "10020" not in log and "Traceback" not in log, log


def test_a_booking_answers_201_while_the_broker_is_away_and_its_delivery_stays_due(transactional_db, tmp_path):
    club = OrganizationFactory(timezone="Europe/Stockholm")
    member = MemberFactory(organization=club)
    aircraft = ObjectFactory(organization=club, registration="SE-KBT")
    webhook, _token, _key = webhook_create(organization=club, url="http://127.0.0.1:9/webhook")
    access = issue_member_tokens(member, make_app_client()).access_token
    redis_url = settings.TEST_REDIS_URL or "redis://127.0.0.1:6379/3"
    flush_redis(redis_url)
    env = service_env(database_url=database_url_of(connection.settings_dict), redis_url=redis_url)
    env.update(CELERY_BROKER_URL=f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    server = Gunicorn(env, workers=1, start_timeout=30, log_path=tmp_path / "gunicorn.log")
    start = (clock.now() + dt.timedelta(days=2)).replace(hour=9, minute=0, second=0, microsecond=0)
    body = {
        "object_id": aircraft.pk,
        "start_at": start.isoformat().replace("+00:00", "Z"),
        "end_at": (start + dt.timedelta(hours=1)).isoformat().replace("+00:00", "Z"),
    }
    try:
        client = server.start()
        reply, seconds = timed(
            lambda: client.request(
                "POST",
                "/mobile/v5/bookings",
                headers={"Authorization": f"Bearer {access}", "Content-Type": "application/json"},
                body=json.dumps(body).encode(),
                timeout=30,
            )
        )
        ready = client.get("/ready", timeout=10)
    finally:
        server.stop()
        flush_redis(redis_url)

    assert reply.status == 201, reply.body
    assert seconds < 10
    delivery = Delivery.objects.get(webhook=webhook)
    assert (delivery.event_type, delivery.state, delivery.attempts) == ("booking.create", DeliveryState.PENDING, 0)
    assert delivery.due_at is not None and delivery.due_at <= clock.now()  # the sweep hands it over
    assert (ready.status, ready.json()) == (
        200,
        {"status": "degraded", "dependencies": {"database": "ok", "cache": "ok", "broker": "down"}},
    )
