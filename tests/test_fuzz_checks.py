"""tests/fuzz_checks.py: schemathesis may see valid data refused only for the rules the document cannot state."""

import json
from types import SimpleNamespace

import pytest

from tests.fuzz_checks import refused_by_unstated_rule


def case(method: str, path: str):
    return SimpleNamespace(operation=SimpleNamespace(method=method.lower(), path=path))


def reply(status: int, *fields: str, code: int = 10006, top: int | None = None):
    errors = [{"field": f, "code": code, "message": "x"} for f in fields]
    body = {"status": status, "code": top or code, "errors": errors}
    return SimpleNamespace(status_code=status, content=json.dumps(body).encode())


@pytest.mark.parametrize(
    ("method", "path", "response", "passes"),
    [
        ("POST", "/users", reply(400, "username"), True),
        ("POST", "/users", reply(400, "user_groups[1]", "membership_id"), True),
        ("POST", "/login-checks", reply(400, "username"), True),
        ("PUT", "/users/{id}/expiry-dates/{type_id}", reply(400, "expiry_date"), True),
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
        ("POST", "/transactions", reply(400, "amount", "accounting.amount", code=10121, top=10006), True),
        ("POST", "/transactions", reply(400, "accounting.cost_center", code=10164), True),
        ("POST", "/transactions", reply(400, "accounting.cost_center", code=10006), False),
        ("POST", "/transactions", reply(400, "amount", "date", code=10121), False),
        ("POST", "/transactions", reply(400, "comment"), False),
        ("PATCH", "/expiry-date-types/{id}", reply(400, "booking.excluded_object_ids[2]"), True),
    ],
)
def test_only_the_listed_rules_excuse_a_refusal(method, path, response, passes):
    assert refused_by_unstated_rule(case(method, path), response) is passes


def test_a_reply_that_is_not_json_is_not_excused():
    response = SimpleNamespace(status_code=400, content=b"<html>Bad Request</html>")

    assert refused_by_unstated_rule(case("POST", "/users"), response) is False
