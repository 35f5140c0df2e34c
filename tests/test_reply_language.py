"""One language per reply (docs/decisions.md §1.33): a refusal whose texts are the member's (Mobile's booking
rules, booking off, member locked) gives its `title` in the request's language too, not an English title over a
Swedish `detail`; every other refusal, of either API, is English throughout whatever Accept-Language says."""

import pytest
from django.utils import translation

from apicore.errors import ErrorCode
from tests.helpers import assert_problem
from tests.mobile_booking_helpers import (  # noqa: F401 (the fixtures of these tests)
    BookingApi,
    aircraft_fixture,
    app_client_fixture,
    at,
    booking_of,
    club_fixture,
    katana_fixture,
    member_fixture,
    now_fixture,
)
from tests.mobile_helpers import issue_member_tokens

# Accept-Language -> (title, detail) of 403 10301 and of a booking rule's 409 10300.
BOOKING_OFF = {
    "sv": ("Bokningen är avstängd", "Bokningen är avstängd i din klubb."),
    "nb": ("Booking er slått av", "Booking er slått av i klubben din."),
    "da": ("Booking er slået fra", "Booking er slået fra i din klub."),
    "en": ("Booking is switched off", "Booking is switched off in your club."),
}
RULE = {
    "sv": ("En bokningsregel stoppade åtgärden", "Objektet är redan bokat den tiden."),
    "nb": ("En bookingregel stoppet handlingen", "Objektet er allerede booket på det tidspunktet."),
    "da": ("En bookingregel stoppede handlingen", "Objektet er allerede booket på det tidspunkt."),
    "en": ("A booking rule stopped the action", "The object is already booked at that time."),
}
LANGUAGES = ["sv", "nb", "da", "en"]


@pytest.fixture
def mobile(member, app_client):
    """The Mobile API as the club's member (`api` is the Main API)."""
    return BookingApi(issue_member_tokens(member, app_client).access_token)


@pytest.mark.parametrize("language", LANGUAGES)
def test_mobile_booking_off_has_title_and_detail_in_the_requests_language(mobile, club, now, language):
    club.booking_enabled = False
    club.save()

    body = assert_problem(mobile.get("/bookings", HTTP_ACCEPT_LANGUAGE=language), 403, 10301)

    assert (body["title"], body["detail"]) == BOOKING_OFF[language]


@pytest.mark.parametrize("language", LANGUAGES)
def test_mobile_a_booking_rule_refusal_is_in_one_language(mobile, club, katana, now, language):
    booking_of(club, katana, start=at(14), end=at(16))

    response = mobile.book(katana.pk, at(15), at(17), HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")

    body = assert_problem(response, 409, 10300)
    title, text = RULE[language]
    assert (body["title"], body["detail"], body["errors"][0]["message"]) == (title, text, text)


def test_mobile_another_language_than_ours_is_english_throughout(mobile, club, now):
    club.booking_enabled = False
    club.save()

    body = assert_problem(mobile.get("/bookings", HTTP_ACCEPT_LANGUAGE="de"), 403, 10301)

    assert (body["title"], body["detail"]) == BOOKING_OFF["en"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_mobile_a_refusal_with_an_english_detail_keeps_an_english_title(mobile, club, member, aircraft, now, language):
    """Field problems stay English (§5.6): so does the title, not a Swedish title over an English detail."""
    booking = booking_of(club, aircraft, user=member.user, start=at(14), end=at(16))

    response = mobile.post(f"/bookings/{booking.pk}/cancel", {"why": "x"}, HTTP_ACCEPT_LANGUAGE=language)

    body = assert_problem(response, 400, 10007)
    assert (body["title"], body["detail"]) == ("Unknown parameter or field", "Check why.")
    assert body["errors"][0]["message"] == "why is not a field of this request."


@pytest.mark.parametrize("language", LANGUAGES)
def test_mobile_a_404_without_detail_has_an_english_title(mobile, now, language):
    body = assert_problem(mobile.get("/bookings/999999", HTTP_ACCEPT_LANGUAGE=language), 404, 10100)

    assert body["title"] == "Not found"


@pytest.mark.parametrize("language", LANGUAGES)
def test_main_a_refusal_is_english_throughout(api, language):
    """The Main API's texts are for an integration's developers (../shared/DECISIONS.md "Languages" lists the
    member's texts): its replies are in English whatever Accept-Language asks, titles and details alike."""
    response = api.post("/expiry-date-types", {"name": "Medical", "colour": "red"}, HTTP_ACCEPT_LANGUAGE=language)

    body = assert_problem(response, 400, 10007)
    assert body["title"] == "Unknown parameter or field"
    assert body["detail"] == "Check colour."
    assert body["errors"][0]["message"] == "colour is not a field of this request."


@pytest.mark.parametrize("language", LANGUAGES)
def test_main_a_404_is_english_throughout(api, language):
    body = assert_problem(api.get("/no-such-address", HTTP_ACCEPT_LANGUAGE=language), 404, 10100)

    assert (body["title"], body["detail"]) == ("Not found", "No such address.")


@pytest.mark.parametrize("language", ["sv", "nb", "da"])
def test_every_title_exists_in_every_language(language):
    """A refusal of any code can be the member's: its title must exist in each of our languages."""
    with translation.override(language):
        untranslated = [error.name for error in ErrorCode if error.title_in_language() == error.title]
    assert untranslated == []
