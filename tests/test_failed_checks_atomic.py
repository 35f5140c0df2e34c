"""Failed token checks: 20 per address in the window, exactly, however many calls race
(../shared/DECISIONS.md "Limits that the contract leaves open": 20 per IP address in 10 minutes give 429 10014
for the rest of the window; docs/decisions.md §2.8 "Failed token checks").

The address check before the token lookup and the count after it are two steps; calls that all pass the
check before any of them is counted must still give only 20 refusals (401). The lookup is held at a barrier
until every call has reached it, so that every call has passed the check: the worst interleaving, every run.
Both the embedded default's counters (local memory, threads of one process) and Redis's (TEST_REDIS_URL).
"""

import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings as django_settings
from django.test import Client

from apicore import counters
from tests.conftest import BASE, basic

CALLS = 80
LIMIT = 20


@pytest.fixture(params=["local-memory", "redis"])
def counter_cache(request, settings):
    if request.param == "redis":
        if not django_settings.TEST_REDIS_URL:
            pytest.skip("needs TEST_REDIS_URL (a Redis db it may write fc:failed-token-checks keys to)")
        settings.CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": django_settings.TEST_REDIS_URL,
            }
        }
    return request.param


@pytest.fixture
def address():
    """An address of its own per run: its counters in a shared Redis start at 0."""
    return f"2001:db8::{uuid.uuid4().hex[:4]}"


def held_lookup(calls: int):
    """A token lookup that finds nothing once `calls` callers are waiting in it."""
    barrier = threading.Barrier(calls, timeout=30)

    def lookup(**_kwargs):
        barrier.wait()
        return None

    return lookup


def race(send, calls: int = CALLS) -> tuple[Counter, Counter]:
    """`calls` calls of `send()` at once; the (status, code) of each reply and the replies' statuses."""
    with ThreadPoolExecutor(max_workers=calls) as pool:
        replies = list(pool.map(lambda _n: send(), range(calls)))
    codes = Counter((reply.status_code, reply.json().get("code")) for reply in replies)
    return Counter(reply.status_code for reply in replies), codes


def test_80_racing_bearer_calls_with_garbage_tokens_give_exactly_20_refusals(counter_cache, address, monkeypatch):
    monkeypatch.setattr("main_api.auth.api_token_for_credential", held_lookup(CALLS))

    def send():
        return Client().get(
            f"{BASE}/users", secure=True, REMOTE_ADDR=address, HTTP_AUTHORIZATION=f"Bearer {uuid.uuid4().hex}"
        )

    statuses, codes = race(send)

    assert statuses == {401: LIMIT, 429: CALLS - LIMIT}, codes
    assert codes == {(401, 10001): LIMIT, (429, 10014): CALLS - LIMIT}
    # And the address stays blocked: the next call is not even looked up.
    assert send().status_code == 429


def test_80_racing_token_requests_with_garbage_credentials_give_exactly_20_refusals(
    counter_cache, address, monkeypatch
):
    monkeypatch.setattr("main_api.oauth.api_token_for_client_id", held_lookup(CALLS))

    def send():
        return Client().post(
            f"{BASE}/oauth/token",
            {"grant_type": "client_credentials"},
            secure=True,
            REMOTE_ADDR=address,
            HTTP_AUTHORIZATION=basic("12345", uuid.uuid4().hex),
        )

    statuses, codes = race(send)

    assert statuses == {401: LIMIT, 429: CALLS - LIMIT}, codes
    assert codes[(429, 10014)] == CALLS - LIMIT


def test_the_refusal_past_the_limit_waits_out_the_window(counter_cache, address, monkeypatch):
    """Called one after the other, the 21st refusal is the first 429, with Retry-After within the window."""
    monkeypatch.setattr("main_api.auth.api_token_for_credential", lambda **_kw: None)
    client = Client()

    replies = [
        client.get(f"{BASE}/users", secure=True, REMOTE_ADDR=address, HTTP_AUTHORIZATION="Bearer garbage")
        for _ in range(LIMIT + 2)
    ]

    assert [reply.status_code for reply in replies] == [401] * LIMIT + [429, 429]
    assert 0 < int(replies[LIMIT]["Retry-After"]) <= django_settings.FAILED_TOKEN_CHECKS_WINDOW_SECONDS + 1
    assert counters.backend().get(counters.window("failed-token-checks", address, 600).key) >= LIMIT
