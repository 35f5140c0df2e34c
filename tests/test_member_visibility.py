"""The member's own choice on the account page whether other members see their email address and mobile number,
and what the Main API's bookings then show."""

import datetime as dt

import pytest
from django.test import Client

from accounts.models import User, UserEmail
from tests.admin_fixtures import web
from tests.factories import MemberFactory
from tests.factories_operations import BookingFactory

ACCOUNT = "/account/"


@pytest.fixture
def person(org) -> User:
    user = MemberFactory(
        organization=org,
        user__first_name="Anna",
        user__last_name="Berg",
        user__mobile_country_code="46",
        user__mobile_initial_number="70",
        user__mobile_number="1234567",
    ).user
    UserEmail.objects.create(user=user, position=0, address="anna@example.org")
    return user


def choices_on_page(response) -> dict:
    assert response.status_code == 200
    form = response.context["visibility_form"]
    return {name: form[name].value() for name in ("email_visible", "mobile_visible")}


def test_the_account_page_shows_the_current_choices(person):
    person.mobile_visible = False
    person.save()

    response = web(person).get(ACCOUNT)

    assert choices_on_page(response) == {"email_visible": True, "mobile_visible": False}
    html = response.content.decode()
    assert 'name="email_visible" id="id_email_visible" checked' in html
    assert 'name="mobile_visible" id="id_mobile_visible">' in html
    assert "Show my email address to other members" in html


def test_the_member_hides_and_shows_again(person):
    client = web(person)

    response = client.post(ACCOUNT, {"mobile_visible": "on"})  # email unticked

    assert response.status_code == 302 and response["Location"] == ACCOUNT
    person.refresh_from_db()
    assert (person.email_visible, person.mobile_visible) == (False, True)
    page = client.get(ACCOUNT)
    assert "Your choices are saved." in page.content.decode()
    assert choices_on_page(page) == {"email_visible": False, "mobile_visible": True}

    client.post(ACCOUNT, {"email_visible": "on"})
    person.refresh_from_db()
    assert (person.email_visible, person.mobile_visible) == (True, False)


def test_saving_changes_nothing_else_of_the_login(person):
    client = web(person)  # the login itself sets last_login
    before = User.objects.filter(pk=person.pk).values().get()

    client.post(ACCOUNT, {})

    after = User.objects.filter(pk=person.pk).values().get()
    assert {key: value for key, value in after.items() if before[key] != value} == {
        "email_visible": False,
        "mobile_visible": False,
    }


def test_only_a_logged_in_member_changes_their_own_choice(person, org):
    other = MemberFactory(organization=org).user

    response = Client().post(ACCOUNT, {})
    assert response.status_code == 302 and response["Location"].startswith("/login")
    web(other).post(ACCOUNT, {})  # the other member's own choice, never Anna's

    person.refresh_from_db()
    other.refresh_from_db()
    assert (person.email_visible, person.mobile_visible) == (True, True)
    assert (other.email_visible, other.mobile_visible) == (False, False)


def test_a_post_without_the_csrf_token_is_refused(person):
    client = Client(enforce_csrf_checks=True)
    client.force_login(person)

    assert client.post(ACCOUNT, {}).status_code == 403
    person.refresh_from_db()
    assert person.email_visible and person.mobile_visible


def test_the_bookings_api_follows_the_choice(api, org, person):
    booking = BookingFactory(organization=org, user=person, start_at=dt.datetime(2026, 11, 20, 9, 0, tzinfo=dt.UTC))
    shown = api.get(f"/bookings/{booking.pk}").json()["data"]["user"]
    assert (shown["email"], shown["mobile"]) == ("anna@example.org", "+46 701234567")

    web(person).post(ACCOUNT, {"mobile_visible": "on"})
    shown = api.get(f"/bookings/{booking.pk}").json()["data"]["user"]
    assert (shown["email"], shown["mobile"]) == (None, "+46 701234567")

    web(person).post(ACCOUNT, {"email_visible": "on"})
    shown = api.get(f"/bookings/{booking.pk}").json()["data"]["user"]
    assert (shown["email"], shown["mobile"]) == ("anna@example.org", None)
