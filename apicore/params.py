"""Query parameters: typed declarations (parsing, JSON Schema, description) and the filters built on them.

A parameter turns the raw text of one query parameter into a value or raises ParamError; the view layer
applies the rules every endpoint shares (known, given once, with a value) and reports all problems at once.
"""

import datetime as dt
import decimal
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, Value
from django.db.models.functions import Lower

from apicore.errors import ErrorCode, FieldProblem
from apicore.schema import NO_NUL, unsafe_text

INVALID = ErrorCode.INVALID_PARAMETER.code
INVALID_DATE = ErrorCode.INVALID_DATE.code
DATE_FORM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
INT_FORM = re.compile(r"^-?[0-9]+$")
DECIMAL_FORM = re.compile(r"^-?[0-9]{1,12}(\.[0-9]{1,2})?$")
LIKE_SPECIAL = re.compile(r"[\\%_]")
STARS = re.compile(r"\*+")
# ../shared/DECISIONS.md "Hostile input": a search pattern is at most 100 characters, a run of `*` counting as one
# (docs/decisions.md §1.17 "Text search").
SEARCH_MAX_LENGTH = 100
# At most 18 digits: `offset + limit + 1` stays inside PostgreSQL's 64-bit LIMIT/OFFSET (docs/decisions.md §1.9
# "Query parameters").
INT_LIMIT = 10**18 - 1


class ParamError(ValueError):
    def __init__(self, message: str, code: int = INVALID):
        super().__init__(message)
        self.code = code


def parse_int(raw: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    if not INT_FORM.match(raw):
        raise ParamError("must be a whole number")
    if len(raw.lstrip("-")) > 18:
        if raw.startswith("-"):
            raise ParamError(f"must be at least {-INT_LIMIT if minimum is None else minimum}")
        raise ParamError(f"must be at most {INT_LIMIT if maximum is None else maximum}")
    value = int(raw)
    if minimum is not None and value < minimum:
        raise ParamError(f"must be at least {minimum}")
    if maximum is not None and value > maximum:
        raise ParamError(f"must be at most {maximum}")
    return value


def parse_bool(raw: str) -> bool:
    if raw == "true":
        return True
    if raw == "false":
        return False
    raise ParamError("must be true or false")


def parse_date(raw: str) -> dt.date:
    if not DATE_FORM.match(raw):
        raise ParamError("must be a date YYYY-MM-DD", INVALID_DATE)
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        raise ParamError("is not a date that exists", INVALID_DATE) from None


def parse_decimal(raw: str) -> decimal.Decimal:
    """An amount: at most 12 digits before the point and two after (the widest amount the database keeps)."""
    if not DECIMAL_FORM.match(raw):
        raise ParamError("must be a number with at most two decimals, such as -1250.50")
    return decimal.Decimal(raw)


def parse_names(raw: str) -> list[str]:
    names = [name.strip() for name in raw.split(",")]
    if any(not name for name in names):
        raise ParamError("must be names separated by commas")
    return names


def search_pattern(raw: str) -> str:
    """The LIKE pattern of a search value: the whole value matches, `*` is the only wildcard (any run of
    characters); `%`, `_` and the escape character `\\` are plain characters. The letter case is left to the
    lookup (apicore.database.Like on LOWER of both sides).

    LIKE, not a regular expression: SQLite's and PostgreSQL's LIKE match in time bounded by the lengths of
    value and pattern, where `^.*.*.*...!$` backtracks without end on SQLite's Python REGEXP."""
    parts = raw.split("*")
    return "%".join(LIKE_SPECIAL.sub(r"\\\g<0>", part) for part in parts)


def search_value(raw: str) -> str:
    """The value of a search parameter, runs of `*` made one; ParamError when it is refused."""
    if unsafe_text(raw):
        raise ParamError("must not contain NUL or a lone surrogate")
    value = STARS.sub("*", raw)
    if len(value) > SEARCH_MAX_LENGTH:
        raise ParamError(f"must be at most {SEARCH_MAX_LENGTH} characters (a run of * counts as one)")
    return value


# --- declarations -------------------------------------------------------------------------------------


class Parameter:
    """One query parameter: `parse` gives the value or raises ParamError; `schema` is its JSON Schema."""

    schema: dict = {"type": "string"}
    description: str = ""

    def parse(self, raw: str) -> Any:
        raise NotImplementedError


class IntParameter(Parameter):
    def __init__(self, *, minimum: int | None = None, maximum: int | None = None, description: str = ""):
        self.minimum, self.maximum, self.description = minimum, maximum, description
        self.schema = {
            "type": "integer",
            "minimum": -INT_LIMIT if minimum is None else minimum,
            "maximum": INT_LIMIT if maximum is None else maximum,
        }

    def parse(self, raw: str) -> int:
        return parse_int(raw, minimum=self.minimum, maximum=self.maximum)


class BoolParameter(Parameter):
    schema = {"type": "boolean"}

    def __init__(self, *, description: str = ""):
        self.description = description

    def parse(self, raw: str) -> bool:
        return parse_bool(raw)


class NamesParameter(Parameter):
    """A comma-separated list of names out of `choices` (include, exclude)."""

    def __init__(self, choices: list[str], *, what: str, description: str = ""):
        self.choices, self.what, self.description = list(choices), what, description
        # Without choices no value is right (a list without blocks refuses every `include`).
        self.schema = {"type": "string", "pattern": names_pattern(self.choices)} if self.choices else {"not": {}}

    def parse(self, raw: str) -> list[str]:
        names = parse_names(raw)
        unknown = [name for name in names if name not in self.choices]
        if unknown:
            raise ParamError(f"names {self.what}: {', '.join(unknown)} (usable names: {', '.join(self.choices)})")
        return names


def names_pattern(choices: list[str]) -> str:
    one = "|".join(re.escape(choice) for choice in choices)
    return f"^ *({one}) *( *, *({one}) *)*$"


# --- filters ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filter(Parameter):
    """A filter parameter of a list endpoint; `lookup` is the ORM path it filters on. `default(context)`
    gives the value used when the parameter is not sent (None: no filter)."""

    lookup: str
    description: str = ""
    default: Callable[[Any], Any] | None = field(default=None, compare=False)

    def condition(self, value: Any, context: Any) -> Q:
        return Q(**{self.lookup: value})


@dataclass(frozen=True)
class Search(Filter):
    """Text search (../shared/DECISIONS.md "Readings of the contract"; docs/decisions.md §1.17 "Text search"): the
    whole value, without regard to letter case, `*` any run of
    characters; at most 100 characters, a run of `*` counting as one (a longer run is accepted, which the
    description says; maxLength states the limit for a value without runs)."""

    schema = {
        "type": "string",
        "minLength": 1,
        "maxLength": SEARCH_MAX_LENGTH,
        "pattern": NO_NUL,
        "description": f"At most {SEARCH_MAX_LENGTH} characters; a run of * counts as one.",
    }

    def parse(self, raw: str) -> str:
        return search_pattern(search_value(raw))

    def condition(self, value: str, context: Any) -> Q:
        # LOWER of both sides, in the database: the same folding for the column and the pattern.
        return Q(**{f"{self.lookup}__lower__like": Lower(Value(value))})


@dataclass(frozen=True)
class Int(Filter):
    schema = {"type": "integer", "minimum": -INT_LIMIT, "maximum": INT_LIMIT}

    def parse(self, raw: str) -> int:
        return parse_int(raw)


@dataclass(frozen=True)
class Bool(Filter):
    schema = {"type": "boolean"}

    def parse(self, raw: str) -> bool:
        return parse_bool(raw)


@dataclass(frozen=True)
class Date(Filter):
    """`lookup` carries its comparison, e.g. `date__gte`."""

    schema = {"type": "string", "format": "date"}

    def parse(self, raw: str) -> dt.date:
        return parse_date(raw)


@dataclass(frozen=True)
class Decimal(Filter):
    """An amount, compared exactly (12.5 finds 12.50)."""

    schema = {"type": "string", "pattern": DECIMAL_FORM.pattern, "examples": ["-1250.50"]}

    def parse(self, raw: str) -> decimal.Decimal:
        return parse_decimal(raw)


@dataclass(frozen=True)
class DateCondition(Filter):
    """A date filter whose condition is built from the date and the presenter context (a local date turned
    into UTC bounds in the organization's zone); `lookup` names the column for the documentation only."""

    build: Callable[[dt.date, Any], Q] = field(default=None, compare=False)
    schema = {"type": "string", "format": "date"}

    def parse(self, raw: str) -> dt.date:
        return parse_date(raw)

    def condition(self, value: dt.date, context: Any) -> Q:
        return self.build(value, context)


@dataclass(frozen=True)
class BoolCondition(Filter):
    """A true/false filter whose condition is built from the value and the presenter context (e.g. "expired"
    against the organization's today); `lookup` names the column for the documentation only."""

    build: Callable[[bool, Any], Q] = field(default=None, compare=False)
    schema = {"type": "boolean"}

    def parse(self, raw: str) -> bool:
        return parse_bool(raw)

    def condition(self, value: bool, context: Any) -> Q:
        return self.build(value, context)


def problem(name: str, error: ParamError) -> FieldProblem:
    return FieldProblem(field=name, code=error.code, message=f"{name} {error}.")
