"""The demo world's `"mobile"` key (issue 10, Demo world; issue 11, Demo world): the app clients it names exist
and work, its members can log in, and the data the app shows them is there: bookable aircraft with and without
a queue, flights as pilot and as instructor, more than a year of transactions with a `#` note, bookings of the
other member in the coming weeks, and pictures of some aircraft. The world is built once for the module and
rolled back."""

import datetime as dt
import io

import pytest
from django.contrib.auth.hashers import check_password
from django.db import transaction
from django.test import override_settings
from PIL import Image

from accounts.models import ExpiryDateType, Member, Organization, UserExpiryDate
from accounts.services.logins import matching_login
from apicore import clock
from bookings.models import Booking
from demo.world import build_world
from economy.models import Transaction
from flightlog.models import FlightLogEntry
from mobile_api.models import AppClient
from mobile_api.services.logins import member_may_use_app, members_for_app
from objects_app.models import BookableObject, Category

KINDS = ("public", "confidential")


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    media = override_settings(MEDIA_ROOT=tmp_path_factory.mktemp("media"))
    with django_db_blocker.unblock(), media, transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)


@pytest.fixture
def mobile(world, db):
    return world["mobile"]


@pytest.fixture
def club(world, db):
    return Organization.objects.get(pk=world["organization"]["id"])


@pytest.fixture
def member(mobile, club):
    return Member.objects.select_related("user").get(user_id=mobile["member"]["id"], organization=club)


def test_the_key_has_the_shape_the_issue_gives(mobile):
    assert set(mobile) == {"base_url", "clients", "member", "other_member"}
    assert mobile["base_url"] == "/mobile/v5"
    assert set(mobile["clients"]) == set(KINDS)
    assert set(mobile["clients"]["public"]) == {"client_id", "redirect_uri"}
    assert set(mobile["clients"]["confidential"]) == {"client_id", "secret", "redirect_uri"}
    for key in ("member", "other_member"):
        assert set(mobile[key]) == {"id", "username", "password"}
        assert isinstance(mobile[key]["id"], int)
    assert mobile["member"]["id"] != mobile["other_member"]["id"]


def test_the_clients_exist_unrevoked_with_their_redirect_address_and_key(mobile, club, member):
    for kind in KINDS:
        given = mobile["clients"][kind]
        client = AppClient.objects.select_related("application").get(application__client_id=given["client_id"])
        assert not client.revoked
        assert client.confidential is (kind == "confidential")
        assert client.application.client_type == kind
        # Registered exactly, in the app's own scheme (reverse-domain form), never http(s) for the demo app.
        assert client.redirect_uris == [given["redirect_uri"]]
        assert client.application.redirect_uris.split() == [given["redirect_uri"]]
        scheme = given["redirect_uri"].split(":", 1)[0]
        assert "." in scheme and scheme not in ("http", "https")
        assert client.allows("bookings", "w") and client.allows("bookings", "r")
        for module in ("organization", "objects", "flightlogs", "transactions"):
            assert client.allows(module, "r")
        assert member_may_use_app(member=member, app_client=client)
        # One organization only: the consent page asks no question of the member.
        assert [m.organization_id for m in members_for_app(user=member.user, app_client=client)] == [club.pk]
    confidential = AppClient.objects.get(application__client_id=mobile["clients"]["confidential"]["client_id"])
    stored = confidential.application.client_secret
    assert stored != mobile["clients"]["confidential"]["secret"]  # kept hashed
    assert check_password(mobile["clients"]["confidential"]["secret"], stored)
    assert not check_password(mobile["clients"]["confidential"]["secret"] + "x", stored)
    assert not confidential.organizations.exists()  # every organization
    public = AppClient.objects.get(application__client_id=mobile["clients"]["public"]["client_id"])
    assert list(public.organizations.values_list("id", flat=True)) == [club.pk]


def test_both_members_log_in_with_the_given_password_in_the_same_club(mobile, club):
    for key in ("member", "other_member"):
        given = mobile[key]
        user = matching_login(username=given["username"], password=given["password"], organization=club)
        assert user is not None and user.pk == given["id"]
        assert matching_login(username=given["username"], password=given["password"] + "x") is None
    assert Member.objects.filter(user_id=mobile["other_member"]["id"], organization=club, active=True).exists()


def test_the_member_may_book_an_aircraft_with_a_queue_and_one_without(member, club):
    today = clock.today_in(club.timezone)
    aircraft = BookableObject.objects.filter(organization=club, category=Category.AIRCRAFT, active=True)
    assert aircraft.filter(queue_allowed=True).exists()
    assert aircraft.filter(queue_allowed=False).exists()
    assert club.latitude is not None and club.longitude is not None
    # Booking rule 4: every date a booking needs (and not only warns about) is valid for weeks to come.
    needed = ExpiryDateType.objects.filter(organization=club, booking_required=True, booking_warning_only=False)
    assert needed.exists()
    for expiry_type in needed:
        date = UserExpiryDate.objects.get(member=member, type=expiry_type)
        assert date.expiry_date >= today + dt.timedelta(days=30), expiry_type.name
    assert member.active and not member.locked and not member.user.locked_login
    # No queue booking on an aircraft that allows none.
    assert not Booking.objects.filter(object__queue_allowed=False, is_primary=False).exists()


def test_the_member_flies_as_pilot_and_as_instructor(member, club):
    flights = FlightLogEntry.objects.filter(object__organization=club)
    assert flights.filter(pilot=member).count() >= 3
    assert flights.filter(instructor=member).count() >= 3


def test_the_member_has_more_than_a_year_of_transactions_with_a_note(member, club):
    today = clock.today_in(club.timezone)
    own = Transaction.objects.filter(organization=club, user=member.user)
    assert own.count() >= 6
    assert own.filter(date__lt=today - dt.timedelta(days=366)).exists()
    assert own.filter(date__gte=today - dt.timedelta(days=60)).exists()
    balance = sum(own.values_list("amount", flat=True))
    assert 0 < balance < 5000  # deposits keep it about even: an app's lobby shows a club member's balance
    noted = own.filter(comment__contains="#")
    assert noted.count() == 1
    assert noted.get().comment.split("#")[0].strip()  # something left for the member to read


def test_the_other_member_has_bookings_in_the_coming_weeks(mobile, club):
    now = clock.now()
    coming = Booking.objects.filter(
        user_id=mobile["other_member"]["id"],
        object__organization=club,
        start_at__gt=now,
        start_at__lt=now + dt.timedelta(days=21),
    )
    assert coming.count() >= 2
    assert coming.filter(is_primary=True).exists()


def test_some_aircraft_have_a_picture_and_some_none(world, club):
    aircraft = BookableObject.objects.filter(category=Category.AIRCRAFT)
    with_picture = aircraft.exclude(thumbnail="")
    assert with_picture.filter(organization=club).count() >= 2
    assert aircraft.filter(organization=club, active=True, thumbnail="").exists()
    assert with_picture.filter(pk=world["operations"]["shared_object"]["id"]).exists()  # a shared one too
    for obj in with_picture:
        with obj.thumbnail.open("rb") as file:
            image = Image.open(io.BytesIO(file.read()))
            assert image.format == "JPEG"
            assert image.size == (600, 400)


def test_the_second_club_has_an_aircraft_of_its_own_with_bookings_flights_and_a_charge(world):
    second = world["second_organization"]["id"]
    own = BookableObject.objects.filter(organization_id=second, category=Category.AIRCRAFT, shares__isnull=True)
    assert own.exists()
    obj = own.first()
    assert Booking.objects.filter(object=obj).exists()
    assert FlightLogEntry.objects.filter(object=obj).exists()
    assert Transaction.objects.filter(organization_id=second, flightlog__object=obj).exists()
