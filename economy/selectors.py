"""Reads of members' accounts, the one place the balance is computed: a member's transactions, the balance
(of one member, or a sub-select for lists), the running balance after each, the balance before a given one."""

import datetime as dt
from decimal import Decimal

from django.db.models import DecimalField, ExpressionWrapper, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Round

from accounts.models import Member
from economy.models import Transaction

MONEY = DecimalField(max_digits=14, decimal_places=2)


def member_transactions(*, organization_id, user_id) -> QuerySet:
    """A member's account: the transactions of the login in that one organization."""
    return Transaction.objects.filter(organization_id=organization_id, user_id=user_id).order_by()


def _up_to(date, id_) -> Q:
    """Transactions at or before (date, id) in the account's order (date, then id)."""
    return Q(date__lt=date) | Q(date=date, id__lte=id_)


def _sum_of(rows: QuerySet) -> Subquery:
    return Subquery(rows.values("user_id").annotate(total=Sum("amount")).values("total"), output_field=MONEY)


def balance_after_expression(*, of: tuple[int, int] | None = None):
    """The member's balance after the outer row's transaction: the sum of the member's transactions in its
    organization up to and with it in (date, id) order, over all of them (not only those listed). Evaluated for
    the page's rows only (the page is read by its keys).

    Without `of`, one sub-select a row that reads the member's history up to the row. With `of` = (organization
    id, user id), when every row is that one member's (the Mobile API's own account): the member's balance now,
    summed once for the statement (an uncorrelated sub-select), less the transactions after the row, so that a
    row reads only what came after it, from the index on (organization, user, date, id, amount), not ten years of
    history (docs/decisions.md §12.23 "Indexes for a club's years")."""
    if of is None:
        return _sum_of(
            member_transactions(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id")).filter(
                _up_to(OuterRef("date"), OuterRef("id"))
            )
        )
    organization_id, user_id = of
    now = _sum_of(member_transactions(organization_id=organization_id, user_id=user_id))
    # date >= the row's bounds the index range; the rest keeps only the rows after it in (date, id) order.
    after = _sum_of(
        member_transactions(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id"))
        .filter(date__gte=OuterRef("date"))
        .filter(Q(date__gt=OuterRef("date")) | Q(id__gt=OuterRef("id")))
    )
    difference = Coalesce(now, Value(Decimal("0"))) - Coalesce(after, Value(Decimal("0")))
    # Exact on PostgreSQL (numeric); SQLite's sums are floats, whose difference of two large sums is rounded to
    # the cent here as every amount is.
    return Round(ExpressionWrapper(difference, output_field=MONEY), 2, output_field=MONEY)


def balances(*, organization_id, user_id, before: tuple[dt.date, int] | None) -> tuple[Decimal, Decimal | None]:
    """(balance now over all the member's transactions, balance before the transaction `before` = (date, id)
    or None without one), in one query."""
    sums = {"balance": Sum("amount")}
    if before is not None:
        date, id_ = before
        sums["opening"] = Sum("amount", filter=Q(date__lt=date) | Q(date=date, id__lt=id_))
    totals = member_transactions(organization_id=organization_id, user_id=user_id).aggregate(**sums)
    balance = totals["balance"] or Decimal("0")
    return balance, None if before is None else totals["opening"] or Decimal("0")


def balance_expression():
    """The balance of the member of the outer query's row (organization_id, user_id), 0 without
    transactions: a sub-select, for lists."""
    sums = (
        member_transactions(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id"))
        .values("user_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(sums, output_field=MONEY), Value(Decimal("0")), output_field=MONEY)


def member_balance(member: Member) -> Decimal:
    """The balance of one member, 0 without transactions."""
    rows = member_transactions(organization_id=member.organization_id, user_id=member.user_id)
    return rows.aggregate(total=Sum("amount"))["total"] or Decimal("0")
