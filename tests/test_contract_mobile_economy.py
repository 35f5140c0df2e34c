"""The Mobile API v5 transaction routes held to the contract checks of tests/contract/: GET /transactions and
/transactions/{id}, the calling member's own. Another organization's transaction is one of the same login
there: still never listed nor fetchable (tests/test_mobile_v5_transactions.py: another member's neither)."""

import datetime as dt

from apicore import clock
from tests.contract import MOBILE_V5, EndpointContract
from tests.factories_operations import TransactionFactory


class TestTransactions(EndpointContract):
    flavour = MOBILE_V5
    path = "/transactions"
    module = "transactions"
    lists = True
    meta_keys = frozenset({"balance", "opening_balance"})
    queries = {"GET": 4}

    def make(self, organization):
        """Two days ago (the list starts a year back by default)."""
        yesterday = clock.now().date() - dt.timedelta(days=2)
        return TransactionFactory(organization=organization, user=self.member.user, date=yesterday)


class TestTransaction(TestTransactions):
    path = "/transactions/{id}"
    lists = False
    queries = {"GET": 1}
