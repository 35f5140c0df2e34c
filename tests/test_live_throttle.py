"""The limit of 120 calls a minute per token, against a real gunicorn (2 workers) sharing Redis.

In-process tests run one request at a time through one cache; this one checks that the count in Redis
stays exact when 8 threads call at once through two worker processes. It needs PostgreSQL (the server
process must see the committed test data) and TEST_REDIS_URL (that Redis db is flushed first).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/flyclub TEST_REDIS_URL=redis://127.0.0.1:6379/3 \
        .venv/bin/pytest tests/test_live_throttle.py
"""

import pytest
from django.conf import settings
from django.db import connection

from bench.server import (
    TOO_MANY_REQUESTS_CODE,
    Gunicorn,
    database_url_of,
    flush_redis,
    hammer_token,
    service_env,
)
from main_api.models import MODULES, ApiToken
from main_api.services import api_token_create
from tests.factories import OrganizationFactory, make_admin

DATABASE_ENGINE = settings.DATABASES["default"]["ENGINE"]

# Decided at collection, so that a skipped run does not even create the test database.
pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        "postgresql" not in DATABASE_ENGINE,
        reason=f"live throttle test needs PostgreSQL (DATABASE_URL=postgres://...), not {DATABASE_ENGINE}",
    ),
    pytest.mark.skipif(
        not settings.TEST_REDIS_URL,
        reason="live throttle test needs TEST_REDIS_URL (a Redis db it may flush); it is empty",
    ),
]

CALLS = 200
THREADS = 8


def test_exactly_120_calls_a_minute_pass_under_concurrency_across_workers(transactional_db, tmp_path):
    # Committed (transactional_db), so that the gunicorn process sees the token.
    organization = OrganizationFactory()
    token, secret = api_token_create(
        organization=organization,
        owner=make_admin(organization),
        description="Live throttle",
        rights={module: "rw" for module in MODULES},
    )
    flush_redis(settings.TEST_REDIS_URL)
    env = service_env(database_url=database_url_of(connection.settings_dict), redis_url=settings.TEST_REDIS_URL)
    server = Gunicorn(env, workers=2, start_timeout=30, log_path=tmp_path / "gunicorn.log")
    try:
        client = server.start()
        result = hammer_token(
            client, str(token.client_id), secret, total=CALLS, threads=THREADS, request_timeout=10, deadline_s=60
        )
    finally:
        server.stop()
        flush_redis(settings.TEST_REDIS_URL)

    summary = result.as_dict()
    assert result.limit == 120, summary
    assert result.remaining_after_fetch == 119, summary  # the token fetch was call 1 of the minute
    assert not result.errors, summary
    assert result.ok == 119, summary
    assert result.limited == CALLS - 119, summary
    assert dict(result.statuses) == {200: 119, 429: CALLS - 119}, summary
    assert dict(result.limited_codes) == {TOO_MANY_REQUESTS_CODE: CALLS - 119}, summary


def test_a_change_reaches_every_worker_on_the_next_call(transactional_db, tmp_path, settings):
    """The workers keep token rows in memory; a change made in another process (here: this one, committed,
    with the production cache) renews the revision stamps in Redis, and every worker reads the row again
    on its next call."""
    from main_api.services import api_token_update

    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": settings.TEST_REDIS_URL}
    }
    organization = OrganizationFactory()
    token, secret = api_token_create(
        organization=organization,
        owner=make_admin(organization),
        description="Live cache",
        rights={module: "rw" for module in MODULES},
    )
    flush_redis(settings.TEST_REDIS_URL)
    env = service_env(database_url=database_url_of(connection.settings_dict), redis_url=settings.TEST_REDIS_URL)
    server = Gunicorn(env, workers=2, start_timeout=30, log_path=tmp_path / "gunicorn.log")

    def descriptions(calls: int) -> set[str]:
        return {client.get("/main/v5/token", bearer=access).json()["data"]["description"] for _ in range(calls)}

    try:
        client = server.start()
        access, _reply = client.fetch_access_token(str(token.client_id), secret)
        assert descriptions(30) == {"Live cache"}  # each worker has seen the credential more than twice
        # Behind the signals' back: a worker with the row cached answers from it (one that the accept race
        # left with fewer than three calls would read the row again).
        ApiToken.objects.filter(pk=token.pk).update(description="Unseen")
        # Until a worker that holds the row answers: on a loaded machine one worker may accept a long run of
        # calls (the accept race), so 16 calls could all reach the one without the row. At most 64 calls keep
        # the whole test under the token's 120 a minute.
        cached: set[str] = set()
        for _ in range(8):
            cached |= descriptions(8)
            if "Live cache" in cached:
                break

        api_token_update(token=token, description="Renamed", rights={"users": "r"}, allowed_ips=[])
        renamed = descriptions(8)
        token.delete()
        refused = [client.get("/main/v5/token", bearer=access).status for _ in range(8)]
    finally:
        server.stop()
        flush_redis(settings.TEST_REDIS_URL)

    assert "Live cache" in cached, cached
    assert renamed == {"Renamed"}
    assert refused == [401] * 8
