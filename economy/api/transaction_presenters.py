"""The Transaction resource of the Main API v5 (document 1, Transaction; the lead's shapes).

Every block costs one query for the whole page (a Related load)."""

from collections import defaultdict
from decimal import Decimal

from django.db.models import OuterRef, Subquery

from accounts.models import Member
from accounts.models.user import full_name_of, name_columns
from apicore.clock import utc_iso
from apicore.presenters import (
    DATE,
    DATETIME,
    INTEGER,
    NUMBER,
    STRING,
    Block,
    Expr,
    Field,
    Presenter,
    Related,
    array,
    iso_date,
    nullable,
    obj,
    text_or_none,
)

from ..models import TransactionRow

NULLABLE_TEXT = nullable(STRING)
USER = obj(id=INTEGER, name=STRING, external_customer_number=NULLABLE_TEXT)
ACCOUNT_ROW = obj(
    account=STRING,
    description=NULLABLE_TEXT,
    debit=NUMBER,
    credit=NUMBER,
    cost_center=NULLABLE_TEXT,
    project=NULLABLE_TEXT,
)
SUMMARY_ROW = obj(account=STRING, cost_center=NULLABLE_TEXT, project=NULLABLE_TEXT, debit=NUMBER, credit=NUMBER)


def money(value: Decimal | None) -> float | None:
    """An amount as a JSON number (12.5, never "12.50")."""
    return None if value is None else float(value)


def external_customer_number():
    """The member record's external customer number of the transaction's login in its organization."""
    member = Member.objects.filter(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id"))
    return Subquery(member.order_by().values("external_customer_number")[:1])


def _user(user_id, name, first_name, particle, last_name, username, customer_number) -> dict:
    return {
        "id": user_id,
        "name": full_name_of(name, first_name, particle, last_name, username),
        "external_customer_number": customer_number or None,
    }


def _account_rows(_model, transaction_ids, _context):
    rows = (
        TransactionRow.objects.filter(transaction_id__in=transaction_ids)
        .order_by("transaction_id", "position", "id")
        .values_list("transaction_id", "account", "description", "debit", "credit", "cost_center", "project")
    )
    for transaction_id, account, description, debit, credit, cost_center, project in rows:
        yield (
            transaction_id,
            {
                "account": account,
                "description": description or None,
                "debit": money(debit),
                "credit": money(credit),
                "cost_center": cost_center or None,
                "project": project or None,
            },
        )


def _account_summary(_model, transaction_ids, _context):
    """One sum per (account, cost center, project) of each transaction; sums of zero debit and zero credit
    are left out; sorted by account, cost center, project (no cost center or project first)."""
    rows = (
        TransactionRow.objects.filter(transaction_id__in=transaction_ids)
        .order_by()
        .values_list("transaction_id", "account", "cost_center", "project", "debit", "credit")
    )
    sums: dict[tuple, list[Decimal]] = defaultdict(lambda: [Decimal("0"), Decimal("0")])
    for transaction_id, account, cost_center, project, debit, credit in rows:
        total = sums[(transaction_id, account, cost_center or "", project or "")]
        total[0] += debit
        total[1] += credit
    for (transaction_id, account, cost_center, project), (debit, credit) in sorted(sums.items()):
        if debit == 0 and credit == 0:
            continue
        yield (
            transaction_id,
            {
                "account": account,
                "cost_center": cost_center or None,
                "project": project or None,
                "debit": money(debit),
                "credit": money(credit),
            },
        )


class TransactionPresenter(Presenter):
    fields = {
        "id": Field(INTEGER, "id"),
        "date": Field(DATE, "date", compute=iso_date),
        "user": Field(
            USER,
            "user_id",
            *name_columns("user"),
            Expr("user_external_customer_number", external_customer_number),
            compute=_user,
        ),
        "flightlog_id": Field(nullable(INTEGER), "flightlog_id"),
        "amount": Field(NUMBER, "amount", compute=money),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
        "created_at": Field(DATETIME, "created_at", compute=utc_iso),
    }
    blocks = {
        "account_rows": Block(array(ACCOUNT_ROW), related=Related("id", load=_account_rows)),
        "account_summary": Block(array(SUMMARY_ROW), related=Related("id", load=_account_summary)),
    }
