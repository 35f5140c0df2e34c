"""The organization website's economy pages: chart of accounts, cost centers, projects and transactions, scoped
to the administrator's organization; a transaction is added through the service's rules and never changed."""

import datetime as dt
from decimal import Decimal

import pytest
import time_machine

from economy.models import Account, CostCenter, Project, Transaction, TransactionRow
from tests.admin_fixtures import ADMIN, listed, make_superuser, page_errors, web
from tests.factories import MemberFactory
from tests.factories_operations import AccountFactory, CostCenterFactory, ProjectFactory, TransactionFactory

ECONOMY = f"{ADMIN}/economy"
TRANSACTIONS = f"{ECONOMY}/transaction"
NOON = dt.datetime(2026, 11, 25, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def _noon():
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def client(admin):
    return web(admin)


@pytest.fixture
def anna(org):
    return MemberFactory(organization=org, user__first_name="Anna", user__last_name="Berg", user__username="anna.b")


@pytest.fixture
def chart(org):
    return {
        "members": AccountFactory(organization=org, number="1510", name="Members", is_default_debit=True),
        "flying": AccountFactory(organization=org, number="3010", name="Flying", is_default_credit=True),
        "cost_center": CostCenterFactory(organization=org, code="FLY"),
        "project": ProjectFactory(organization=org, code="P1"),
    }


def add(client, member, **fields):
    data = {
        "member": member.pk,
        "date": "2026-11-20",
        "amount": "-1250.50",
        "comment": "Flight SE-KXY",
        "debit_account": "",
        "credit_account": "",
        "cost_center": "",
        "project": "",
    }
    data.update(fields)
    return client.post(f"{TRANSACTIONS}/add/", data)


# --- chart of accounts, cost centers, projects ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "factory"),
    [("account", AccountFactory), ("costcenter", CostCenterFactory), ("project", ProjectFactory)],
)
def test_another_organizations_rows_are_neither_listed_nor_reachable(client, org, other_org, page, factory):
    own, foreign = factory(organization=org), factory(organization=other_org)

    assert listed(client.get(f"{ECONOMY}/{page}/")) == [own]
    assert client.get(f"{ECONOMY}/{page}/{own.pk}/change/").status_code == 200
    assert client.get(f"{ECONOMY}/{page}/{foreign.pk}/change/").status_code == 302  # "not found", back to the index
    assert client.post(f"{ECONOMY}/{page}/{foreign.pk}/delete/", {"post": "yes"}).status_code == 302
    assert type(foreign).objects.filter(pk=foreign.pk).exists()


def test_an_account_is_added_in_the_current_organization(client, org, other_org):
    AccountFactory(organization=other_org, number="1510")

    response = client.post(f"{ECONOMY}/account/add/", {"number": "1510", "name": "Members", "is_default_debit": "on"})

    assert response.status_code == 302, page_errors(response)
    account = Account.objects.get(organization=org)
    assert (account.number, account.is_default_debit) == ("1510", True)


def test_an_account_number_is_digits_and_unique_in_the_organization(client, org):
    AccountFactory(organization=org, number="1510")

    assert page_errors(client.post(f"{ECONOMY}/account/add/", {"number": "15a", "name": "X"}))["number"]
    errors = page_errors(client.post(f"{ECONOMY}/account/add/", {"number": "1510", "name": "X"}))
    # The model's constraint is on the pair (organization, number): a form error of the page, like the other
    # constraints of the chart of accounts (docs/decisions.md §7.13 "The chart of accounts on the website").
    assert errors[""] == ["Account with this Organization and Account number already exists."]
    assert "number" not in errors
    assert Account.objects.count() == 1


def test_only_one_default_debit_account(client, org):
    AccountFactory(organization=org, number="1510", is_default_debit=True)

    errors = page_errors(
        client.post(f"{ECONOMY}/account/add/", {"number": "1520", "name": "X", "is_default_debit": "on"})
    )

    assert errors[""]
    assert Account.objects.count() == 1


def test_cost_centers_and_projects_are_added_and_changed(client, org):
    assert client.post(f"{ECONOMY}/costcenter/add/", {"code": "FLY", "name": "Flying"}).status_code == 302
    assert client.post(f"{ECONOMY}/project/add/", {"code": "P1", "name": "Hangar"}).status_code == 302
    project = Project.objects.get(organization=org)
    assert client.post(f"{ECONOMY}/project/{project.pk}/change/", {"code": "P2", "name": "Hangar"}).status_code == 302
    assert Project.objects.get().code == "P2"
    assert CostCenter.objects.get().organization == org


# --- transactions: the list and the read-only page -------------------------------------------------------------


def test_transactions_are_listed_newest_first_with_the_members_name(client, org, other_org, anna):
    old = TransactionFactory(organization=org, user=anna.user, date=dt.date(2026, 10, 1))
    new_a = TransactionFactory(organization=org, user=anna.user, date=dt.date(2026, 11, 1))
    new_b = TransactionFactory(organization=org, user=anna.user, date=dt.date(2026, 11, 1), amount=Decimal("-1234.5"))
    TransactionFactory(organization=other_org)

    response = client.get(f"{TRANSACTIONS}/")

    assert listed(response) == [new_b, new_a, old]
    html = response.content.decode()
    assert "Anna Berg" in html
    assert "anna.b" not in html
    assert "organization" not in response.context["cl"].list_display  # not shown to an administrator


def test_a_transaction_page_is_read_only_with_its_rows(client, org, anna):
    transaction = TransactionFactory(organization=org, user=anna.user)
    TransactionRow.objects.create(transaction=transaction, account="1510", debit=Decimal("1250"))

    response = client.get(f"{TRANSACTIONS}/{transaction.pk}/change/")

    assert response.status_code == 200
    assert response.context["has_change_permission"] is False
    assert "Anna Berg" in response.content.decode()
    assert "1510" in response.content.decode()
    client.post(f"{TRANSACTIONS}/{transaction.pk}/change/", {"comment": "Changed"})
    assert Transaction.objects.get(pk=transaction.pk).comment == transaction.comment


def test_a_transaction_cannot_be_deleted(client, org, anna):
    transaction = TransactionFactory(organization=org, user=anna.user)

    assert client.post(f"{TRANSACTIONS}/{transaction.pk}/delete/", {"post": "yes"}).status_code == 403
    action = {"action": "delete_selected", "_selected_action": [transaction.pk], "post": "yes"}
    client.post(f"{TRANSACTIONS}/", action)
    assert Transaction.objects.filter(pk=transaction.pk).exists()


def test_another_organizations_transaction_is_not_reachable(client, other_org):
    foreign = TransactionFactory(organization=other_org)

    assert client.get(f"{TRANSACTIONS}/{foreign.pk}/change/").status_code == 302


# --- transactions: the add form ---------------------------------------------------------------------------------


def test_a_transaction_is_added_through_the_service(client, org, admin, anna, chart):
    response = add(client, anna, debit_account="1510", credit_account="3010", cost_center="FLY", project="P1")

    assert response.status_code == 302, page_errors(response)
    transaction = Transaction.objects.get()
    assert (transaction.organization, transaction.user, transaction.amount) == (org, anna.user, Decimal("-1250.50"))
    assert transaction.created_by == admin
    assert list(transaction.rows.values_list("account", "cost_center", "project")) == [
        ("1510", "FLY", "P1"),
        ("3010", "FLY", "P1"),
    ]


def test_without_accounts_the_default_accounts_are_used(client, anna, chart):
    assert add(client, anna).status_code == 302
    assert list(TransactionRow.objects.values_list("account", flat=True)) == ["1510", "3010"]


def test_the_form_offers_only_the_organizations_members_and_accounts_by_name(client, org, other_org, anna, chart):
    MemberFactory(organization=other_org, user__first_name="Kari", user__last_name="Dal")
    AccountFactory(organization=other_org, number="4444")

    response = client.get(f"{TRANSACTIONS}/add/")

    form = response.context["adminform"].form
    assert [label for _, label in form.fields["member"].choices][1:] == [
        str(member) for member in org.members.all().order_by("user__name")
    ]
    assert "Kari Dal" not in response.content.decode()
    assert [value for value, _ in form.fields["debit_account"].choices] == ["", "1510", "3010"]
    assert form.initial["date"] == dt.date(2026, 11, 25)


def test_a_member_of_another_organization_is_refused(client, other_org):
    stranger = MemberFactory(organization=other_org)

    assert page_errors(add(client, stranger))["member"]
    assert Transaction.objects.count() == 0


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"amount": "0"}, "amount"),
        ({"amount": "0.001"}, "amount"),
        ({"amount": "100000.01"}, "amount"),
        ({"amount": "-100000.01"}, "amount"),
        ({"date": "2026-11-26"}, "date"),
        ({"comment": "   "}, "comment"),
        ({"debit_account": "1510"}, "credit_account"),
    ],
)
def test_the_services_refusals_are_shown_on_the_fields(client, anna, chart, fields, field):
    errors = page_errors(add(client, anna, **fields))

    assert errors[field], errors
    assert Transaction.objects.count() == 0
    assert TransactionRow.objects.count() == 0


def test_the_amount_bounds_are_accepted(client, anna):
    assert add(client, anna, amount="100000").status_code == 302
    assert add(client, anna, amount="-100000").status_code == 302
    assert add(client, anna, amount="0.01").status_code == 302


def test_the_lock_date_is_shown_on_the_date(client, org, anna):
    org.transaction_lock_date = dt.date(2026, 11, 20)
    org.save()

    errors = page_errors(add(client, anna))

    assert errors["date"] == ["The organization's transactions are locked through this date."]
    assert add(client, anna, date="2026-11-21").status_code == 302


def test_a_duplicate_is_refused_on_the_page(client, anna):
    assert add(client, anna).status_code == 302

    errors = page_errors(add(client, anna))

    assert errors[""] == ["The member already has a transaction with this date, amount and comment."]
    assert Transaction.objects.count() == 1


def test_the_organizations_lock_date_is_editable_on_its_settings(client, org):
    response = client.get(f"{ADMIN}/accounts/organization/{org.pk}/change/")

    form = response.context["adminform"].form
    assert "transaction_lock_date" in form.fields


def test_a_superuser_sees_every_organizations_transactions(org, other_org, anna):
    own, foreign = TransactionFactory(organization=org, user=anna.user), TransactionFactory(organization=other_org)

    assert set(listed(web(make_superuser()).get(f"{TRANSACTIONS}/"))) == {own, foreign}


def test_a_superuser_adds_a_transaction_in_the_organization_chosen(org, other_org, anna, chart):
    support = web(make_superuser())

    assert page_errors(add(support, anna, organization=other_org.pk))["member"]
    response = add(support, anna, organization=org.pk, debit_account="1510", credit_account="3010")

    assert response.status_code == 302, page_errors(response)
    assert Transaction.objects.get().organization == org
