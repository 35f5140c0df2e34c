"""Under an API's address every reply is the API's own form, whatever the path or the body (docs/decisions.md
§1.31 "Only the API's form under an API's address"): Problem Details, or OAuth's error on the token and revoke
endpoints; never Django's HTML page, never a traceback in the log."""

import json
import logging

import pytest
from django.core import exceptions as django_exceptions
from django.http import Http404
from django.test import RequestFactory
from django.utils.module_loading import import_string

from config import urls
from tests.helpers import assert_problem

FORM_LATIN_1 = "application/x-www-form-urlencoded; charset=latin-1"


@pytest.mark.parametrize(
    "path",
    [
        "/main/v5/users%0A",
        "/main/v5/%0A",
        "/main/v5%0A",
        "/main/v5/users/1%0A",
        "/main/v5/oauth/token%0A",
        "/mobile/v5/%0A",
        "/mobile/v5/objects/1%0A",
        "/mobile/v5/me%0Ax",
        "/main/v5/users%0D%0A",
    ],
)
def test_a_path_with_a_line_break_is_a_json_404(client, db, path):
    response = client.get(path, secure=True)

    body = assert_problem(response, 404, 10100)
    assert body["detail"] == "No such address."


@pytest.mark.parametrize("path", ["/main/v5/oauth/token", "/mobile/v5/oauth/token", "/mobile/v5/oauth/revoke"])
def test_a_form_in_latin_1_is_oauths_invalid_request_without_a_traceback(client, db, path, caplog):
    caplog.set_level(logging.WARNING)

    response = client.post(
        path,
        "grant_type=client_credentials&name=\xe9",
        content_type=FORM_LATIN_1,
        secure=True,
        HTTP_ACCEPT_LANGUAGE="sv",
    )

    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["error"] == "invalid_request"
    assert isinstance(body["error_description"], str) and body["error_description"]
    assert [record for record in caplog.records if record.exc_info] == []


@pytest.mark.parametrize(
    ("handler", "exception", "status", "code"),
    [
        ("handler400", django_exceptions.BadRequest("not UTF-8"), 400, 10004),
        ("handler400", django_exceptions.SuspiciousOperation("odd"), 400, 10004),
        ("handler403", django_exceptions.PermissionDenied(), 403, 10002),
        ("handler404", Http404(), 404, 10100),
    ],
)
@pytest.mark.parametrize("path", ["/main/v5/users", "/mobile/v5/me"])
def test_djangos_own_refusals_under_an_api_address_are_problem_details(db, handler, exception, status, code, path):
    """What Django answers itself when something below a view raises outside DRF (its handler400, 403, 404)."""
    request = RequestFactory().post(path, secure=True)
    request.request_id = "r1"

    response = import_string(getattr(urls, handler))(request, exception)
    response["Request-Id"] = request.request_id
    response.json = lambda: json.loads(response.content)  # what the test client adds to its replies

    assert_problem(response, status, code)


@pytest.mark.parametrize("handler", ["handler400", "handler403", "handler404"])
def test_the_websites_keep_djangos_pages(db, handler):
    request = RequestFactory().get("/account/")

    response = import_string(getattr(urls, handler))(request, django_exceptions.BadRequest())

    assert response["Content-Type"].startswith("text/html")
