"""Presenter of the Mobile API v5's transaction (document 2, Transaction): the member's own transaction with
the balance after it; the internal note (from `#` on) left out of the comment."""

from functools import partial

from accounts.api.presenters import full_name
from accounts.models.user import name_columns
from apicore.clock import utc_iso
from apicore.presenters import DATE, DATETIME, INTEGER, NUMBER, REF, STRING, Expr, Field, Presenter, iso_date, nullable

from ..selectors import balance_after_expression
from .transaction_presenters import money


def public_comment(comment: str | None) -> str | None:
    """The comment without its internal note: a `#` and everything after it left out, spaces trimmed; null
    when nothing is left."""
    if not comment:
        return None
    return comment.split("#", 1)[0].strip() or None


def booked_by(user_id, *name) -> dict | None:
    """Who booked the transaction, as a reference {id, name} (document 1's form, as Main v5's `user`); null
    when nobody is recorded (the login was deleted, or the service booked it)."""
    return None if user_id is None else {"id": user_id, "name": full_name(*name)}


def _balance_after(build) -> Field:
    return Field(
        {**NUMBER, "description": "The member's balance after this transaction (date, then id order)."},
        Expr("balance_after", build),
        compute=money,
    )


class MobileTransactionPresenter(Presenter):
    """An item of GET /mobile/v5/transactions and /transactions/{id} (a Transaction of the member)."""

    fields = {
        "id": Field(INTEGER, "id"),
        "date": Field(DATE, "date", compute=iso_date),
        "amount": Field(NUMBER, "amount", compute=money),
        "comment": Field(
            {**nullable(STRING), "description": "Without the internal note (a # and everything after it)."},
            "comment",
            compute=public_comment,
        ),
        "booked_by": Field(nullable(REF), "created_by_id", *name_columns("created_by"), compute=booked_by),
        "balance_after": _balance_after(balance_after_expression),
        "created_at": Field(DATETIME, "created_at", compute=utc_iso),
    }

    def __init__(self, *, context=None, include=None, exclude=None):
        member = getattr(getattr(context, "caller", None), "member", None)
        if member is not None:
            # Every row is the calling member's own (the endpoints list nothing else): the balance now is summed
            # once a statement and each row reads only what came after it (economy.selectors).
            of = (member.organization_id, member.user_id)
            self.fields = {**self.fields, "balance_after": _balance_after(partial(balance_after_expression, of=of))}
        super().__init__(context=context, include=include, exclude=exclude)
