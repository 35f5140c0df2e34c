"""The flight log's routes of the Main API v5 held to the contract checks of tests/contract/."""

from tests.contract import EndpointContract
from tests.factories_operations import FlightApprovalFactory, FlightFactory, FlightTypeFactory


class TestFlightLogs(EndpointContract):
    path = "/flightlogs"
    module = "flightlogs"
    lists = True
    factory = FlightFactory
    queries = {"GET": 2}  # the page in one statement, the crew in one


class TestFlightLog(TestFlightLogs):
    path = "/flightlogs/{id}"
    lists = False
    queries = {"GET": 2}


class TestFlightTypes(EndpointContract):
    path = "/flight-types"
    module = "flightlogs"
    lists = True
    factory = FlightTypeFactory
    queries = {"GET": 2}


class TestUserApprovedFlightTypes(EndpointContract):
    """An item is an approval; the address is its member's (the login's id), the list's key its object."""

    path = "/users/{id}/approved-flight-types"
    module = "flightlogs"
    lists = True
    queries = {"GET": 4}

    def make(self, organization):
        approval = FlightApprovalFactory(organization=organization)
        approval.flight_types.add(FlightTypeFactory(organization=organization))
        return approval

    def make_list(self, organization, count):
        first = self.make(organization)
        more = [FlightApprovalFactory(organization=organization, member=first.member) for _ in range(count - 1)]
        return [first, *more]

    def placeholders(self, item):
        return {"id": item.member.user_id}

    def key(self, item):
        return item.object_id

    def reply_key(self, data):
        return data["object"]["id"]
