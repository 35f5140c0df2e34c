"""The Main API v5 routes of objects and remarks held to the contract checks of tests/contract/.

The tenancy checks use an organization's own items; tests/test_objects_api.py and tests/test_remarks_api.py
show that an object shared with the organization, and its remarks, are listed and fetchable too.
"""

from tests.contract import EndpointContract
from tests.factories_operations import ObjectFactory, RemarkFactory


class TestObjects(EndpointContract):
    path = "/objects"
    module = "objects"
    lists = True
    factory = ObjectFactory
    # Every block in the page's one statement (the blocks' rows with it: apicore.database.WithBlockRows).
    queries = {"GET": 1}
    queries_with_blocks = 1


class TestObject(TestObjects):
    path = "/objects/{id}"
    lists = False
    queries = {"GET": 1}
    queries_with_blocks = 1


class TestRemarks(EndpointContract):
    path = "/remarks"
    module = "objects"
    lists = True
    factory = RemarkFactory
    queries = {"GET": 3}


class TestRemark(TestRemarks):
    path = "/remarks/{id}"
    lists = False
    queries = {"GET": 2}
