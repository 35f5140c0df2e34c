"""Problem Details, the error kinds' pages, unknown addresses, 405, 500 and the Request-Id header."""

import re

import pytest
from django.db import DatabaseError
from django.test import Client

from accounts.api import main_v5
from apicore.errors import Kind, codes_of_kind
from tests.conftest import BASE
from tests.factories import MembershipFactory
from tests.helpers import assert_problem, problem_fields, problem_messages

# --- unknown addresses and trailing slashes -----------------------------------------------------------------


@pytest.mark.parametrize("path", ["/nothing", "/member-ships", "/memberships/1/users", "/", "/v5", "/Memberships"])
def test_unknown_address_under_main_v5_is_json_404(api, path):
    assert_problem(api.get(path), 404, 10100)


def test_main_v5_itself_is_json_404(api):
    assert_problem(api.client.get(BASE, secure=True), 404, 10100)


def test_unknown_address_is_404_without_a_token(api):
    response = api.get("/nothing", bearer="")
    assert_problem(response, 404, 10100)


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_unknown_address_with_a_writing_method_is_json_404_without_csrf_check(api, method):
    # An integration never has a CSRF cookie; the API must not answer 403 with an HTML page.
    client = Client(enforce_csrf_checks=True)
    response = getattr(client, method)(
        f"{BASE}/memberships/",
        data="{}",
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )
    assert_problem(response, 404, 10100)


def test_unknown_version_path_is_json_404(api):
    response = api.client.get("/main/v9/memberships", secure=True)
    assert_problem(response, 404, 10100)


# --- Problem Details body ----------------------------------------------------------------------------------


def test_400_problem_has_every_key_and_validation_type(api):
    response = api.get("/memberships", {"colour": "red"})

    body = assert_problem(response, 400, 10007)
    assert body["type"] == "https://testserver/errors/validation"
    assert body["title"] == "Unknown parameter or field"
    assert problem_fields(body) == {"colour": 10007}
    assert "colour" in problem_messages(body)["colour"]
    assert set(body) <= {"type", "title", "status", "code", "request_id", "detail", "errors"}


def test_404_problem_has_not_found_type_and_no_errors(api):
    body = assert_problem(api.get("/memberships/123456"), 404, 10100)

    assert body["type"] == "https://testserver/errors/not-found"
    assert body["title"] == "Not found"
    assert "errors" not in body


def test_problem_type_uses_the_requested_host(api):
    response = api.client.get(f"{BASE}/nothing", secure=True, HTTP_HOST="localhost")
    assert response.json()["type"] == "https://localhost/errors/not-found"


# --- the error kinds' pages ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(Kind))
def test_every_error_kind_has_a_page_listing_its_codes(client, db, kind):
    response = client.get(f"/errors/{kind.value}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    text = response.content.decode()
    for error in codes_of_kind(kind):
        assert str(error.code) in text


def test_the_type_uri_of_a_problem_answers(api, client):
    type_uri = api.get("/memberships", {"colour": "red"}).json()["type"]
    path = re.sub(r"^https://[^/]+", "", type_uri)

    response = client.get(path)

    assert response.status_code == 200
    assert "10007" in response.content.decode()


def test_error_page_of_an_unknown_kind_is_404(client, db):
    assert client.get("/errors/teapot").status_code == 404


# --- 500 ------------------------------------------------------------------------------------------------


def test_fault_in_a_view_is_500_problem_10020(api, org, monkeypatch):
    def broken(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(main_v5.MembershipList, "get_queryset", broken)
    api.client.raise_request_exception = False

    response = api.get("/memberships")

    body = assert_problem(response, 500, 10020)
    assert body["type"] == "https://testserver/errors/internal"
    assert "boom" not in response.content.decode()


def test_database_error_in_a_view_is_500_problem_10010(api, org, monkeypatch):
    def broken(self):
        raise DatabaseError("relation does not exist")

    monkeypatch.setattr(main_v5.MembershipItem, "get_queryset", broken)
    api.client.raise_request_exception = False

    response = api.get("/memberships/1")

    body = assert_problem(response, 500, 10010)
    assert "relation" not in response.content.decode()
    assert body["request_id"] == response["Request-Id"]


# --- Request-Id ---------------------------------------------------------------------------------------------


def test_request_id_is_generated_on_success(api):
    response = api.get("/memberships")

    assert response.status_code == 200
    assert 0 < len(response["Request-Id"]) <= 64


def test_generated_request_ids_differ(api):
    first, second = api.get("/memberships"), api.get("/memberships")
    assert first["Request-Id"] != second["Request-Id"]


@pytest.mark.parametrize(
    ("path", "status"),
    [("/memberships", 200), ("/memberships?colour=red", 400), ("/memberships/999999", 404), ("/nothing", 404)],
)
def test_request_id_sent_by_the_client_is_returned(api, path, status):
    response = api.client.get(
        f"{BASE}{path}", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}", HTTP_REQUEST_ID="abc-123"
    )

    assert response.status_code == status
    assert response["Request-Id"] == "abc-123"
    if status >= 400:
        assert response.json()["request_id"] == "abc-123"


def test_request_id_of_64_characters_is_kept(api):
    given = "r" * 64
    response = api.get("/memberships/999999", HTTP_REQUEST_ID=given)

    assert response["Request-Id"] == given
    assert response.json()["request_id"] == given


def test_request_id_of_65_characters_is_replaced_and_the_call_goes_on(api):
    given = "r" * 65
    response = api.get("/memberships", HTTP_REQUEST_ID=given)

    assert response.status_code == 200
    assert response["Request-Id"] != given
    assert 0 < len(response["Request-Id"]) <= 64


def test_replaced_request_id_is_the_one_in_an_error_body(api):
    response = api.get("/memberships", {"colour": "red"}, HTTP_REQUEST_ID="x" * 65)

    assert_problem(response, 400, 10007)
    assert response.json()["request_id"] != "x" * 65


def test_request_id_is_on_401_and_405(api):
    unauthorized = api.get("/memberships", bearer="wrong", HTTP_REQUEST_ID="id-401")
    assert_problem(unauthorized, 401, 10001)
    assert unauthorized["Request-Id"] == "id-401"

    not_allowed = api.post("/memberships", json={}, HTTP_REQUEST_ID="id-405")
    assert_problem(not_allowed, 405, 10050)
    assert not_allowed["Request-Id"] == "id-405"


def test_request_id_is_on_a_500(api, monkeypatch):
    monkeypatch.setattr(main_v5.MembershipList, "get_queryset", lambda self: 1 / 0)
    api.client.raise_request_exception = False

    response = api.get("/memberships", HTTP_REQUEST_ID="id-500")

    assert_problem(response, 500, 10020)
    assert response["Request-Id"] == "id-500"


# --- text stays as it is ------------------------------------------------------------------------------------


def test_json_reply_keeps_non_ascii_text_as_utf8(api, org):
    MembershipFactory(organization=org, name="Årskort Västerås")

    response = api.get("/memberships")

    assert "Årskort Västerås".encode() in response.content
    assert b"\\u00" not in response.content
    assert response.json()["data"][0]["name"] == "Årskort Västerås"


def test_organization_name_keeps_non_ascii_text(api, org):
    response = api.get("/organization")

    assert "Västerås Flygklubb".encode() in response.content
    assert response.json()["data"]["name"] == "Västerås Flygklubb"


def test_problem_reply_keeps_non_ascii_text(api):
    response = api.get("/memberships", {"färg": "röd"})

    assert_problem(response, 400, 10007)
    assert "färg".encode() in response.content
    assert problem_fields(response) == {"färg": 10007}
