"""Reading a request body as one JSON object, safely (../shared/DECISIONS.md "Hostile input"; docs/decisions.md
§1.20 "JSON bodies: encoding, depth, numbers").

- Sent as `application/json`, with no charset or a charset that is UTF-8 (in any letter case): any other media
  type (text/plain, a form, multipart, XML, none at all) is 415 (10004), whatever the bytes are.
- A name given twice in one object is 400 (10004): which of the two was meant is not for us to guess.
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

from django.utils.http import parse_header_parameters

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError

MAX_DEPTH = 32
# A JSON string (escapes included), to be skipped when counting brackets.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class NotJson(ValueError):
    pass


class DuplicateName(NotJson):
    pass


def _refuse_constant(name: str):
    raise NotJson(f"{name} is not a JSON number")


def _object_once(pairs: list[tuple[str, object]]) -> dict:
    """An object whose names are each given once (RFC 8259 4: they SHOULD be unique; we require it)."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen = set()
        for name, _value in pairs:
            if name in seen:
                raise DuplicateName(name)
            seen.add(name)
    return result


def is_json_media_type(content_type: str) -> bool:
    """Whether a Content-Type is application/json with no charset or UTF-8 (letter case aside; a charset
    parameter is case-insensitive, RFC 9110 8.3.2). Other parameters mean nothing to JSON and are ignored."""
    media_type, parameters = parse_header_parameters(content_type or "")
    charset = parameters.get("charset")
    return media_type == "application/json" and (charset is None or charset.lower() == "utf-8")


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
        return json.loads(text, parse_float=Decimal, parse_constant=_refuse_constant, object_pairs_hook=_object_once)
    except DuplicateName as error:
        name = json.dumps(error.args[0], ensure_ascii=False)
        raise NotJson(f"The body gives the name {name[:100]} twice in one object.") from None
    except NotJson:
        raise NotJson("The body is not JSON: NaN and Infinity are not numbers.") from None
    except (ValueError, ArithmeticError, RecursionError):
        # ValueError: not JSON, or a whole number of more digits than Python converts (4,300);
        # ArithmeticError: an exponent beyond what Decimal holds (1e99999999999999999999).
        raise NotJson("The body is not JSON.") from None


def parse_object(raw: bytes, content_type: str) -> dict:
    """The body as a JSON object, else 400 (10004) saying why; 415 (10004) when it is not sent as JSON (an
    empty body has no media type: it is 400, whatever Content-Type says)."""
    if not raw:
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be a JSON object; it is empty.")
    if not is_json_media_type(content_type):
        raise ApiError(
            ErrorCode.UNSUPPORTED_MEDIA_TYPE, "Send the body as Content-Type: application/json (UTF-8, the default)."
        )
    try:
        data = parse(raw)
    except NotJson as error:
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, f"{error} It must be a JSON object.") from None
    if not isinstance(data, dict):
        raise ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be a JSON object.")
    return data
