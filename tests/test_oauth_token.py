"""POST /main/v5/oauth/token: OAuth 2.0 client credentials for Main API tokens."""

import hashlib

import pytest
from django.apps import apps
from django.test import Client
from oauth2_provider.models import AccessToken, RefreshToken

from accounts.models import MemberRole
from main_api.models import ApiToken
from main_api.services import api_token_delete
from tests.conftest import BASE, basic
from tests.factories import MemberFactory
from tests.helpers import assert_problem

TOKEN_URL = f"{BASE}/oauth/token"
FULL_SCOPE = (
    "users:rw users_sensitive:rw organization_settings:rw objects:rw bookings:rw transactions:rw flightlogs:rw "
    "login_checks:rw organization:rw"
)


def request_token(client: Client, data=None, *, client_id=None, secret=None, **extra):
    """POST the form; with client_id and secret given, they go in the Basic header."""
    data = {"grant_type": "client_credentials"} if data is None else data
    if client_id is not None:
        extra["HTTP_AUTHORIZATION"] = basic(str(client_id), secret)
    return client.post(TOKEN_URL, data, secure=True, **extra)


def token_of(api, **extra):
    return request_token(api.client, client_id=api.token.client_id, secret=api.secret, **extra)


def assert_oauth_error(response, status: int, error: str) -> None:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "error_description"}
    assert body["error"] == error
    assert isinstance(body["error_description"], str)
    assert body["error_description"]


# --- success ---------------------------------------------------------------------------------------


def test_basic_header_gives_a_working_bearer_access_token(api):
    response = token_of(api)

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"access_token", "token_type", "expires_in", "scope"}
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert body["scope"] == FULL_SCOPE
    assert response["Cache-Control"] == "no-store"
    call = api.get("/token", bearer=body["access_token"])
    assert call.status_code == 200
    assert call.json()["data"]["organization"]["id"] == api.token.organization_id


def test_form_fields_give_an_access_token(api):
    response = request_token(
        api.client,
        {"grant_type": "client_credentials", "client_id": str(api.token.client_id), "client_secret": api.secret},
    )

    assert response.status_code == 200, response.content
    assert response.json()["token_type"] == "Bearer"
    assert api.get("/token", bearer=response.json()["access_token"]).status_code == 200


def test_form_fields_with_a_wrong_secret_are_refused(api):
    response = request_token(
        api.client,
        {"grant_type": "client_credentials", "client_id": str(api.token.client_id), "client_secret": "wrong"},
    )

    assert_oauth_error(response, 401, "invalid_client")


def test_basic_credentials_are_url_decoded(api):
    """RFC 6749 2.3.1: id and secret are form-encoded before they are put in the Basic header."""
    encode_all = lambda text: "".join(f"%{byte:02X}" for byte in text.encode())  # noqa: E731

    response = request_token(api.client, client_id=encode_all(str(api.token.client_id)), secret=encode_all(api.secret))

    assert response.status_code == 200, response.content


def test_scope_lists_the_rights_in_module_order(org, make_api):
    api = make_api(org, rights={"organization": "r", "login_checks": "r", "users": "rw", "transactions": "w"})

    response = token_of(api)

    assert response.json()["scope"] == "users:rw transactions:w login_checks:r organization:r"


def test_a_requested_scope_is_ignored_and_the_token_rights_apply(org, make_api):
    api = make_api(org, rights={"users": "r", "bookings": "rw"})

    response = request_token(
        api.client,
        {"grant_type": "client_credentials", "scope": "users:rw objects:r"},
        client_id=api.token.client_id,
        secret=api.secret,
    )

    assert response.status_code == 200, response.content
    assert response.json()["scope"] == "users:r bookings:rw"


def test_a_token_without_rights_gets_an_empty_scope(org, make_api):
    api = make_api(org, rights={})

    response = token_of(api)

    assert response.status_code == 200
    assert response.json()["scope"] == ""


def test_non_browser_clients_need_no_csrf_token(api):
    client = Client(enforce_csrf_checks=True)

    response = request_token(client, client_id=api.token.client_id, secret=api.secret)

    assert response.status_code == 200, response.content


def test_the_access_token_is_stored_only_as_a_checksum(api):
    access_token = token_of(api).json()["access_token"]

    stored = AccessToken.objects.get()
    assert stored.token == ""
    assert stored.token_checksum == hashlib.sha256(access_token.encode()).hexdigest()
    assert not RefreshToken.objects.exists()
    # Neither the access token nor the token's secret is anywhere in the database.
    for model in apps.get_models():
        rows = repr(list(model.objects.values()))
        assert access_token not in rows, model
        assert api.secret not in rows, model


# --- errors ----------------------------------------------------------------------------------------


def test_missing_grant_type_is_an_invalid_request(api):
    response = request_token(api.client, {}, client_id=api.token.client_id, secret=api.secret)

    assert_oauth_error(response, 400, "invalid_request")


@pytest.mark.parametrize("grant_type", ["password", "authorization_code", "refresh_token", "implicit"])
def test_other_grant_types_are_unsupported(api, grant_type):
    response = request_token(
        api.client,
        {"grant_type": grant_type, "username": "x", "password": "y", "code": "z", "refresh_token": "r"},
        client_id=api.token.client_id,
        secret=api.secret,
    )

    assert_oauth_error(response, 400, "unsupported_grant_type")


def test_wrong_secret_is_an_invalid_client(api):
    response = request_token(api.client, client_id=api.token.client_id, secret=api.secret + "x")

    assert_oauth_error(response, 401, "invalid_client")


@pytest.mark.parametrize("client_id", ["999999999", "9" * 30, "１２３", "-5", "not-a-number", ""])  # noqa: RUF001 - full-width digits on purpose
def test_unknown_client_id_is_an_invalid_client(api, client_id):
    response = request_token(api.client, client_id=client_id, secret=api.secret)

    assert_oauth_error(response, 401, "invalid_client")


def test_another_tokens_secret_is_an_invalid_client(api, other_api):
    response = request_token(api.client, client_id=api.token.client_id, secret=other_api.secret)

    assert_oauth_error(response, 401, "invalid_client")


def test_no_credentials_is_an_invalid_client(api):
    response = request_token(api.client)

    assert_oauth_error(response, 401, "invalid_client")


@pytest.mark.parametrize(
    "delete",
    [
        pytest.param(lambda token: api_token_delete(token=token), id="service"),
        pytest.param(lambda token: token.delete(), id="orm-instance"),
        pytest.param(lambda token: ApiToken.objects.filter(pk=token.pk).delete(), id="orm-queryset"),
    ],
)
def test_a_deleted_token_is_an_invalid_client(api, delete):
    assert token_of(api).status_code == 200

    delete(api.token)

    assert_oauth_error(token_of(api), 401, "invalid_client")


@pytest.mark.parametrize(
    ("allowed_ips", "remote_addr", "accepted"),
    [
        (["127.0.0.1"], "127.0.0.1", True),
        (["192.0.2.1"], "192.0.2.2", False),
        (["10.0.0.0/8"], "10.20.30.40", True),
        (["10.0.0.0/8"], "11.0.0.1", False),
        (["192.0.2.1", "198.51.100.0/24"], "198.51.100.77", True),
        (["192.0.2.1", "198.51.100.0/24"], "198.51.101.1", False),
        (["2001:db8::/32"], "2001:db8::5", True),
        (["2001:db8::/32"], "2001:db9::1", False),
    ],
)
def test_allowed_ips_take_addresses_and_cidr_ranges(org, make_api, allowed_ips, remote_addr, accepted):
    api = make_api(org, allowed_ips=allowed_ips)

    response = token_of(api, REMOTE_ADDR=remote_addr)

    if accepted:
        assert response.status_code == 200, response.content
    else:
        assert_oauth_error(response, 401, "invalid_client")


def test_owner_no_longer_administrator_is_an_invalid_client(api, admin):
    assert token_of(api).status_code == 200

    MemberRole.objects.filter(member__user=admin, role="admin").delete()

    assert_oauth_error(token_of(api), 401, "invalid_client")


def test_owner_must_be_administrator_of_the_tokens_own_organization(org, other_org, make_api):
    owner = MemberFactory(organization=org).user
    other_member = MemberFactory(organization=other_org, user=owner)
    MemberRole.objects.create(member=other_member, role="admin")
    api = make_api(org, owner=owner)

    assert_oauth_error(token_of(api), 401, "invalid_client")


def test_plain_http_is_refused_with_https_required(api):
    response = api.client.post(
        TOKEN_URL,
        {"grant_type": "client_credentials"},
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
    )

    assert_problem(response, 403, 10000)
    assert not AccessToken.objects.exists()


def test_other_methods_are_not_allowed(api):
    response = api.client.get(TOKEN_URL, secure=True)

    assert_problem(response, 405, 10050)
    assert "POST" in response["Allow"]


# --- counting --------------------------------------------------------------------------------------


def test_fetching_counts_as_one_call_of_the_token(api, frozen_time):
    fetched = token_of(api)
    assert fetched.status_code == 200
    assert fetched["RateLimit-Limit"] == "120"
    assert fetched["RateLimit-Remaining"] == "119"

    call = api.get("/token", bearer=fetched.json()["access_token"])

    assert call["RateLimit-Remaining"] == "118"


def test_fetching_past_the_limit_gives_429(api, frozen_time):
    for _ in range(120):
        assert api.get("/token", bearer=api.secret).status_code == 200

    response = token_of(api)

    body = assert_problem(response, 429, 10013)
    assert body["title"]
    assert int(response["Retry-After"]) >= 1
    assert response["RateLimit-Remaining"] == "0"
    assert not AccessToken.objects.exists()
