"""The Main API v5 transaction routes held to the contract checks of tests/contract/."""

from tests.contract import EndpointContract
from tests.factories import MemberFactory
from tests.factories_operations import TransactionFactory


class TestTransactions(EndpointContract):
    path = "/transactions"
    module = "transactions"
    methods = ("GET", "POST")
    lists = True
    factory = TransactionFactory
    queries = {"GET": 2, "POST": 12}
    queries_with_blocks = 4

    def body(self, method, item):
        if method != "POST":
            return None
        member = MemberFactory(organization=item.organization)
        return {"user_id": member.user_id, "date": "2026-01-15", "amount": -250.5, "comment": f"Contract {item.pk}"}


class TestTransaction(TestTransactions):
    path = "/transactions/{id}"
    methods = ("GET",)
    lists = False
    queries = {"GET": 1}
    queries_with_blocks = 3
