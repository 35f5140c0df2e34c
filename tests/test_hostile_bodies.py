"""Hostile request bodies (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §1.20 "JSON bodies: encoding,
depth, numbers", §1.21 "NUL and lone surrogates"): deep nesting, text that no database stores alike
(NUL, lone surrogates), bytes that are not UTF-8, and numbers JSON does not have. Each used to end in a 500
or be stored; each is now a 400 that names what is wrong, and nothing is saved."""

import time
from decimal import Decimal

import pytest

from accounts.models import ExpiryDateType, Member, Membership, User
from apicore import jsonbody
from apicore import schema as s
from tests.helpers import assert_problem, problem_fields

TYPES = "/expiry-date-types"


def post_raw(api, path: str, raw, method: str = "POST"):
    """`raw` as the body, byte for byte (str is sent as UTF-8): JSON escapes such as \\ud800 arrive as written."""
    return api.call(method, path, data=raw, content_type="application/json")


def send_raw(api, path: str, raw: str):
    """As post_raw, through the client's generic method: the test run's own watchers of POST bodies (which
    parse them as JSON) are not to be fed a body nested 1,000 deep."""
    headers = {"HTTP_AUTHORIZATION": f"Bearer {api.access_token}"}
    return api.client.generic("POST", f"/main/v5{path}", raw, content_type="application/json", secure=True, **headers)


@pytest.fixture
def senior(org):
    return Membership.objects.create(organization=org, name="Senior")


def user_body(org, senior, **extra) -> str:
    """A POST /users body as JSON text, with `extra` fields given as JSON text themselves."""
    fields = {
        "username": f'"{org.pk}-anna"',
        "first_name": '"Anna"',
        "last_name": '"Berg"',
        "membership_id": str(senior.pk),
        **extra,
    }
    return "{" + ",".join(f'"{name}":{value}' for name, value in fields.items()) + "}"


# --- nesting ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("opening, closing", [("[", "]"), ('{"a":', "}")])
def test_a_body_nested_1000_deep_is_10004(api, opening, closing):
    deep = opening * 1000 + "1" + closing * 1000
    raws = ['{"name": "Medical", "booking": ' + deep + "}"]
    if opening != "[":  # an array body is refused for not being an object anyway
        raws.append(deep)
    for raw in raws:
        body = assert_problem(send_raw(api, TYPES, raw), 400, 10004)
        assert "32 levels" in body["detail"]
    assert not ExpiryDateType.objects.exists()


def test_32_levels_are_read_and_33_are_10004(api):
    # The body itself is the first level: 31 arrays inside it make 32 levels, read and then refused by name.
    at_limit = '{"name": "Medical", "x": ' + "[" * 31 + "]" * 31 + "}"
    assert problem_fields(assert_problem(post_raw(api, TYPES, at_limit), 400, 10007)) == {"x": 10007}
    over = '{"name": "Medical", "x": ' + "[" * 32 + "]" * 32 + "}"
    assert_problem(post_raw(api, TYPES, over), 400, 10004)


def test_brackets_inside_text_are_not_nesting(api, org):
    raw = '{"username": "nobody", "password": "' + "[{" * 500 + '\\"[[[["}'
    response = post_raw(api, "/login-checks", raw)
    assert response.status_code == 200, response.content
    assert response.json()["data"]["valid"] is False


# --- lone surrogates and NUL ------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["\\ud800", "\\udfff", "x\\udc00y", "\\u0000", "before\\u0000after"])
def test_a_lone_surrogate_or_nul_in_a_text_field_is_10006_naming_it(api, bad):
    body = assert_problem(post_raw(api, TYPES, f'{{"name": "{bad}"}}'), 400, 10006)
    assert problem_fields(body) == {"name": 10006}
    assert not ExpiryDateType.objects.exists()


@pytest.mark.parametrize(
    "extra, named",
    [
        ({"address": '{"city": "Ume\\ud800"}'}, "address.city"),
        ({"address": '{"street_address": ["Storgatan 1", "\\u0000"]}'}, "address.street_address[1]"),
        ({"email": '["anna@x.se", "a\\udbffnna@y.se"]'}, "email[1]"),
        ({"phone": '{"mobile": {"number": "070\\u0000"}}'}, "phone.mobile.number"),
        ({"first_name": '"\\ud83d"'}, "first_name"),
        ({"username": '"1-anna\\u0000"'}, "username"),
        ({"emergency_contact": '{"name": "\\udc00\\ud800"}'}, "emergency_contact.name"),
    ],
)
def test_post_users_names_the_field_with_a_lone_surrogate_or_nul(api, org, senior, extra, named):
    before = User.objects.count()
    response = post_raw(api, "/users", user_body(org, senior, **extra))
    assert problem_fields(assert_problem(response, 400, 10006)) == {named: 10006}
    assert User.objects.count() == before


def test_patch_users_refuses_nul_and_stores_nothing(api, org, admin):
    member = Member.objects.get(user=admin)
    raw = '{"misc_info": "glider\\u0000pilot", "address": {"city": "\\ud800"}}'
    response = post_raw(api, f"/users/{admin.pk}", raw, method="PATCH")
    assert problem_fields(assert_problem(response, 400, 10006)) == {"misc_info": 10006, "address.city": 10006}
    member.refresh_from_db()
    assert member.misc_info == ""
    assert User.objects.get(pk=admin.pk).city == ""


@pytest.mark.parametrize("field", ["username", "password"])
@pytest.mark.parametrize("bad", ["\\ud800", "\\u0000"])
def test_login_check_names_a_lone_surrogate_or_nul(api, org, field, bad):
    values = {"username": f'"{org.pk}-erik"', "password": '"secret"', field: f'"x{bad}"'}
    raw = "{" + ",".join(f'"{name}": {value}' for name, value in values.items()) + "}"
    assert problem_fields(assert_problem(post_raw(api, "/login-checks", raw), 400, 10006)) == {field: 10006}


def test_a_surrogate_pair_written_as_two_escapes_is_one_character(api):
    response = post_raw(api, TYPES, '{"name": "\\ud83d\\ude81 Medical"}')
    assert response.status_code == 201, response.content
    assert ExpiryDateType.objects.get().name == "\U0001f681 Medical"


def test_a_field_name_with_a_lone_surrogate_or_nul_is_10006_shown_escaped(api):
    raw = '{"name": "Medical", "x\\ud800": 1, "booking": {"\\u0000": true}, "colour": "red"}'
    response = post_raw(api, TYPES, raw)
    response.content.decode("utf-8")  # the reply is UTF-8, whatever the names sent
    body = assert_problem(response, 400, 10006)
    assert problem_fields(body) == {"x\\ud800": 10006, "booking.\\u0000": 10006, "colour": 10007}
    assert not ExpiryDateType.objects.exists()


@pytest.mark.parametrize(
    "raw",
    [
        b'{"name": "\xff"}',  # not UTF-8 at all
        b'{"name": "\xed\xa0\x80"}',  # the UTF-8 form of a surrogate: not UTF-8 either
        b'{"name": "Medical\xc3"}',  # a cut sequence
        '{"name": "Medical"}'.encode("utf-16"),  # JSON text is UTF-8 (RFC 8259 8.1)
    ],
)
def test_bytes_that_are_not_utf8_are_10004(api, raw):
    assert_problem(post_raw(api, TYPES, raw), 400, 10004)
    assert not ExpiryDateType.objects.exists()


def test_a_leading_byte_order_mark_is_ignored(api):
    response = post_raw(api, TYPES, '\ufeff{"name": "Medical"}'.encode())
    assert response.status_code == 201, response.content


# --- numbers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_10004(api, constant):
    raw = f'{{"name": "Medical", "reminders": {{"days_before": {constant}}}}}'
    body = assert_problem(post_raw(api, TYPES, raw), 400, 10004)
    assert "NaN and Infinity" in body["detail"]
    assert not ExpiryDateType.objects.exists()


@pytest.mark.parametrize("written", ["7", "7.0", "7e0", "70E-1", "0.007e3"])
def test_a_whole_number_may_be_written_with_a_fraction_or_an_exponent(api, written):
    raw = f'{{"name": "Medical", "reminders": {{"days_before": {written}}}}}'
    response = post_raw(api, TYPES, raw)
    assert response.status_code == 201, response.content
    assert ExpiryDateType.objects.get().reminders_days_before == 7


@pytest.mark.parametrize("written", ["7.5", "7.000000000000000000000000001", "1e-999999999", "366"])
def test_a_number_that_is_not_a_whole_number_in_range_is_10006(api, written):
    raw = f'{{"name": "Medical", "reminders": {{"days_before": {written}}}}}'
    assert problem_fields(assert_problem(post_raw(api, TYPES, raw), 400, 10006)) == {"reminders.days_before": 10006}


def test_a_huge_exponent_is_refused_at_once(api):
    started = time.perf_counter()
    raw = '{"name": "Medical", "reminders": {"days_before": 1e999999999}, "booking": {"excluded_object_ids": [1E+19]}}'
    body = assert_problem(post_raw(api, TYPES, raw), 400, 10006)
    assert problem_fields(body) == {"reminders.days_before": 10006, "booking.excluded_object_ids[0]": 10006}
    # Beyond what a Decimal holds: not a number this service reads at all.
    assert_problem(
        post_raw(api, TYPES, '{"name": "M", "reminders": {"days_before": 1e99999999999999999999}}'), 400, 10004
    )
    assert time.perf_counter() - started < 1


def test_numbers_are_read_as_exact_decimals():
    data = jsonbody.parse(b'{"a": 0.1, "b": 1e-7, "c": 12345678901234567890.123456789, "d": 3}')
    assert data == {"a": Decimal("0.1"), "b": Decimal("1e-7"), "c": Decimal("12345678901234567890.123456789"), "d": 3}
    assert not any(isinstance(value, float) for value in data.values())

    class Amounts(s.Schema):
        fields = {"amount": s.Number(), "count": s.Number()}

    cleaned = Amounts.validate({"amount": data["c"], "count": data["d"]})
    assert cleaned == {"amount": Decimal("12345678901234567890.123456789"), "count": Decimal(3)}
    assert isinstance(cleaned["count"], Decimal)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), Decimal("NaN"), Decimal("-Infinity"), "1", True])
def test_number_refuses_what_is_no_finite_number(value):
    class Amount(s.Schema):
        fields = {"amount": s.Number()}

    with pytest.raises(Exception) as raised:
        Amount.validate({"amount": value})
    assert [problem.field for problem in raised.value.errors] == ["amount"]
