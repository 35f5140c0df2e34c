"""Strict validation of JSON bodies (conventions 2, 4 and 6).

A value must have the type it has in a reply (no "7" for 7, no 1 for true); every problem is named with
its path (`address.city`, `email[1]`) and all are reported at once. Text with NUL or a lone surrogate is
refused where it arrives (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §1.21 "NUL and lone
surrogates"): no database stores it the same way (PostgreSQL
refuses NUL, a lone surrogate cannot be encoded at all), so it must never get past the schema.

Each field also states what it accepts as JSON Schema (2020-12, as OpenAPI 3.1 uses it): `json_schema()` is
read by the OpenAPI document, so the documented body and the validated one come from the same declaration.
"""

import datetime as dt
import math
import re
from decimal import Decimal
from typing import Any

from apicore.errors import ErrorCode, FieldProblem
from apicore.problems import raise_problems

INVALID = ErrorCode.INVALID_FIELD.code
UNKNOWN = ErrorCode.UNKNOWN_NAME.code
INVALID_DATE = ErrorCode.INVALID_DATE.code
DATE_FORM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
# The latest date where a date is bounded (an expiry date's "never"), and the form of the dates up to it.
LATEST_DATE = dt.date(2999, 12, 31)
DATE_UNTIL_2999 = re.compile(r"^[0-2][0-9]{3}-[0-9]{2}-[0-9]{2}$")
DIGITS = re.compile(r"^[0-9]+$")
MISSING = object()
# No number in our data is wider than a 64-bit column; a wider one must not reach the database.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# NUL and the surrogate code points (a pair sent as two escapes is one character by then; one alone is not
# a character at all).
UNSAFE_TEXT = re.compile("[\x00\ud800-\udfff]")
# The JSON Schema of "no NUL" (a surrogate cannot be written in a UTF-8 document, so it needs no pattern).
NO_NUL = "^[^\\u0000]*$"


def unsafe_text(value: str) -> bool:
    return UNSAFE_TEXT.search(value) is not None


def printable_name(name: str) -> str:
    """A name sent by the caller as it can be shown in a reply: NUL and lone surrogates as `\\uXXXX`."""
    return UNSAFE_TEXT.sub(lambda found: f"\\u{ord(found.group()):04x}", name)


class Invalid(Exception):
    def __init__(self, message: str, code: int = INVALID):
        super().__init__(message)
        self.code = code


class Field:
    """`emptiable`: null or "" is accepted and means "no value" (only where the contract says so).
    `description`: words for the document, above all a rule the field's JSON Schema cannot state (one that
    depends on the caller's data: docs/decisions.md §8.7 "Rules that depend on the caller's data")."""

    type_name = "value"

    def __init__(self, *, required: bool = False, emptiable: bool = False, description: str | None = None):
        self.required = required
        self.emptiable = emptiable
        self.description = description

    def json_schema(self) -> dict:
        """What `clean` accepts: the value's own schema, and null or "" where the field is emptiable."""
        schema = self.value_schema()
        if self.emptiable:
            schema = {"anyOf": [schema, {"type": "null"}, {"const": ""}]}
        return self.described(schema)

    def described(self, schema: dict) -> dict:
        """The schema with the field's description after the value's own (e.g. a date's bound)."""
        if self.description is not None:
            schema["description"] = " ".join(filter(None, (schema.get("description"), self.description)))
        return schema

    def value_schema(self) -> dict:
        """The schema of a value (not null, not ""): what `convert` accepts."""
        return {}

    def clean(self, value: Any, path: str, problems: list[FieldProblem]) -> Any:
        if value is None or value == "":
            if self.emptiable:
                return None
            problems.append(FieldProblem(path, INVALID, f"{path} must have a value."))
            return MISSING
        try:
            return self.convert(value, path, problems)
        except Invalid as error:
            problems.append(FieldProblem(path, error.code, f"{path} {error}."))
            return MISSING

    def convert(self, value: Any, path: str, problems: list[FieldProblem]) -> Any:
        raise NotImplementedError


class Text(Field):
    # A subclass that narrows the text states it here for the document (e.g. "^[0-9]+$", "email").
    pattern: str | None = None
    format: str | None = None

    def __init__(self, *, max_length: int | None = None, digits: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.max_length = max_length
        self.digits = digits

    def json_schema(self) -> dict:
        schema = self.value_schema()
        if self.emptiable:
            # "" is text already; only null needs adding.
            schema.pop("minLength")
            schema["type"] = ["string", "null"]
            if "pattern" in schema:
                schema["pattern"] = f"(?:{schema['pattern']})|^$"
        return self.described(schema)

    def value_schema(self) -> dict:
        schema: dict = {"type": "string", "minLength": 1}  # "" means "no value", refused unless emptiable
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.digits:
            schema["pattern"] = DIGITS.pattern  # ASCII digits, as an account number is written
        elif self.pattern is not None:
            schema["pattern"] = self.pattern  # each subclass's pattern leaves NUL out too
        else:
            schema["pattern"] = NO_NUL
        if self.format is not None:
            schema["format"] = self.format
        return schema

    def convert(self, value, path, problems):
        if not isinstance(value, str):
            raise Invalid("must be text")
        if unsafe_text(value):
            raise Invalid("must not contain NUL or a lone surrogate (\\u0000, \\ud800-\\udfff)")
        if self.max_length is not None and len(value) > self.max_length:
            raise Invalid(f"must be at most {self.max_length} characters")
        if self.digits and not (value.isascii() and value.isdigit()):
            raise Invalid("must contain digits only (0-9)")
        return value


class Int(Field):
    def __init__(self, *, minimum: int | None = None, maximum: int | None = None, **kwargs):
        super().__init__(**kwargs)
        self.minimum = minimum
        self.maximum = maximum

    def value_schema(self) -> dict:
        return {
            "type": "integer",
            "minimum": INT64_MIN if self.minimum is None else max(self.minimum, INT64_MIN),
            "maximum": INT64_MAX if self.maximum is None else min(self.maximum, INT64_MAX),
        }

    def convert(self, value, path, problems):
        # 7.0 and 7e0 are the whole number 7 in JSON (and in JSON Schema's "integer"); 7.5 is not. The body
        # parser gives them as Decimal; the bounds are checked before int(), which for 1e999999999 would
        # build a number of a billion digits.
        if isinstance(value, (float, Decimal)):
            if not is_finite(value) or value != int_part(value):
                raise Invalid("must be a whole number")
            if not INT64_MIN <= value <= INT64_MAX:
                raise Invalid("is too large")
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Invalid("must be a whole number")
        if not INT64_MIN <= value <= INT64_MAX:
            raise Invalid("is too large")
        if self.minimum is not None and value < self.minimum:
            raise Invalid(f"must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise Invalid(f"must be at most {self.maximum}")
        return value


class Bool(Field):
    def value_schema(self) -> dict:
        return {"type": "boolean"}

    def convert(self, value, path, problems):
        if not isinstance(value, bool):
            raise Invalid("must be true or false")
        return value


class Date(Field):
    """`until_2999`: no date after 2999-12-31 (10006), the date that means "never" where one does (an expiry
    date); the document's pattern says so by the year's first digit (no JSON Schema keyword bounds a date)."""

    def __init__(self, *, until_2999: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.until_2999 = until_2999

    def value_schema(self) -> dict:
        if self.until_2999:
            return {
                "type": "string",
                "format": "date",
                "pattern": DATE_UNTIL_2999.pattern,
                "description": f"At most {LATEST_DATE.isoformat()}.",
            }
        return {"type": "string", "format": "date", "pattern": DATE_FORM.pattern}

    def convert(self, value, path, problems):
        if not isinstance(value, str) or not DATE_FORM.match(value):
            raise Invalid("must be a date YYYY-MM-DD", INVALID_DATE)
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            raise Invalid("is not a date that exists", INVALID_DATE) from None
        if self.until_2999 and day > LATEST_DATE:
            raise Invalid(f"must not be after {LATEST_DATE.isoformat()}")
        return day


def is_finite(value: float | Decimal) -> bool:
    return value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)


def int_part(value: float | Decimal) -> float | Decimal:
    return value.to_integral_value() if isinstance(value, Decimal) else float(math.trunc(value))


class Number(Field):
    """A JSON number, exactly as written: the body parser (apicore.jsonbody) gives a number with a fraction
    or an exponent as a Decimal, so 0.1 stays 0.1 and never passes through a float. NaN and Infinity are no
    numbers (JSON has none; the parser refuses them already)."""

    def value_schema(self) -> dict:
        return {"type": "number"}

    def convert(self, value, path, problems):
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
            raise Invalid("must be a number")
        if isinstance(value, int):
            return Decimal(value)
        if not is_finite(value):
            raise Invalid("must be a finite number")
        # A float only reaches here from a caller other than the body parser: its shortest text is exact.
        return value if isinstance(value, Decimal) else Decimal(repr(value))


class ListOf(Field):
    def __init__(self, item: Field, *, max_items: int | None = None, **kwargs):
        super().__init__(**kwargs)
        self.item = item
        self.max_items = max_items

    def value_schema(self) -> dict:
        schema = {"type": "array", "items": self.item.json_schema()}
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return schema

    def clean(self, value, path, problems):
        if value == []:
            return []
        return super().clean(value, path, problems)

    def convert(self, value, path, problems):
        if not isinstance(value, list):
            raise Invalid("must be a list")
        if self.max_items is not None and len(value) > self.max_items:
            raise Invalid(f"must have at most {self.max_items} items")
        cleaned = [self.item.clean(item, f"{path}[{index}]", problems) for index, item in enumerate(value)]
        return [item for item in cleaned if item is not MISSING]


class Obj(Field):
    def __init__(self, fields: dict[str, Field], **kwargs):
        super().__init__(**kwargs)
        self.fields = fields

    def value_schema(self) -> dict:
        # Nested objects are cleaned whole (partial=False) even in a PATCH.
        return object_schema(self.fields, partial=False)

    def convert(self, value, path, problems):
        if not isinstance(value, dict):
            raise Invalid("must be an object")
        return clean_object(self.fields, value, path, problems, partial=False)


def clean_object(fields: dict[str, Field], data: dict, prefix: str, problems: list, *, partial: bool) -> dict:
    cleaned = {}
    for name in data:
        if name in fields:
            continue
        path = printable_name(f"{prefix}.{name}" if prefix else name)
        if unsafe_text(name):
            # Refused like such text in a value: never a name of ours, and not one to echo as it was sent.
            problems.append(FieldProblem(path, INVALID, f"{path} is a name with NUL or a lone surrogate."))
        else:
            problems.append(FieldProblem(path, UNKNOWN, f"{path} is not a field of this request."))
    for name, field in fields.items():
        path = f"{prefix}.{name}" if prefix else name
        if name not in data:
            if field.required and not partial:
                problems.append(FieldProblem(path, INVALID, f"{path} is required."))
            continue
        value = field.clean(data[name], path, problems)
        if value is not MISSING:
            cleaned[name] = value
    return cleaned


class Schema:
    """The body of one request: `fields` by name; `validate` returns only the fields that were sent."""

    fields: dict[str, Field] = {}

    @classmethod
    def validate(cls, data: dict, *, partial: bool = False) -> dict:
        problems: list[FieldProblem] = []
        cleaned = clean_object(cls.fields, data, "", problems, partial=partial)
        raise_problems(problems, source="body")
        return cleaned

    @classmethod
    def json_schema(cls, *, partial: bool = False) -> dict:
        """The body's JSON Schema. `partial` (PATCH): no field is required, but the body must change something
        (has_changes): `{}` or `{"booking": {}}` is refused (10105)."""
        schema = object_schema(cls.fields, partial=partial)
        if partial:
            schema["minProperties"] = 1
            schema.update(changes_schema(cls.fields))
        return schema

    @classmethod
    def error_codes(cls) -> tuple[ErrorCode, ...]:
        """The codes a body of this schema can be refused with (a date field answers its own)."""
        codes = [ErrorCode.INVALID_FIELD, ErrorCode.UNKNOWN_NAME]
        if any(isinstance(field, Date) for field in walk_fields(cls.fields)):
            codes.append(ErrorCode.INVALID_DATE)
        return tuple(codes)


def walk_fields(fields: dict[str, Field]):
    """Every field, nested ones (in objects and lists) too."""
    for field in fields.values():
        while isinstance(field, ListOf):
            yield field
            field = field.item
        yield field
        if isinstance(field, Obj):
            yield from walk_fields(field.fields)


def changes_schema(fields: dict[str, Field]) -> dict:
    """has_changes as JSON Schema: some field is sent whose value is not an object, or is an object that
    itself has changes."""

    def change(field: Field) -> dict:
        if isinstance(field, Obj):
            return {"anyOf": [{"not": {"type": "object"}}, changes_schema(field.fields)]}
        return {}

    return {"anyOf": [{"required": [name], "properties": {name: change(field)}} for name, field in fields.items()]}


def object_schema(fields: dict[str, Field], *, partial: bool) -> dict:
    """An object of exactly these fields (any other name is refused: 10007)."""
    schema: dict = {
        "type": "object",
        "properties": {name: field.json_schema() for name, field in fields.items()},
        "additionalProperties": False,
    }
    required = [name for name, field in fields.items() if field.required and not partial]
    if required:
        schema["required"] = required
    return schema


def has_changes(body: dict) -> bool:
    """Whether a validated PATCH body changes anything: `{"booking": {}}` does not (400 10105), `null` does."""
    return any(not isinstance(value, dict) or has_changes(value) for value in body.values())
