"""The body of POST /transactions (document 1, Transactions), by apicore.schema."""

from apicore.schema import Date, Int, Invalid, Number, Obj, Schema, Text

from ..models import Account, CostCenter, Project, Transaction
from ..services import MAX_AMOUNT, amount_error


def _max_length(model, column: str) -> int:
    return model._meta.get_field(column).max_length


class Amount(Number):
    """An amount of money: a JSON number, not 0, from -100000 to 100000, with at most two decimals. Any other
    number, however long or precise, is refused with 10121 (never reaches the database)."""

    def value_schema(self) -> dict:
        # No `multipleOf: 0.01`: JSON Schema validators divide in binary floating point and call 0.07 wrong.
        return {
            "type": "number",
            "minimum": -int(MAX_AMOUNT),
            "maximum": int(MAX_AMOUNT),
            "not": {"const": 0},
            "description": "Not 0, from -100000 to 100000, at most two decimals.",
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
            "description": "The amount without its sign: more than 0, at most 100000, at most two decimals.",
        }


class TransactionCreate(Schema):
    fields = {
        "user_id": Int(required=True),
        "date": Date(required=True),
        "amount": Amount(required=True),
        "comment": Text(required=True, max_length=_max_length(Transaction, "comment")),
        "accounting": Obj(
            {
                "amount": SignlessAmount(),
                "debit_account": Text(required=True, digits=True, max_length=_max_length(Account, "number")),
                "credit_account": Text(required=True, digits=True, max_length=_max_length(Account, "number")),
                "cost_center": Text(max_length=_max_length(CostCenter, "code")),
                "project": Text(max_length=_max_length(Project, "code")),
            }
        ),
    }
