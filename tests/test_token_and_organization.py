"""GET /token and GET /organization, and the conventions every reply shares (errors, Request-Id)."""

import pytest

from accounts.models import MemberRole
from main_api.models import MODULES
from tests.factories import MemberFactory, OrganizationFactory, make_admin
from tests.helpers import assert_problem, problem_fields


def test_get_token_describes_the_calling_token(api, org, admin):
    response = api.get("/token")

    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "description": "Test token",
            "owner": {"id": admin.id, "name": "Karin Lindqvist"},
            "organization": {"id": org.id, "name": "Västerås Flygklubb"},
            "rights": {module: "rw" for module in MODULES},
        }
    }


def test_rights_list_only_modules_that_have_a_right(org, make_api):
    api = make_api(org, rights={"users": "r", "transactions": "w", "organization": "rw", "bookings": ""})

    rights = api.get("/token").json()["data"]["rights"]

    assert rights == {"users": "r", "transactions": "w", "organization": "rw"}


def test_a_token_without_rights_has_empty_rights(org, make_api):
    api = make_api(org, rights={})

    response = api.get("/token")

    assert response.status_code == 200
    assert response.json()["data"]["rights"] == {}


@pytest.mark.parametrize("path", ["/token", "/organization"])
@pytest.mark.parametrize("query", [{"foo": "1"}, {"include": "rights"}, {"exclude": "name"}, {"limit": "1"}])
def test_any_query_parameter_is_unknown(api, path, query):
    response = api.get(path, query)

    body = assert_problem(response, 400, 10007)
    assert problem_fields(body) == dict.fromkeys(query, 10007)


def test_get_organization(api, org):
    response = api.get("/organization")

    assert response.status_code == 200
    assert response.json() == {
        "data": {
            "id": org.id,
            "name": "Västerås Flygklubb",
            "location": {
                "reference_icao": "ESSB",
                "latitude": 59.354372,
                "longitude": 17.94165,
                "country": "SE",
                "timezone": "Europe/Stockholm",
            },
        }
    }
    # Numbers on the wire, not text.
    assert b'"latitude":59.354372' in response.content
    assert b'"longitude":17.94165' in response.content


def test_get_organization_with_a_token_without_rights(org, make_api):
    api = make_api(org, rights={})

    response = api.get("/organization")

    assert response.status_code == 200
    assert response.json()["data"]["id"] == org.id


def test_organization_with_negative_coordinates(db, make_api):
    org = OrganizationFactory(latitude="-33.946111", longitude="-118.400833", country="US", reference_icao="KLAX")
    api = make_api(org, rights={})

    location = api.get("/organization").json()["data"]["location"]

    assert (location["latitude"], location["longitude"]) == (-33.946111, -118.400833)


# --- tenant separation -----------------------------------------------------------------------------


@pytest.mark.parametrize("direct", [False, True], ids=["access-token", "direct"])
def test_each_token_sees_only_its_own_organization_and_token(api, other_api, org, other_org, direct):
    other_owner = other_api.token.owner

    mine = api.get("/token", bearer=api.secret if direct else None).json()["data"]
    theirs = other_api.get("/token", bearer=other_api.secret if direct else None).json()["data"]
    their_org = other_api.get("/organization", bearer=other_api.secret if direct else None).json()["data"]
    my_org = api.get("/organization", bearer=api.secret if direct else None).json()["data"]

    assert mine["organization"] == {"id": org.id, "name": org.name}
    assert theirs["organization"] == {"id": other_org.id, "name": "Bergen Flyklubb"}
    assert theirs["owner"] == {"id": other_owner.id, "name": other_owner.full_name}
    assert (my_org["id"], my_org["name"]) == (org.id, org.name)
    assert (their_org["id"], their_org["name"], their_org["location"]["timezone"]) == (
        other_org.id,
        "Bergen Flyklubb",
        "Europe/Oslo",
    )


def test_an_owner_administering_two_organizations_gets_each_tokens_own(org, other_org, make_api):
    """One login, admin in both: each token still answers for its own organization only."""
    owner = make_admin(org)
    MemberRole.objects.create(member=MemberFactory(organization=other_org, user=owner), role="admin")
    api_a = make_api(org, owner=owner)
    api_b = make_api(other_org, owner=owner)

    assert api_a.get("/organization").json()["data"]["id"] == org.id
    assert api_b.get("/organization").json()["data"]["id"] == other_org.id
    assert api_b.get("/token").json()["data"]["organization"]["id"] == other_org.id


# --- errors and Request-Id -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "status", "code", "kind"),
    [
        pytest.param(lambda api: api.get("/token", bearer="wrong"), 401, 10001, "unauthorized", id="401"),
        pytest.param(lambda api: api.get("/token", secure=False), 403, 10000, "forbidden", id="403-https"),
        pytest.param(lambda api: api.get("/token", {"x": "1"}), 400, 10007, "validation", id="400"),
        pytest.param(lambda api: api.get("/memberships/999999"), 404, 10100, "not-found", id="404-item"),
        pytest.param(lambda api: api.get("/nothing-here"), 404, 10100, "not-found", id="404-address"),
        pytest.param(lambda api: api.delete("/token"), 405, 10050, "method-not-allowed", id="405"),
    ],
)
def test_error_replies_are_problem_details(api, call, status, code, kind):
    response = call(api)

    body = assert_problem(response, status, code)
    assert body["type"] == f"https://testserver/errors/{kind}"
    assert isinstance(body["title"], str)
    assert body["title"]


def test_a_client_request_id_is_echoed(api):
    given = "r" * 64

    ok = api.get("/token", HTTP_REQUEST_ID=given)
    failed = api.get("/token", {"x": "1"}, HTTP_REQUEST_ID=given)

    assert ok["Request-Id"] == given
    assert failed["Request-Id"] == given
    assert failed.json()["request_id"] == given


def test_a_request_id_over_64_characters_is_replaced(api):
    given = "r" * 65

    ok = api.get("/token", HTTP_REQUEST_ID=given)
    failed = api.get("/token", {"x": "1"}, HTTP_REQUEST_ID=given)

    assert ok.status_code == 200
    for response in (ok, failed):
        assert response["Request-Id"] not in ("", given)
        assert len(response["Request-Id"]) <= 64
    assert failed.json()["request_id"] == failed["Request-Id"]
    assert ok["Request-Id"] != failed["Request-Id"]


def test_a_request_id_is_generated_when_absent(api):
    first, second = api.get("/token"), api.get("/token")

    assert first["Request-Id"]
    assert first["Request-Id"] != second["Request-Id"]


# --- cost ------------------------------------------------------------------------------------------


def test_get_token_with_an_access_token_costs_one_query(api, django_assert_max_num_queries):
    access_token = api.access_token

    with django_assert_max_num_queries(1):
        response = api.get("/token", bearer=access_token)

    assert response.status_code == 200


def test_get_token_with_the_direct_token_costs_two_queries(api, django_assert_max_num_queries):
    with django_assert_max_num_queries(2):
        response = api.get("/token", bearer=api.secret)

    assert response.status_code == 200


def test_get_organization_with_an_access_token_costs_one_query(api, django_assert_max_num_queries):
    access_token = api.access_token

    with django_assert_max_num_queries(1):
        response = api.get("/organization", bearer=access_token)

    assert response.status_code == 200
