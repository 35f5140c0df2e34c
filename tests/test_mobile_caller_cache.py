"""The Mobile API's per-process cache of callers: a repeated call needs no query for its authentication, and
every change that a call depends on takes effect on the very next call (mobile_api.caller_cache,
mobile_api.signals, the services that end logins)."""

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Organization
from apicore import counters
from mobile_api import blocked_addresses, caller_cache
from mobile_api.models import BlockedAddress, MobileLogin
from mobile_api.services.app_clients import app_client_revoke
from mobile_api.services.logins import mobile_login_end
from tests.factories import MemberFactory
from tests.helpers import assert_problem
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db
AUTHENTICATION_TABLES = ('"oauth2_provider_accesstoken"', '"oauth2_provider_refreshtoken"', '"accounts_mobilelogin"')


@pytest.fixture(autouse=True)
def _empty_caller_cache():
    caller_cache.clear()
    blocked_addresses.forget_local_list()
    yield
    caller_cache.clear()
    blocked_addresses.forget_local_list()


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__first_name="Karin")


@pytest.fixture
def app_client(org):
    return make_app_client(rights={"organization": "r", "objects": "r", "bookings": "rw"})


@pytest.fixture
def tokens(member, app_client):
    return issue_member_tokens(member, app_client)


def authentication_queries(api, path="/me") -> list[str]:
    with CaptureQueriesContext(connection) as counted:
        assert api.get(path).status_code == 200
    return [query["sql"] for query in counted.captured_queries if any(t in query["sql"] for t in AUTHENTICATION_TABLES)]


@pytest.fixture
def warmed(tokens):
    """A member's token whose third call is answered from the cache: without invalidation the tests fail."""
    api = MobileApi(tokens.access_token)
    assert len(authentication_queries(api)) == 2  # the first call learns the credential
    assert len(authentication_queries(api)) == 2  # the second keeps the rows, under stamps read before
    assert authentication_queries(api) == []
    return api


def assert_refused(response) -> None:
    assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'


def test_a_repeated_call_costs_only_the_endpoints_own_query(warmed, django_assert_num_queries):
    with django_assert_num_queries(1):  # the member with the balance
        response = warmed.get("/me")

    assert response.status_code == 200
    assert response.json()["data"]["name"]["first"] == "Karin"
    assert 0 < int(response["RateLimit-Remaining"]) < 120


def test_the_cache_is_used_for_what_changes_behind_the_signals_back(warmed, tokens):
    # A queryset update sends no signal: the process answers from its rows (every real path stamps anew).
    MobileLogin.objects.filter(pk=tokens.login.pk).update(ended_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))

    assert warmed.get("/me").status_code == 200


def test_ending_the_login_is_refused_on_the_next_call(warmed, tokens):
    mobile_login_end(login=tokens.login)

    assert_refused(warmed.get("/me"))


def test_a_revoked_refresh_token_is_refused_on_the_next_call(warmed, tokens):
    tokens.refresh.revoke()

    assert_refused(warmed.get("/me"))


def test_a_deleted_login_is_refused_on_the_next_call(warmed, tokens):
    MobileLogin.objects.get(pk=tokens.login.pk).delete()

    assert_refused(warmed.get("/me"))


def test_a_password_change_is_refused_on_the_next_call(warmed, member):
    member.user.set_password("a new and long password 2026")
    member.user.save()

    assert_refused(warmed.get("/me"))


def test_a_locked_login_is_refused_on_the_next_call(warmed, member):
    member.user.locked_login = True
    member.user.save(update_fields=["locked_login"])

    assert_refused(warmed.get("/me"))


def test_an_inactive_member_is_refused_on_the_next_call(warmed, member):
    member.active = False
    member.save(update_fields=["active"])

    assert_refused(warmed.get("/me"))


def test_a_revoked_client_is_refused_on_the_next_call(warmed, app_client):
    app_token = MobileApi(issue_app_token(app_client))
    for _ in range(3):
        assert app_token.get("/client").status_code == 200

    app_client_revoke(client=app_client)

    assert_refused(warmed.get("/me"))
    assert_refused(app_token.get("/client"))


def test_changed_rights_show_on_the_next_call(warmed, app_client):
    assert warmed.get("/objects").status_code == 200
    app_client.rights = {"bookings": "rw"}
    app_client.save(update_fields=["rights"])

    assert_problem(warmed.get("/objects"), 403, 10002)


def test_an_access_token_that_ends_is_refused_from_the_cache_too(member, app_client, frozen_time):
    tokens = issue_member_tokens(member, app_client)
    api = MobileApi(tokens.access_token)
    for _ in range(3):
        assert api.get("/me").status_code == 200

    frozen_time.move_to(tokens.access.expires - dt.timedelta(seconds=1))
    assert api.get("/me").status_code == 200
    frozen_time.move_to(tokens.access.expires)
    assert_refused(api.get("/me"))


def test_a_renamed_organization_shows_on_the_next_call(warmed, org):
    renamed = Organization.objects.get(pk=org.pk)
    renamed.name = "Västerås Flygklubb II"
    renamed.save()

    assert warmed.get("/organization").json()["data"]["name"] == "Västerås Flygklubb II"


def test_a_blocked_address_is_refused_on_the_next_call(warmed):
    BlockedAddress.objects.create(network="127.0.0.0/8", reason="Test")

    assert_problem(warmed.get("/me"), 403, 10003)

    BlockedAddress.objects.all().delete()
    assert warmed.get("/me").status_code == 200


def test_one_request_changing_its_instances_does_not_change_the_next(warmed):
    row = caller_cache.get(next(iter(caller_cache._entries))).row
    first = row.caller()
    first.member.user.first_name = "changed"
    first.client.rights["organization"] = "changed"
    first.member.organization.name = "changed"

    again = row.caller()
    assert again.member.user.first_name == "Karin"
    assert again.client.rights["organization"] == "r"
    assert warmed.get("/organization").json()["data"]["name"] != "changed"


def test_the_login_stamp_changes_again_when_the_transaction_commits(warmed, tokens, django_capture_on_commit_callbacks):
    key = caller_cache.login_key(tokens.login.token_family)
    before = counters.backend().cache.get(key)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        mobile_login_end(login=tokens.login)
        at_end = counters.backend().cache.get(key)

    assert callbacks, "no stamp on commit"
    assert len({before, at_end, counters.backend().cache.get(key)}) == 3


def test_the_cache_holds_no_clear_credential_and_no_password(warmed, member):
    assert warmed.bearer not in caller_cache._entries
    assert all(len(key) == 64 for key in caller_cache._entries)
    row = caller_cache.get(next(iter(caller_cache._entries))).row
    assert member.user.password not in row.user
    assert warmed.bearer not in str(row)
