"""Presenters of the Mobile API v5's Client (GET /client) and Member (GET /me), document 2."""

from decimal import Decimal

from accounts.models.user import full_name_of
from apicore.presenters import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    STRING,
    Expr,
    Field,
    Presenter,
    nullable,
    obj,
    text_or_none,
)
from economy.selectors import balance_expression

NULLABLE_TEXT = nullable(STRING)


def _name(name: str, first: str, prefix: str, last: str, username: str) -> dict:
    return {
        "first": first or None,
        "prefix": prefix or None,
        "last": last or None,
        "full": full_name_of(name, first, prefix, last, username),
    }


def _money(value: Decimal | None) -> float:
    return float(value or 0)


class MemberPresenter(Presenter):
    """The login's member (a Member row, with its login and organization) and its balance."""

    fields = {
        "id": Field(INTEGER, "user_id"),
        "username": Field(STRING, "user__username"),
        "member_number": Field(STRING, "member_number"),
        "name": Field(
            obj(first=NULLABLE_TEXT, prefix=NULLABLE_TEXT, last=NULLABLE_TEXT, full=STRING),
            "user__name",
            "user__first_name",
            "user__last_name_particle",
            "user__last_name",
            "user__username",
            compute=_name,
        ),
        # The member's membership (Main API v5's `membership`), by its id (docs/decisions.md §9.23 "GET /client
        # and GET /me").
        "user_category": Field(nullable(INTEGER), "membership_id"),
        "locked": Field(BOOLEAN, "locked"),
        "organization": Field(
            obj(id=INTEGER, name=STRING, homepage=NULLABLE_TEXT),
            "organization_id",
            "organization__name",
            "organization__homepage",
            compute=lambda id_, name, homepage: {"id": id_, "name": name, "homepage": text_or_none(homepage)},
        ),
        "balance": Field(NUMBER, Expr("balance", balance_expression), compute=_money),
        "currency": Field(
            obj(code=STRING, symbol=STRING),
            "organization__currency_code",
            "organization__currency_symbol",
            compute=lambda code, symbol: {"code": code, "symbol": symbol},
        ),
    }
