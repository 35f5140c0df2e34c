"""The Mobile API v5 booking routes held to the contract checks of tests/contract/: GET and POST /bookings,
GET /bookings/{id}, POST /bookings/{id}/cut and /cancel. The member's bookings are made ahead of the real
clock (the list starts today by default); tests/test_mobile_v5_bookings.py holds the booking rules."""

import datetime as dt

from apicore import clock
from tests.contract import MOBILE_V5, EndpointContract
from tests.factories_operations import BookingFactory


def minute(offset: dt.timedelta) -> dt.datetime:
    """Now plus `offset`, on a whole minute."""
    return (clock.now() + offset).replace(second=0, microsecond=0)


def iso(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


class _Bookings(EndpointContract):
    flavour = MOBILE_V5
    module = "bookings"
    reply_keys = {"POST": frozenset({"messages"})}  # a write's reply is {data, messages}


class TestBookings(_Bookings):
    path = "/bookings"
    methods = ("GET", "POST")
    lists = True
    shaped = ("GET",)  # a write's reply takes neither include nor exclude
    queries = {"GET": 2, "POST": 16}

    def make(self, organization):
        """Tomorrow, on an object of its own (nothing overlaps)."""
        start = minute(dt.timedelta(days=1))
        return BookingFactory(organization=organization, start_at=start, end_at=start + dt.timedelta(hours=1))

    def body(self, method, item):
        if method != "POST":
            return None
        start = item.end_at + dt.timedelta(hours=1)
        return {"object_id": item.object_id, "start_at": iso(start), "end_at": iso(start + dt.timedelta(hours=1))}


class TestBooking(TestBookings):
    path = "/bookings/{id}"
    methods = ("GET",)
    lists = False
    queries = {"GET": 2}


class _MemberBooking(_Bookings):
    """A booking of the calling member (another organization's: of one of its members)."""

    methods = ("POST",)
    success = {"POST": 200}
    shaped = False  # no parameters at all
    starts_in = dt.timedelta(days=1)

    def make(self, organization):
        start = minute(self.starts_in)
        own = organization == self.member.organization
        user = {"user": self.member.user} if own else {}
        return BookingFactory(organization=organization, start_at=start, end_at=start + dt.timedelta(hours=2), **user)


class TestBookingCut(_MemberBooking):
    """A booking going on: started half an hour ago."""

    path = "/bookings/{id}/cut"
    starts_in = dt.timedelta(minutes=-30)
    queries = {"POST": 21}


class TestBookingCancel(_MemberBooking):
    path = "/bookings/{id}/cancel"
    queries = {"POST": 18}
