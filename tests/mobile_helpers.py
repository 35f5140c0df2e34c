"""Mobile API v5 test helpers: an app client, and a member's login with its tokens made without the OAuth flow
(the rows django-oauth-toolkit would write: an access token, its refresh token of a new family, the
MobileLogin of that family), and a client for the API over HTTPS."""

import datetime as dt
import json as jsonlib
import secrets
import uuid
from dataclasses import dataclass

from django.test import Client
from oauth2_provider.models import AccessToken, RefreshToken, set_token_value

from accounts.models import Member
from apicore import clock
from mobile_api.models import MOBILE_MODULES, AppClient, MobileLogin
from mobile_api.services.app_clients import app_client_create
from mobile_api.services.logins import mobile_login_start

MOBILE_BASE = "/mobile/v5"
ALL_MOBILE_RIGHTS = {module: "rw" for module in MOBILE_MODULES}
ACCESS_TOKEN_SECONDS = 3600


def make_app_client(*, rights=None, organizations=(), confidential=True, rate_limit_per_minute=None, **fields):
    values = {
        "name": "Aero Apps AB",
        "app_name": "Club Flyer",
        "rights": ALL_MOBILE_RIGHTS if rights is None else rights,
        "organizations": list(organizations),
        "redirect_uris": ["se.example.flyer:/oauth"],
        "confidential": confidential,
        "rate_limit_per_minute": rate_limit_per_minute,
        **fields,
    }
    client, _key = app_client_create(**values)
    return client


@dataclass
class MemberTokens:
    access_token: str
    refresh_token: str
    login: MobileLogin
    access: AccessToken
    refresh: RefreshToken


def issue_member_tokens(member: Member, app_client: AppClient, *, device_name: str = "Test phone") -> MemberTokens:
    """A new login of `member` to `app_client` with a fresh access token (valid an hour) and refresh token."""
    application = app_client.application
    raw_access, raw_refresh = secrets.token_urlsafe(30), secrets.token_urlsafe(30)
    access = AccessToken(
        user=member.user,
        application=application,
        expires=clock.now() + dt.timedelta(seconds=ACCESS_TOKEN_SECONDS),
        scope=app_client.scope,
    )
    set_token_value(access, raw_access)
    access.save()
    family = uuid.uuid4()
    refresh = RefreshToken(user=member.user, application=application, access_token=access, token_family=family)
    set_token_value(refresh, raw_refresh)
    refresh.save()
    login = mobile_login_start(
        app_client=app_client,
        member=member,
        token_family=family,
        code_digest=secrets.token_hex(32),
        device_name=device_name,
    )
    return MemberTokens(raw_access, raw_refresh, login, access, refresh)


def issue_app_token(app_client: AppClient) -> str:
    """The app's own access token (client credentials): no user, no refresh token."""
    raw = secrets.token_urlsafe(30)
    access = AccessToken(
        user=None,
        application=app_client.application,
        expires=clock.now() + dt.timedelta(seconds=ACCESS_TOKEN_SECONDS),
        scope=app_client.scope,
    )
    set_token_value(access, raw)
    access.save()
    return raw


class MobileApi:
    """A client of the Mobile API v5 over HTTPS with one bearer (none when empty)."""

    def __init__(self, bearer: str | None = None):
        self.bearer = bearer
        self.client = Client()

    def call(self, method: str, path: str, *, bearer: str | None = None, json=None, **extra):
        bearer = self.bearer if bearer is None else bearer
        headers = {"HTTP_AUTHORIZATION": f"Bearer {bearer}"} if bearer else {}
        kwargs = {"secure": True, **headers, **extra}
        if json is not None:
            kwargs.update(data=jsonlib.dumps(json), content_type="application/json")
        return getattr(self.client, method.lower())(f"{MOBILE_BASE}{path}", **kwargs)

    def get(self, path: str, **kwargs):
        return self.call("GET", path, **kwargs)
