"""While Redis is away, each process keeps the limits in its own memory and tries Redis again after a short
back-off; /ready tells the database, the cache and the broker apart (docs/decisions.md §12.21). Redis "away"
here is an address where nothing listens (the live run stops a real one: tests/test_live_outage.py)."""

import logging
import time
from unittest import mock

import pytest
import redis
from django.core.cache import caches
from django.db import OperationalError
from django.test import Client

from apicore import cache as resilient
from apicore import counters
from bench.server import free_port


def nowhere() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens: connect refused at once


@pytest.fixture
def redis_away(settings):
    url = nowhere()
    settings.CACHES = {"default": {"BACKEND": "apicore.cache.RedisCacheWithFallback", "LOCATION": url}}
    settings.REDIS_RETRY_SECONDS = 60
    yield url
    caches["default"].close()


def test_the_cache_answers_from_the_process_memory_and_says_so_once(redis_away, caplog):
    cache = caches["default"]
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="apicore.cache"):
        for number in range(20):
            cache.set("key", number, 30)
            assert cache.get("key") == number
        assert cache.add("count", 1, 30) and cache.incr("count") == 2
    assert time.monotonic() - started < 2
    assert [record.getMessage()[:23] for record in caplog.records] == ["Redis cache unreachable"]


def test_the_counters_count_in_the_process_memory_and_never_hold_a_row(redis_away):
    backend = counters.backend()
    assert isinstance(backend, counters.FallbackCounters)
    assert [backend.increment("fc:calls", 60) for _ in range(3)] == [1, 2, 3]
    assert backend.get("fc:calls") == 3
    first = backend.check_and_count(
        blocked_key="fc:blocked", block_at=2, counter_key="fc:token", counter_ttl=60, revision_keys=["fc:r"], holds=""
    )
    again = backend.check_and_count(
        blocked_key="fc:blocked",
        block_at=2,
        counter_key="fc:token",
        counter_ttl=60,
        revision_keys=["fc:r"],
        holds=first.revision,
    )
    # The stamp held is never the current one while Redis is away: the row comes from the database.
    assert (first.outcome, again.outcome) == (counters.STALE, counters.STALE)
    assert first.revision != again.revision
    counted = backend.check_and_count(
        blocked_key="fc:blocked", block_at=2, counter_key="fc:token", counter_ttl=60, revision_keys=["fc:r"], holds="*"
    )
    assert (counted.outcome, counted.count) == (counters.COUNTED, 1)
    backend.increment("fc:blocked", 60)
    backend.increment("fc:blocked", 60)
    blocked = backend.check_and_count(
        blocked_key="fc:blocked", block_at=2, counter_key="fc:token", counter_ttl=60, revision_keys=["fc:r"], holds="*"
    )
    assert blocked.outcome == counters.BLOCKED


def test_the_counters_of_a_mobile_call_never_hold_rows_while_redis_is_away(redis_away):
    backend = counters.backend()
    each = {"revision_keys": ["fc:r1", "fc:r2"], "counters": [("fc:login", 60), ("fc:app", 60)]}
    first = backend.check_and_count_each(**each, holds="")
    again = backend.check_and_count_each(**each, holds=first.revision)

    assert (first.outcome, again.outcome) == (counters.STALE, counters.STALE)
    assert len(first.stamps) == 2 and first.revision != again.revision
    assert [backend.check_and_count_each(**each, holds="*").counts for _ in range(2)] == [(1, 1), (2, 2)]


class FlakyRedis:
    """RedisCounters' operations, refused while `away`; the renewed stamps and the calls recorded."""

    def __init__(self):
        self.away = False
        self.calls = 0
        self.bumped: list[str] = []

    def _call(self):
        self.calls += 1
        if self.away:
            raise redis.exceptions.ConnectionError("Connection refused.")

    def increment(self, key, ttl):
        self._call()
        return 7

    def bump(self, keys):
        self._call()
        self.bumped.extend(keys)


def test_redis_is_tried_again_only_after_the_back_off_and_gets_the_stamps_renewed_meanwhile(settings, caplog):
    settings.REDIS_RETRY_SECONDS = 5
    backend = counters.FallbackCounters(nowhere())
    flaky = backend.redis = FlakyRedis()
    clock = [1000.0]
    with (
        mock.patch.object(resilient.time, "monotonic", lambda: clock[0]),
        caplog.at_level(logging.INFO, logger="apicore.cache"),
    ):
        assert backend.increment("fc:a", 60) == 7
        flaky.away = True
        assert backend.increment("fc:a", 60) == 1  # Redis refused: the process's own count
        backend.bump(["fc:rev:org:1"])
        for _ in range(10):
            backend.increment("fc:a", 60)
        assert flaky.calls == 2  # no call waited for Redis during the back-off

        clock[0] += 5.1
        backend.increment("fc:a", 60)  # the one try after the back-off, refused again
        assert flaky.calls == 3
        flaky.away = False
        backend.increment("fc:a", 60)
        assert flaky.calls == 3

        clock[0] += 5.1
        assert backend.increment("fc:a", 60) == 7  # back: the stamps renewed meanwhile first, then the call
        assert flaky.bumped == ["fc:rev:org:1"]
        assert backend.increment("fc:a", 60) == 7
    assert [record.getMessage()[:25] for record in caplog.records] == [
        "Redis cache unreachable (",
        "Redis cache answers again",
    ]


# --- /ready ---------------------------------------------------------------------------------------------


def test_ready_reports_every_dependency_ok(db):
    reply = Client().get("/ready")  # plain http: open to load balancers as /health is
    assert reply.status_code == 200
    assert reply.json() == {"status": "ok", "dependencies": {"database": "ok", "cache": "ok", "broker": "ok"}}
    assert reply["Cache-Control"] == "no-store"


def test_ready_is_503_without_the_database(db):
    with mock.patch("config.pages.connection.ensure_connection", side_effect=OperationalError("no database")):
        reply = Client().get("/ready")
    assert reply.status_code == 503
    assert reply.json() == {
        "status": "unavailable",
        "dependencies": {"database": "down", "cache": "ok", "broker": "ok"},
    }


def test_ready_is_200_degraded_without_the_cache(db, redis_away):
    reply = Client().get("/ready")
    assert reply.status_code == 200
    assert reply.json() == {"status": "degraded", "dependencies": {"database": "ok", "cache": "down", "broker": "ok"}}


def test_ready_is_200_degraded_without_the_broker(db, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = nowhere()
    started = time.monotonic()
    reply = Client().get("/ready")
    assert time.monotonic() - started < 5
    assert reply.status_code == 200
    assert reply.json() == {"status": "degraded", "dependencies": {"database": "ok", "cache": "ok", "broker": "down"}}


def test_health_stays_the_cheap_liveness_check_without_the_cache(db, redis_away):
    reply = Client().get("/health")
    assert (reply.status_code, reply.json()) == (200, {"status": "ok"})
