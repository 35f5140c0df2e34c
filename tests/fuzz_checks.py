"""Schemathesis checks beside the built-in ones (loaded by schemathesis.toml; README "Fuzzing the API").

`positive_data_acceptance` expects every request the document calls valid to be accepted. A few rules of the
contract depend on the caller's data (its organization's id, objects, accounts, today's date) and no JSON
Schema can state them; the document gives them in the field's description, and a request that breaks one is
answered 400 naming the field, as the contract says (docs/decisions.md §8.7 "Rules that depend on the
caller's data"). schemathesis.toml runs the built-in check on every operation but those of UNSTATED_RULES;
this check runs on those instead: the built-in one, except that such a 400 passes when every field it names
carries one of their rules (with its code, and its message where one is given). Any other 400 to valid data
still fails: a rule that the document could state and does not is a fault of the document.
"""

import json
import re

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

INVALID_FIELD = 10006
EXCLUDED_OBJECTS = "the caller's organization's own or shared objects (GET /objects)"
# (method, path) -> field -> the rule no JSON Schema of the document can state; the field's code is 10006
# unless the rule is a (text, code) pair: the contract gives some fields codes of their own; a (text, code,
# message) triple passes only the refusal with that message (the field has rules the document states too).
# Every operation here is left out of the built-in positive_data_acceptance in schemathesis.toml, and only
# these (tests/test_fuzz_checks.py keeps the two lists the same).
UNSTATED_RULES = {
    ("POST", "/users"): {
        "username": "starts with the caller's organization id and a dash; one script, no invisible characters",
        "membership_id": "one of the caller's organization's memberships",
        "user_groups": "the caller's organization's user groups",
    },
    ("PUT", "/users/{id}/expiry-dates/{type_id}"): {
        # The document states "at most 2999-12-31"; whether the type may never expire is the caller's data.
        "expiry_date": (
            "2999-12-31 (never expires) only where the type may never expire",
            10006,
            "cannot be 2999-12-31",
        ),
    },
    ("POST", "/login-checks"): {
        # The document's pattern leaves out spaces, controls and invisible characters; one script, unassigned
        # code points and other planes' invisible ones are in its description (../shared/DECISIONS.md "Hostile
        # input").
        "username": "one script, no invisible characters",
    },
    ("POST", "/expiry-date-types"): {"booking.excluded_object_ids": EXCLUDED_OBJECTS},
    ("PATCH", "/expiry-date-types/{id}"): {"booking.excluded_object_ids": EXCLUDED_OBJECTS},
    ("POST", "/transactions"): {
        "user_id": ("a member of the caller's organization", 10100),
        "date": ("not after today in the organization's zone", 10151),
        # Its bounds and two decimals are in the document (multipleOf 0.01); equal to `amount` is not.
        "accounting.amount": ("the amount without its sign", 10121, "must be the amount without its sign"),
        "accounting.debit_account": ("one of the organization's accounts", 10162),
        "accounting.credit_account": ("one of the organization's accounts", 10163),
        "accounting.cost_center": ("one of the organization's cost centers", 10164),
        "accounting.project": ("one of the organization's projects", 10165),
    },
    # Mobile API v5 (the paths are the Mobile document's; none is also a Main path with the same method).
    ("GET", "/sun-times"): {
        # date_from defaults to today: no schema can bound date_to by it.
        "date_to": ("not before date_from, and at most 62 days from it", 10005),
    },
    ("POST", "/bookings"): {
        # Its range is in the document; whether the organization and the object use it is their setting.
        "expected_airborne": ("given only where used, and where forced always", 10006, "for this object"),
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
        if isinstance(rule, tuple) and len(rule) > 2 and rule[2] not in error.get("message", ""):
            return False
        codes.append(code)
    # The top-level code: 10006, or the single problem's own code (../shared/DECISIONS.md "Readings of the
    # contract": error codes).
    return problem.get("code") in {INVALID_FIELD, *(codes if len(codes) == 1 else ())}


@schemathesis.check
def positive_data_acceptance_main_v5(ctx, response, case):
    """Valid data is accepted, or refused only by a rule the document cannot state (UNSTATED_RULES). Only on
    the operations of UNSTATED_RULES: the built-in check judges every other."""
    if (case.operation.method.upper(), case.operation.path) not in UNSTATED_RULES:
        return None
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if refused_by_unstated_rule(case, response):
            return None
        raise
