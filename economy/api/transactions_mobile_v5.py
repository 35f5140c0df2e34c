"""Mobile API v5: the member's own transactions (document 2, module `transactions`).

Only the logged-in member's transactions in the member's organization. The list is newest first (date, then
id), 20 a page by default, from a year back (the same day a year before today in the organization's zone)
unless `date_from` says otherwise. `meta` adds `balance` (now, over all the member's transactions) and
`opening_balance` (before the oldest transaction of the page, in (date, id) order; null on an empty page).
"""

import datetime as dt

from apicore import params
from apicore.params import IntParameter
from apicore.presenters import NUMBER, nullable
from apicore.views import ItemEndpoint, ListEndpoint, Paging
from mobile_api.flavour_v5 import MobileV5Api

from ..models import Transaction
from ..selectors import balances
from .mobile_presenters import MobileTransactionPresenter
from .transaction_presenters import money


def a_year_before(day: dt.date) -> dt.date:
    """The same day a year earlier; 29 February gives 28 February."""
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


class TwentyAPage(Paging):
    """Document 2's paging of transactions: 20 a page unless `limit` says otherwise (at most 500)."""

    def parameters(self):
        limit = IntParameter(
            minimum=1, maximum=self.max_limit, description=f"Items per page; default {self.default_limit}."
        )
        limit.schema = {**limit.schema, "default": self.default_limit}
        return {**super().parameters(), "limit": limit}


class _MobileTransactions(MobileV5Api):
    model = Transaction
    module = "transactions"
    presenter_class = MobileTransactionPresenter

    def get_queryset(self):
        # The organization's transactions (the scoping point), of the member's login only.
        return super().get_queryset().filter(user_id=self.request.auth.member.user_id)


class MobileTransactionList(_MobileTransactions, ListEndpoint):
    """The member's transactions, newest first (date, then id); from a year back unless `date_from` is sent."""

    paging = TwentyAPage(default_limit=20)
    ordering = ("-date", "-id")
    filters = {
        "date_from": params.Date(
            "date__gte",
            default=lambda context: a_year_before(context.today),
            description="Transactions on or after this date; default the same day a year before today.",
        ),
        "date_to": params.Date("date__lte", description="Transactions on or before this date."),
    }

    @classmethod
    def list_meta_for(cls, method: str) -> dict[str, dict]:
        return {
            "balance": {**NUMBER, "description": "The member's balance now, over all the member's transactions."},
            "opening_balance": {
                **nullable(NUMBER),
                "description": "The balance before the oldest transaction of the page; null when the page is empty.",
            },
        }

    def extra_meta(self, queryset, params_):
        limit, offset = params_.get("limit", self.paging.default_limit), params_.get("offset", 0)
        page = queryset.order_by(*self.ordering).values("pk")[offset : offset + limit]
        oldest = Transaction.objects.filter(pk__in=page).order_by("date", "id").values_list("date", "id").first()
        member = self.request.auth.member
        balance, opening = balances(organization_id=self.organization.pk, user_id=member.user_id, before=oldest)
        return {"balance": money(balance), "opening_balance": money(opening)}


class MobileTransactionItem(_MobileTransactions, ItemEndpoint):
    """One of the member's transactions."""
