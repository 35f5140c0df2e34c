"""The contract checks (tests/contract.py) of GET /bookings and GET /bookings/{id}."""

from tests.contract import EndpointContract
from tests.factories_operations import BookingFactory


class TestBookings(EndpointContract):
    path = "/bookings"
    module = "bookings"
    lists = True
    factory = BookingFactory


class TestBooking(TestBookings):
    path = "/bookings/{id}"
    lists = False
