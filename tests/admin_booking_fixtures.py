"""What the tests of the bookings page share: the organization's aircraft SE-KBA, its members Anna Berg and
Erik Lund, bookings made directly, and the add form as a browser sends it (times in the organization's zone,
Stockholm: UTC+1 in November). A test module imports the fixtures it uses."""

import datetime as dt

import pytest

from bookings.models import Booking
from tests.admin_fixtures import ADMIN
from tests.factories import MemberFactory
from tests.factories_operations import BookingFactory, ObjectFactory

BOOKINGS = f"{ADMIN}/bookings/booking"


def at(*args) -> dt.datetime:
    return dt.datetime(*args, tzinfo=dt.UTC)


@pytest.fixture
def plane(org):
    return ObjectFactory(organization=org, registration="SE-KBA")


@pytest.fixture
def anna(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg").user


@pytest.fixture
def erik(org):
    return MemberFactory(organization=org, user__first_name="Erik", user__last_name="Lund").user


def book(plane, start, end, **fields) -> Booking:
    return BookingFactory(organization=plane.organization, object=plane, start_at=start, end_at=end, **fields)


def booking_form(plane, user, *, day: str, start=None, end=None, **extra) -> dict:
    """The add form of a primary PRIV booking from 10:00 to 12:00 on `day`, unless `start`/`end` say otherwise."""
    start, end = start or (day, "10:00"), end or (day, "12:00")
    data = {
        "object": str(plane.pk),
        "user": str(user.pk),
        "student": "",
        "start_at_0": start[0],
        "start_at_1": start[1],
        "end_at_0": end[0],
        "end_at_1": end[1],
        "type": "PRIV",
        "is_primary": "on",
        "expected_airborne": "",
        "comment": "",
    }
    data.update(extra)
    return data
