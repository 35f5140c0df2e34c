"""Query parameters: list parameters, typed filters and the rules every endpoint shares."""

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from .errors import ErrorCode
from .exceptions import FieldProblem

INVALID = ErrorCode.INVALID_PARAMETER.code
INVALID_DATE = ErrorCode.INVALID_DATE.code
DATE_FORM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
INT_FORM = re.compile(r"^-?[0-9]{1,18}$")


class ParamError(ValueError):
    def __init__(self, message: str, code: int = INVALID):
        super().__init__(message)
        self.code = code


def parse_int(raw: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    if not INT_FORM.match(raw):
        raise ParamError("must be a whole number")
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


def parse_names(raw: str) -> list[str]:
    names = [name.strip() for name in raw.split(",")]
    if any(not name for name in names):
        raise ParamError("must be names separated by commas")
    return names


def search_pattern(raw: str) -> str:
    """Whole-value, case-insensitive match; `*` is the only wildcard (`_` and `%` are plain characters)."""
    return "^" + ".*".join(re.escape(part) for part in raw.split("*")) + "$"


@dataclass(frozen=True)
class Filter:
    """A filter parameter of a list endpoint; `lookup` is the ORM path it filters on."""

    lookup: str

    def parse(self, raw: str) -> Any:
        raise NotImplementedError

    def condition(self, value: Any) -> Q:
        return Q(**{self.lookup: value})


@dataclass(frozen=True)
class Search(Filter):
    def parse(self, raw: str) -> str:
        return search_pattern(raw)

    def condition(self, value: str) -> Q:
        return Q(**{f"{self.lookup}__iregex": value})


@dataclass(frozen=True)
class Int(Filter):
    def parse(self, raw: str) -> int:
        return parse_int(raw)


@dataclass(frozen=True)
class Bool(Filter):
    def parse(self, raw: str) -> bool:
        return parse_bool(raw)


@dataclass(frozen=True)
class Date(Filter):
    """`lookup` carries its comparison, e.g. `date__gte`."""

    def parse(self, raw: str) -> dt.date:
        return parse_date(raw)


@dataclass(frozen=True)
class Custom(Filter):
    """A filter whose condition the endpoint builds itself from the parsed value."""

    parser: Any = None
    builder: Any = None

    def parse(self, raw: str) -> Any:
        return self.parser(raw)

    def condition(self, value: Any) -> Q:
        return self.builder(value)


def problem(name: str, error: ParamError) -> FieldProblem:
    return FieldProblem(field=name, code=error.code, message=f"{name} {error}.")
