"""Writes on members' accounts: transactions with their account rows (Main API POST /transactions and the
organization website's transaction page). Every function is one transaction and saves nothing when it refuses.

Rules (document 1, POST /transactions; docs/decisions.md §7 "Economy"):
- `amount` is the change of the member's account (negative = charge, positive = payment): not 0, from
  -100000 to 100000, at most two decimals (10121).
- `date` not after today in the organization's zone (10151); not on or before the organization's
  transaction lock date ("transactions locked through": 409 10150).
- `accounting` (optional): the debit and credit accounts, cost center and project must be the organization's
  own (10162, 10163, 10164, 10165); its `amount`, when given, must be the amount without its sign (10121).
- the user must be a member of the organization (10100 on `user_id`); the comment must be given (10006).
- the same user, date, amount and comment a second time: 409 10130 (serialized on the member's row).
- a database failure: 500 10190, nothing saved.

Rows: with `accounting`, a debit row and a credit row of |amount| on the accounts named. Without it, the
organization's default accounts: a charge debits the default debit account and credits the default credit
account, a payment the other way round (the member's side moves with the sign); no defaults, no rows.
"""

import datetime as dt
from decimal import Decimal

from django.db import DatabaseError, transaction
from django.db.models import Q

from accounts.models import Member
from apicore import clock
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from apicore.problems import raise_problems

from .models import Account, CostCenter, Project, Transaction, TransactionRow

INVALID = ErrorCode.INVALID_FIELD.code
NOT_FOUND = ErrorCode.NOT_FOUND.code
INVALID_AMOUNT = ErrorCode.INVALID_AMOUNT.code
DATE_IN_FUTURE = ErrorCode.DATE_IN_FUTURE.code
BEFORE_LOCK_DATE = ErrorCode.BEFORE_LOCK_DATE.code
MAX_AMOUNT = Decimal("100000")
CENT = Decimal("0.01")
COMMENT_MAX_LENGTH = Transaction._meta.get_field("comment").max_length
ACCOUNTING_KEYS = ("amount", "debit_account", "credit_account", "cost_center", "project")


def as_amount(value) -> Decimal | None:
    """A Decimal of an int, a Decimal or a float (by its shortest text); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    return value if isinstance(value, Decimal) else None


def amount_error(value) -> tuple[int, str] | None:
    """(code, message without the field's name) unless a number, not 0, from -100000 to 100000, with at most
    two decimals (12.340 is 12.34): 10121, or 10006 for what is no number at all."""
    amount = as_amount(value)
    if amount is None or not amount.is_finite():
        return INVALID, "must be a number"
    # The bounds first: quantize of 1e999999 would exceed the context's precision.
    if not -MAX_AMOUNT <= amount <= MAX_AMOUNT:
        return INVALID_AMOUNT, "must be from -100000 to 100000"
    if amount == 0:
        return INVALID_AMOUNT, "must not be 0"
    if amount.quantize(CENT) != amount:
        return INVALID_AMOUNT, "must have at most two decimals"
    return None


def amount_problem(value, path: str = "amount") -> FieldProblem | None:
    error = amount_error(value)
    return None if error is None else FieldProblem(path, error[0], f"{path} {error[1]}.")


def is_locked(organization, date: dt.date) -> bool:
    """Whether the organization's books are closed for the date: on or before its lock date ("locked through")."""
    lock_date = organization.transaction_lock_date
    return lock_date is not None and date <= lock_date


def transaction_field_problems(
    *,
    organization,
    user_id=None,
    date=None,
    amount=None,
    comment=None,
    accounting: dict | None = None,
) -> list[FieldProblem]:
    """Every 400 problem of a transaction that needs the organization, all at once (a value not given, None, is
    left to whoever checks presence: the API's schema, or transaction_create)."""
    problems: list[FieldProblem] = []
    if user_id is not None and not Member.objects.filter(organization=organization, user_id=user_id).exists():
        problems.append(FieldProblem("user_id", NOT_FOUND, "user_id is not a user of the organization."))
    if date is not None and date > clock.today_in(organization.timezone):
        problems.append(
            FieldProblem("date", DATE_IN_FUTURE, "date is in the future (in the organization's time zone).")
        )
    if amount is not None:
        problem = amount_problem(amount)
        if problem is not None:
            problems.append(problem)
    if comment is not None and not comment.strip():
        problems.append(FieldProblem("comment", INVALID, "comment must have a value."))
    if accounting:
        problems += _accounting_problems(organization, amount, accounting)
    return problems


def _accounting_problems(organization, amount, accounting: dict) -> list[FieldProblem]:
    problems = []
    check = accounting.get("amount")
    if check is not None:
        problem = amount_problem(check, "accounting.amount")
        signless = as_amount(amount)
        if problem is None and signless is not None and signless.is_finite() and as_amount(check) != abs(signless):
            problem = FieldProblem(
                "accounting.amount", INVALID_AMOUNT, "accounting.amount must be the amount without its sign."
            )
        if problem is not None:
            problems.append(problem)
    lookups = (
        ("debit_account", Account, "number", ErrorCode.DEBIT_ACCOUNT_NOT_FOUND, "an account"),
        ("credit_account", Account, "number", ErrorCode.CREDIT_ACCOUNT_NOT_FOUND, "an account"),
        ("cost_center", CostCenter, "code", ErrorCode.COST_CENTER_NOT_FOUND, "a cost center"),
        ("project", Project, "code", ErrorCode.PROJECT_NOT_FOUND, "a project"),
    )
    for key, model, column, error, what in lookups:
        value = accounting.get(key)
        path = f"accounting.{key}"
        if value is None:
            continue  # presence: the API's schema, or transaction_create
        if not model.objects.filter(organization=organization, **{column: value}).exists():
            problems.append(FieldProblem(path, error.code, f"{path} is not {what} of the organization."))
    return problems


def _rows(organization, amount: Decimal, comment: str, accounting: dict | None) -> list[TransactionRow]:
    size = abs(amount)
    if accounting:
        cost_center, project = accounting.get("cost_center") or "", accounting.get("project") or ""
        debit, credit = accounting["debit_account"], accounting["credit_account"]
    else:
        defaults = list(
            Account.objects.filter(Q(is_default_debit=True) | Q(is_default_credit=True), organization=organization)
        )
        debit = next((account.number for account in defaults if account.is_default_debit), None)
        credit = next((account.number for account in defaults if account.is_default_credit), None)
        if debit is None or credit is None:
            return []
        if amount > 0:
            debit, credit = credit, debit  # a payment: the member's side is credited
        cost_center = project = ""
    common = {"description": comment, "cost_center": cost_center, "project": project}
    return [
        TransactionRow(position=0, account=debit, debit=size, credit=Decimal("0"), **common),
        TransactionRow(position=1, account=credit, debit=Decimal("0"), credit=size, **common),
    ]


def _lock_member(organization, user_id) -> None:
    """Serializes the transactions of one member (the duplicate check and the insert)."""
    Member.objects.select_for_update().filter(organization=organization, user_id=user_id).order_by().first()


def _refuse_duplicate(organization, user_id, date, amount, comment) -> None:
    """409 10130 when the member has a transaction of the same date, amount and comment already."""
    same = Transaction.objects.filter(
        organization=organization, user_id=user_id, date=date, amount=amount, comment=comment
    )
    duplicate = same.order_by().values_list("pk", flat=True).first()
    if duplicate is not None:
        raise ServiceError(
            ErrorCode.DUPLICATE_TRANSACTION,
            f"The user already has a transaction with this date, amount and comment (id {duplicate}).",
        )


@transaction.atomic
def transaction_create(
    *,
    organization,
    user_id: int,
    date: dt.date,
    amount,
    comment: str,
    accounting: dict | None = None,
    flightlog=None,
    by=None,
) -> Transaction:
    """A new transaction of the member `user_id` (the login's id) with its account rows. All or nothing.
    `by`: the login that books it (a User or its id; the API token's owner, the website's administrator)."""
    problems = []
    for name, value in (("user_id", user_id), ("date", date), ("amount", amount), ("comment", comment)):
        if value is None or value == "":
            problems.append(FieldProblem(name, INVALID, f"{name} is required."))
    for key in ("debit_account", "credit_account"):
        if accounting and not accounting.get(key):
            problems.append(
                FieldProblem(f"accounting.{key}", INVALID, f"accounting.{key} is required with accounting.")
            )
    if comment is not None and len(comment) > COMMENT_MAX_LENGTH:
        problems.append(FieldProblem("comment", INVALID, f"comment must be at most {COMMENT_MAX_LENGTH} characters."))
    problems += transaction_field_problems(
        organization=organization,
        user_id=user_id,
        date=date,
        amount=amount,
        comment=comment or None,
        accounting=accounting,
    )
    raise_problems(_unique(problems), source="body")
    amount = as_amount(amount)
    if is_locked(organization, date):
        raise ServiceError(
            ErrorCode.BEFORE_LOCK_DATE,
            f"The organization's transactions are locked through {organization.transaction_lock_date.isoformat()}.",
            errors=[FieldProblem("date", BEFORE_LOCK_DATE, "date is on or before the transaction lock date.")],
        )
    if flightlog is not None and flightlog.object.organization_id != organization.pk:
        raise ValueError("the flight is not on an object of the organization")
    try:
        with transaction.atomic():
            _lock_member(organization, user_id)
            _refuse_duplicate(organization, user_id, date, amount, comment)
            created = Transaction.objects.create(
                organization=organization,
                user_id=user_id,
                date=date,
                amount=amount,
                comment=comment,
                flightlog=flightlog,
                created_by_id=getattr(by, "pk", by),
            )
            rows = _rows(organization, amount, comment, accounting)
            for row in rows:
                row.transaction = created
            TransactionRow.objects.bulk_create(rows)
    except DatabaseError as error:
        # The lock, the check or the writes: nothing is saved (the savepoint is rolled back).
        raise ServiceError(ErrorCode.TRANSACTION_NOT_SAVED, "The transaction could not be saved.") from error
    return created


def _unique(problems: list[FieldProblem]) -> list[FieldProblem]:
    """One problem per field (the first), in the order found."""
    seen, kept = set(), []
    for problem in problems:
        if problem.field not in seen:
            seen.add(problem.field)
            kept.append(problem)
    return kept
