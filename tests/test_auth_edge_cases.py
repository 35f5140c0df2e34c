"""Authentication edge cases found when holding the service against document 1."""

import pytest
from django.test import Client

from tests.conftest import BASE, basic


def test_a_method_the_address_lacks_is_405_even_for_a_token_without_the_right(make_api, org):
    reader = make_api(org, rights={"users": "r"})
    response = reader.post("/memberships", {})
    assert response.status_code == 405
    assert response.json()["code"] == 10050
    assert response["Allow"] == "GET, HEAD"
    nothing = make_api(org, rights={})
    assert nothing.delete("/memberships/1").status_code == 405


def test_the_right_is_still_checked_for_methods_the_address_has(make_api, org):
    reader = make_api(org, rights={"organization_settings": "r"})
    response = reader.post("/expiry-date-types", {"name": "Medical"})
    assert response.status_code == 403
    assert response.json()["code"] == 10002


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_the_bearer_scheme_is_case_insensitive(api, scheme):
    response = api.client.get(f"{BASE}/token", secure=True, HTTP_AUTHORIZATION=f"{scheme} {api.access_token}")
    assert response.status_code == 200


def test_basic_scheme_at_the_token_endpoint_is_case_insensitive(api):
    credentials = basic(str(api.token.client_id), api.secret).replace("Basic", "basic")
    response = Client().post(
        f"{BASE}/oauth/token", {"grant_type": "client_credentials"}, secure=True, HTTP_AUTHORIZATION=credentials
    )
    assert response.status_code == 200


def test_invalid_client_carries_the_bearer_challenge(api):
    response = Client().post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), "wrong"),
    )
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("sv", "Klient-id eller hemlighet godtas inte."),
        ("nb", "Klient-ID eller hemmelighet godtas ikke."),
        ("da", "Klient-id eller hemmelighed accepteres ikke."),
        ("en", "The client id or secret is not accepted."),
    ],
)
def test_oauth_error_description_follows_accept_language(api, language, text):
    response = Client().post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), "wrong"),
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.json() == {"error": "invalid_client", "error_description": text}


def test_missing_grant_type_is_described_in_swedish(api):
    response = Client().post(
        f"{BASE}/oauth/token",
        {},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
        HTTP_ACCEPT_LANGUAGE="sv",
    )
    assert response.status_code == 400
    assert response.json() == {"error": "invalid_request", "error_description": "grant_type måste anges."}


@pytest.mark.parametrize("method", ["options", "get", "put"])
def test_the_token_endpoint_offers_post_only(method):
    response = getattr(Client(), method)(f"{BASE}/oauth/token", secure=True)
    assert response.status_code == 405
    assert response["Allow"] == "POST"
