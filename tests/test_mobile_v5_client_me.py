"""GET /mobile/v5/client and GET /mobile/v5/me (document 2): every field, the app's own token, conventions
(unknown parameters, trailing slash, headers), another organization never shown, and their query counts."""

from decimal import Decimal

import pytest

from mobile_api.models import MOBILE_MODULES
from tests.factories import MemberFactory, MembershipFactory, OrganizationFactory
from tests.factories_operations import TransactionFactory
from tests.helpers import assert_problem
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db


@pytest.fixture
def club(db):
    return OrganizationFactory(
        name="Västerås Flygklubb",
        homepage="https://vfk.example.se",
        currency_code="SEK",
        currency_symbol="kr",
    )


@pytest.fixture
def member(club):
    membership = MembershipFactory(organization=club, name="Senior")
    return MemberFactory(
        organization=club,
        membership=membership,
        member_number="0042",
        locked=True,
        user__username="anna.berg",
        user__first_name="Anna",
        user__last_name_particle="van",
        user__last_name="Berg",
    )


@pytest.fixture
def app_client(club):
    return make_app_client(
        name="Aero Apps AB",
        app_name="Club Flyer",
        rights={"objects": "r", "bookings": "rw", "transactions": "w"},
    )


@pytest.fixture
def api(member, app_client):
    return MobileApi(issue_member_tokens(member, app_client).access_token)


# --- GET /client -------------------------------------------------------------------------------------------


def test_client_shows_every_field(api, app_client):
    response = api.get("/client")

    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "data": {
            "id": app_client.pk,
            "name": "Aero Apps AB",
            "app_name": "Club Flyer",
            "rights": {"objects": "r", "bookings": "rw", "transactions": "w"},
            "organizations": None,
            "rate_limit_per_minute": 600,
        }
    }


def test_client_lists_its_organizations_and_its_own_limit(club, member):
    other = OrganizationFactory()
    client = make_app_client(
        rights={module: "r" for module in MOBILE_MODULES}, organizations=[other, club], rate_limit_per_minute=90
    )
    api = MobileApi(issue_member_tokens(member, client).access_token)

    data = api.get("/client").json()["data"]

    assert data["organizations"] == sorted([club.pk, other.pk])
    assert data["rate_limit_per_minute"] == 90
    assert data["rights"] == {module: "r" for module in MOBILE_MODULES}


def test_client_answers_the_apps_own_token(app_client):
    response = MobileApi(issue_app_token(app_client)).get("/client")

    assert response.status_code == 200, response.content
    assert response.json()["data"]["id"] == app_client.pk
    assert response["RateLimit-Limit"] == "600"
    assert response["RateLimit-Remaining"] == "599"


def test_client_of_a_client_without_rights(member):
    client = make_app_client(rights={})
    response = MobileApi(issue_member_tokens(member, client).access_token).get("/client")

    assert response.status_code == 200
    assert response.json()["data"]["rights"] == {}


# --- GET /me ----------------------------------------------------------------------------------------------


def test_me_shows_every_field(api, member, club):
    TransactionFactory(organization=club, user=member.user, amount=Decimal("-120.50"))
    TransactionFactory(organization=club, user=member.user, amount=Decimal("20.20"))

    response = api.get("/me")

    assert response.status_code == 200, response.content
    assert response.json() == {
        "data": {
            "id": member.user_id,
            "username": "anna.berg",
            "member_number": "0042",
            "name": {"first": "Anna", "prefix": "van", "last": "Berg", "full": "Anna van Berg"},
            "user_category": member.membership_id,
            "locked": True,
            "organization": {"id": club.pk, "name": "Västerås Flygklubb", "homepage": "https://vfk.example.se"},
            "balance": -100.3,
            "currency": {"code": "SEK", "symbol": "kr"},
        }
    }


def test_me_empty_values_are_null_and_balance_zero(app_client):
    club = OrganizationFactory(homepage="", currency_code="NOK", currency_symbol="kr")
    member = MemberFactory(organization=club, membership=None, user__last_name_particle="")
    api = MobileApi(issue_member_tokens(member, app_client).access_token)

    data = api.get("/me").json()["data"]

    assert data["name"]["prefix"] is None
    assert data["user_category"] is None
    assert data["organization"]["homepage"] is None
    assert data["balance"] == 0 and isinstance(data["balance"], int | float)
    assert data["currency"] == {"code": "NOK", "symbol": "kr"}
    assert data["locked"] is False


def test_me_shows_the_logins_own_organization_only(club, member, app_client):
    """The same person is a member of another club too, with another number, membership and balance there:
    a login to the first club never shows the other's."""
    other = OrganizationFactory(name="Bergen Flyklubb", currency_code="NOK", currency_symbol="kr")
    elsewhere = MemberFactory(
        organization=other, user=member.user, member_number="9", membership=MembershipFactory(organization=other)
    )
    TransactionFactory(organization=other, user=member.user, amount=Decimal("999"))
    TransactionFactory(organization=club, user=member.user, amount=Decimal("5"))
    api = MobileApi(issue_member_tokens(member, app_client).access_token)
    api_elsewhere = MobileApi(issue_member_tokens(elsewhere, app_client).access_token)

    here, there = api.get("/me").json()["data"], api_elsewhere.get("/me").json()["data"]

    assert (here["member_number"], here["organization"]["id"], here["balance"]) == ("0042", club.pk, 5)
    assert here["user_category"] == member.membership_id
    assert here["currency"]["code"] == "SEK"
    assert (there["member_number"], there["organization"]["id"], there["balance"]) == ("9", other.pk, 999)
    assert there["user_category"] == elsewhere.membership_id
    assert here["id"] == there["id"] == member.user_id


def test_me_refuses_the_apps_own_token(app_client):
    response = MobileApi(issue_app_token(app_client)).get("/me")

    assert_problem(response, 403, 10305)


def test_me_needs_no_module_right(member):
    client = make_app_client(rights={})

    response = MobileApi(issue_member_tokens(member, client).access_token).get("/me")

    assert response.status_code == 200


# --- conventions ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/client", "/me"])
def test_unknown_parameter_is_400_10007(api, path):
    body = assert_problem(api.get(f"{path}?surprise=1"), 400, 10007)

    assert body["errors"] == [
        {"field": "surprise", "code": 10007, "message": "surprise is not a parameter of this endpoint."}
    ]


@pytest.mark.parametrize("path", ["/client/", "/me/"])
def test_trailing_slash_is_404(api, path):
    assert_problem(api.get(path), 404, 10100)


@pytest.mark.parametrize("path", ["/client", "/me"])
def test_other_methods_are_405_with_allow(api, path):
    response = api.call("POST", path, json={})

    assert_problem(response, 405, 10050)
    assert "GET" in response["Allow"]


@pytest.mark.parametrize("path", ["/client", "/me"])
def test_plain_http_is_403_10000(api, path):
    response = api.client.get(f"/mobile/v5{path}", HTTP_AUTHORIZATION=f"Bearer {api.bearer}")

    assert_problem(response, 403, 10000)


def test_request_id_and_rate_limit_headers(api):
    response = api.get("/me", HTTP_REQUEST_ID="app-call-1")

    assert response["Request-Id"] == "app-call-1"
    assert response["RateLimit-Limit"] == "120"
    assert response["RateLimit-Remaining"] == "119"
    assert 1 <= int(response["RateLimit-Reset"]) <= 61


# --- query counts -----------------------------------------------------------------------------------------


def test_me_costs_three_queries(api, django_assert_num_queries):
    api.get("/me")  # warms what Django loads once (content types, the cached block list)

    # The access token with its client, the login with its member, the member with its balance.
    with django_assert_num_queries(3):
        assert api.get("/me").status_code == 200


def test_client_costs_two_or_three_queries(api, app_client, django_assert_num_queries):
    api.get("/client")
    app_token = MobileApi(issue_app_token(app_client))
    app_token.get("/client")

    # The access token with its client, (a member's: the login), the client's organizations.
    with django_assert_num_queries(3):
        assert api.get("/client").status_code == 200
    with django_assert_num_queries(2):
        assert app_token.get("/client").status_code == 200
