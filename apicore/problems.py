"""Collecting problems with named parameters or fields and raising them all at once (convention 4)."""

from apicore.errors import ErrorCode, FieldProblem, ServiceError

# Codes of document 1's table that a single problem lends to the whole reply (../shared/DECISIONS.md "Readings of
# the contract": error codes).
OWN_CODES = {10110, 10121, 10151, 10162, 10163, 10164, 10165}
UNKNOWN = ErrorCode.UNKNOWN_NAME.code


def raise_problems(problems: list[FieldProblem], *, source: str) -> None:
    """`source` is "query" or "body"; does nothing when there are no problems."""
    if not problems:
        return
    if all(problem.code == UNKNOWN for problem in problems):
        error = ErrorCode.UNKNOWN_NAME
    elif len(problems) == 1 and problems[0].code in OWN_CODES:
        error = next(error for error in ErrorCode if error.code == problems[0].code)
    elif source == "query":
        error = ErrorCode.INVALID_PARAMETER
    else:
        error = ErrorCode.INVALID_FIELD
    raise ServiceError(error, _summary(problems), errors=problems)


def _summary(problems: list[FieldProblem]) -> str:
    names = ", ".join(problem.field for problem in problems)
    return f"Check {names}."
