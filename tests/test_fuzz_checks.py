"""tests/fuzz_checks.py: schemathesis may see valid data refused only for the rules the document cannot state."""

import json
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.fuzz_checks import UNSTATED_RULES, positive_data_acceptance_main_v5, refused_by_unstated_rule


def case(method: str, path: str):
    return SimpleNamespace(operation=SimpleNamespace(method=method.lower(), path=path))


def reply(status: int, *fields: str, code: int = 10006, top: int | None = None, message: str = "x"):
    errors = [{"field": f, "code": code, "message": message} for f in fields]
    body = {"status": status, "code": top or code, "errors": errors}
    return SimpleNamespace(status_code=status, content=json.dumps(body).encode())


NOT_NEVER = "expiry_date cannot be 2999-12-31: the type Medical may not be never-expiring."
AFTER_2999 = "expiry_date must not be after 2999-12-31."
NOT_THE_AMOUNT = "accounting.amount must be the amount without its sign."
TWO_DECIMALS = "accounting.amount must have at most two decimals."
NOT_USED = "expected_airborne is not used by the organization for this object."
RANGE = "expected_airborne must be 0 to 999.99 hours, with at most two decimals."


@pytest.mark.parametrize(
    ("method", "path", "response", "passes"),
    [
        ("POST", "/users", reply(400, "username"), True),
        ("POST", "/users", reply(400, "user_groups[1]", "membership_id"), True),
        ("POST", "/login-checks", reply(400, "username"), True),
        ("PUT", "/users/{id}/expiry-dates/{type_id}", reply(400, "expiry_date", message=NOT_NEVER), True),
        # After 2999-12-31 the document's pattern states (issue 18).
        ("PUT", "/users/{id}/expiry-dates/{type_id}", reply(400, "expiry_date", message=AFTER_2999), False),
        # A field whose rule the document could state still fails, alone or beside an exempt one.
        ("POST", "/users", reply(400, "email[0]"), False),
        ("POST", "/users", reply(400, "email[0]", "username"), False),
        # The same field elsewhere, another code or status, or no field named: not exempt.
        ("PATCH", "/users/{id}", reply(400, "username"), False),
        ("POST", "/users", reply(400, "username", code=10007), False),
        ("POST", "/users", reply(409, "username"), False),
        ("POST", "/users", reply(400), False),
        # Fields with codes of their own: that code in `errors`, 10006 or the single problem's code on top.
        ("POST", "/transactions", reply(400, "user_id", code=10100, top=10006), True),
        ("POST", "/transactions", reply(400, "date", code=10151), True),
        ("POST", "/transactions", reply(400, "accounting.amount", code=10121, message=NOT_THE_AMOUNT), True),
        # Two decimals and the bounds of both amounts the document states (multipleOf 0.01; issue 18).
        ("POST", "/transactions", reply(400, "amount", "accounting.amount", code=10121, top=10006), False),
        ("POST", "/transactions", reply(400, "accounting.amount", code=10121, message=TWO_DECIMALS), False),
        ("POST", "/transactions", reply(400, "accounting.cost_center", code=10164), True),
        ("POST", "/transactions", reply(400, "accounting.cost_center", code=10006), False),
        ("POST", "/transactions", reply(400, "amount", "date", code=10121), False),
        ("POST", "/transactions", reply(400, "comment"), False),
        ("PATCH", "/expiry-date-types/{id}", reply(400, "booking.excluded_object_ids[2]"), True),
        ("GET", "/sun-times", reply(400, "date_to", code=10005), True),
        # Points in time that do not exist the Mobile document's pattern leaves out (issue 18).
        ("POST", "/bookings", reply(400, "start_at", "end_at"), False),
        ("POST", "/bookings", reply(400, "expected_airborne", message=NOT_USED), True),
        ("POST", "/bookings", reply(400, "expected_airborne", message=RANGE), False),
    ],
)
def test_only_the_listed_rules_excuse_a_refusal(method, path, response, passes):
    assert refused_by_unstated_rule(case(method, path), response) is passes


def test_a_reply_that_is_not_json_is_not_excused():
    response = SimpleNamespace(status_code=400, content=b"<html>Bad Request</html>")

    assert refused_by_unstated_rule(case("POST", "/users"), response) is False


def test_the_built_in_check_judges_every_other_operation():
    """positive_data_acceptance_main_v5 passes over an operation without unstated rules: schemathesis.toml leaves
    the built-in positive_data_acceptance on for it, which a refusal of valid data fails."""
    refused = reply(400, "username")

    assert positive_data_acceptance_main_v5(None, refused, case("PATCH", "/users/{id}")) is None


def test_schemathesis_toml_leaves_the_built_in_check_out_on_exactly_the_operations_with_unstated_rules():
    config = tomllib.loads((Path(__file__).resolve().parent.parent / "schemathesis.toml").read_text())
    exempt = [
        name
        for operations in config["operations"]
        if operations["checks"]["positive_data_acceptance"] == {"enabled": False}
        for name in operations["include-name"]
    ]

    assert config["checks"]["enabled"] is True and "positive_data_acceptance" not in config["checks"]
    assert config["phases"]["stateful"]["enabled"] is True
    assert sorted(exempt) == sorted(f"{method} {path}" for method, path in UNSTATED_RULES)
