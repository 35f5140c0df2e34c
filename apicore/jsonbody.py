"""Reading a request body as one JSON object, safely (../shared/DECISIONS.md "Hostile input"; docs/decisions.md
§1.20 "JSON bodies: encoding, depth, numbers").

- UTF-8 only (RFC 8259 8.1), decoded strictly: bytes that are not UTF-8 (the UTF-8 form of a surrogate
  among them) make the body unreadable, 10004. A leading byte order mark is ignored.
- At most MAX_DEPTH levels of arrays and objects, checked before parsing: the parser recurses once per level,
  so a body nested 1,000 deep would otherwise end in RecursionError (a 500).
- Numbers are exact: a number with a fraction or an exponent is a Decimal, never a float (amounts must not
  be rounded on their way in); NaN and Infinity are not JSON and make the body unreadable.

Text with NUL or a lone surrogate (`"\\ud800"` as an escape) is valid JSON; the body's schema refuses it
field by field (apicore.schema), so that the reply names the field.
"""

import json
import re
from decimal import Decimal
from itertools import accumulate

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError

MAX_DEPTH = 32
# A JSON string (escapes included), to be skipped when counting brackets.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class NotJson(ValueError):
    pass


def _refuse_constant(name: str):
    raise NotJson(f"{name} is not a JSON number")


def too_deep(text: str) -> bool:
    """Whether arrays and objects nest more than MAX_DEPTH levels in `text`. Exact for valid JSON; for
    invalid JSON either answer is fine, the parser refuses it anyway. Linear in the body's length."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:  # the common case: too few brackets, no scan
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(_STEP[bracket] for bracket in brackets), default=0) > MAX_DEPTH


def parse(raw: bytes):
    """The JSON value of `raw`, or NotJson saying why it is not readable."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise NotJson("The body is not UTF-8 text.") from None
    text = text.removeprefix("\ufeff")
    if too_deep(text):
        raise NotJson(f"The body nests arrays and objects deeper than {MAX_DEPTH} levels.")
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_refuse_constant)
    except NotJson:
        raise NotJson("The body is not JSON: NaN and Infinity are not numbers.") from None
    except (ValueError, ArithmeticError, RecursionError):
        # ValueError: not JSON, or a whole number of more digits than Python converts (4,300);
        # ArithmeticError: an exponent beyond what Decimal holds (1e99999999999999999999).
        raise NotJson("The body is not JSON.") from None


def parse_object(raw: bytes) -> dict:
    """The body as a JSON object, else 400 (10004) saying why."""
    if not raw:
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be a JSON object; it is empty.")
    try:
        data = parse(raw)
    except NotJson as error:
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, f"{error} It must be a JSON object.") from None
    if not isinstance(data, dict):
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be a JSON object.")
    return data
