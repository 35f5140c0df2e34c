"""Mobile API v5 callers (document 2, Authentication and Limits): each refusal of an access token (401 10001),
the app's own token (403 10305 off GET /client), module rights (403 10002), Main and Mobile tokens kept apart,
and the call limits per member login and per client with their headers."""

import datetime as dt

import pytest
from django.test import RequestFactory
from oauth2_provider.models import AccessToken

from apicore.views import SingletonEndpoint
from mobile_api.api_v5 import ClientPresenter
from mobile_api.auth import MobileCaller
from mobile_api.flavour_v5 import MOBILE_V5, MobileV5Api
from mobile_api.models import MobileLogin
from mobile_api.services.app_clients import app_client_revoke
from mobile_api.services.logins import mobile_login_end, mobile_logins_end_for_user
from tests.conftest import BASE as MAIN_BASE
from tests.factories import MemberFactory
from tests.helpers import assert_problem
from tests.mobile_helpers import MobileApi, issue_app_token, issue_member_tokens, make_app_client

pytestmark = pytest.mark.django_db
INVALID_TOKEN = 'Bearer error="invalid_token"'


@pytest.fixture
def member(org):
    return MemberFactory(organization=org)


@pytest.fixture
def app_client(org):
    return make_app_client(rights={"objects": "r", "bookings": "w"})


@pytest.fixture
def tokens(member, app_client):
    return issue_member_tokens(member, app_client)


@pytest.fixture
def api(tokens):
    return MobileApi(tokens.access_token)


def assert_refused(response) -> dict:
    body = assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"] == INVALID_TOKEN
    assert "RateLimit-Limit" not in response
    return body


# --- what is accepted -----------------------------------------------------------------------------------------


def test_a_member_token_is_accepted(api, member):
    response = api.get("/me")

    assert response.status_code == 200
    assert response.json()["data"]["id"] == member.user_id


def test_the_scheme_word_in_any_letter_case(api, tokens):
    response = api.get("/me", bearer="", HTTP_AUTHORIZATION=f"bearer {tokens.access_token}")

    assert response.status_code == 200


# --- 401 ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/client", "/me"])
def test_no_credential_is_401_with_a_bare_challenge(path):
    response = MobileApi().get(path)

    assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Token abc"])
def test_another_scheme_or_an_empty_bearer_is_401_with_a_bare_challenge(header):
    response = MobileApi().get("/me", HTTP_AUTHORIZATION=header)

    assert_problem(response, 401, 10001)
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("path", ["/client", "/me"])
def test_an_unknown_token_is_refused(api, path):
    assert_refused(api.get(path, bearer="no-such-token"))


def test_the_refresh_token_is_no_access_token(api, tokens):
    assert_refused(api.get("/me", bearer=tokens.refresh_token))


def test_an_expired_token_is_refused(frozen_time, member, app_client):
    api = MobileApi(issue_member_tokens(member, app_client).access_token)
    frozen_time.shift(3599)
    assert api.get("/me").status_code == 200

    frozen_time.shift(1)

    assert_refused(api.get("/me"))
    assert_refused(api.get("/client"))


def test_an_expired_app_token_is_refused(frozen_time, app_client):
    api = MobileApi(issue_app_token(app_client))
    frozen_time.shift(3600)

    assert_refused(api.get("/client"))


def test_a_revoked_client_stops_at_once(api, app_client):
    app_token = issue_app_token(app_client)
    app_client_revoke(client=app_client)

    assert_refused(api.get("/me"))
    assert_refused(api.get("/client"))
    assert_refused(api.get("/client", bearer=app_token))


def test_a_client_marked_revoked_is_refused_even_with_its_tokens_left(api, app_client, tokens):
    type(app_client).objects.filter(pk=app_client.pk).update(revoked_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))

    assert AccessToken.objects.filter(pk=tokens.access.pk).exists()
    assert_refused(api.get("/me"))


def test_an_ended_login_is_refused(api, tokens):
    mobile_login_end(login=tokens.login)

    assert_refused(api.get("/me"))
    assert_refused(api.get("/client"))


def test_a_login_marked_ended_is_refused_even_with_its_tokens_left(api, tokens):
    MobileLogin.objects.filter(pk=tokens.login.pk).update(ended_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))

    assert_refused(api.get("/me"))


def test_a_revoked_refresh_token_ends_its_access_token(api, tokens):
    tokens.refresh.revoked = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    tokens.refresh.save(update_fields=["revoked"])

    assert_refused(api.get("/me"))


def test_a_password_change_ends_every_login(member, app_client):
    first = MobileApi(issue_member_tokens(member, app_client).access_token)
    second = MobileApi(issue_member_tokens(member, make_app_client()).access_token)

    mobile_logins_end_for_user(user=member.user)

    assert_refused(first.get("/me"))
    assert_refused(second.get("/me"))


def test_an_inactive_member_is_refused(api, member):
    member.active = False
    member.save(update_fields=["active"])

    assert_refused(api.get("/me"))


def test_an_inactive_login_is_refused(api, member):
    member.user.is_active = False
    member.user.save(update_fields=["is_active"])

    assert_refused(api.get("/me"))


def test_a_token_without_its_login_is_refused(api, tokens):
    MobileLogin.objects.filter(pk=tokens.login.pk).delete()

    assert_refused(api.get("/me"))


def test_a_login_of_another_client_does_not_carry_the_token(api, tokens):
    MobileLogin.objects.filter(pk=tokens.login.pk).update(app_client=make_app_client())

    assert_refused(api.get("/me"))


def test_a_token_whose_user_is_not_the_logins_member_is_refused(api, tokens, org):
    AccessToken.objects.filter(pk=tokens.access.pk).update(user=MemberFactory(organization=org).user)

    assert_refused(api.get("/me"))


# --- Main and Mobile tokens kept apart ------------------------------------------------------------------------


def test_a_main_api_access_token_is_refused(make_api, org):
    main = make_api(org)

    assert_refused(MobileApi(main.access_token).get("/me"))
    assert_refused(MobileApi(main.access_token).get("/client"))
    assert_refused(MobileApi(main.secret).get("/client"))  # the token itself neither


@pytest.mark.parametrize("path", ["/users", "/token"])
def test_a_mobile_access_token_is_refused_by_the_main_api(make_api, org, tokens, app_client, path):
    make_api(org)  # a Main token exists in the organization

    for bearer in [tokens.access_token, issue_app_token(app_client)]:
        response = MobileApi().client.get(f"{MAIN_BASE}{path}", secure=True, HTTP_AUTHORIZATION=f"Bearer {bearer}")
        assert_problem(response, 401, 10001)
        assert response["WWW-Authenticate"] == INVALID_TOKEN


# --- the app's own token ----------------------------------------------------------------------------------------


def test_the_apps_own_token_is_only_for_get_client(app_client):
    api = MobileApi(issue_app_token(app_client))

    assert api.get("/client").status_code == 200
    body = assert_problem(api.get("/me"), 403, 10305)
    assert body["title"] == "A member's access token is needed"


def test_the_apps_own_token_gets_405_before_10305(app_client):
    assert_problem(MobileApi(issue_app_token(app_client)).call("DELETE", "/me"), 405, 10050)


# --- module rights (403 10002) ----------------------------------------------------------------------------------


class ObjectsOnly(MobileV5Api, SingletonEndpoint):
    """Not routed: an endpoint that needs the objects read right, to test the flavour's rights through the
    shared layer before the endpoints that need rights exist."""

    module = "objects"
    presenter_class = ClientPresenter

    def get_object(self):
        return self.request.auth.client


class BookingsWrite(ObjectsOnly):
    module = "bookings"
    right = "r"


def call_view(view_class, bearer: str):
    request = RequestFactory().get("/mobile/v5/test-only", secure=True, HTTP_AUTHORIZATION=f"Bearer {bearer}")
    request.request_id = "test"
    response = view_class.as_view()(request)
    response.render()
    return response


def test_the_flavour_allows_by_the_clients_rights(tokens, app_client):
    caller = MobileCaller(client=app_client, login=tokens.login, member=tokens.login.member, access_token=None)
    request = type("Request", (), {"auth": caller})()

    assert MOBILE_V5.allows(request, "objects", "r") is True
    assert MOBILE_V5.allows(request, "objects", "w") is False
    assert MOBILE_V5.allows(request, "bookings", "w") is True
    assert MOBILE_V5.allows(request, "bookings", "r") is False
    assert MOBILE_V5.allows(request, "transactions", "r") is False
    error = MOBILE_V5.refuse_right("transactions", "r")
    assert (error.error.code, MOBILE_V5.error_status(error.error)) == (10002, 403)


def test_an_endpoint_needing_a_right_the_client_lacks_is_403_10002(tokens, app_client):
    assert call_view(ObjectsOnly, tokens.access_token).status_code == 200

    response = call_view(BookingsWrite, tokens.access_token)

    assert response.status_code == 403
    assert response.data["code"] == 10002


def test_the_apps_own_token_gets_10305_before_10002(app_client):
    response = call_view(BookingsWrite, issue_app_token(app_client))

    assert response.status_code == 403
    assert response.data["code"] == 10305


# --- limits -------------------------------------------------------------------------------------------------------


def calls(api, count: int, path: str = "/me") -> list:
    return [api.get(path) for _ in range(count)]


def assert_too_many(response, limit: int) -> dict:
    body = assert_problem(response, 429, 10013)
    assert response["RateLimit-Limit"] == str(limit)
    assert response["RateLimit-Remaining"] == "0"
    assert response["Retry-After"] == response["RateLimit-Reset"]
    assert 1 <= int(response["Retry-After"]) <= 61
    return body


def test_120_calls_a_minute_per_login(frozen_time, api):
    replies = calls(api, 120)

    assert [r.status_code for r in replies] == [200] * 120
    assert [int(r["RateLimit-Remaining"]) for r in replies[:3]] == [119, 118, 117]
    assert replies[-1]["RateLimit-Limit"] == "120" and replies[-1]["RateLimit-Remaining"] == "0"
    assert_too_many(api.get("/me"), 120)
    assert_too_many(api.get("/client"), 120)  # every endpoint counts

    frozen_time.shift(int(api.get("/me")["Retry-After"]))
    assert api.get("/me").status_code == 200


def test_another_login_of_the_member_has_its_own_count(frozen_time, api, member, app_client, settings):
    settings.MOBILE_LOGIN_CALLS_PER_MINUTE = 3
    calls(api, 3)
    assert api.get("/me").status_code == 429

    other = MobileApi(issue_member_tokens(member, app_client).access_token)

    assert other.get("/me").status_code == 200


def test_the_clients_own_lower_limit_counts_over_all_its_logins(frozen_time, org):
    client = make_app_client(rate_limit_per_minute=5)
    first = MobileApi(issue_member_tokens(MemberFactory(organization=org), client).access_token)
    second = MobileApi(issue_member_tokens(MemberFactory(organization=org), client).access_token)

    replies = [first.get("/me"), first.get("/me"), second.get("/me"), first.get("/client"), second.get("/me")]

    assert [r.status_code for r in replies] == [200] * 5
    # The headers are the limit with fewer calls left: the client's (5) here, not the login's (120).
    assert [(r["RateLimit-Limit"], r["RateLimit-Remaining"]) for r in replies] == [
        ("5", "4"),
        ("5", "3"),
        ("5", "2"),
        ("5", "1"),
        ("5", "0"),
    ]
    body = assert_too_many(second.get("/me"), 5)
    assert "by this app" in body["detail"]
    assert_too_many(first.get("/me"), 5)
    # Another client is not held back.
    other = MobileApi(issue_member_tokens(MemberFactory(organization=org), make_app_client()).access_token)
    assert other.get("/me").status_code == 200


def test_the_apps_own_token_counts_as_the_clients_call(frozen_time, org):
    client = make_app_client(rate_limit_per_minute=2)
    member_api = MobileApi(issue_member_tokens(MemberFactory(organization=org), client).access_token)
    app_api = MobileApi(issue_app_token(client))

    assert app_api.get("/client")["RateLimit-Remaining"] == "1"
    assert member_api.get("/me")["RateLimit-Remaining"] == "0"
    assert_too_many(app_api.get("/client"), 2)


def test_the_headers_follow_the_limit_with_fewer_calls_left(frozen_time, api, app_client, org, settings):
    settings.MOBILE_LOGIN_CALLS_PER_MINUTE = 4
    type(app_client).objects.filter(pk=app_client.pk).update(rate_limit_per_minute=6)
    other = MobileApi(issue_member_tokens(MemberFactory(organization=org), app_client).access_token)

    other.get("/me")  # client: 1 of 6
    other.get("/me")  # client: 2 of 6
    first = api.get("/me")  # login: 1 of 4 (3 left); client: 3 of 6 (3 left)
    second = api.get("/me")  # login: 2 of 4 (2 left); client: 4 of 6 (2 left)
    third = other.get("/me")  # other login: 3 of 4 (1 left); client: 5 of 6 (1 left)
    fourth = api.get("/me")  # login: 3 of 4 (1 left); client: 6 of 6 (0 left)

    assert (first["RateLimit-Limit"], first["RateLimit-Remaining"]) in {("4", "3"), ("6", "3")}
    assert (third["RateLimit-Remaining"], fourth["RateLimit-Limit"], fourth["RateLimit-Remaining"]) == ("1", "6", "0")
    assert second.status_code == 200


def test_a_refused_call_counts_too(frozen_time, api, app_client, org, settings):
    """Both limits count every call: calls past the login's limit still use the client's."""
    settings.MOBILE_LOGIN_CALLS_PER_MINUTE = 2
    type(app_client).objects.filter(pk=app_client.pk).update(rate_limit_per_minute=5)
    calls(api, 4)  # 2 accepted, 2 refused by the login's limit: the client has counted 4

    other = MobileApi(issue_member_tokens(MemberFactory(organization=org), app_client).access_token)

    assert other.get("/me")["RateLimit-Remaining"] == "0"
    assert_too_many(other.get("/me"), 5)


def test_refused_tokens_are_not_counted(frozen_time, api, settings):
    settings.MOBILE_LOGIN_CALLS_PER_MINUTE = 2
    for _ in range(5):
        assert_refused(api.get("/me", bearer="wrong"))

    assert api.get("/me")["RateLimit-Remaining"] == "1"
