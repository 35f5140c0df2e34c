"""The world of the Mobile API's booking tests: a club with booking on, its member with an app login, two
aircraft (one that allows a queue, one that does not), another club; the clock stopped at FROZEN_AT
(2026-11-25 12:00:00.25 UTC, 13:00 in Stockholm)."""

import datetime as dt
import json

import pytest

from accounts.models import UserEmail
from tests.conftest import FROZEN_AT
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import BookingFactory, ObjectFactory
from tests.mobile_helpers import MobileApi, issue_member_tokens, make_app_client

UTC = dt.UTC


def at(hour: int, minute: int = 0, *, day: int = 25, month: int = 11) -> dt.datetime:
    """A point in time on FROZEN_AT's day (UTC)."""
    return dt.datetime(2026, month, day, hour, minute, tzinfo=UTC)


def iso(value: dt.datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


class BookingApi(MobileApi):
    def call(self, method: str, path: str, **kwargs):
        if method == "POST" and kwargs.get("json") is None and "data" not in kwargs:
            kwargs.pop("json", None)
            kwargs.update(data=b"", content_type="application/json")
        return super().call(method, path, **kwargs)

    def post(self, path: str, json_body=None, *, raw: bytes | None = None, **extra):
        if raw is not None:
            return self.call("POST", path, data=raw, content_type="application/json", **extra)
        if json_body is None:  # no body at all (the test client would send an empty multipart form)
            return self.call("POST", path, data=b"", content_type="application/json", **extra)
        return self.call("POST", path, json=json_body, **extra)

    def book(self, object_id: int, start: dt.datetime, end: dt.datetime, **fields):
        headers = {name: value for name, value in fields.items() if name.startswith("HTTP_")}
        body = {"object_id": object_id, "start_at": iso(start), "end_at": iso(end)}
        body.update({name: value for name, value in fields.items() if name not in headers})
        return self.post("/bookings", body, **headers)


def body_of(response) -> dict:
    return json.loads(response.content)


@pytest.fixture(name="club")
def club_fixture(db):
    return OrganizationFactory(name="Västerås Flygklubb", timezone="Europe/Stockholm", currency_symbol="kr")


@pytest.fixture(name="other_club")
def other_club_fixture(db):
    return OrganizationFactory(name="Bergen Flyklubb", timezone="Europe/Oslo")


@pytest.fixture(name="member")
def member_fixture(club):
    member = MemberFactory(
        organization=club,
        member_number="0042",
        user__first_name="Åsa",
        user__last_name="Öberg",
        user__mobile_country_code="46",
        user__mobile_initial_number="70",
        user__mobile_number="1234567",
    )
    UserEmail.objects.create(user=member.user, position=0, address="asa@example.se")
    return member


@pytest.fixture(name="app_client")
def app_client_fixture(db):
    return make_app_client()


@pytest.fixture(name="api")
def api_fixture(member, app_client):
    return BookingApi(issue_member_tokens(member, app_client).access_token)


@pytest.fixture(name="aircraft")
def aircraft_fixture(club):
    """An aircraft that allows queue bookings."""
    return ObjectFactory(organization=club, registration="SE-KBT", queue_allowed=True)


@pytest.fixture(name="katana")
def katana_fixture(club):
    """An aircraft without a queue."""
    return ObjectFactory(organization=club, registration="SE-MKA", type_designator="DV20", queue_allowed=False)


@pytest.fixture(name="now")
def now_fixture(frozen_time):
    return FROZEN_AT


def booking_of(organization, booking_object, *, user=None, start=None, end=None, **fields):
    """A booking made directly (not through the rules)."""
    values = {"organization": organization, "object": booking_object, **fields}
    if user is not None:
        values["user"] = user
    if start is not None:
        values["start_at"] = start
    if end is not None:
        values["end_at"] = end
    return BookingFactory(**values)
