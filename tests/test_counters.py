"""apicore.counters: the one-round-trip check, on the Django cache and (with TEST_REDIS_URL) on Redis's Lua
script; both must answer alike."""

import uuid

import pytest
from django.conf import settings
from django.core.cache import cache

from apicore import counters


def redis_counters():
    if not settings.TEST_REDIS_URL:
        pytest.skip("needs TEST_REDIS_URL (a Redis db whose fc:test-* keys it may write)")
    return counters.RedisCounters(settings.TEST_REDIS_URL)


@pytest.fixture(params=["cache", "redis"])
def backend(request):
    return counters.CacheCounters(cache) if request.param == "cache" else redis_counters()


@pytest.fixture
def keys(backend):
    run = uuid.uuid4().hex
    made = {
        "blocked": f"fc:test-{run}:blocked",
        "counter": f"fc:test-{run}:calls",
        "second_counter": f"fc:test-{run}:calls-2",
        "revisions": [f"fc:test-{run}:rev:a", f"fc:test-{run}:rev:b"],
    }
    yield made
    if isinstance(backend, counters.RedisCounters):
        backend.client.delete(made["blocked"], made["counter"], made["second_counter"], *made["revisions"])


def check(backend, keys, holds: str, block_at: int = 3):
    return backend.check_and_count(
        blocked_key=keys["blocked"],
        block_at=block_at,
        counter_key=keys["counter"],
        counter_ttl=65,
        revision_keys=keys["revisions"],
        holds=holds,
    )


def test_holding_no_revision_counts_nothing_and_reports_the_current_one(backend, keys):
    first = check(backend, keys, holds="")
    second = check(backend, keys, holds="")

    assert first.outcome == counters.STALE
    assert first.revision and first.revision == second.revision  # stamps made once, then kept
    assert check(backend, keys, holds="*").count == 1


def test_the_current_revision_counts_and_an_old_one_does_not(backend, keys):
    revision = check(backend, keys, holds="").revision

    assert [check(backend, keys, holds=revision).count for _ in range(3)] == [1, 2, 3]
    backend.bump(keys["revisions"][1:])
    stale = check(backend, keys, holds=revision)
    assert stale.outcome == counters.STALE and stale.revision != revision
    assert check(backend, keys, holds=stale.revision).count == 4


def test_a_blocked_address_is_reported_before_anything_is_counted(backend, keys):
    for _ in range(3):
        backend.increment(keys["blocked"], 600)

    assert check(backend, keys, holds="*").outcome == counters.BLOCKED
    assert backend.get(keys["counter"]) == 0


def check_each(backend, keys, holds: str):
    return backend.check_and_count_each(
        revision_keys=keys["revisions"], holds=holds, counters=[(keys["counter"], 65), (keys["second_counter"], 65)]
    )


def test_each_counter_counts_once_when_the_revision_is_current(backend, keys):
    stale = check_each(backend, keys, holds="")
    assert stale.outcome == counters.STALE and stale.counts == ()
    assert len(stale.stamps) == 2 and stale.revision == "/".join(stale.stamps)

    assert [check_each(backend, keys, holds=stale.revision).counts for _ in range(2)] == [(1, 1), (2, 2)]
    backend.increment(keys["second_counter"], 65)
    assert check_each(backend, keys, holds="*").counts == (3, 4)


def test_a_renewed_stamp_counts_nothing_until_it_is_held(backend, keys):
    revision = check_each(backend, keys, holds="").revision
    backend.bump(keys["revisions"][:1])

    stale = check_each(backend, keys, holds=revision)
    assert stale.outcome == counters.STALE and stale.revision != revision
    assert stale.stamps[1] == revision.split("/")[1]  # the other stamp kept
    assert backend.get(keys["counter"]) == 0
    assert check_each(backend, keys, holds=stale.revision).counts == (1, 1)


def test_a_window_key_carries_no_clear_value():
    window = counters.window("main-token", "secret-looking-value", 60)

    assert "secret-looking-value" not in window.key
    assert 1 <= window.seconds_left() <= 60
