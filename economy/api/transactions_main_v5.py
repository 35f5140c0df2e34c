"""Main API v5: transactions on members' accounts (module `transactions`)."""

from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Q, Value
from django.db.models.functions import Lower

from accounts.models import Member
from apicore import params
from apicore.errors import ErrorCode
from apicore.views import CreateMixin, ItemEndpoint, ListEndpoint
from main_api.flavour_v5 import MainV5Api

from ..models import Transaction
from ..services import transaction_create, transaction_field_problems
from .transaction_presenters import TransactionPresenter
from .transaction_schemas import TransactionCreate


@dataclass(frozen=True)
class MemberSearch(params.Search):
    """A search on a column of the member record of the transaction's login in its organization."""

    def condition(self, value: str, context) -> Q:
        members = Member.objects.filter(
            organization_id=OuterRef("organization_id"),
            user_id=OuterRef("user_id"),
            **{f"{self.lookup}__lower__like": Lower(Value(value))},
        )
        return Q(Exists(members))


def _search(lookup: str, what: str, kind: type[params.Search] = params.Search) -> params.Search:
    return kind(lookup, description=f"{what}; * matches any characters.")


class _Transactions(MainV5Api):
    model = Transaction
    module = "transactions"
    presenter_class = TransactionPresenter


class TransactionList(_Transactions, CreateMixin, ListEndpoint):
    """Transactions on members' accounts, newest first (date, then id)."""

    filters = {
        "user_id": params.Int("user_id", description="The user's id."),
        "user_name": _search("user__name", "The user's full name"),
        "comment": _search("comment", "Comment"),
        "external_customer_number": _search(
            "external_customer_number", "The member's external customer number", MemberSearch
        ),
        "date": params.Date("date", description="Date."),
        "date_from": params.Date("date__gte", description="Dates from this one."),
        "date_to": params.Date("date__lte", description="Dates up to and with this one."),
        "amount": params.Decimal("amount", description="Amount, compared exactly (12.5 finds 12.50)."),
    }
    ordering = ("-date", "-id")
    create_body = TransactionCreate
    item_route = "transaction"
    errors = {
        "post": (
            ErrorCode.INVALID_AMOUNT,
            ErrorCode.DATE_IN_FUTURE,
            ErrorCode.BEFORE_LOCK_DATE,
            ErrorCode.DUPLICATE_TRANSACTION,
            ErrorCode.DEBIT_ACCOUNT_NOT_FOUND,
            ErrorCode.CREDIT_ACCOUNT_NOT_FOUND,
            ErrorCode.COST_CENTER_NOT_FOUND,
            ErrorCode.PROJECT_NOT_FOUND,
            ErrorCode.TRANSACTION_NOT_SAVED,
        )
    }

    def body_problems(self, body):
        return transaction_field_problems(organization=self.organization, **body)

    def create(self, body):
        return transaction_create(organization=self.organization, by=self.request.auth.owner_id, **body)


class TransactionItem(_Transactions, ItemEndpoint):
    """One transaction."""
