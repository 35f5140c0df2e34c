"""The balance after a transaction (economy.selectors.balance_after_expression) in its two forms: the sum up to
the row, and, for one member's rows, the balance now less what came after the row (the Mobile API's form, whose
cost does not grow with the member's years). Both give the running balance in (date, id) order, to the cent,
on SQLite and PostgreSQL."""

import datetime as dt
from decimal import Decimal

from economy.models import Transaction
from economy.selectors import balance_after_expression
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import TransactionFactory

# (date, amount) in the order they are written: ids do not follow dates, several share a date.
WRITTEN = [
    ("2026-03-01", "100.10"),
    ("2026-01-15", "-20.05"),
    ("2026-03-01", "-0.30"),
    ("2025-12-31", "1234567.89"),
    ("2026-03-01", "0.20"),
    ("2026-02-01", "-1234500.00"),
]


def cents(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"))


def running_balances(rows) -> dict[int, Decimal]:
    balance, after = Decimal("0"), {}
    for transaction in sorted(rows, key=lambda t: (t.date, t.pk)):
        balance += transaction.amount
        after[transaction.pk] = balance
    return after


def test_both_forms_are_the_running_balance_in_date_and_id_order(db):
    org = OrganizationFactory()
    member, other = MemberFactory(organization=org), MemberFactory(organization=org)
    written = [
        TransactionFactory(organization=org, user=member.user, date=dt.date.fromisoformat(day), amount=Decimal(amount))
        for day, amount in WRITTEN
    ]
    # Another member's transactions, and the same person's in another club, count for neither.
    TransactionFactory(organization=org, user=other.user, date=dt.date(2026, 2, 1), amount=Decimal("999"))
    elsewhere = MemberFactory(user=member.user)
    TransactionFactory(organization=elsewhere.organization, user=member.user, amount=Decimal("555"))

    rows = Transaction.objects.filter(organization=org, user=member.user).annotate(
        summed=balance_after_expression(), of_member=balance_after_expression(of=(org.pk, member.user_id))
    )
    # To the cent, as the replies write money (SQLite sums floats).
    found = {row.pk: (cents(row.summed), cents(row.of_member)) for row in rows}

    expected = running_balances(written)
    assert {pk: summed for pk, (summed, _of) in found.items()} == expected
    assert {pk: of_member for pk, (_summed, of_member) in found.items()} == expected
    assert expected[written[4].pk] == Decimal("147.84")  # the last of 2026-03-01 by id: after every transaction


def test_the_last_transaction_has_the_balance_now(db):
    member = MemberFactory()
    for day, amount in WRITTEN:
        TransactionFactory(
            organization=member.organization, user=member.user, date=dt.date.fromisoformat(day), amount=Decimal(amount)
        )
    rows = Transaction.objects.filter(organization=member.organization, user=member.user).order_by("-date", "-id")
    newest = rows.annotate(after=balance_after_expression(of=(member.organization_id, member.user_id))).first()
    assert cents(newest.after) == sum(Decimal(amount) for _day, amount in WRITTEN) == Decimal("147.84")
