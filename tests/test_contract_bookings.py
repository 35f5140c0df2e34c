"""The contract checks (tests/contract/) of GET /bookings and GET /bookings/{id}."""

from tests.contract import EndpointContract
from tests.factories_operations import BookingFactory


class TestBookings(EndpointContract):
    path = "/bookings"
    module = "bookings"
    lists = True
    factory = BookingFactory
    queries = {"GET": 2}


class TestBooking(TestBookings):
    path = "/bookings/{id}"
    lists = False
    queries = {"GET": 2}
