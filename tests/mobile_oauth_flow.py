"""Playing a Mobile API app in tests: PKCE by hand, the login page, consent and the token endpoint."""

import base64
import hashlib
import secrets
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlencode, urlsplit

from django.test import Client

from accounts.models import Member
from mobile_api.models import AppClient
from mobile_api.services.app_clients import app_client_create
from tests.factories import MemberFactory, OrganizationFactory

REDIRECT_URI = "se.example.flyclub:/oauth/callback"
PASSWORD = "A long test password 7"
AUTHORIZE = "/mobile/v5/oauth/authorize"
TOKEN = "/mobile/v5/oauth/token"
REVOKE = "/mobile/v5/oauth/revoke"
HTTPS = {"secure": True}


def new_verifier() -> str:
    return secrets.token_urlsafe(48)[:64]


def s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


def make_app(*, confidential: bool = False, organizations=(), redirect_uris=(REDIRECT_URI,), **changes):
    client, key = app_client_create(
        name=changes.pop("name", "Example Apps AB"),
        app_name=changes.pop("app_name", "Flyclub Pocket"),
        rights=changes.pop("rights", {"organization": "r", "objects": "r", "bookings": "rw"}),
        organizations=list(organizations),
        redirect_uris=list(redirect_uris),
        confidential=confidential,
        **changes,
    )
    return client, key


def make_member(organization=None, **user_fields) -> Member:
    organization = organization or OrganizationFactory()
    member = MemberFactory(organization=organization, **({"user__" + k: v for k, v in user_fields.items()}))
    member.user.set_password(PASSWORD)
    member.user.save()
    return member


@dataclass
class App:
    """One app on one device: its client, its verifier and state, and a browser (Django's test client)."""

    client: AppClient
    key: str | None = None
    redirect_uri: str = REDIRECT_URI
    verifier: str = field(default_factory=new_verifier)
    state: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    browser: Client = field(default_factory=Client)
    api: Client = field(default_factory=Client)

    def authorize_query(self, **changes) -> dict:
        query = {
            "response_type": "code",
            "client_id": self.client.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": s256(self.verifier),
            "code_challenge_method": "S256",
            "state": self.state,
        }
        query.update(changes)
        return {name: value for name, value in query.items() if value is not None}

    def authorize(self, **changes):
        return self.browser.get(f"{AUTHORIZE}?{urlencode(self.authorize_query(**changes))}", **HTTPS)

    def log_in(self, member: Member, *, password: str = PASSWORD, **changes):
        """authorize → login page → POST username and password; returns the reply to the POST."""
        reply = self.authorize(**changes)
        assert reply.status_code == 302, reply
        login_url = reply["Location"]
        page = self.browser.get(login_url, **HTTPS)
        if page.status_code == 302:  # logged in on the website already: on to the consent page
            return page
        assert page.status_code == 200, page
        return self.browser.post(login_url, {"username": member.user.username, "password": password}, **HTTPS)

    def consent(self, member: Member, *, allow: bool = True, organization=None, **changes):
        """The whole browser part; returns the last reply (the redirect to the app, or a page)."""
        reply = self.log_in(member, **changes)
        assert reply.status_code == 302, reply.content[:500]
        consent_url = reply["Location"]
        page = self.browser.get(consent_url, **HTTPS)
        if page.status_code == 302:  # remembered: straight back to the app
            return page
        data = {"allow": "allow"} if allow else {"deny": "deny"}
        if organization is not None:
            data["organization"] = str(organization.pk)
        return self.browser.post(consent_url, data, **HTTPS)

    def code(self, member: Member, **changes) -> str:
        reply = self.consent(member, **changes)
        params = redirect_params(reply, self.redirect_uri)
        assert params["state"] == self.state
        return params["code"]

    def token(self, data: dict, *, headers=None, **extra):
        body = dict(data)
        if self.key is None or "client_secret" in body:
            body.setdefault("client_id", self.client.client_id)
        else:
            headers = {**(headers or {}), "Authorization": basic(self.client.client_id, self.key)}
        return self.api.post(TOKEN, body, headers=headers or {}, **HTTPS, **extra)

    def exchange(self, code: str, **changes):
        data = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "code_verifier": self.verifier,
        }
        data.update(changes)
        return self.token({k: v for k, v in data.items() if v is not None})

    def login_tokens(self, member: Member, **changes) -> dict:
        reply = self.exchange(self.code(member), **changes)
        assert reply.status_code == 200, reply.content
        return reply.json()

    def refresh(self, refresh_token: str, **headers):
        return self.token({"grant_type": "refresh_token", "refresh_token": refresh_token}, headers=headers)

    def revoke(self, token: str):
        data = {"token": token}
        if self.key is None:
            return self.api.post(REVOKE, {**data, "client_id": self.client.client_id}, **HTTPS)
        return self.api.post(REVOKE, data, headers={"Authorization": basic(self.client.client_id, self.key)}, **HTTPS)

    def get(self, path: str, access_token: str, **extra):
        return self.api.get(f"/mobile/v5{path}", headers={"Authorization": f"Bearer {access_token}"}, **HTTPS, **extra)


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode("ascii")


def redirect_params(reply, redirect_uri: str = REDIRECT_URI) -> dict[str, str]:
    assert reply.status_code == 302, getattr(reply, "content", b"")[:500]
    location = reply["Location"]
    assert location.startswith(redirect_uri + "?"), location
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
