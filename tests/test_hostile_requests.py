"""Requests that Django, DRF or gunicorn would refuse on their own (with HTML or a 500) get the API's answer
(../shared/DECISIONS.md "Hostile input"; docs/decisions.md §1.22 to §1.26): a body over 1 MiB, a form with too
many fields, a wrong Host, a too long request line, and every exception of DRF and Django raised below an
endpoint."""

import http.client
import io
import json

import pytest
from django.core import exceptions as django_exceptions
from django.http import Http404
from django.urls import path
from rest_framework import exceptions as drf_exceptions

from accounts.models import ExpiryDateType
from apicore.views import Endpoint
from config.urls import urlpatterns as service_urlpatterns
from main_api.flavour_v5 import MainV5Api
from tests.conftest import BASE, basic
from tests.helpers import PROBLEM_CONTENT_TYPE

MIB = 1024 * 1024
BIG = 3 * MIB
TOKEN_URL = f"{BASE}/oauth/token"
FORM = "application/x-www-form-urlencoded"


# --- test endpoints: each raises one of DRF's or Django's own exceptions --------------------------------

RAISED = {
    "django-permission-denied": django_exceptions.PermissionDenied,
    "drf-permission-denied": drf_exceptions.PermissionDenied,
    "drf-validation-error": lambda: drf_exceptions.ValidationError({"name": ["Too short."]}),
    "django-validation-error": lambda: django_exceptions.ValidationError({"name": "Too short."}),
    "throttled": lambda: drf_exceptions.Throttled(wait=6.2),
    "not-acceptable": drf_exceptions.NotAcceptable,
    "not-authenticated": drf_exceptions.NotAuthenticated,
    "suspicious-operation": django_exceptions.SuspiciousOperation,
    "request-data-too-big": django_exceptions.RequestDataTooBig,
    "too-many-fields-sent": django_exceptions.TooManyFieldsSent,
    "disallowed-host": django_exceptions.DisallowedHost,
    "bad-request": django_exceptions.BadRequest,
    "http404": Http404,
    "drf-not-found": drf_exceptions.NotFound,
    "unsupported-media-type": lambda: drf_exceptions.UnsupportedMediaType("text/plain"),
    "api-exception-400": lambda: type("Refused", (drf_exceptions.APIException,), {"status_code": 400})(),
    "api-exception-500": drf_exceptions.APIException,
}


class Raiser(MainV5Api, Endpoint):
    """GET raises the exception its address names."""

    def get(self, request, name):
        raise RAISED[name]()


urlpatterns = [path("main/v5/raise/<slug:name>", Raiser.as_view()), *service_urlpatterns]

# (status, code, kind of the problem type) each exception answers.
EXPECTED = {
    "django-permission-denied": (403, 10002, "forbidden"),
    "drf-permission-denied": (403, 10002, "forbidden"),
    "drf-validation-error": (400, 10006, "validation"),
    "django-validation-error": (400, 10006, "validation"),
    "throttled": (429, 10013, "too-many-requests"),
    "not-acceptable": (400, 10005, "validation"),
    "not-authenticated": (401, 10001, "unauthorized"),
    "suspicious-operation": (400, 10004, "validation"),
    "request-data-too-big": (413, 10004, "validation"),
    "too-many-fields-sent": (400, 10005, "validation"),
    "disallowed-host": (400, 10005, "validation"),
    "bad-request": (400, 10004, "validation"),
    "http404": (404, 10100, "not-found"),
    "drf-not-found": (404, 10100, "not-found"),
    "unsupported-media-type": (415, 10004, "validation"),
    "api-exception-400": (400, 10004, "validation"),
    "api-exception-500": (500, 10020, "internal"),
}


def assert_problem_of(response, status: int, code: int, kind: str) -> dict:
    """Problem Details with this status, code and kind (tests.helpers.assert_problem knows one kind per
    status; 413 and 414 are statuses of the kind `validation`)."""
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert (body["status"], body["code"]) == (status, code), body
    assert body["type"] == f"https://{body['type'].split('/')[2]}/errors/{kind}", body
    assert body["title"] and body["request_id"] == response["Request-Id"]
    return body


def chunked(body: bytes, content_type: str = "application/json") -> dict:
    """Request META of a body sent with Transfer-Encoding: chunked and no Content-Length (as gunicorn gives
    it to the application: the decoded body in wsgi.input)."""
    return {
        "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": "",
        "CONTENT_TYPE": content_type,
        "HTTP_TRANSFER_ENCODING": "chunked",
    }


def json_of_size(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    head, tail = b'{"name":"', b'"}'
    return head + b"a" * (size - len(head) - len(tail)) + tail


pytestmark = pytest.mark.urls("tests.test_hostile_requests")


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_drf_and_django_exceptions_answer_their_problem(api, name):
    status, code, kind = EXPECTED[name]

    response = api.get(f"/raise/{name}")

    body = assert_problem_of(response, status, code, kind)
    if name in ("drf-validation-error", "django-validation-error"):
        assert body["errors"] == [{"field": "name", "code": 10006, "message": "Too short."}]
    if name == "throttled":
        assert response["Retry-After"] == "7"
    if name == "not-authenticated":
        assert response["WWW-Authenticate"] == "Bearer"
    if name == "not-acceptable":
        assert [item["field"] for item in body["errors"]] == ["Accept"]


def test_too_many_query_parameters_are_a_parameter_problem(api):
    query = "&".join(f"p{number}=1" for number in range(1200))

    response = api.client.get(f"{BASE}/users?{query}", secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}")

    assert_problem_of(response, 400, 10005, "validation")


# --- bodies over 1 MiB ----------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413_before_anything_else(api):
    response = api.client.post(
        f"{BASE}/expiry-date-types", json_of_size(BIG), content_type="application/json", secure=True
    )  # no token: the size is refused first

    body = assert_problem_of(response, 413, 10004, "validation")
    assert str(MIB) in body["detail"]


def test_a_body_over_the_limit_is_413_with_a_token_and_nothing_is_saved(api):
    response = api.client.post(
        f"{BASE}/expiry-date-types",
        json_of_size(MIB + 1),
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    assert_problem_of(response, 413, 10004, "validation")
    assert not ExpiryDateType.objects.filter(name__startswith="aaaa").exists()


def test_a_body_of_exactly_the_limit_is_read(api):
    response = api.client.post(
        f"{BASE}/expiry-date-types",
        json_of_size(MIB),
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    # Read and judged by its fields (the name is too long), not refused for its size.
    assert_problem_of(response, 400, 10006, "validation")


def test_a_body_on_any_api_address_is_limited(api):
    response = api.client.generic(
        "GET", f"{BASE}/users", b"x" * BIG, secure=True, HTTP_AUTHORIZATION=f"Bearer {api.access_token}"
    )

    assert_problem_of(response, 413, 10004, "validation")


def test_a_chunked_body_over_the_limit_is_413(api):
    response = api.client.generic(
        "POST",
        f"{BASE}/expiry-date-types",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
        **chunked(json_of_size(BIG)),
    )

    assert_problem_of(response, 413, 10004, "validation")
    assert not ExpiryDateType.objects.filter(name__startswith="aaaa").exists()


def test_a_chunked_body_within_the_limit_is_read(api):
    response = api.client.generic(
        "POST",
        f"{BASE}/expiry-date-types",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
        **chunked(json.dumps({"name": "Chunked"}).encode()),
    )

    assert response.status_code == 201, response.content
    assert ExpiryDateType.objects.filter(name="Chunked").exists()


# --- the token endpoint answers in OAuth's error form -------------------------------------------------


def assert_oauth_invalid_request(response, status: int) -> dict:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"] == "application/json"
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"error", "error_description"}
    assert body["error"] == "invalid_request"
    return body


def test_a_token_form_over_the_limit_is_413_invalid_request_in_the_callers_language(client, db):
    form = b"grant_type=client_credentials&pad=" + b"a" * BIG

    response = client.post(TOKEN_URL, form, content_type=FORM, secure=True, HTTP_ACCEPT_LANGUAGE="sv")

    body = assert_oauth_invalid_request(response, 413)
    assert body["error_description"] == "Begäran om token är inte giltig."


def test_a_chunked_token_form_over_the_limit_is_413_invalid_request(client, db):
    form = b"grant_type=client_credentials&pad=" + b"a" * BIG

    response = client.generic("POST", TOKEN_URL, secure=True, **chunked(form, FORM))

    body = assert_oauth_invalid_request(response, 413)
    assert body["error_description"] == "The token request is not valid."


def test_a_token_form_with_1200_fields_is_400_invalid_request_in_the_callers_language(client, db):
    form = "grant_type=client_credentials&" + "&".join(f"f{number}=1" for number in range(1200))

    response = client.post(TOKEN_URL, form, content_type=FORM, secure=True, HTTP_ACCEPT_LANGUAGE="da")

    body = assert_oauth_invalid_request(response, 400)
    assert body["error_description"] not in ("", "The token request is not valid.")  # Danish


def test_a_multipart_token_form_without_a_boundary_is_400_invalid_request(client, db):
    """Found by schemathesis: the form could not be read and Django answered its HTML page (and logged a fault)."""
    response = client.post(TOKEN_URL, "grant_type=client_credentials", content_type="multipart/form-data", secure=True)

    assert_oauth_invalid_request(response, 400)


def test_a_chunked_token_form_within_the_limit_is_read(api):
    response = api.client.generic(
        "POST",
        TOKEN_URL,
        secure=True,
        HTTP_AUTHORIZATION=basic(str(api.token.client_id), api.secret),
        **chunked(b"grant_type=client_credentials", FORM),
    )

    assert response.status_code == 200, response.content
    assert response.json()["token_type"] == "Bearer"


# --- a Host that is not ours --------------------------------------------------------------------------


@pytest.mark.parametrize("address", ["/users", "/oauth/token", "/no-such-address"])
def test_a_wrong_host_on_an_api_address_is_a_parameter_problem_naming_host(client, db, address):
    response = client.post(f"{BASE}{address}", {}, secure=True, HTTP_HOST="evil.example")

    body = assert_problem_of(response, 400, 10005, "validation")
    assert body["errors"] == [{"field": "Host", "code": 10005, "message": "Not a host name of this service."}]
    assert "evil.example" not in response.content.decode()  # never echoed (type names our own host)
    assert body["type"] == "https://localhost/errors/validation"


def test_a_wrong_host_on_the_mobile_api_too(client, db):
    response = client.get("/mobile/v5/users", secure=True, HTTP_HOST="evil.example")

    assert_problem_of(response, 400, 10005, "validation")


def test_the_website_keeps_djangos_page_for_a_wrong_host(client, db):
    response = client.get("/login", secure=True, HTTP_HOST="evil.example")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


# --- against gunicorn: what it refuses before the application ----------------------------------------


@pytest.fixture
def gunicorn(tmp_path):
    """The service under gunicorn with config/gunicorn.conf.py, on loopback, on a SQLite file and local
    memory counters (nothing here needs the test database's rows)."""
    from bench.server import Gunicorn, service_env

    env = service_env(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", redis_url="")
    server = Gunicorn(env, workers=1, start_timeout=30, log_path=tmp_path / "gunicorn.log")
    try:
        yield server.start()
    finally:
        server.stop()


class Reply:
    """A bench.server reply as assert_problem_of reads it."""

    def __init__(self, reply):
        self.status_code = reply.status
        self.content = reply.body
        self._headers = reply.headers

    def __getitem__(self, name):
        return self._headers[name.lower()]

    def json(self):
        return json.loads(self.content)


@pytest.mark.live
def test_gunicorn_answers_too_long_request_lines_in_problem_details(gunicorn):
    # Up to gunicorn's limit (8190) the application answers: an unknown address of 5,000 characters.
    reached = Reply(gunicorn.get(f"{BASE}/{'x' * 5000}"))
    # Beyond it, gunicorn's own refusal, in the API's form.
    refused = Reply(gunicorn.get(f"{BASE}/users?name={'x' * 9000}"))

    assert_problem_of(reached, 404, 10100, "not-found")
    body = assert_problem_of(refused, 414, 10005, "validation")
    assert "8190" in body["detail"]
    assert body["type"] == "https://127.0.0.1/errors/validation"


def send_chunked(port: int, path: str, body: bytes) -> Reply:
    """POST `body` with Transfer-Encoding: chunked (no Content-Length), in pieces of 64 KiB."""
    from bench.server import HOST
    from bench.server import Reply as BenchReply

    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        pieces = (body[i : i + 65536] for i in range(0, len(body), 65536))
        conn.request("POST", path, body=pieces, headers={"Content-Type": "application/json"}, encode_chunked=True)
        response = conn.getresponse()
        reply = BenchReply(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read(), 0)
    finally:
        conn.close()
    return Reply(reply)


@pytest.mark.live
def test_gunicorn_chunked_and_declared_bodies_over_the_limit_are_413(gunicorn):
    big = json_of_size(BIG)

    declared = Reply(
        gunicorn.request(
            "POST", f"{BASE}/expiry-date-types", headers={"Content-Type": "application/json"}, body=big, timeout=30
        )
    )
    sent_chunked = send_chunked(gunicorn.port, f"{BASE}/expiry-date-types", big)
    # Within the limit, a chunked body reaches the endpoint (here: 401, no token), not a 413.
    small = send_chunked(gunicorn.port, f"{BASE}/expiry-date-types", b'{"name": "Chunked"}')

    assert_problem_of(declared, 413, 10004, "validation")
    assert_problem_of(sent_chunked, 413, 10004, "validation")
    assert_problem_of(small, 401, 10001, "unauthorized")


@pytest.mark.live
def test_gunicorn_wrong_host_is_problem_details(gunicorn):
    reply = Reply(gunicorn.request("GET", f"{BASE}/users", headers={"Host": "evil.example"}))

    assert_problem_of(reply, 400, 10005, "validation")
