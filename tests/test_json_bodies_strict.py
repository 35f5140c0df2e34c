"""JSON bodies are read strictly (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §1.32 "JSON bodies:
media type and repeated names"): a body comes as application/json (no charset, or UTF-8 in any letter case),
anything else is 415 (10004) in Problem Details; an object that gives a name twice is 400 10004, so that
`{"password": "wrong", "password": "right"}` never passes a login check. On both APIs' JSON endpoints; the
OAuth endpoints take forms and keep doing so."""

import pytest

from accounts.models import ExpiryDateType
from apicore import jsonbody
from bookings.models import Booking
from tests.factories import MemberFactory
from tests.helpers import assert_problem
from tests.mobile_booking_helpers import (  # noqa: F401 (the fixtures of these tests)
    BookingApi,
    aircraft_fixture,
    app_client_fixture,
    at,
    booking_of,
    club_fixture,
    member_fixture,
    now_fixture,
)
from tests.mobile_helpers import issue_member_tokens

PASSWORD = "secret-pass-1"  # UserFactory's
TYPE_BODY = b'{"name": "Medical"}'

REFUSED_MEDIA_TYPES = [
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=xyz",
    "application/xml",
    "text/xml",
    "application/json; charset=latin-1",
    "application/json; charset=utf-16",
    "application/problem+json",
    "application/octet-stream",
    "",
]
ACCEPTED_MEDIA_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "application/json; charset=UTF-8",
    "application/json;charset=Utf-8",
    'application/json; charset="utf-8"',
    "Application/JSON",
]


def main_post(api, path: str, raw: bytes, content_type: str):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {api.access_token}"}
    return api.client.generic("POST", f"/main/v5{path}", raw, content_type=content_type, secure=True, **headers)


@pytest.fixture
def mobile(member, app_client):
    """The Mobile API as the club's member (`api` is the Main API here)."""
    return BookingApi(issue_member_tokens(member, app_client).access_token)


@pytest.fixture(name="member_of_org")
def member_of_org_fixture(org):
    return MemberFactory(organization=org, user__username="anna.berg")


# --- the media type -------------------------------------------------------------------------------------


@pytest.mark.parametrize("content_type", REFUSED_MEDIA_TYPES)
def test_main_a_json_body_of_another_media_type_is_415(api, content_type):
    response = main_post(api, "/expiry-date-types", TYPE_BODY, content_type)

    body = assert_problem(response, 415, 10004)
    assert "application/json" in body["detail"]
    assert not ExpiryDateType.objects.exists()


@pytest.mark.parametrize("content_type", ACCEPTED_MEDIA_TYPES)
def test_main_application_json_with_no_charset_or_utf8_is_read(api, content_type):
    response = main_post(api, "/expiry-date-types", TYPE_BODY, content_type)

    assert response.status_code == 201, response.content
    assert ExpiryDateType.objects.get().name == "Medical"


def test_main_a_login_check_sent_as_a_form_is_415(api, member_of_org):
    raw = b'{"username": "anna.berg", "password": "secret-pass-1"}'

    assert_problem(main_post(api, "/login-checks", raw, "application/x-www-form-urlencoded"), 415, 10004)


def test_main_a_patch_sent_as_text_is_415(api):
    made = ExpiryDateType.objects.create(organization=api.token.organization, name="Medical")
    headers = {"HTTP_AUTHORIZATION": f"Bearer {api.access_token}"}

    response = api.client.patch(
        f"/main/v5/expiry-date-types/{made.pk}", b'{"name": "Other"}', content_type="text/plain", secure=True, **headers
    )

    assert_problem(response, 415, 10004)
    made.refresh_from_db()
    assert made.name == "Medical"


def test_mobile_a_json_body_of_another_media_type_is_415(mobile, club, member, aircraft, now):
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))

    response = mobile.call("POST", f"/bookings/{booking.pk}/cancel", data=b'{"reason": "x"}', content_type="text/plain")

    assert_problem(response, 415, 10004)
    assert Booking.objects.filter(pk=booking.pk).exists()


def test_mobile_a_booking_sent_as_a_form_is_415(mobile, aircraft, now):
    raw = f'{{"object_id": {aircraft.pk}, "start_at": "2026-11-25T14:00:00Z", "end_at": "2026-11-25T15:00:00Z"}}'

    response = mobile.call("POST", "/bookings", data=raw, content_type="application/x-www-form-urlencoded")

    assert_problem(response, 415, 10004)
    assert not Booking.objects.exists()


def test_mobile_application_json_with_utf8_in_capitals_is_read(mobile, club, member, aircraft, now):
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))

    response = mobile.call(
        "POST", f"/bookings/{booking.pk}/cancel", data=b"{}", content_type="application/json; charset=UTF-8"
    )

    assert response.status_code == 200, response.content


def test_an_empty_body_is_400_whatever_its_media_type(api):
    assert_problem(main_post(api, "/expiry-date-types", b"", "text/plain"), 400, 10004)


# --- repeated names -------------------------------------------------------------------------------------


def test_main_a_repeated_password_never_passes_a_login_check(api, member_of_org):
    raw = b'{"username": "anna.berg", "password": "wrong", "password": "' + PASSWORD.encode() + b'"}'

    response = main_post(api, "/login-checks", raw, "application/json")

    body = assert_problem(response, 400, 10004)
    assert '"password"' in body["detail"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"name": "A", "name": "B"}',
        b'{"name": "A", "name": "A"}',
        b'{"name": "A", "n\\u0061me": "B"}',  # the same name, written with an escape
    ],
)
def test_main_a_repeated_name_is_10004_and_nothing_is_saved(api, raw):
    assert_problem(main_post(api, "/expiry-date-types", raw, "application/json"), 400, 10004)
    assert not ExpiryDateType.objects.exists()


def test_main_a_repeated_name_in_a_nested_object_is_10004(api, org):
    raw = b'{"name": "A", "extra": {"x": 1, "x": 2}}'

    assert_problem(main_post(api, "/expiry-date-types", raw, "application/json"), 400, 10004)


def test_mobile_a_repeated_name_is_10004(mobile, club, member, aircraft, now):
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))

    response = mobile.post(f"/bookings/{booking.pk}/cancel", raw=b'{"reason": "a", "reason": "b"}')

    assert_problem(response, 400, 10004)
    assert Booking.objects.filter(pk=booking.pk).exists()


def test_names_that_differ_only_in_letter_case_are_two_names():
    assert jsonbody.parse(b'{"a": 1, "A": 2}') == {"a": 1, "A": 2}


# --- the OAuth endpoints keep their forms -----------------------------------------------------------------


def test_the_token_endpoint_still_takes_a_form(api):
    assert api.fetch_access_token()
