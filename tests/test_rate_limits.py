"""120 calls a minute per token; 20 failed token checks per address in 10 minutes.

../shared/DECISIONS.md "Limits that the contract leaves open"; docs/decisions.md §2.8 "Failed token checks" and
§2.9 "Rate limits on our own counters"."""

import pytest

from tests.conftest import BASE, basic
from tests.helpers import assert_problem

LIMIT = 120
FAILED_CHECKS = 20


def use_up(api, calls: int) -> None:
    for _ in range(calls):
        assert api.get("/token", bearer=api.secret).status_code == 200


def fail_token_checks(client, count: int, **extra) -> None:
    for _ in range(count):
        response = client.get(f"{BASE}/token", secure=True, HTTP_AUTHORIZATION="Bearer wrong-token", **extra)
        assert response.status_code == 401


def assert_ratelimit_headers(response, remaining: int) -> int:
    assert response["RateLimit-Limit"] == str(LIMIT)
    assert response["RateLimit-Remaining"] == str(remaining)
    reset = int(response["RateLimit-Reset"])
    assert 1 <= reset <= 60
    return reset


# --- calls per token -------------------------------------------------------------------------------


def test_every_reply_to_an_accepted_token_has_ratelimit_headers(org, make_api, frozen_time):
    api = make_api(org, rights={"users": "r"})
    assert api.access_token  # the fetch is call 1

    replies = [
        api.get("/token"),  # 200
        api.get("/memberships/999999"),  # 404 of an item
        api.get("/expiry-date-types"),  # 403: no organization_settings right
        api.get("/token", {"unknown": "1"}),  # 400
        api.get("/token", bearer=api.secret),  # direct
    ]

    assert [reply.status_code for reply in replies] == [200, 404, 403, 400, 200]
    resets = {assert_ratelimit_headers(reply, LIMIT - 2 - i) for i, reply in enumerate(replies)}
    assert len(resets) == 1  # the clock stands still: one window


def test_a_forbidden_reply_has_ratelimit_headers(org, make_api, frozen_time):
    api = make_api(org, rights={})

    response = api.get("/memberships", bearer=api.secret)

    assert_problem(response, 403, 10002)
    assert_ratelimit_headers(response, LIMIT - 1)


def test_access_token_and_direct_calls_share_the_limit(api, frozen_time):
    assert api.access_token  # the fetch is call 1
    for i in range(LIMIT - 1):  # 2..120, both ways in turn
        bearer = api.secret if i % 2 else None
        assert api.get("/token", bearer=bearer).status_code == 200

    for bearer in (None, api.secret):
        response = api.get("/token", bearer=bearer)
        assert_problem(response, 429, 10013)
        assert_ratelimit_headers(response, 0)
        assert response["Retry-After"] == response["RateLimit-Reset"]


def test_the_count_restarts_when_the_window_ends(api, frozen_time):
    use_up(api, LIMIT)
    refused = api.get("/token", bearer=api.secret)
    assert_problem(refused, 429, 10013)
    wait = int(refused["Retry-After"])

    frozen_time.shift(wait - 1)
    assert_problem(api.get("/token", bearer=api.secret), 429, 10013)

    frozen_time.shift(1)
    response = api.get("/token", bearer=api.secret)
    assert response.status_code == 200
    assert_ratelimit_headers(response, LIMIT - 1)


def test_ratelimit_reset_counts_down_to_the_new_window(api, frozen_time):
    first = api.get("/token", bearer=api.secret)
    reset = assert_ratelimit_headers(first, LIMIT - 1)

    frozen_time.shift(reset - 1)
    last_in_window = api.get("/token", bearer=api.secret)
    assert_ratelimit_headers(last_in_window, LIMIT - 2)
    assert last_in_window["RateLimit-Reset"] == "1"

    frozen_time.shift(1)
    assert_ratelimit_headers(api.get("/token", bearer=api.secret), LIMIT - 1)


@pytest.mark.parametrize("same_organization", [True, False])
def test_another_token_is_not_affected(api, org, other_org, make_api, frozen_time, same_organization):
    other = make_api(org if same_organization else other_org)
    use_up(api, LIMIT)
    assert_problem(api.get("/token", bearer=api.secret), 429, 10013)

    response = other.get("/token", bearer=other.secret)

    assert response.status_code == 200
    assert_ratelimit_headers(response, LIMIT - 1)


# --- failed token checks per address ---------------------------------------------------------------


def test_twenty_rejected_tokens_block_the_address(api, frozen_time):
    fail_token_checks(api.client, FAILED_CHECKS - 1)
    assert api.get("/token", bearer=api.secret).status_code == 200

    fail_token_checks(api.client, 1)

    response = api.get("/token", bearer=api.secret)
    body = assert_problem(response, 429, 10014)
    assert body["type"].endswith("/errors/too-many-requests")
    assert 1 <= int(response["Retry-After"]) <= 600
    token_endpoint = api.client.post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
    )
    assert_problem(token_endpoint, 429, 10014)


def test_the_block_lasts_for_the_rest_of_the_window(api, frozen_time):
    fail_token_checks(api.client, FAILED_CHECKS)
    refused = api.get("/token", bearer=api.secret)
    assert_problem(refused, 429, 10014)
    wait = int(refused["Retry-After"])

    frozen_time.shift(wait - 1)
    assert_problem(api.get("/token", bearer=api.secret), 429, 10014)

    frozen_time.shift(1)
    assert api.get("/token", bearer=api.secret).status_code == 200


def test_rejected_clients_at_the_token_endpoint_count_too(api, frozen_time):
    for _ in range(FAILED_CHECKS):
        response = api.client.post(
            f"{BASE}/oauth/token",
            {"grant_type": "client_credentials"},
            secure=True,
            HTTP_AUTHORIZATION=basic(str(api.token.client_id), "wrong-secret"),
        )
        assert response.status_code == 401

    assert_problem(api.get("/token", bearer=api.secret), 429, 10014)


def test_another_address_is_not_blocked(api, frozen_time):
    fail_token_checks(api.client, FAILED_CHECKS)
    assert_problem(api.get("/token", bearer=api.secret), 429, 10014)

    response = api.get("/token", bearer=api.secret, REMOTE_ADDR="10.1.1.1")

    assert response.status_code == 200
