"""GET /mobile/v5/transactions and /transactions/{id} (document 2, Transaction): the member's own transactions
in the member's organization, newest first, from a year back by default, 20 a page by default, the `#` note
cut, `balance_after` over all the member's transactions, `meta.balance` and `meta.opening_balance` on
several pages, nobody else's transaction ever, hostile parameters, rights and query counts."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from economy.api.transactions_mobile_v5 import a_year_before
from economy.models import Transaction
from tests.factories import MemberFactory, OrganizationFactory, UserFactory
from tests.factories_operations import TransactionFactory
from tests.helpers import assert_problem, problem_fields
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(db):
    return OrganizationFactory(name="Västerås Flygklubb")


@pytest.fixture
def member(club):
    return MemberFactory(organization=club, user__first_name="Anna", user__last_name="Berg")


@pytest.fixture
def treasurer(club):
    return UserFactory(first_name="Kim", last_name="Kassör")


@pytest.fixture
def app_client(club):
    return make_app_client(rights={"transactions": "r"})


@pytest.fixture
def api(member, app_client):
    return MobileApi(issue_member_tokens(member, app_client).access_token)


def add(member, day: str, amount: str, comment: str = "Fee", **fields) -> Transaction:
    return TransactionFactory(
        organization=member.organization,
        user=member.user,
        date=dt.date.fromisoformat(day),
        amount=Decimal(amount),
        comment=comment,
        **fields,
    )


@pytest.fixture
def account(frozen_time, club, member, treasurer):
    """The member's account over more than a year (today is 2026-11-25 in Stockholm), with balances after."""
    rows = [
        ("2025-06-01", "1000", "Deposit", "1000"),
        ("2025-11-24", "-200", "Annual fee 2025", "800"),
        ("2025-11-25", "-100", "Fee #paid late", "700"),
        ("2026-03-01", "-300.50", "Flight SE-KUA # internal: check the tach", "399.5"),
        ("2026-03-01", "50", "Refund", "449.5"),
        ("2026-11-25", "-25", "Landing fee", "424.5"),
        ("2026-12-01", "10", "Prepaid", "434.5"),
    ]
    made = {}
    for day, amount, comment, after in rows:
        made[comment] = (add(member, day, amount, comment, created_by=treasurer), float(after))
    return made


# The routes (their contract classes: tests/test_contract_mobile_economy.py).
LIST, ITEM = "/transactions", "/transactions/<id:pk>"


def item_path(pk) -> str:
    return ITEM.replace("<id:pk>", str(pk))


def items(response) -> list[dict]:
    assert response.status_code == 200, response.content
    return response.json()["data"]


def comments(response) -> list[str]:
    return [item["comment"] for item in items(response)]


# --- fields -----------------------------------------------------------------------------------------------


def test_a_transaction_shows_every_field_of_document_2(api, account, treasurer):
    transaction, _ = account["Flight SE-KUA # internal: check the tach"]

    response = api.get(item_path(transaction.pk))

    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store"
    assert response.json() == {
        "data": {
            "id": transaction.pk,
            "date": "2026-03-01",
            "amount": -300.5,
            "comment": "Flight SE-KUA",
            "booked_by": {"id": treasurer.pk, "name": "Kim Kassör"},
            "balance_after": 399.5,
            "created_at": "2026-11-25T12:00:00Z",
        }
    }
    listed = api.get("/transactions").json()["data"]
    assert next(item for item in listed if item["id"] == transaction.pk) == response.json()["data"]


@pytest.mark.parametrize(
    "comment, shown",
    [
        ("Fee #paid late", "Fee"),
        ("  Fee  ", "Fee"),
        ("#all internal", None),
        ("   # all internal", None),
        ("Flight # a # b", "Flight"),
        ("Fuel", "Fuel"),
        ("Fuel#", "Fuel"),
        ("Bränsle ÅÄÖ#x", "Bränsle ÅÄÖ"),
    ],
)
def test_the_note_after_a_hash_is_left_out(api, member, frozen_time, comment, shown):
    transaction = add(member, "2026-11-01", "-10", comment)

    assert api.get(item_path(transaction.pk)).json()["data"]["comment"] == shown
    assert api.get("/transactions").json()["data"][0]["comment"] == shown


def test_booked_by_is_null_without_a_booker(api, member, frozen_time):
    transaction = add(member, "2026-11-01", "-10")

    assert api.get(item_path(transaction.pk)).json()["data"]["booked_by"] is None


def test_balance_after_of_every_transaction_counts_all_of_them(api, account):
    listed = items(api.get("/transactions", data={"date_from": "2000-01-01"}))

    assert [(item["id"], item["balance_after"]) for item in listed] == [
        (transaction.pk, after) for transaction, after in reversed(account.values())
    ]
    # A page or a window never changes a balance: it is over all the member's transactions in (date, id) order.
    only_march = items(api.get("/transactions", data={"date_from": "2026-03-01", "date_to": "2026-03-01", "limit": 1}))
    assert [item["balance_after"] for item in only_march] == [449.5]
    for name, (transaction, after) in account.items():
        assert api.get(item_path(transaction.pk)).json()["data"]["balance_after"] == after, name


def test_same_date_transactions_run_in_id_order(api, member, frozen_time):
    first = add(member, "2026-11-01", "-10")
    second = add(member, "2026-11-01", "-5")
    earlier = add(member, "2026-10-01", "100")  # a later id, an earlier date

    listed = items(api.get("/transactions"))

    assert [item["id"] for item in listed] == [second.pk, first.pk, earlier.pk]
    assert [item["balance_after"] for item in listed] == [85.0, 90.0, 100.0]


def test_sums_are_exact_to_the_cent(api, member, frozen_time):
    for amount in ("0.10", "0.20", "-0.05", "1234567.89"):
        add(member, "2026-11-01", amount)

    response = api.get("/transactions")

    assert [item["balance_after"] for item in items(response)] == [1234568.14, 0.25, 0.3, 0.1]
    assert (response.json()["meta"]["balance"], response.json()["meta"]["opening_balance"]) == (1234568.14, 0.0)
    assert api.get("/transactions", data={"offset": 1}).json()["meta"]["opening_balance"] == 0.0
    assert api.get("/transactions", data={"limit": 2}).json()["meta"]["opening_balance"] == 0.3


def test_exclude_leaves_fields_out(api, account):
    transaction, _ = account["Refund"]

    listed = items(api.get("/transactions", data={"exclude": "balance_after,booked_by"}))
    one = api.get(item_path(transaction.pk), data={"exclude": "comment"}).json()["data"]

    assert all("balance_after" not in item and "booked_by" not in item and "amount" in item for item in listed)
    assert "comment" not in one and "balance_after" in one
    # The meta does not depend on the fields shown.
    meta = api.get("/transactions", data={"exclude": "balance_after,amount,id", "limit": 2}).json()["meta"]
    assert (meta["balance"], meta["opening_balance"]) == (434.5, 449.5)
    assert problem_fields(assert_problem(api.get("/transactions", data={"exclude": "user"}), 400, 10005)) == {
        "exclude": 10005
    }
    assert problem_fields(assert_problem(api.get("/transactions", data={"include": "account_rows"}), 400, 10005)) == {
        "include": 10005
    }


# --- which transactions, order, defaults ------------------------------------------------------------------


def test_the_default_list_is_a_year_back_newest_first(api, account):
    response = api.get("/transactions")

    assert comments(response) == ["Prepaid", "Landing fee", "Refund", "Flight SE-KUA", "Fee"]
    assert response.json()["meta"] == {
        "count": 5,
        "limit": 20,
        "offset": 0,
        "has_more": False,
        "balance": 434.5,
        "opening_balance": 800.0,
    }
    assert response.json()["links"] == {"next": None}


def test_the_year_back_follows_the_organizations_today(api, account, frozen_time):
    # 2026-11-25T23:30Z is already the 26th in Stockholm: the year back starts on 2025-11-26.
    frozen_time.move_to(dt.datetime(2026, 11, 25, 23, 30, tzinfo=dt.UTC))

    assert comments(api.get("/transactions"))[-1] == "Flight SE-KUA"


def test_a_year_before():
    assert a_year_before(dt.date(2026, 11, 25)) == dt.date(2025, 11, 25)
    assert a_year_before(dt.date(2028, 2, 29)) == dt.date(2027, 2, 28)
    assert a_year_before(dt.date(2026, 1, 1)) == dt.date(2025, 1, 1)


def test_date_from_and_date_to_are_inclusive(api, account):
    assert comments(api.get("/transactions", data={"date_from": "2025-01-01"}))[-2:] == ["Annual fee 2025", "Deposit"]
    assert comments(api.get("/transactions", data={"date_from": "2025-11-24", "date_to": "2026-03-01"})) == [
        "Refund",
        "Flight SE-KUA",
        "Fee",
        "Annual fee 2025",
    ]
    assert comments(api.get("/transactions", data={"date_to": "2025-11-25"})) == ["Fee"]  # date_from still a year back
    assert comments(api.get("/transactions", data={"date_from": "2026-12-02"})) == []


def test_meta_on_several_pages(api, account):
    def page(**query):
        response = api.get("/transactions", data={"limit": 2, **query})
        return [item["comment"] for item in items(response)], response.json()["meta"]

    first, meta = page()
    assert first == ["Prepaid", "Landing fee"]
    assert meta == {"count": 2, "limit": 2, "offset": 0, "has_more": True, "balance": 434.5, "opening_balance": 449.5}
    second, meta = page(offset=2)
    assert second == ["Refund", "Flight SE-KUA"]
    assert (meta["opening_balance"], meta["balance"], meta["has_more"]) == (700.0, 434.5, True)
    third, meta = page(offset=4)
    assert third == ["Fee"]
    assert (meta["opening_balance"], meta["has_more"]) == (800.0, False)
    empty, meta = page(offset=6, include_total="true")
    assert empty == []
    assert meta == {
        "count": 0,
        "limit": 2,
        "offset": 6,
        "has_more": False,
        "total": 5,
        "balance": 434.5,
        "opening_balance": None,
    }
    # From the first transaction on, nothing comes before it.
    _, meta = page(date_from="2000-01-01", offset=6)
    assert meta["opening_balance"] == 0.0
    # The opening balance of a page is the oldest item's balance after, less its amount.
    listed = items(api.get("/transactions", data={"limit": 3, "offset": 1}))
    meta = api.get("/transactions", data={"limit": 3, "offset": 1}).json()["meta"]
    assert meta["opening_balance"] == listed[-1]["balance_after"] - listed[-1]["amount"]
    assert "offset=2" in api.get("/transactions", data={"limit": 2}).json()["links"]["next"]


def test_a_member_without_transactions(api, frozen_time):
    response = api.get("/transactions")

    assert response.json()["data"] == []
    assert (response.json()["meta"]["balance"], response.json()["meta"]["opening_balance"]) == (0.0, None)


def test_limit(api, member, frozen_time):
    for n in range(25):
        add(member, "2026-11-01", "-1", f"Fee {n}")

    assert len(items(api.get("/transactions"))) == 20
    assert len(items(api.get("/transactions", data={"limit": 500}))) == 25
    for limit in ("0", "501", "-1", "twenty"):
        assert problem_fields(assert_problem(api.get("/transactions", data={"limit": limit}), 400, 10005)) == {
            "limit": 10005
        }


# --- nobody else's ----------------------------------------------------------------------------------------


def test_nobody_elses_transaction_is_listed_or_fetched(api, account, club, member, other_org, frozen_time):
    colleague = MemberFactory(organization=club)
    colleagues = add(colleague, "2026-11-01", "-999", "Colleague")
    # The same person in another club: that club's account is not this login's account here.
    elsewhere = MemberFactory(organization=other_org, user=member.user)
    own_elsewhere = add(elsewhere, "2026-11-01", "-777", "Elsewhere")
    strangers = add(MemberFactory(organization=other_org), "2026-11-01", "-555", "Stranger")

    listed = api.get("/transactions", data={"date_from": "2000-01-01", "limit": 500})

    assert {item["id"] for item in items(listed)} == {transaction.pk for transaction, _ in account.values()}
    assert listed.json()["meta"]["balance"] == 434.5
    for transaction in (colleagues, own_elsewhere, strangers):
        assert_problem(api.get(item_path(transaction.pk)), 404, 10100)
    assert_problem(api.get(item_path(999999)), 404, 10100)
    assert_problem(api.get(f"/transactions/{account['Refund'][0].pk}/"), 404, 10100)  # no trailing slash


def test_the_same_person_in_another_club_sees_that_clubs_account(account, member, other_org, app_client):
    elsewhere = MemberFactory(organization=other_org, user=member.user)
    own_elsewhere = add(elsewhere, "2026-11-01", "-777", "Elsewhere")
    api = MobileApi(issue_member_tokens(elsewhere, app_client).access_token)

    response = api.get("/transactions")

    assert [item["id"] for item in items(response)] == [own_elsewhere.pk]
    assert response.json()["meta"]["balance"] == -777.0
    assert items(response)[0]["balance_after"] == -777.0
    assert_problem(api.get(item_path(account["Refund"][0].pk)), 404, 10100)


# --- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, field, code",
    [
        ({"date_from": "2026-02-29"}, "date_from", 10110),
        ({"date_to": "25/11/2026"}, "date_to", 10110),
        ({"date_from": "2026-11-01\x00"}, "date_from", 10110),
        ({"date_to": "9" * 5000}, "date_to", 10110),
        ({"offset": "1" * 40}, "offset", 10005),
        ({"include_total": "1"}, "include_total", 10005),
        ({"date_from": ""}, "date_from", 10005),
        ({"order": "asc"}, "order", 10007),
        ({"user_id": "1"}, "user_id", 10007),
    ],
)
def test_hostile_and_wrong_parameters_are_400(api, account, query, field, code):
    body = assert_problem(api.get("/transactions", data=query), 400, code)
    assert problem_fields(body) == {field: code}


def test_bytes_that_are_no_text_are_400(api, account):
    for raw, field, code in (("date_from=2026-01-01%ED%A0%80", "date_from", 10110), ("limit=1%00", "limit", 10005)):
        assert problem_fields(assert_problem(api.get("/transactions", QUERY_STRING=raw), 400, code)) == {field: code}


def test_the_item_takes_only_exclude(api, account):
    transaction, _ = account["Refund"]

    body = assert_problem(api.get(item_path(transaction.pk), data={"date_from": "2026-01-01"}), 400, 10007)
    assert problem_fields(body) == {"date_from": 10007}


def test_rights_and_the_apps_own_token(member, account):
    transaction, _ = account["Refund"]
    without = MobileApi(issue_member_tokens(member, make_app_client(rights={"flightlogs": "r"})).access_token)
    assert_problem(without.get("/transactions"), 403, 10002)
    assert_problem(without.get(item_path(transaction.pk)), 403, 10002)

    app = MobileApi(issue_app_token(make_app_client(rights={"transactions": "r"})))
    assert_problem(app.get("/transactions"), 403, 10305)
    assert_problem(app.get(item_path(transaction.pk)), 403, 10305)
    assert_problem(MobileApi().get("/transactions"), 401, 10001)
    write_only = MobileApi(issue_member_tokens(member, make_app_client(rights={"transactions": "w"})).access_token)
    assert_problem(write_only.get("/transactions"), 403, 10002)
    assert_problem(write_only.call("POST", "/transactions", json={}), 405, 10050)


# --- cost -------------------------------------------------------------------------------------------------


def test_a_page_costs_the_same_queries_for_1_and_500_transactions(
    api, member, club, treasurer, frozen_time, django_assert_max_num_queries
):
    others = MemberFactory(organization=club)
    Transaction.objects.bulk_create(
        Transaction(
            organization=club,
            user=member.user if n % 4 else others.user,
            date=dt.date(2026, 1, 1) + dt.timedelta(days=n % 300),
            amount=Decimal(n % 50 - 25),
            comment=f"Fee {n} #note",
            created_by=treasurer if n % 2 else None,
        )
        for n in range(800)
    )
    with CaptureQueriesContext(connection) as at_limit_1:
        assert len(items(api.get("/transactions", data={"limit": 1}))) == 1

    with django_assert_max_num_queries(len(at_limit_1)):
        body = api.get("/transactions", data={"limit": 500, "offset": 3, "date_from": "2026-01-01"}).json()
    assert body["meta"]["count"] == 500
    # The balances of a full page agree with a sum in Python over every transaction of the member.
    amounts = sorted(
        Transaction.objects.filter(organization=club, user=member.user).values_list("date", "id", "amount")
    )
    running, after = Decimal(0), {}
    for _day, id_, amount in amounts:
        running += amount
        after[id_] = float(running)
    assert all(item["balance_after"] == after[item["id"]] for item in body["data"])
    assert body["meta"]["balance"] == float(running)
    with django_assert_max_num_queries(len(at_limit_1) + 1):  # the count of include_total
        api.get("/transactions", data={"limit": 500, "include_total": "true", "date_from": "2026-01-01"})
    with CaptureQueriesContext(connection) as one_item:
        api.get(item_path(amounts[0][1]))
    assert len(one_item) <= len(at_limit_1)


# --- the document -----------------------------------------------------------------------------------------


def test_replies_conform_to_the_mobile_document(api, account, member):
    from tests.test_openapi import Conformance

    document = Client().get("/mobile/v5/openapi.json", secure=True).json()
    conformance = Conformance(document)
    transaction, _ = account["Refund"]

    conformance.check("GET", "/transactions", api.get("/transactions"), 200)
    conformance.check("GET", "/transactions", api.get("/transactions", data={"offset": 50}), 200)  # opening null
    conformance.check("GET", "/transactions", api.get("/transactions", data={"include_total": "true"}), 200)
    conformance.check("GET", "/transactions/{id}", api.get(item_path(transaction.pk)), 200)
    conformance.check("GET", "/transactions/{id}", api.get(item_path(999999)), 404)
    conformance.check("GET", "/transactions", api.get("/transactions", data={"date_to": "x"}), 400)
    without = MobileApi(issue_member_tokens(member, make_app_client(rights={"objects": "r"})).access_token)
    conformance.check("GET", "/transactions", without.get("/transactions"), 403)
    conformance.check_method_not_allowed("POST", "/transactions", api.call("POST", "/transactions"))
    operation = document["paths"]["/transactions"]["get"]
    meta = operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["meta"]
    assert {"balance", "opening_balance"} <= set(meta["required"])
    limit = next(parameter for parameter in operation["parameters"] if parameter["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 500, "default": 20}
