"""The Mobile API v5 flight log routes held to the contract checks of tests/contract/: GET /flightlogs and
/flightlogs/{id}. tests/test_mobile_v5_flightlogs.py shows the flights on shared objects."""

from tests.contract import MOBILE_V5, EndpointContract
from tests.factories_operations import FlightFactory


class TestFlightLogs(EndpointContract):
    flavour = MOBILE_V5
    path = "/flightlogs"
    module = "flightlogs"
    lists = True
    factory = FlightFactory
    queries = {"GET": 2}  # the page in one statement, the crew in one


class TestFlightLog(TestFlightLogs):
    path = "/flightlogs/{id}"
    lists = False
    queries = {"GET": 2}
