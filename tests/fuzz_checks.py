"""Schemathesis checks of Main v5 beside the built-in ones (loaded by schemathesis.toml; README "Fuzzing the API").

`positive_data_acceptance` expects every request the document calls valid to be accepted. A few rules of the
contract cannot be stated by a public JSON Schema, and a request that breaks one is answered 400 10006 naming
the field, as the contract says. This check is the built-in one, except that such a 400 passes when every
field it names carries one of those rules. Any other 400 to valid data still fails: a rule that the document
could state and does not is a fault of the document.
"""

import json
import re

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

INVALID_FIELD = 10006
EXCLUDED_OBJECTS = "the caller's organization's own or shared objects (GET /objects)"
# (method, path) -> field -> the rule no JSON Schema of the document can state; the field's code is 10006
# unless the rule is a (text, code) pair: the contract gives some fields codes of their own.
UNSTATED_RULES = {
    ("POST", "/users"): {
        "username": "starts with the caller's organization id and a dash; one script, no invisible characters",
        "membership_id": "one of the caller's organization's memberships",
        "user_groups": "the caller's organization's user groups",
    },
    ("PUT", "/users/{id}/expiry-dates/{type_id}"): {
        "expiry_date": "2999-12-31 (never expires) only where the type may never expire",
    },
    ("POST", "/login-checks"): {
        "username": 'one script, no invisible characters (../shared/DECISIONS.md "Hostile input")',
    },
    ("POST", "/expiry-date-types"): {"booking.excluded_object_ids": EXCLUDED_OBJECTS},
    ("PATCH", "/expiry-date-types/{id}"): {"booking.excluded_object_ids": EXCLUDED_OBJECTS},
    ("POST", "/transactions"): {
        "user_id": ("a member of the caller's organization", 10100),
        "date": ("not after today in the organization's zone", 10151),
        # The document states it in words: a JSON Schema multipleOf 0.01 is judged in binary floating point.
        "amount": ("at most two decimals", 10121),
        "accounting.amount": ("the amount without its sign", 10121),
        "accounting.debit_account": ("one of the organization's accounts", 10162),
        "accounting.credit_account": ("one of the organization's accounts", 10163),
        "accounting.cost_center": ("one of the organization's cost centers", 10164),
        "accounting.project": ("one of the organization's projects", 10165),
    },
    # Mobile API v5 (the paths are the Mobile document's; none is also a Main path with the same method).
    ("GET", "/sun-times"): {
        "date_to": ("not before date_from, and at most 62 days from it", 10005),
    },
    ("POST", "/bookings"): {
        "start_at": "a point in time that exists (a pattern cannot rule out month 00 or 30 February)",
        "end_at": "a point in time that exists (a pattern cannot rule out month 00 or 30 February)",
    },
}
INDEX = re.compile(r"\[\d+\]")


def refused_by_unstated_rule(case, response) -> bool:
    rules = UNSTATED_RULES.get((case.operation.method.upper(), case.operation.path), {})
    if response.status_code != 400 or not rules:
        return False
    try:
        problem = json.loads(response.content)
    except ValueError:
        return False
    errors = problem.get("errors") or []
    if not errors:
        return False
    codes = []
    for error in errors:
        rule = rules.get(INDEX.sub("", error.get("field", "")))
        if rule is None:
            return False
        code = rule[1] if isinstance(rule, tuple) else INVALID_FIELD
        if error.get("code") != code:
            return False
        codes.append(code)
    # The top-level code: 10006, or the single problem's own code (../shared/DECISIONS.md "Readings of the
    # contract": error codes).
    return problem.get("code") in {INVALID_FIELD, *(codes if len(codes) == 1 else ())}


@schemathesis.check
def positive_data_acceptance_main_v5(ctx, response, case):
    """Valid data is accepted, or refused only by a rule the document cannot state (UNSTATED_RULES)."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if refused_by_unstated_rule(case, response):
            return None
        raise
