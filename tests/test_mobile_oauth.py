"""Mobile API v5 sign-in (document 2, Authentication and POST /oauth/token; ../shared/DECISIONS.md "Mobile
sign-in"; docs/decisions.md §9.5 "The grants" to §9.19 "Boundaries and caching"): the whole flow, and each
refusal RFC 9700 asks for."""

from datetime import timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from oauth2_provider.models import AccessToken, Grant

from mobile_api.models import AppConsent, MobileLogin
from mobile_api.services.app_clients import app_client_revoke, app_client_update
from tests.factories import OrganizationFactory
from tests.mobile_oauth_flow import (
    AUTHORIZE,
    HTTPS,
    REDIRECT_URI,
    REVOKE,
    TOKEN,
    App,
    basic,
    make_app,
    make_member,
    redirect_params,
    s256,
)

pytestmark = pytest.mark.django_db

HTTPS_REDIRECT = "https://app.example.com/oauth/callback"


@pytest.fixture
def member(org):
    return make_member(org, first_name="Anna", last_name="Berg")


@pytest.fixture
def app(org):
    client, _key = make_app(organizations=[org])
    return App(client=client)


def assert_oauth_error(reply, status: int, error: str):
    assert reply.status_code == status, reply.content
    body = reply.json()
    assert body["error"] == error
    assert isinstance(body["error_description"], str) and body["error_description"]
    assert reply["Cache-Control"] == "no-store"
    return body


def me_status(app: App, access_token: str) -> int:
    return app.get("/me", access_token).status_code


# --- the whole flow --------------------------------------------------------------------------------------


def test_authorize_sends_the_browser_to_the_login_page_with_the_same_query(app):
    query = urlencode(app.authorize_query(cl="se"))
    reply = app.browser.get(f"{AUTHORIZE}?{query}", **HTTPS)
    assert reply.status_code == 302
    assert reply["Location"] == f"/login?{query}"


def test_login_page_is_branded_with_the_organization_and_the_app(app, org):
    reply = app.browser.get(app.authorize(cl="gb")["Location"], **HTTPS)
    page = reply.content.decode()
    assert reply.status_code == 200
    assert org.name in page and "Flyclub Pocket" in page and "Example Apps AB" in page
    assert 'name="username"' in page and 'name="password"' in page and 'name="csrfmiddlewaretoken"' in page


def test_the_whole_sign_in_gives_tokens_that_work(app, member):
    reply = app.consent(member, state="x y/ä&=?")
    params = redirect_params(reply)
    assert params["state"] == "x y/ä&=?"  # unchanged
    token_reply = app.exchange(params["code"], device_name="Anna's phone")
    assert token_reply.status_code == 200
    assert token_reply["Cache-Control"] == "no-store"
    tokens = token_reply.json()
    assert set(tokens) == {"access_token", "token_type", "expires_in", "scope", "refresh_token"}
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600
    assert tokens["scope"] == "organization:r objects:r bookings:rw"
    me = app.get("/me", tokens["access_token"])
    assert me.status_code == 200 and me.json()["data"]["id"] == member.user_id
    login = MobileLogin.objects.get()
    assert (login.member, login.device_name, login.ended_at) == (member, "Anna's phone", None)


def test_consent_is_remembered_per_app_and_member(app, member, org):
    redirect_params(app.consent(member))
    assert AppConsent.objects.filter(app_client=app.client, member=member).count() == 1
    again = App(client=app.client)
    reply = again.log_in(member)
    page = again.browser.get(reply["Location"], **HTTPS)
    assert redirect_params(page)["code"]  # no consent page this time
    other_app = App(client=make_app(organizations=[org], app_name="Other")[0])
    reply = other_app.log_in(member)
    assert other_app.browser.get(reply["Location"], **HTTPS).status_code == 200  # asked again


def test_consent_page_names_the_app_and_its_rights_and_the_submit_is_named_allow(app, member):
    reply = app.log_in(member)
    page = app.browser.get(reply["Location"], **HTTPS).content.decode()
    assert "Flyclub Pocket" in page and "Make, cut and cancel your bookings" in page
    assert 'name="allow"' in page


def test_refusing_consent_sends_access_denied_with_the_state(app, member):
    params = redirect_params(app.consent(member, allow=False))
    assert params["error"] == "access_denied" and params["state"] == app.state
    assert "code" not in params and not Grant.objects.exists()


def test_a_member_of_several_organizations_chooses_one(app, member):
    second = OrganizationFactory(name="Bergen Flyklubb")
    from tests.factories import MemberFactory

    MemberFactory(user=member.user, organization=second)
    app_client_update(
        client=app.client,
        name=app.client.name,
        app_name=app.client.app_name,
        rights=app.client.rights,
        organizations=[member.organization, second],
        redirect_uris=app.client.redirect_uris,
    )
    tokens = app.exchange(app.code(member, organization=second)).json()
    me = app.get("/me", tokens["access_token"]).json()["data"]
    assert me["organization"]["id"] == second.pk


def test_a_member_of_no_allowed_organization_cannot_allow_the_app(member):
    client, _ = make_app(organizations=[OrganizationFactory()])
    app = App(client=client)
    reply = app.log_in(member)
    page = app.browser.get(reply["Location"], **HTTPS)
    assert page.status_code == 200 and 'name="allow"' not in page.content.decode()
    assert redirect_params(app.browser.post(reply["Location"], {"allow": "allow"}, **HTTPS))["error"] == "access_denied"


def test_without_a_session_the_consent_page_sends_to_the_login_page(app):
    query = urlencode(app.authorize_query())
    reply = app.browser.get(f"/login/allow?{query}", **HTTPS)
    assert reply.status_code == 302 and reply["Location"] == f"/login?{query}"


# --- authorize: errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant",
    [
        HTTPS_REDIRECT + "?extra=1",
        HTTPS_REDIRECT + "#fragment",
        HTTPS_REDIRECT + "/",
        "https://APP.example.com/oauth/callback",
        "https://app.example.com/OAuth/Callback",
        "https://user@app.example.com/oauth/callback",
        "https://app.example.com:8443/oauth/callback",
        "http://app.example.com/oauth/callback",
        REDIRECT_URI,
    ],
)
def test_a_redirect_address_is_compared_as_an_exact_string(org, variant):
    client, _ = make_app(organizations=[org], redirect_uris=[HTTPS_REDIRECT])
    app = App(client=client, redirect_uri=variant)
    reply = app.authorize()
    assert reply.status_code == 400 and not reply.has_header("Location")
    assert "not registered" in reply.content.decode()


def test_the_registered_https_address_is_accepted(org, member):
    client, _ = make_app(organizations=[org], redirect_uris=[HTTPS_REDIRECT])
    app = App(client=client, redirect_uri=HTTPS_REDIRECT)
    assert app.exchange(app.code(member)).status_code == 200


def test_an_unknown_client_gets_an_error_page_never_a_redirect(app):
    reply = app.authorize(client_id="no-such-client")
    assert reply.status_code == 400 and not reply.has_header("Location")
    reply = app.authorize(client_id=None)
    assert reply.status_code == 400 and not reply.has_header("Location")


def test_a_missing_redirect_address_gets_an_error_page(app):
    reply = app.authorize(redirect_uri=None)
    assert reply.status_code == 400 and not reply.has_header("Location")


@pytest.mark.parametrize(
    "changes",
    [
        {"code_challenge": None},
        {"code_challenge_method": "plain"},
        {"code_challenge_method": None},
        {"code_challenge_method": "s256"},
        {"response_type": "token"},
    ],
)
def test_a_sign_in_without_s256_pkce_goes_back_with_an_error_and_the_state(app, changes):
    reply = app.authorize(**changes)
    params = redirect_params(reply)
    assert params["error"] in ("invalid_request", "unsupported_response_type")
    assert params["state"] == app.state and params["error_description"]


def test_a_revoked_client_can_no_longer_start_a_sign_in(app):
    app_client_revoke(client=app.client)
    reply = app.authorize()
    assert reply.status_code == 400 and not reply.has_header("Location")


# --- token: the code and its verifier ------------------------------------------------------------------------


@pytest.mark.parametrize("verifier", ["wrong-" + "v" * 50, None, "plain"])
def test_a_wrong_missing_or_plain_verifier_is_invalid_grant(app, member, verifier):
    code = app.code(member)
    if verifier == "plain":
        verifier = s256(app.verifier)  # the challenge itself, as a plain-method client would send it
    assert_oauth_error(app.exchange(code, code_verifier=verifier), 400, "invalid_grant")
    assert not AccessToken.objects.exists()


def test_a_code_lives_two_minutes(app, member, frozen_time):
    code = app.code(member)
    frozen_time.shift(119)
    assert app.exchange(code).status_code == 200
    code = App(client=app.client, browser=app.browser).code(member)
    frozen_time.shift(121)
    body = assert_oauth_error(App(client=app.client).exchange(code), 400, "invalid_grant")
    assert "too long" in body["error_description"]


def test_a_code_after_121_seconds_is_refused(app, member, frozen_time):
    code = app.code(member)
    frozen_time.shift(121)
    assert_oauth_error(app.exchange(code), 400, "invalid_grant")
    assert not AccessToken.objects.exists()


def test_a_replayed_code_is_refused_and_revokes_what_it_gave(app, member):
    code = app.code(member)
    tokens = app.exchange(code).json()
    assert me_status(app, tokens["access_token"]) == 200
    body = assert_oauth_error(app.exchange(code), 400, "invalid_grant")
    assert "already used" in body["error_description"]
    assert me_status(app, tokens["access_token"]) == 401
    assert_oauth_error(app.refresh(tokens["refresh_token"]), 400, "invalid_grant")
    assert MobileLogin.objects.get().end_reason == MobileLogin.EndReason.CODE_REPLAY


def test_the_code_only_works_with_the_redirect_address_of_the_authorize_request(org, member):
    client, _ = make_app(organizations=[org], redirect_uris=[REDIRECT_URI, HTTPS_REDIRECT])
    app = App(client=client)
    code = app.code(member)
    assert_oauth_error(app.exchange(code, redirect_uri=HTTPS_REDIRECT), 400, "invalid_grant")
    assert_oauth_error(app.exchange(code, redirect_uri=None), 400, "invalid_grant")


def test_a_code_of_one_client_does_not_work_for_another(app, member, org):
    code = app.code(member)
    other = App(client=make_app(organizations=[org])[0], verifier=app.verifier)
    assert_oauth_error(other.exchange(code), 400, "invalid_grant")
    assert app.exchange(code).status_code == 200  # and it still works for its own client


def test_codes_are_stored_only_as_digests(app, member):
    code = app.code(member)
    grant = Grant.objects.get()
    assert grant.code != code and len(grant.code) == 64


# --- token: members and clients ---------------------------------------------------------------------------


def test_a_member_locked_before_the_exchange_gets_invalid_grant(app, member):
    code = app.code(member)
    member.user.locked_login = True
    member.user.save()
    body = assert_oauth_error(app.exchange(code), 400, "invalid_grant")
    assert "contact your club" in body["error_description"]


def test_an_inactive_member_gets_invalid_grant(app, member):
    code = app.code(member)
    member.active = False
    member.save()
    assert_oauth_error(app.exchange(code), 400, "invalid_grant")


def test_an_app_no_longer_allowed_for_the_organization_gets_invalid_grant(app, member):
    code = app.code(member)
    app.client.organizations.set([OrganizationFactory()])
    assert_oauth_error(app.exchange(code), 400, "invalid_grant")


def test_a_locked_login_cannot_get_past_the_login_page(app, member):
    member.user.locked_login = True
    member.user.save()
    reply = app.log_in(member)
    assert reply.status_code == 200  # the form again, no redirect to the consent page


def test_a_revoked_client_is_refused_at_once(app, member):
    tokens = app.login_tokens(member)
    code = App(client=app.client, browser=app.browser).code(member)
    app_client_revoke(client=app.client)
    assert_oauth_error(app.exchange(code), 401, "invalid_client")
    assert_oauth_error(app.refresh(tokens["refresh_token"]), 401, "invalid_client")
    assert me_status(app, tokens["access_token"]) == 401


def test_a_confidential_client_must_send_its_key(org, member):
    client, key = make_app(organizations=[org], confidential=True)
    app = App(client=client, key=key)
    code = app.code(member)
    assert_oauth_error(App(client=client).exchange(code), 401, "invalid_client")  # client_id alone
    wrong = App(client=client, key="wrong-key")
    reply = wrong.exchange(code)
    assert_oauth_error(reply, 401, "invalid_client")
    assert reply["WWW-Authenticate"].startswith("Basic")
    assert app.exchange(code).status_code == 200  # Basic header


def test_a_confidential_client_may_send_its_key_as_form_fields(org, member):
    client, key = make_app(organizations=[org], confidential=True)
    app = App(client=client, key=key)
    code = app.code(member)
    reply = app.exchange(code, client_id=client.client_id, client_secret=key)
    assert reply.status_code == 200


def test_a_main_api_client_is_not_a_mobile_client(make_api, org):
    api = make_api(org)
    reply = App(client=None).api.post(
        TOKEN,
        {"grant_type": "client_credentials"},
        headers={"Authorization": basic(str(api.token.application.client_id), api.secret)},
        **HTTPS,
    )
    assert_oauth_error(reply, 401, "invalid_client")


@pytest.mark.parametrize("grant_type", ["password", "implicit", "urn:ietf:params:oauth:grant-type:device_code", "x"])
def test_other_grant_types_are_unsupported(app, member, grant_type):
    reply = app.token({"grant_type": grant_type, "username": member.user.username, "password": "x"})
    assert_oauth_error(reply, 400, "unsupported_grant_type")


def test_client_credentials_give_the_app_a_token_for_get_client_only(org, member):
    client, key = make_app(organizations=[org], confidential=True)
    app = App(client=client, key=key)
    reply = app.token({"grant_type": "client_credentials"})
    assert reply.status_code == 200
    body = reply.json()
    assert "refresh_token" not in body and body["expires_in"] == 3600
    assert app.get("/client", body["access_token"]).status_code == 200
    me = app.get("/me", body["access_token"])
    assert me.status_code == 403 and me.json()["code"] == 10305


def test_a_public_client_gets_no_client_credentials_and_is_not_counted_as_a_wrong_key(app, settings):
    settings.FAILED_TOKEN_CHECKS_PER_IP = 1
    for _ in range(3):
        assert_oauth_error(app.token({"grant_type": "client_credentials"}), 400, "unauthorized_client")


def test_a_public_client_may_send_its_id_in_the_basic_header_with_an_empty_password(app, member):
    code = app.code(member)
    data = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI}
    data["code_verifier"] = app.verifier
    reply = app.api.post(TOKEN, data, headers={"Authorization": basic(app.client.client_id, "")}, **HTTPS)
    assert reply.status_code == 200


@pytest.mark.parametrize("where", ["field", "query", "twice"])
def test_unknown_or_repeated_fields_are_refused(app, member, where):
    code = app.code(member)
    if where == "field":
        reply = app.exchange(code, colour="blue")
    elif where == "query":
        data = {"grant_type": "authorization_code", "code": code, "client_id": app.client.client_id}
        reply = app.api.post(f"{TOKEN}?x=1", data, **HTTPS)
    else:
        reply = raw_exchange(app, code, device_name="a&device_name=b")
    body = assert_oauth_error(reply, 400, "invalid_request")
    assert body["error_description"].startswith("The field ")
    assert app.exchange(code).status_code == 200  # nothing was used up


def test_revoke_refuses_unknown_fields(app, member):
    tokens = app.login_tokens(member)
    reply = app.api.post(
        REVOKE, {"token": tokens["refresh_token"], "client_id": app.client.client_id, "x": "1"}, **HTTPS
    )
    assert_oauth_error(reply, 400, "invalid_request")
    assert me_status(app, tokens["access_token"]) == 200


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_authorize_is_get_only(app, method):
    reply = getattr(app.browser, method)(AUTHORIZE, **HTTPS)
    assert reply.status_code == 405 and reply["Allow"] == "GET, HEAD" and reply.json()["code"] == 10050


def test_a_code_replayed_by_another_client_ends_the_login_too(app, member, org):
    code = app.code(member)
    tokens = app.exchange(code).json()
    other = App(client=make_app(organizations=[org], app_name="Other")[0], verifier=app.verifier)
    assert_oauth_error(other.exchange(code), 400, "invalid_grant")
    assert me_status(app, tokens["access_token"]) == 401


def test_an_old_refresh_token_sent_by_another_client_ends_the_login_too(app, member, org):
    first = app.login_tokens(member)
    second = app.refresh(first["refresh_token"]).json()
    other = App(client=make_app(organizations=[org], app_name="Other")[0])
    assert_oauth_error(other.refresh(first["refresh_token"]), 400, "invalid_grant")
    assert me_status(app, second["access_token"]) == 401
    assert MobileLogin.objects.get().end_reason == MobileLogin.EndReason.REFRESH_REUSE


def test_a_missing_grant_type_is_invalid_request(app):
    assert_oauth_error(app.token({}), 400, "invalid_request")


def test_the_token_endpoint_is_post_only(app):
    reply = app.api.get(TOKEN, **HTTPS)
    assert reply.status_code == 405 and reply["Allow"] == "POST" and reply.json()["code"] == 10050


# --- refresh ---------------------------------------------------------------------------------------------------


def test_a_refresh_rotates_both_tokens_and_the_old_refresh_token_dies_at_once(app, member):
    first = app.login_tokens(member)
    reply = app.refresh(first["refresh_token"])
    assert reply.status_code == 200
    second = reply.json()
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    assert me_status(app, first["access_token"]) == 401
    assert me_status(app, second["access_token"]) == 200


def test_an_old_refresh_token_used_again_ends_the_whole_login(app, member):
    first = app.login_tokens(member)
    second = app.refresh(first["refresh_token"]).json()
    assert_oauth_error(app.refresh(first["refresh_token"]), 400, "invalid_grant")
    assert me_status(app, second["access_token"]) == 401
    assert_oauth_error(app.refresh(second["refresh_token"]), 400, "invalid_grant")
    login = MobileLogin.objects.get()
    assert login.ended_at is not None and login.end_reason == MobileLogin.EndReason.REFRESH_REUSE


def test_only_the_client_that_made_the_login_can_renew_it(app, member, org):
    tokens = app.login_tokens(member)
    other = App(client=make_app(organizations=[org], app_name="Other")[0])
    assert_oauth_error(other.refresh(tokens["refresh_token"]), 400, "invalid_grant")
    assert app.refresh(tokens["refresh_token"]).status_code == 200  # the login goes on


def test_a_member_locked_after_login_cannot_renew(app, member):
    tokens = app.login_tokens(member)
    member.user.locked_login = True
    member.user.save()
    assert_oauth_error(app.refresh(tokens["refresh_token"]), 400, "invalid_grant")
    assert MobileLogin.objects.get().end_reason == MobileLogin.EndReason.MEMBER_GONE


def test_an_access_token_lives_3600_seconds(app, member, frozen_time):
    tokens = app.login_tokens(member)
    frozen_time.shift(3599)
    assert me_status(app, tokens["access_token"]) == 200
    frozen_time.shift(2)
    reply = app.get("/me", tokens["access_token"])
    assert reply.status_code == 401 and 'error="invalid_token"' in reply["WWW-Authenticate"]
    assert app.refresh(tokens["refresh_token"]).status_code == 200


def test_a_refresh_token_lives_90_days_from_its_last_use(app, member, frozen_time):
    tokens = app.login_tokens(member)
    frozen_time.shift(timedelta(days=89, hours=23).total_seconds())
    tokens = app.refresh(tokens["refresh_token"]).json()  # used: another 90 days
    frozen_time.shift(timedelta(days=89, hours=23).total_seconds())
    reply = app.refresh(tokens["refresh_token"])
    assert reply.status_code == 200
    frozen_time.shift(timedelta(days=90, seconds=1).total_seconds())
    assert_oauth_error(app.refresh(reply.json()["refresh_token"]), 400, "invalid_grant")


def test_renewing_records_the_last_use(app, member, frozen_time):
    tokens = app.login_tokens(member)
    frozen_time.shift(600)
    app.refresh(tokens["refresh_token"])
    login = MobileLogin.objects.get()
    assert login.last_used_at - login.created_at == timedelta(seconds=600)


# --- revoke -------------------------------------------------------------------------------------------------


def test_revoke_ends_the_login(app, member):
    tokens = app.login_tokens(member)
    reply = app.revoke(tokens["refresh_token"])
    assert reply.status_code == 200
    assert me_status(app, tokens["access_token"]) == 401
    assert_oauth_error(app.refresh(tokens["refresh_token"]), 400, "invalid_grant")
    assert MobileLogin.objects.get().end_reason == MobileLogin.EndReason.APP


def test_revoke_answers_200_also_when_the_token_is_gone(app, member):
    tokens = app.login_tokens(member)
    assert app.revoke(tokens["refresh_token"]).status_code == 200
    assert app.revoke(tokens["refresh_token"]).status_code == 200
    assert app.revoke("never-issued").status_code == 200


def test_revoking_with_the_access_token_ends_the_login_too(app, member):
    tokens = app.login_tokens(member)
    assert app.revoke(tokens["access_token"]).status_code == 200
    assert_oauth_error(app.refresh(tokens["refresh_token"]), 400, "invalid_grant")


def test_a_client_cannot_revoke_another_clients_login(app, member, org):
    tokens = app.login_tokens(member)
    other = App(client=make_app(organizations=[org], app_name="Other")[0])
    assert other.revoke(tokens["refresh_token"]).status_code == 200
    assert me_status(app, tokens["access_token"]) == 200


def test_revoke_needs_the_client(app, member):
    tokens = app.login_tokens(member)
    reply = app.api.post(REVOKE, {"token": tokens["refresh_token"]}, **HTTPS)
    # No client authentication at all is a failed client authentication (RFC 6749 5.2, RFC 7009 2.2.1):
    # 401 invalid_client with `WWW-Authenticate: Basic`, as document 2 says of a wrong client id or key.
    assert_oauth_error(reply, 401, "invalid_client")
    assert reply["WWW-Authenticate"] == "Basic"
    assert me_status(app, tokens["access_token"]) == 200


# --- limits and blocked addresses ---------------------------------------------------------------------------


def test_token_calls_count_against_the_clients_limit(org, member, settings):
    client, key = make_app(organizations=[org], confidential=True, rate_limit_per_minute=2)
    app = App(client=client, key=key)
    first = app.token({"grant_type": "client_credentials"})
    assert first.status_code == 200 and first["RateLimit-Limit"] == "2"
    assert app.token({"grant_type": "client_credentials"}).status_code == 200
    third = app.token({"grant_type": "client_credentials"})
    assert third.status_code == 429 and third.json()["code"] == 10013 and third.has_header("Retry-After")


def test_wrong_client_keys_from_one_address_end_in_429(org, settings):
    settings.FAILED_TOKEN_CHECKS_PER_IP = 3
    client, _key = make_app(organizations=[org], confidential=True)
    app = App(client=client, key="wrong")
    statuses = [app.token({"grant_type": "client_credentials"}).status_code for _ in range(4)]
    assert statuses == [401, 401, 401, 429]


def test_a_blocked_address_gets_nothing(app, member):
    from mobile_api.models import BlockedAddress

    tokens = app.login_tokens(member)
    BlockedAddress.objects.create(network="127.0.0.0/8")
    assert assert_oauth_error(app.refresh(tokens["refresh_token"]), 403, "access_denied")["code"] == 10003
    assert app.authorize().status_code == 403
    assert app.get("/me", tokens["access_token"]).json()["code"] == 10003


def test_the_query_of_the_redirect_holds_only_code_state_and_iss(app, member):
    location = app.consent(member)["Location"]
    assert set(parse_qs(urlsplit(location).query)) == {"code", "state", "iss"}  # iss: RFC 9207 (§9.36)


# --- hostile input and the login page's limit ------------------------------------------------------------


@pytest.mark.parametrize(
    "verifier", ["é" * 50, "a" * 42, "a" * 129, "a b" * 20, "\x00" * 50, "%ED%A0%80" * 50], ids=range(6)
)
def test_a_verifier_of_the_wrong_form_is_invalid_grant(app, member, verifier):
    code = app.code(member)
    assert_oauth_error(raw_exchange(app, code, code_verifier=verifier), 400, "invalid_grant")


@pytest.mark.parametrize("challenge", ["short", "x" * 44, "a" * 5000, "a" * 42 + "=", "\x00" * 43], ids=range(5))
def test_a_challenge_that_no_s256_verifier_gives_is_refused_at_authorize(app, challenge):
    params = redirect_params(app.authorize(code_challenge=challenge))
    assert params["error"] == "invalid_request" and "43" in params["error_description"]
    assert not Grant.objects.exists()


def raw_exchange(app: App, code: str, **fields):
    """The token request as raw form bytes: a lone surrogate's UTF-8 form (%ED%A0%80) as a client can send it."""
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": app.redirect_uri,
        "code_verifier": app.verifier,
        "client_id": app.client.client_id,
    }
    body = urlencode({k: v for k, v in data.items() if k not in fields})
    body += "".join(f"&{name}={value}" for name, value in fields.items())
    return app.api.post(TOKEN, body, content_type="application/x-www-form-urlencoded", **HTTPS)


@pytest.mark.parametrize("device_name", ["x" * 101, "pho%00ne"], ids=["long", "nul"])
def test_a_device_name_that_cannot_be_stored_is_refused_and_nothing_is_saved(app, member, device_name):
    code = app.code(member)
    body = assert_oauth_error(raw_exchange(app, code, device_name=device_name), 400, "invalid_request")
    assert "device_name" in body["error_description"]
    assert not AccessToken.objects.exists() and not MobileLogin.objects.exists()
    assert app.exchange(code, device_name="x" * 100).status_code == 200


def test_a_device_name_that_is_not_utf_8_is_kept_with_replacement_characters(app, member):
    # Django reads a form as UTF-8 with replacement: a lone surrogate's bytes never reach the database.
    assert raw_exchange(app, app.code(member), device_name="pho%ED%A0%80ne").status_code == 200
    assert MobileLogin.objects.get().device_name == "pho\ufffd\ufffd\ufffdne"


@pytest.mark.parametrize(
    "data",
    [
        {"grant_type": "refresh_token", "refresh_token": "\x00" * 10},
        {"grant_type": "authorization_code", "code": "\x00", "code_verifier": "a" * 43, "redirect_uri": "x\x00"},
        {"grant_type": "authorization_code", "code": "a" * 100_000, "code_verifier": "a" * 43},
        {"grant_type": "\x00"},
        {"grant_type": "refresh_token", "refresh_token": "x", "client_id": "\x00" * 3},
    ],
    ids=range(5),
)
def test_hostile_token_requests_get_an_oauth_error_never_a_500(app, data):
    reply = app.api.post(TOKEN, {"client_id": app.client.client_id, **data}, **HTTPS)
    assert 400 <= reply.status_code < 500 and reply.json()["error"]


def test_a_huge_token_request_is_refused(app):
    reply = app.api.post(TOKEN, {"grant_type": "refresh_token", "refresh_token": "x" * 2_000_000}, **HTTPS)
    assert reply.status_code == 413 and reply.json()["error"] == "invalid_request"


def test_the_login_page_of_a_sign_in_keeps_the_websites_failed_login_limit(app, member, settings):
    settings.FAILED_LOGINS_PER_USERNAME = 2
    statuses = [app.log_in(member, password="wrong").status_code for _ in range(2)]
    blocked = app.log_in(member)  # the right password, now too late
    assert statuses == [200, 200]
    assert blocked.status_code == 429 and blocked.has_header("Retry-After")


def test_revoking_a_client_ends_its_logins(app, member):
    app.login_tokens(member)
    app_client_revoke(client=app.client)
    assert MobileLogin.objects.get().end_reason == MobileLogin.EndReason.CLIENT


def test_consent_is_asked_again_when_the_app_gains_a_right(app, member):
    redirect_params(app.consent(member))
    app_client_update(
        client=app.client,
        name=app.client.name,
        app_name=app.client.app_name,
        rights={**app.client.rights, "transactions": "r"},
        organizations=list(app.client.organizations.all()),
        redirect_uris=app.client.redirect_uris,
    )
    again = App(client=app.client)
    reply = again.log_in(member)
    page = again.browser.get(reply["Location"], **HTTPS)
    assert page.status_code == 200 and "See your balance and transactions" in page.content.decode()
    redirect_params(again.browser.post(reply["Location"], {"allow": "allow"}, **HTTPS))
    third = App(client=app.client)
    assert third.browser.get(third.log_in(member)["Location"], **HTTPS).status_code == 302  # remembered again


def test_a_login_page_with_nul_in_the_client_id_is_a_plain_login_page(app):
    reply = app.browser.get("/login?client_id=a%00b&response_type=code", **HTTPS)
    assert reply.status_code == 200 and 'name="username"' in reply.content.decode()


def test_a_member_of_no_allowed_organization_is_told_so_in_the_redirect(member):
    client, _ = make_app(organizations=[OrganizationFactory()])
    app = App(client=client)
    reply = app.log_in(member)
    params = redirect_params(app.browser.post(reply["Location"], {"deny": "deny"}, **HTTPS))
    assert params["error"] == "access_denied" and "not an active member" in params["error_description"]


def test_locking_the_login_stops_its_access_tokens_at_once(app, member):
    tokens = app.login_tokens(member)
    member.user.locked_login = True
    member.user.save()
    assert me_status(app, tokens["access_token"]) == 401


def test_me_is_never_cached_and_empty_names_are_null(app, org):
    member = make_member(org, first_name="", last_name="Berg")
    tokens = app.login_tokens(member)
    reply = app.get("/me", tokens["access_token"])
    assert reply["Cache-Control"] == "private, no-store"
    assert reply.json()["data"]["name"]["first"] is None and reply.json()["data"]["name"]["last"] == "Berg"


# --- the issuer in the authorization response (RFC 9207, RFC 9700 4.4; docs/decisions.md §9.36) ----------------

ISSUER = "https://testserver/mobile/v5"


def test_the_code_comes_back_with_the_issuer(app, member):
    params = redirect_params(app.consent(member))

    assert params["iss"] == ISSUER and params["code"] and params["state"] == app.state


def test_a_refused_consent_comes_back_with_the_issuer(app, member):
    params = redirect_params(app.consent(member, allow=False))

    assert params["error"] == "access_denied" and params["iss"] == ISSUER


def test_an_authorize_error_comes_back_with_the_issuer(app):
    params = redirect_params(app.authorize(code_challenge_method="plain"))

    assert params["error"] == "invalid_request" and params["iss"] == ISSUER


def test_a_remembered_consent_comes_back_with_the_issuer(app, member):
    app.code(member)

    reply = app.browser.get(app.log_in(member)["Location"], **HTTPS)

    assert redirect_params(reply)["iss"] == ISSUER


@pytest.mark.parametrize("address", ["http://127.0.0.1:8400/cb", "http://[::1]/cb", "http://localhost:8400/cb"])
def test_a_native_apps_loopback_http_address_works_for_the_sign_in(org, member, address):
    client, _ = make_app(organizations=[org], redirect_uris=[address])
    app = App(client=client, redirect_uri=address)

    params = redirect_params(app.consent(member), address)

    assert params["iss"] == ISSUER
    assert app.exchange(params["code"]).status_code == 200
