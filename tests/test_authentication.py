"""Main API v5 calls: `Bearer <access token>`, the direct token until the cut-over, rights and HTTPS."""

import datetime as dt

import pytest
import time_machine
from rest_framework.request import Request

from accounts.models import MemberRole
from apicore.exceptions import ApiError
from main_api.auth import MainApiTokenAuthentication
from main_api.models import ApiToken
from main_api.services import api_token_delete
from tests.helpers import assert_problem

INVALID_TOKEN = 'Bearer error="invalid_token"'
LAST_DIRECT_SECOND = dt.datetime(2027, 12, 31, 22, 59, 59, tzinfo=dt.UTC)
DIRECT_REFUSED_FROM = dt.datetime(2027, 12, 31, 23, 0, 0, tzinfo=dt.UTC)
SUNSET = "Fri, 31 Dec 2027 23:00:00 GMT"


def assert_unauthorized(response, code: int = 10001) -> None:
    assert_problem(response, 401, code)
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_bearer_access_token_is_accepted(api):
    response = api.get("/token")

    assert response.status_code == 200
    assert response.json()["data"]["description"] == "Test token"


def test_access_token_expires_after_3600_seconds(api, frozen_time):
    access_token = api.fetch_access_token()

    frozen_time.shift(3599)
    assert api.get("/token", bearer=access_token).status_code == 200

    frozen_time.shift(1)
    expired = api.get("/token", bearer=access_token)
    assert_unauthorized(expired)
    assert expired["WWW-Authenticate"] == INVALID_TOKEN

    # The client fetches a new one and goes on.
    assert api.get("/token", bearer=api.fetch_access_token()).status_code == 200


def test_missing_authorization_is_unauthorized(api):
    response = api.client.get("/main/v5/token", secure=True)

    assert_unauthorized(response)
    assert response["WWW-Authenticate"] == "Bearer"  # no credential: the plain challenge (RFC 6750 3.1)


@pytest.mark.parametrize("header", [None, f"Token {'x' * 43}", "Basic dXNlcjpwYXNz", "Bearer", "Bearer   ", "bearer"])
def test_without_a_bearer_credential_the_class_leaves_the_call_to_another(rf, header):
    """So that two authentication classes can be chained; the view answers 401 when none recognised it."""
    extra = {"HTTP_AUTHORIZATION": header} if header is not None else {}

    assert MainApiTokenAuthentication().authenticate(Request(rf.get("/main/v5/token", **extra))) is None


def test_a_refused_bearer_credential_raises_in_the_class(db, rf):
    request = Request(rf.get("/main/v5/token", HTTP_AUTHORIZATION="Bearer not-a-token"))

    with pytest.raises(ApiError) as refused:
        MainApiTokenAuthentication().authenticate(request)

    assert refused.value.headers["WWW-Authenticate"] == INVALID_TOKEN


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(lambda api: f"Token {api.secret}", id="token-scheme-secret"),
        pytest.param(lambda api: f"Token {api.access_token}", id="token-scheme-access-token"),
        pytest.param(lambda api: api.secret, id="raw-secret"),
        pytest.param(lambda api: api.access_token, id="raw-access-token"),
        pytest.param(lambda api: f"Basic {api.secret}", id="basic-scheme"),
        pytest.param(lambda api: "Bearer", id="bearer-without-token"),
        pytest.param(lambda api: "Bearer ", id="bearer-empty"),
        pytest.param(lambda api: "Bearer not-a-token", id="bearer-unknown"),
    ],
)
def test_without_the_word_bearer_or_a_known_token_the_call_is_unauthorized(api, header):
    response = api.client.get("/main/v5/token", secure=True, HTTP_AUTHORIZATION=header(api))

    assert_unauthorized(response)


# --- the direct token ------------------------------------------------------------------------------


def test_direct_token_works_until_the_cut_over_with_sunset_and_link(api):
    with time_machine.travel(LAST_DIRECT_SECOND, tick=False):
        response = api.get("/token", bearer=api.secret)

    assert response.status_code == 200
    assert response.json()["data"]["organization"]["id"] == api.token.organization_id
    assert response["Sunset"] == SUNSET
    assert 'rel="sunset"' in response["Link"]
    assert "https://testserver/docs/main-api-v5-migration" in response["Link"]


@pytest.mark.parametrize(
    ("path", "status"),
    [("/token", 200), ("/token?x=1", 400), ("/memberships/999999", 404)],
)
def test_every_reply_to_a_direct_call_has_sunset_and_link(org, make_api, path, status):
    api = make_api(org, rights={"users": "r"})

    response = api.get(path, bearer=api.secret)

    assert response.status_code == status
    assert response["Sunset"] == SUNSET
    assert 'rel="sunset"' in response["Link"]


def test_direct_call_without_the_right_has_sunset_and_link(org, make_api):
    api = make_api(org, rights={})

    response = api.get("/memberships", bearer=api.secret)

    assert_problem(response, 403, 10002)
    assert response["Sunset"] == SUNSET
    assert 'rel="sunset"' in response["Link"]


def test_direct_token_is_refused_from_the_cut_over(api):
    with time_machine.travel(DIRECT_REFUSED_FROM, tick=False):
        response = api.get("/token", bearer=api.secret)
        with_access_token = api.get("/token", bearer=api.fetch_access_token())

    assert_unauthorized(response, code=10015)
    assert with_access_token.status_code == 200


def test_access_token_calls_carry_no_sunset(api):
    response = api.get("/token")

    assert response.status_code == 200
    assert "Sunset" not in response
    assert "Link" not in response


# --- both ways stop at once ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "delete",
    [
        pytest.param(lambda token: api_token_delete(token=token), id="service"),
        pytest.param(lambda token: token.delete(), id="orm-instance"),
        pytest.param(lambda token: ApiToken.objects.filter(pk=token.pk).delete(), id="orm-queryset"),
    ],
)
def test_deleting_the_token_stops_both_ways_at_once(api, delete):
    access_token = api.access_token
    assert api.get("/token", bearer=access_token).status_code == 200
    assert api.get("/token", bearer=api.secret).status_code == 200

    delete(api.token)

    assert_unauthorized(api.get("/token", bearer=access_token))
    assert_unauthorized(api.get("/token", bearer=api.secret))


def test_owner_losing_the_admin_role_stops_both_ways_at_once(api, admin):
    access_token = api.access_token
    assert api.get("/token", bearer=access_token).status_code == 200

    MemberRole.objects.filter(member__user=admin, role="admin").delete()

    assert_unauthorized(api.get("/token", bearer=access_token))
    assert_unauthorized(api.get("/token", bearer=api.secret))


def test_calls_from_an_address_outside_allowed_ips_are_unauthorized(org, make_api):
    api = make_api(org, allowed_ips=["10.0.0.0/8"])
    access_token = api.fetch_access_token(REMOTE_ADDR="10.1.1.1")
    assert api.get("/token", bearer=access_token, REMOTE_ADDR="10.1.1.1").status_code == 200
    assert api.get("/token", bearer=api.secret, REMOTE_ADDR="10.9.9.9").status_code == 200

    assert_unauthorized(api.get("/token", bearer=access_token, REMOTE_ADDR="127.0.0.1"))
    assert_unauthorized(api.get("/token", bearer=api.secret, REMOTE_ADDR="127.0.0.1"))


# --- module rights ---------------------------------------------------------------------------------


@pytest.mark.parametrize("direct", [False, True], ids=["access-token", "direct"])
def test_missing_module_right_is_forbidden(org, make_api, direct):
    api = make_api(org, rights={"organization": "rw", "bookings": "r"})

    response = api.get("/memberships", bearer=api.secret if direct else None)

    assert_problem(response, 403, 10002)


def test_write_right_alone_does_not_allow_reading(org, make_api):
    api = make_api(org, rights={"users": "w"})

    assert_problem(api.get("/memberships"), 403, 10002)


@pytest.mark.parametrize("right", ["r", "rw"])
def test_read_right_is_enough_for_get(org, make_api, right):
    api = make_api(org, rights={"users": right})

    response = api.get("/memberships")

    assert response.status_code == 200
    assert response.json()["data"] == []


# --- HTTPS and proxies -----------------------------------------------------------------------------


def test_plain_http_is_forbidden(api):
    response = api.get("/token", secure=False)

    body = assert_problem(response, 403, 10000)
    assert body["type"].endswith("/errors/forbidden")


def test_forwarded_https_from_a_trusted_proxy_is_accepted(api, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]

    response = api.get("/token", secure=False, HTTP_X_FORWARDED_PROTO="https")

    assert response.status_code == 200


def test_forwarded_https_from_an_untrusted_address_is_ignored(api, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]

    response = api.get("/token", secure=False, HTTP_X_FORWARDED_PROTO="https", REMOTE_ADDR="10.1.1.1")

    assert_problem(response, 403, 10000)


def test_forwarded_https_without_trusted_proxies_is_ignored(api, settings):
    settings.TRUSTED_PROXIES = []

    assert_problem(api.get("/token", secure=False, HTTP_X_FORWARDED_PROTO="https"), 403, 10000)


def test_allowed_ips_see_the_client_address_forwarded_by_a_trusted_proxy(org, make_api, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    api = make_api(org, allowed_ips=["203.0.113.7"])

    assert api.get("/token", bearer=api.secret, HTTP_X_FORWARDED_FOR="203.0.113.7").status_code == 200
    # Only the address our own proxy added (the last one) is believed, not one the client wrote in front.
    assert_unauthorized(api.get("/token", bearer=api.secret, HTTP_X_FORWARDED_FOR="203.0.113.7, 198.51.100.1"))
    # X-Forwarded-For from an address that is not a trusted proxy is ignored.
    assert_unauthorized(
        api.get("/token", bearer=api.secret, HTTP_X_FORWARDED_FOR="203.0.113.7", REMOTE_ADDR="10.1.1.1")
    )
