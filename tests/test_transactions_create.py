"""POST /transactions and the service behind it (economy.services.transaction_create): every rule of document 1
with its status, code and field; nothing half-saved on a refusal."""

import datetime as dt
import threading
from decimal import Decimal

import pytest
import time_machine
from django.db import DatabaseError, connection

from apicore.errors import ServiceError
from economy.models import Transaction, TransactionRow
from economy.services import transaction_create
from tests.factories import MemberFactory
from tests.factories_operations import AccountFactory, CostCenterFactory, ProjectFactory, TransactionFactory
from tests.helpers import assert_problem, problem_fields

UTC = dt.UTC
# 12:00 UTC on 25 November 2026: 13:00 in Stockholm.
NOON = dt.datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
TODAY = "2026-11-25"


@pytest.fixture(autouse=True)
def _noon():
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg")


@pytest.fixture
def chart(org):
    """Accounts 1510 (members) and 3010 (flying), cost center FLY and project P1 of `org`."""
    return {
        "members": AccountFactory(organization=org, number="1510", name="Members", is_default_debit=True),
        "flying": AccountFactory(organization=org, number="3010", name="Flying", is_default_credit=True),
        "bank": AccountFactory(organization=org, number="1930", name="Bank"),
        "cost_center": CostCenterFactory(organization=org, code="FLY"),
        "project": ProjectFactory(organization=org, code="P1"),
    }


def body(member, **fields) -> dict:
    data = {"user_id": member.user_id, "date": "2026-11-20", "amount": -1250.5, "comment": "Flight SE-KXY"}
    data.update(fields)
    return {name: value for name, value in data.items() if value is not ...}


def accounting(**fields) -> dict:
    data = {"amount": 1250.5, "debit_account": "1510", "credit_account": "3010", "cost_center": "FLY", "project": "P1"}
    data.update(fields)
    return {name: value for name, value in data.items() if value is not ...}


def saved() -> tuple[list, list]:
    return list(Transaction.objects.values()), list(TransactionRow.objects.values())


def refused(api, data, status: int, code: int) -> dict:
    """POST is refused with status and code, and nothing is saved."""
    before = saved()
    problem = assert_problem(api.post("/transactions", data), status, code)
    assert saved() == before
    return problem


def rows_of(transaction_id) -> list[tuple]:
    return list(
        TransactionRow.objects.filter(transaction_id=transaction_id)
        .order_by("position")
        .values_list("account", "debit", "credit", "cost_center", "project")
    )


# --- success -----------------------------------------------------------------------------------------------


def test_a_charge_is_created_with_201_location_and_the_item_as_get_gives_it(api, org, member, chart, admin):
    response = api.post("/transactions?include=account_rows", body(member, accounting=accounting()))

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert response["Location"].endswith(f"/main/v5/transactions/{data['id']}")
    assert data == api.get(f"/transactions/{data['id']}?include=account_rows").json()["data"]
    assert data["amount"] == -1250.5
    assert data["date"] == "2026-11-20"
    assert data["comment"] == "Flight SE-KXY"
    assert data["user"] == {"id": member.user_id, "name": "Anna Berg", "external_customer_number": None}
    assert data["flightlog_id"] is None
    assert data["created_at"] == "2026-11-25T12:00:00Z"
    assert data["account_rows"] == [
        {
            "account": "1510",
            "description": "Flight SE-KXY",
            "debit": 1250.5,
            "credit": 0.0,
            "cost_center": "FLY",
            "project": "P1",
        },
        {
            "account": "3010",
            "description": "Flight SE-KXY",
            "debit": 0.0,
            "credit": 1250.5,
            "cost_center": "FLY",
            "project": "P1",
        },
    ]
    transaction = Transaction.objects.get(pk=data["id"])
    assert transaction.organization == org
    assert transaction.amount == Decimal("-1250.50")
    assert transaction.created_by == admin  # the token's owner


def test_exclude_and_include_work_on_the_created_item(api, member, chart):
    response = api.post("/transactions?exclude=comment,user&include=account_summary", body(member))

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert "comment" not in data and "user" not in data
    assert data["account_summary"] == [
        {"account": "1510", "cost_center": None, "project": None, "debit": 1250.5, "credit": 0.0},
        {"account": "3010", "cost_center": None, "project": None, "debit": 0.0, "credit": 1250.5},
    ]


def test_without_accounting_a_charge_debits_the_default_debit_account(api, member, chart):
    response = api.post("/transactions", body(member, amount=-200))

    assert rows_of(response.json()["data"]["id"]) == [
        ("1510", Decimal("200.00"), Decimal("0.00"), "", ""),
        ("3010", Decimal("0.00"), Decimal("200.00"), "", ""),
    ]


def test_without_accounting_a_payment_credits_the_default_debit_account(api, member, chart):
    response = api.post("/transactions", body(member, amount=500, comment="Payment"))

    assert rows_of(response.json()["data"]["id"]) == [
        ("3010", Decimal("500.00"), Decimal("0.00"), "", ""),
        ("1510", Decimal("0.00"), Decimal("500.00"), "", ""),
    ]


def test_without_accounting_and_without_default_accounts_there_are_no_rows(api, member):
    response = api.post("/transactions?include=account_rows,account_summary", body(member))

    assert response.status_code == 201, response.content
    assert response.json()["data"]["account_rows"] == []
    assert response.json()["data"]["account_summary"] == []
    assert TransactionRow.objects.count() == 0


def test_with_only_one_default_account_there_are_no_rows(api, org, member):
    AccountFactory(organization=org, number="1510", is_default_debit=True)

    response = api.post("/transactions", body(member))

    assert response.status_code == 201
    assert TransactionRow.objects.count() == 0


def test_accounting_without_amount_cost_center_and_project(api, member, chart):
    data = body(member, amount=300, accounting={"debit_account": "1930", "credit_account": "1510"})

    response = api.post("/transactions", data)

    assert response.status_code == 201, response.content
    assert rows_of(response.json()["data"]["id"]) == [
        ("1930", Decimal("300.00"), Decimal("0.00"), "", ""),
        ("1510", Decimal("0.00"), Decimal("300.00"), "", ""),
    ]


@pytest.mark.parametrize("amount", [-100000, 100000, 0.01, -0.01, 12.3, 99999.99, "1E+2", "12.340"])
def test_amounts_at_the_bounds_are_accepted(api, member, amount):
    data = body(member, amount=0)
    raw = __import__("json").dumps(data).replace('"amount": 0', f'"amount": {amount}')

    response = api.client.post(
        "/main/v5/transactions",
        raw,
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    assert response.status_code == 201, response.content
    assert Decimal(str(response.json()["data"]["amount"])) == Decimal(str(amount))


def test_today_in_the_organizations_zone_is_accepted(api, member):
    assert api.post("/transactions", body(member, date=TODAY)).status_code == 201


def test_the_same_transaction_for_another_member_or_date_is_no_duplicate(api, org, member):
    assert api.post("/transactions", body(member)).status_code == 201
    other = MemberFactory(organization=org)
    assert api.post("/transactions", body(other)).status_code == 201
    assert api.post("/transactions", body(member, date="2026-11-21")).status_code == 201
    assert api.post("/transactions", body(member, amount=-1250.51)).status_code == 201
    assert api.post("/transactions", body(member, comment="Flight SE-KXZ")).status_code == 201


def test_the_balance_is_the_sum_of_the_transactions(api, org, member):
    api.post("/transactions", body(member, amount=-1000))
    api.post("/transactions", body(member, amount=400.25, comment="Payment"))

    user = api.get(f"/users/{member.user_id}?include=account").json()["data"]
    assert user["account"]["balance"] == -599.75


# --- amount (10121) ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "amount", ["0", "0.00", "-0", "100000.01", "-100000.01", "1.005", "12.345", "1e999999", "-1e400", "1e-400"]
)
def test_a_wrong_amount_is_400_10121(api, member, amount):
    raw = __import__("json").dumps(body(member, amount=0)).replace('"amount": 0', f'"amount": {amount}')
    before = saved()

    response = api.client.post(
        "/main/v5/transactions",
        raw,
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    problem = assert_problem(response, 400, 10121)
    assert problem_fields(problem) == {"amount": 10121}
    assert saved() == before


def test_a_very_long_precise_amount_is_400_not_500(api, member):
    raw = __import__("json").dumps(body(member, amount=0)).replace('"amount": 0', '"amount": 1.' + "1" * 5000)

    response = api.client.post(
        "/main/v5/transactions",
        raw,
        content_type="application/json",
        secure=True,
        HTTP_AUTHORIZATION=f"Bearer {api.access_token}",
    )

    assert problem_fields(assert_problem(response, 400, 10121)) == {"amount": 10121}


@pytest.mark.parametrize("amount", ["12.5", True, None, [1], {"value": 1}])
def test_an_amount_that_is_no_number_is_400_10006(api, member, amount):
    problem = refused(api, body(member, amount=amount), 400, 10006)
    assert problem_fields(problem) == {"amount": 10006}


@pytest.mark.parametrize("check", [1250.49, -1250.5, 1250.51])
def test_accounting_amount_other_than_the_amount_without_sign_is_400_10121(api, member, chart, check):
    problem = refused(api, body(member, accounting=accounting(amount=check)), 400, 10121)
    assert problem_fields(problem) == {"accounting.amount": 10121}


def test_accounting_amount_with_three_decimals_is_400_10121(api, member, chart):
    problem = refused(api, body(member, accounting=accounting(amount=1250.505)), 400, 10121)
    assert problem_fields(problem) == {"accounting.amount": 10121}


# --- date (10151, 10150, 10110) ----------------------------------------------------------------------------


def test_tomorrow_is_400_10151(api, member):
    problem = refused(api, body(member, date="2026-11-26"), 400, 10151)
    assert problem_fields(problem) == {"date": 10151}


def test_the_future_is_judged_in_the_organizations_zone_around_midnight(api, org, member, _noon):
    # 23:30 UTC on 25 November is 00:30 on 26 November in Stockholm: the 26th is today there.
    _noon.move_to(dt.datetime(2026, 11, 25, 23, 30, tzinfo=UTC))
    assert api.post("/transactions", body(member, date="2026-11-26")).status_code == 201
    # 22:30 UTC is 23:30 in Stockholm: still the 25th, the 26th is tomorrow.
    _noon.move_to(dt.datetime(2026, 11, 25, 22, 30, tzinfo=UTC))
    problem = refused(api, body(member, date="2026-11-26", comment="Other"), 400, 10151)
    assert problem_fields(problem) == {"date": 10151}


def test_another_zone_has_its_own_today(api, org, member, _noon):
    org.timezone = "America/New_York"
    org.save()
    # 03:00 UTC on 26 November is still 22:00 on the 25th in New York.
    _noon.move_to(dt.datetime(2026, 11, 26, 3, 0, tzinfo=UTC))
    refused(api, body(member, date="2026-11-26"), 400, 10151)
    assert api.post("/transactions", body(member, date="2026-11-25")).status_code == 201


def test_the_lock_date_itself_is_locked_409_10150(api, org, member):
    org.transaction_lock_date = dt.date(2026, 10, 31)
    org.save()

    problem = refused(api, body(member, date="2026-10-31"), 409, 10150)
    assert problem_fields(problem) == {"date": 10150}
    refused(api, body(member, date="2026-01-01"), 409, 10150)
    assert api.post("/transactions", body(member, date="2026-11-01")).status_code == 201


@pytest.mark.parametrize("date", ["2026-02-30", "20261120", "2026-11-20T10:00:00", 20261120])
def test_a_wrong_date_is_400(api, member, date):
    problem = refused(api, body(member, date=date), 400, 10110)
    assert problem_fields(problem) == {"date": 10110}


# --- accounting (10162 - 10165) ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "code"),
    [
        ("debit_account", "9999", 10162),
        ("credit_account", "9999", 10163),
        ("cost_center", "NOPE", 10164),
        ("project", "NOPE", 10165),
    ],
)
def test_unknown_accounting_codes_are_400_with_their_own_code(api, member, chart, field, value, code):
    problem = refused(api, body(member, accounting=accounting(**{field: value})), 400, code)
    assert problem_fields(problem) == {f"accounting.{field}": code}


@pytest.mark.parametrize(
    ("field", "code"),
    [("debit_account", 10162), ("credit_account", 10163), ("cost_center", 10164), ("project", 10165)],
)
def test_another_organizations_codes_are_not_found(api, member, chart, other_org, field, code):
    AccountFactory(organization=other_org, number="4010")
    CostCenterFactory(organization=other_org, code="GLIDE")
    ProjectFactory(organization=other_org, code="P9")
    value = {"debit_account": "4010", "credit_account": "4010", "cost_center": "GLIDE", "project": "P9"}[field]

    problem = refused(api, body(member, accounting=accounting(**{field: value})), 400, code)
    assert problem_fields(problem) == {f"accounting.{field}": code}


def test_accounts_are_digits_and_required_with_accounting(api, member, chart):
    problem = refused(api, body(member, accounting=accounting(debit_account="15a0", credit_account=...)), 400, 10006)
    assert problem_fields(problem) == {"accounting.debit_account": 10006, "accounting.credit_account": 10006}


def test_accounting_must_be_an_object_with_known_fields(api, member, chart):
    refused(api, body(member, accounting=None), 400, 10006)
    refused(api, body(member, accounting="1510"), 400, 10006)
    problem = refused(api, body(member, accounting=accounting(debit=1250.5)), 400, 10007)
    assert problem_fields(problem) == {"accounting.debit": 10007}


# --- user, comment, duplicates --------------------------------------------------------------------------------


@pytest.mark.parametrize("user_id", [999_999_999, 2**62, 0, -1])
def test_an_unknown_user_id_is_400_with_10100_in_errors(api, member, user_id):
    problem = refused(api, body(member, user_id=user_id), 400, 10006)
    assert problem_fields(problem) == {"user_id": 10100}


def test_a_user_of_another_organization_is_unknown(api, other_org):
    stranger = MemberFactory(organization=other_org)
    problem = refused(api, body(stranger), 400, 10006)
    assert problem_fields(problem) == {"user_id": 10100}


@pytest.mark.parametrize("user_id", ["7", 7.5, True, 2**63])
def test_a_user_id_that_is_no_id_is_400_10006(api, member, user_id):
    problem = refused(api, body(member, user_id=user_id), 400, 10006)
    assert problem_fields(problem) == {"user_id": 10006}


@pytest.mark.parametrize("comment", [..., "", None, "   ", 7, "x" * 501, "a\u0000b"])
def test_a_missing_or_wrong_comment_is_400_10006(api, member, comment):
    problem = refused(api, body(member, comment=comment), 400, 10006)
    assert problem_fields(problem) == {"comment": 10006}


@pytest.mark.parametrize("name", ["user_id", "date", "amount"])
def test_a_missing_required_field_is_400_10006(api, member, name):
    problem = refused(api, body(member, **{name: ...}), 400, 10006)
    assert problem_fields(problem) == {name: 10006}


def test_unknown_fields_and_an_id_are_400_10007(api, member):
    problem = refused(api, body(member, id=5, flightlog_id=3), 400, 10007)
    assert problem_fields(problem) == {"id": 10007, "flightlog_id": 10007}


def test_a_body_that_is_no_object_is_400_10004(api):
    assert_problem(api.post("/transactions", [1]), 400, 10004)


def test_the_same_transaction_twice_is_409_10130(api, member):
    first = api.post("/transactions", body(member))
    assert first.status_code == 201

    problem = refused(api, body(member, amount=-1250.50), 409, 10130)
    assert str(first.json()["data"]["id"]) in problem["detail"]


def test_a_duplicate_of_a_stored_transaction_is_found(api, org, member):
    TransactionFactory(
        organization=org,
        user=member.user,
        date=dt.date(2026, 11, 20),
        amount=Decimal("-1250.50"),
        comment="Flight SE-KXY",
    )
    refused(api, body(member), 409, 10130)


def test_several_problems_are_listed_at_once(api, member, chart):
    data = body(
        member,
        user_id=999_999_999,
        amount=0,
        date="2026-12-01",
        comment="",
        accounting=accounting(debit_account="9999", project="NOPE", amount=5),
    )

    problem = refused(api, data, 400, 10006)
    assert problem_fields(problem) == {
        "user_id": 10100,
        "amount": 10121,
        "date": 10151,
        "comment": 10006,
        "accounting.debit_account": 10162,
        "accounting.project": 10165,
    }  # accounting.amount is compared only with an amount that is right itself


def test_a_mismatch_is_listed_with_other_problems(api, member, chart):
    data = body(member, date="2026-12-01", accounting=accounting(amount=5, credit_account="9999"))

    problem = refused(api, data, 400, 10006)
    assert problem_fields(problem) == {"date": 10151, "accounting.amount": 10121, "accounting.credit_account": 10163}


def test_form_problems_and_organization_problems_are_listed_together(api, member, chart):
    problem = refused(api, body(member, amount="12", accounting=accounting(cost_center="NOPE", amount=...)), 400, 10006)
    assert problem_fields(problem) == {"amount": 10006, "accounting.cost_center": 10164}


def test_400_problems_come_before_the_lock_date(api, org, member):
    org.transaction_lock_date = dt.date(2026, 11, 30)
    org.save()
    refused(api, body(member, amount=0), 400, 10121)


def test_a_database_failure_is_500_10190_and_saves_nothing(api, member, chart, monkeypatch):
    def broken(*args, **kwargs):
        raise DatabaseError("disk full")

    monkeypatch.setattr(TransactionRow.objects, "bulk_create", broken)

    problem = refused(api, body(member, accounting=accounting()), 500, 10190)
    assert "disk full" not in str(problem)


def test_a_failure_to_lock_the_member_is_500_10190(api, member, monkeypatch):
    import economy.services

    def timed_out(*args, **kwargs):
        raise DatabaseError("lock timeout")

    monkeypatch.setattr(economy.services, "_lock_member", timed_out)

    refused(api, body(member), 500, 10190)


# --- the service ----------------------------------------------------------------------------------------------


def create(org, member, **fields):
    values = {
        "organization": org,
        "user_id": member.user_id,
        "date": dt.date(2026, 11, 20),
        "amount": Decimal("-100"),
        "comment": "Landing fee",
    }
    return transaction_create(**{**values, **fields})


def test_the_service_refuses_with_field_problems(org, member):
    with pytest.raises(ServiceError) as refused_:
        create(org, member, amount=Decimal("0.001"), comment=" ", user_id=None)

    assert {p.field: p.code for p in refused_.value.errors} == {"amount": 10121, "comment": 10006, "user_id": 10006}
    assert Transaction.objects.count() == 0


def test_the_service_takes_whole_numbers_and_the_booker(org, member, admin):
    created = create(org, member, amount=-75, by=admin)

    assert created.amount == Decimal("-75")
    assert created.created_by == admin


def test_the_service_refuses_accounting_without_accounts(org, member, chart):
    with pytest.raises(ServiceError) as refused_:
        create(org, member, accounting={"cost_center": "FLY"})

    assert {p.field: p.code for p in refused_.value.errors} == {
        "accounting.debit_account": 10006,
        "accounting.credit_account": 10006,
    }


def test_the_service_links_a_flight_of_the_organization(org, member):
    from tests.factories_operations import FlightFactory

    flight = FlightFactory(organization=org)
    created = create(org, member, flightlog=flight)
    assert created.flightlog == flight


@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicates_make_one_transaction(org, member):
    """Two requests with the same transaction at once: the member's row serializes them, one gets 10130."""
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serializes writers itself (one writer at a time); the row lock is PostgreSQL's")
    results = []
    barrier = threading.Barrier(2)

    def book():
        try:
            barrier.wait()
            create(org, member)
            results.append("created")
        except ServiceError as error:
            results.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=book) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results, key=str) == [10130, "created"]
    assert Transaction.objects.count() == 1


@pytest.mark.parametrize("number", ["\uff11\uff15\uff11\uff10", "15\u00b90", "\u00b3", "1510\n", "15 10"])
def test_an_account_number_is_ascii_digits_as_the_document_states(api, member, chart, number):
    """`str.isdigit` takes full-width, superscript and other scripts' digits; an account number is 0-9."""
    problem = refused(api, body(member, accounting=accounting(debit_account=number)), 400, 10006)

    assert problem_fields(problem) == {"accounting.debit_account": 10006}
    document = api.client.get("/main/v5/openapi.json", secure=True).json()
    assert [found["pattern"] for found in properties_named(document, "debit_account")] == ["^[0-9]+$"]


def properties_named(node, name: str) -> list[dict]:
    """Every schema of a property called `name` anywhere in the document."""
    if isinstance(node, list):
        return [found for child in node for found in properties_named(child, name)]
    if not isinstance(node, dict):
        return []
    found = (
        [node["properties"][name]] if isinstance(node.get("properties"), dict) and name in node["properties"] else []
    )
    return found + [inner for child in node.values() for inner in properties_named(child, name)]
