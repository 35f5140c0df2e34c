"""The per-process cache of token rows: a warmed call needs no query, and every change that a token call
depends on takes effect on the very next call (main_api.token_cache, main_api.signals)."""

import datetime as dt

import pytest
from oauth2_provider.models import get_access_token_model

from accounts.models import Member, MemberRole
from apicore import counters
from main_api import token_cache
from main_api.services import api_token_delete, api_token_update
from tests.conftest import BASE
from tests.helpers import assert_problem


@pytest.fixture(autouse=True)
def _empty_token_cache():
    token_cache.clear()
    yield
    token_cache.clear()


def warm(api, bearer=None) -> None:
    """Two calls: the first learns the credential, the second keeps its row."""
    for _ in range(2):
        assert api.get("/token", bearer=bearer).status_code == 200


@pytest.fixture
def warmed(api, django_assert_num_queries):
    warm(api)
    with django_assert_num_queries(0):  # the cache is in use: without invalidation, the tests below fail
        assert api.get("/token").status_code == 200
    return api


def assert_refused(response) -> None:
    assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'


def test_a_warmed_direct_token_needs_no_query_and_keeps_its_sunset_headers(api, django_assert_num_queries):
    warm(api, bearer=api.secret)

    with django_assert_num_queries(0):
        response = api.get("/token", bearer=api.secret)

    assert response.status_code == 200
    assert "Sunset" in response and "Link" in response


def test_a_deleted_token_is_refused_on_the_next_call(warmed):
    api_token_delete(token=warmed.token)

    assert_refused(warmed.get("/token"))


def test_changed_rights_show_on_the_next_call(warmed):
    token = warmed.token
    api_token_update(token=token, description=token.description, rights={"users": "r"}, allowed_ips=[])

    assert warmed.get("/token").json()["data"]["rights"] == {"users": "r"}
    assert_problem(warmed.get("/expiry-date-types"), 403, 10002)


def test_a_changed_description_shows_on_the_next_call(warmed):
    token = warmed.token
    api_token_update(token=token, description="Renamed", rights=token.rights, allowed_ips=[])

    assert warmed.get("/token").json()["data"]["description"] == "Renamed"


def test_allowed_addresses_apply_on_the_next_call(warmed):
    token = warmed.token
    api_token_update(token=token, description=token.description, rights=token.rights, allowed_ips=["10.9.9.0/24"])

    assert_refused(warmed.get("/token"))
    assert warmed.get("/token", REMOTE_ADDR="10.9.9.7").status_code == 200


def test_an_owner_who_loses_the_admin_role_is_refused_on_the_next_call(warmed, admin, org):
    MemberRole.objects.filter(member__user=admin, member__organization=org, role="admin").delete()

    assert_refused(warmed.get("/token"))


def test_an_owner_who_loses_the_membership_is_refused_on_the_next_call(warmed, admin, org):
    Member.objects.get(user=admin, organization=org).delete()

    assert_refused(warmed.get("/token"))


def test_a_deleted_access_token_is_refused_on_the_next_call(warmed):
    get_access_token_model().objects.filter(application_id=warmed.token.application_id).delete()

    assert_refused(warmed.get("/token"))


def test_a_revoked_access_token_is_refused_on_the_next_call(warmed):
    get_access_token_model().objects.get(application_id=warmed.token.application_id).revoke()

    assert_refused(warmed.get("/token"))


def test_an_access_token_cut_short_is_refused_on_the_next_call(warmed):
    access = get_access_token_model().objects.get(application_id=warmed.token.application_id)
    access.expires = access.created - dt.timedelta(seconds=1)
    access.save()

    assert_refused(warmed.get("/token"))


def test_an_access_token_that_ends_is_refused_from_the_cache_too(org, make_api, frozen_time):
    api = make_api(org)
    warm(api)
    access = get_access_token_model().objects.get(application_id=api.token.application_id)

    frozen_time.move_to(access.expires - dt.timedelta(seconds=1))
    assert api.get("/token").status_code == 200
    frozen_time.move_to(access.expires)
    assert_refused(api.get("/token"))


def test_a_renamed_organization_shows_on_the_next_call(warmed, org):
    org.name = "Västerås Flygklubb II"
    org.save()

    assert warmed.get("/token").json()["data"]["organization"]["name"] == "Västerås Flygklubb II"
    assert warmed.get("/organization").json()["data"]["name"] == "Västerås Flygklubb II"


def test_a_renamed_owner_shows_on_the_next_call(warmed, admin):
    admin.first_name = "Kerstin"
    admin.save()

    assert warmed.get("/token").json()["data"]["owner"]["name"] == "Kerstin Lindqvist"


def test_one_request_changing_its_token_object_does_not_change_the_next(warmed):
    response = warmed.get("/token")
    assert response.status_code == 200
    # Each request builds its own instances from the cached values.
    first = token_cache.get(next(iter(token_cache._entries))).row.instance()
    first.rights["users"] = "changed"
    first.organization.name = "changed"

    data = warmed.get("/token").json()["data"]
    assert data["rights"]["users"] == "rw"
    assert data["organization"]["name"] == "Västerås Flygklubb"


def test_the_stamps_change_again_when_the_transaction_commits(warmed, org, django_capture_on_commit_callbacks):
    key = token_cache.organization_key(org.pk)
    before = counters.backend().cache.get(key)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        org.name = "Renamed"
        org.save()
        at_save = counters.backend().cache.get(key)

    assert callbacks, "no stamp on commit"
    assert len({before, at_save, counters.backend().cache.get(key)}) == 3


def test_the_cache_holds_no_clear_credential(warmed):
    assert warmed.access_token not in token_cache._entries
    assert all(len(key) == 64 for key in token_cache._entries)


def test_a_blocked_address_is_refused_before_the_cached_row_is_used(warmed):
    for _ in range(20):
        response = warmed.client.get(f"{BASE}/token", secure=True, HTTP_AUTHORIZATION="Bearer wrong-token")
        assert response.status_code == 401

    assert_problem(warmed.get("/token"), 429, 10014)
