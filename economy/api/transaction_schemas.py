"""The body of POST /transactions (document 1, Transactions), by apicore.schema."""

from apicore.schema import Date, Int, Invalid, Number, Obj, Schema, Text

from ..models import Account, CostCenter, Project, Transaction
from ..services import MAX_AMOUNT, amount_error

# A cent, as the document writes it (JSON 0.01).
CENT_STEP = 0.01


def _max_length(model, column: str) -> int:
    return model._meta.get_field(column).max_length


class Amount(Number):
    """An amount of money: a JSON number, not 0, from -100000 to 100000, with at most two decimals. Any other
    number, however long or precise, is refused with 10121 (never reaches the database)."""

    def value_schema(self) -> dict:
        # `multipleOf: 0.01` as JSON Schema means it, in decimal (docs/decisions.md §7.4 "Amounts").
        return {
            "type": "number",
            "minimum": -int(MAX_AMOUNT),
            "maximum": int(MAX_AMOUNT),
            "multipleOf": CENT_STEP,
            "not": {"const": 0},
            "description": "Not 0, from -100000 to 100000, at most two decimals (a multiple of 0.01).",
        }

    def convert(self, value, path, problems):
        amount = super().convert(value, path, problems)
        error = amount_error(amount)
        if error is not None:
            raise Invalid(error[1], error[0])
        return amount


class SignlessAmount(Amount):
    """`accounting.amount`: the amount without its sign, as a check (a negative one is refused with 10121)."""

    def value_schema(self) -> dict:
        return {
            "type": "number",
            "exclusiveMinimum": 0,
            "maximum": int(MAX_AMOUNT),
            "multipleOf": CENT_STEP,
            "description": "The amount without its sign (else 10121): more than 0, at most 100000, at most two "
            "decimals (a multiple of 0.01).",
        }


class TransactionCreate(Schema):
    fields = {
        "user_id": Int(required=True, description="A member of the caller's organization (GET /users); else 10100."),
        "date": Date(required=True, description="Not after today in the organization's zone; else 10151."),
        "amount": Amount(required=True),
        "comment": Text(required=True, max_length=_max_length(Transaction, "comment")),
        "accounting": Obj(
            {
                "amount": SignlessAmount(),
                "debit_account": Text(
                    required=True,
                    digits=True,
                    max_length=_max_length(Account, "number"),
                    description="One of the organization's accounts; else 10162.",
                ),
                "credit_account": Text(
                    required=True,
                    digits=True,
                    max_length=_max_length(Account, "number"),
                    description="One of the organization's accounts; else 10163.",
                ),
                "cost_center": Text(
                    max_length=_max_length(CostCenter, "code"),
                    description="One of the organization's cost centers; else 10164.",
                ),
                "project": Text(
                    max_length=_max_length(Project, "code"),
                    description="One of the organization's projects; else 10165.",
                ),
            }
        ),
    }
