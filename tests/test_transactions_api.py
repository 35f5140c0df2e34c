"""GET /transactions and GET /transactions/{id}: fields, filters, order, blocks, tenancy, query counts, and the
replies against the generated OpenAPI document."""

import datetime as dt
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Member, User
from economy.models import Transaction, TransactionRow
from tests.factories import MemberFactory
from tests.factories_operations import FlightFactory, TransactionFactory
from tests.helpers import assert_problem, problem_fields
from tests.test_openapi import Conformance, document  # noqa: F401 (the document fixture)


@pytest.fixture
def anna(org):
    return MemberFactory(
        organization=org, user__first_name="Anna", user__last_name="Berg", external_customer_number="K-100_1"
    )


@pytest.fixture
def bo(org):
    return MemberFactory(organization=org, user__first_name="Bo", user__last_name="Ek")


def book(org, member, date, amount, comment="Flight", **fields):
    return TransactionFactory(
        organization=org,
        user=member.user,
        date=dt.date.fromisoformat(date),
        amount=Decimal(amount),
        comment=comment,
        **fields,
    )


def row(transaction, position, account, debit="0", credit="0", cost_center="", project="", description=""):
    return TransactionRow.objects.create(
        transaction=transaction,
        position=position,
        account=account,
        debit=Decimal(debit),
        credit=Decimal(credit),
        cost_center=cost_center,
        project=project,
        description=description,
    )


def ids(api, params=None) -> list[int]:
    response = api.get("/transactions", params)
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()["data"]]


# --- items -------------------------------------------------------------------------------------------------


def test_an_item_has_the_contracts_fields(api, org, anna):
    flight = FlightFactory(organization=org)
    transaction = book(org, anna, "2026-11-20", "-1250.50", "Flight SE-KXY", flightlog=flight)
    Transaction.objects.filter(pk=transaction.pk).update(
        created_at=dt.datetime(2026, 11, 20, 14, 5, 9, 500, tzinfo=dt.UTC)
    )

    data = api.get(f"/transactions/{transaction.pk}").json()["data"]

    assert data == {
        "id": transaction.pk,
        "date": "2026-11-20",
        "user": {"id": anna.user_id, "name": "Anna Berg", "external_customer_number": "K-100_1"},
        "flightlog_id": flight.pk,
        "amount": -1250.5,
        "comment": "Flight SE-KXY",
        "created_at": "2026-11-20T14:05:09Z",
    }


def test_the_external_customer_number_is_the_members_in_the_transactions_organization(api, org, other_org, anna):
    MemberFactory(organization=other_org, user=anna.user, external_customer_number="OTHER")
    transaction = book(org, anna, "2026-11-20", "10")
    bo_without = MemberFactory(organization=org)
    plain = book(org, bo_without, "2026-11-20", "10")

    assert api.get(f"/transactions/{transaction.pk}").json()["data"]["user"]["external_customer_number"] == "K-100_1"
    assert api.get(f"/transactions/{plain.pk}").json()["data"]["user"]["external_customer_number"] is None


def test_a_former_member_keeps_name_and_has_no_customer_number(api, org, anna):
    transaction = book(org, anna, "2026-11-20", "10")
    Member.objects.filter(pk=anna.pk).delete()

    user = api.get(f"/transactions/{transaction.pk}").json()["data"]["user"]
    assert user == {"id": anna.user_id, "name": "Anna Berg", "external_customer_number": None}


def test_an_unknown_or_foreign_transaction_is_404(api, other_org):
    foreign = TransactionFactory(organization=other_org)
    assert_problem(api.get(f"/transactions/{foreign.pk}"), 404, 10100)
    assert_problem(api.get("/transactions/999999999"), 404, 10100)


def test_amounts_are_numbers(api, org, anna):
    book(org, anna, "2026-11-20", "12.30")
    book(org, anna, "2026-11-19", "-0.10")
    book(org, anna, "2026-11-18", "100000.00")

    amounts = [item["amount"] for item in api.get("/transactions").json()["data"]]
    assert amounts == [12.3, -0.1, 100000]


# --- order and paging ---------------------------------------------------------------------------------------


def test_newest_first_by_date_then_id(api, org, anna, bo):
    old = book(org, anna, "2026-10-01", "1")
    newer_a = book(org, bo, "2026-11-01", "2")
    newer_b = book(org, anna, "2026-11-01", "3")
    middle = book(org, anna, "2026-10-15", "4")

    assert ids(api) == [newer_b.pk, newer_a.pk, middle.pk, old.pk]
    assert ids(api, {"limit": 2, "offset": 1}) == [newer_a.pk, middle.pk]


def test_list_meta_and_total(api, org, anna):
    for day in range(1, 4):
        book(org, anna, f"2026-11-0{day}", "1")

    body = api.get("/transactions", {"limit": 2, "include_total": "true"}).json()
    assert body["meta"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "total": 3}
    assert "offset=2" in body["links"]["next"]


# --- filters -----------------------------------------------------------------------------------------------


@pytest.fixture
def ledger(org, other_org, anna, bo):
    stranger = MemberFactory(organization=other_org, user__first_name="Anna", user__last_name="Berg")
    return {
        "a1": book(org, anna, "2026-11-01", "-1250.50", "Flight SE-KXY"),
        "a2": book(org, anna, "2026-11-10", "500.00", "Payment 100%"),
        "b1": book(org, bo, "2026-11-05", "-1250.50", "Flight_SE-ABC"),
        "b2": book(org, bo, "2026-11-20", "-80.00", "Landing fee"),
        "foreign": book(other_org, stranger, "2026-11-05", "-1250.50", "Flight SE-KXY"),
    }


def named(ledger, *names) -> list[int]:
    return [ledger[name].pk for name in names]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"user_name": "anna berg"}, ["a2", "a1"]),
        ({"user_name": "Anna"}, []),  # the whole value matches
        ({"user_name": "an*"}, ["a2", "a1"]),
        ({"user_name": "*e*"}, ["b2", "a2", "b1", "a1"]),
        ({"comment": "flight*"}, ["b1", "a1"]),
        ({"comment": "flight_se*"}, ["b1"]),  # `_` is an ordinary character
        ({"comment": "*100%"}, ["a2"]),  # so is `%`
        ({"comment": "*0%*"}, ["a2"]),
        ({"comment": "%"}, []),
        ({"external_customer_number": "K-100_1"}, ["a2", "a1"]),
        ({"external_customer_number": "k-100*"}, ["a2", "a1"]),
        ({"external_customer_number": "K-100?1"}, []),
        ({"external_customer_number": "K%"}, []),
        ({"date": "2026-11-05"}, ["b1"]),
        ({"date_from": "2026-11-05"}, ["b2", "a2", "b1"]),
        ({"date_to": "2026-11-05"}, ["b1", "a1"]),
        ({"date_from": "2026-11-02", "date_to": "2026-11-10"}, ["a2", "b1"]),
        ({"amount": "-1250.5"}, ["b1", "a1"]),
        ({"amount": "-1250.50"}, ["b1", "a1"]),
        ({"amount": "500"}, ["a2"]),
        ({"amount": "-80.01"}, []),
        ({"amount": "-1250.5", "comment": "flight se*"}, ["a1"]),
    ],
)
def test_filters(api, ledger, params, expected):
    assert ids(api, params) == named(ledger, *expected)


def test_user_id_filter(api, ledger, anna, bo):
    assert ids(api, {"user_id": anna.user_id}) == named(ledger, "a2", "a1")
    assert ids(api, {"user_id": 999_999_999}) == []
    assert ids(api, {"user_id": 10**18 - 1}) == []
    assert ids(api, {"user_id": -(10**18) + 1}) == []


def test_another_organizations_transactions_are_not_found_by_any_filter(api, ledger, other_org):
    foreign_user = ledger["foreign"].user_id
    assert ids(api, {"user_id": foreign_user}) == []
    assert ledger["foreign"].pk not in ids(api, {"comment": "*", "limit": 500})


@pytest.mark.parametrize(
    ("params", "field", "code"),
    [
        ({"amount": "12.345"}, "amount", 10005),
        ({"amount": "1e3"}, "amount", 10005),
        ({"amount": "abc"}, "amount", 10005),
        ({"user_id": "x"}, "user_id", 10005),
        ({"date": "2026-02-30"}, "date", 10110),
        ({"date_from": "20261101"}, "date_from", 10110),
        ({"comment": "x" * 101}, "comment", 10005),
        ({"user_name": ""}, "user_name", 10005),
        ({"id": "5"}, "id", 10007),
        ({"include": "rows"}, "include", 10005),
    ],
)
def test_wrong_parameters_are_400(api, params, field, code):
    response = api.get("/transactions", params)
    assert response.status_code == 400, response.content
    assert problem_fields(response) == {field: code}


# --- blocks --------------------------------------------------------------------------------------------------


def test_account_rows_in_their_order(api, org, anna):
    transaction = book(org, anna, "2026-11-20", "-1000")
    row(transaction, 1, "3010", credit="1000", cost_center="FLY", project="P1", description="Flying")
    row(transaction, 0, "1510", debit="1000")

    data = api.get(f"/transactions/{transaction.pk}", {"include": "account_rows"}).json()["data"]

    assert data["account_rows"] == [
        {"account": "1510", "description": None, "debit": 1000, "credit": 0, "cost_center": None, "project": None},
        {"account": "3010", "description": "Flying", "debit": 0, "credit": 1000, "cost_center": "FLY", "project": "P1"},
    ]


def test_account_summary_sums_per_account_cost_center_and_project(api, org, anna):
    transaction = book(org, anna, "2026-11-20", "-1000")
    row(transaction, 0, "1510", debit="1000")
    row(transaction, 1, "3010", credit="600", cost_center="FLY")
    row(transaction, 2, "3010", credit="300", cost_center="FLY")
    row(transaction, 3, "3010", credit="100", cost_center="FLY", project="P1")
    row(transaction, 4, "2010", debit="50")
    row(transaction, 5, "2010", credit="50")
    row(transaction, 6, "1000")  # zero debit and zero credit: left out
    row(transaction, 7, "1020", debit="0.00", credit="0.00", cost_center="X")

    data = api.get("/transactions", {"include": "account_summary"}).json()["data"][0]

    assert data["account_summary"] == [
        {"account": "1510", "cost_center": None, "project": None, "debit": 1000, "credit": 0},
        {"account": "2010", "cost_center": None, "project": None, "debit": 50, "credit": 50},
        {"account": "3010", "cost_center": "FLY", "project": None, "debit": 0, "credit": 900},
        {"account": "3010", "cost_center": "FLY", "project": "P1", "debit": 0, "credit": 100},
    ]
    assert "account_rows" not in data


def test_blocks_of_each_item_hold_only_its_own_rows(api, org, anna):
    first = book(org, anna, "2026-11-20", "-10", "one")
    second = book(org, anna, "2026-11-19", "-20", "two")
    none = book(org, anna, "2026-11-18", "-30", "three")
    row(first, 0, "1510", debit="10")
    row(second, 0, "1510", debit="20")

    items = api.get("/transactions", {"include": "account_rows,account_summary"}).json()["data"]

    assert [[r["debit"] for r in item["account_rows"]] for item in items] == [[10], [20], []]
    assert [[s["debit"] for s in item["account_summary"]] for item in items] == [[10], [20], []]
    assert [item["id"] for item in items] == [first.pk, second.pk, none.pk]


def test_a_page_with_all_blocks_costs_the_same_queries_at_limit_1_and_500(api, org, django_assert_max_num_queries):
    users = User.objects.bulk_create(User(username=f"bulk{n}", first_name=f"B{n}", name=f"B{n}") for n in range(30))
    Member.objects.bulk_create(
        Member(user=user, organization=org, member_number=f"B{n}", external_customer_number=f"C{n}")
        for n, user in enumerate(users)
    )
    transactions = Transaction.objects.bulk_create(
        Transaction(
            organization=org,
            user=users[n % 30],
            date=dt.date(2026, 1, 1) + dt.timedelta(days=n % 300),
            amount=-n - 1,
            comment=f"T{n}",
        )
        for n in range(520)
    )
    TransactionRow.objects.bulk_create(
        TransactionRow(transaction=t, position=p, account=a, debit=d, credit=c, cost_center="FLY")
        for t in transactions
        for p, a, d, c in ((0, "1510", 5, 0), (1, "3010", 0, 5))
    )
    params = {"include": "account_rows,account_summary", "external_customer_number": "C*", "user_name": "B*"}
    api.get("/token")  # the access token is fetched outside the counted calls
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(api.get("/transactions", {**params, "limit": 1}).json()["data"]) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/transactions", {**params, "limit": 500}).json()
    assert body["meta"]["count"] == 500
    assert all(len(item["account_rows"]) == 2 and len(item["account_summary"]) == 2 for item in body["data"])
    with django_assert_max_num_queries(len(at_limit_1) + 1):  # the count of include_total
        api.get("/transactions", {**params, "limit": 500, "include_total": "true"})


# --- the document ---------------------------------------------------------------------------------------------


def test_replies_conform_to_the_openapi_document(document, api, org, anna):  # noqa: F811
    conformance = Conformance(document)
    transaction = book(org, anna, "2026-11-20", "-10", flightlog=FlightFactory(organization=org))
    row(transaction, 0, "1510", debit="10", cost_center="FLY")
    blocks = "account_rows,account_summary"

    conformance.check("GET", "/transactions", api.get(f"/transactions?include={blocks}&include_total=true"), 200)
    conformance.check("GET", "/transactions/{id}", api.get(f"/transactions/{transaction.pk}?include={blocks}"), 200)
    created = api.post(
        f"/transactions?include={blocks}",
        {"user_id": anna.user_id, "date": "2026-01-02", "amount": 99.5, "comment": "Payment"},
    )
    conformance.check("POST", "/transactions", created, 201)
    again = api.post(
        "/transactions", {"user_id": anna.user_id, "date": "2026-01-02", "amount": 99.5, "comment": "Payment"}
    )
    conformance.check("POST", "/transactions", again, 409)
    wrong = api.post("/transactions", {"user_id": 0, "date": "2099-01-01", "amount": 0.001, "comment": "x"})
    conformance.check("POST", "/transactions", wrong, 400)
    conformance.check("GET", "/transactions/{id}", api.get("/transactions/999999999"), 404)


def test_the_document_states_the_body_and_the_amount_bounds(document):  # noqa: F811
    operation = document["paths"]["/transactions"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    assert set(schema["required"]) == {"user_id", "date", "amount", "comment"}
    assert schema["additionalProperties"] is False
    amount = schema["properties"]["amount"]
    assert (amount["minimum"], amount["maximum"]) == (-100000, 100000)
    accounting = schema["properties"]["accounting"]
    assert set(accounting["required"]) == {"debit_account", "credit_account"}
    replies = operation["responses"]
    documented = {status: json.dumps(replies[status]) for status in ("400", "409", "500")}
    for status, codes in {
        "400": (10121, 10151, 10162, 10163, 10164, 10165),
        "409": (10130, 10150),
        "500": (10190,),
    }.items():
        assert all(str(code) in documented[status] for code in codes), status
    assert "404" not in replies  # an unknown user_id is a 400 naming the field (10100 in errors)
