import base64

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import MODULES
from accounts.services import api_token_create
from tests.factories import OrganizationFactory, make_admin

BASE = "/main/v5"
ALL_RIGHTS = {module: "rw" for module in MODULES}


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


class MainApi:
    """A client of the Main API v5 over HTTPS, holding one token."""

    def __init__(self, token, secret: str):
        self.token = token
        self.secret = secret
        self.client = Client()
        self._access_token = None

    def fetch_access_token(self, **extra):
        response = self.client.post(
            f"{BASE}/oauth/token",
            {"grant_type": "client_credentials"},
            secure=True,
            HTTP_AUTHORIZATION=basic(str(self.token.client_id), self.secret),
            **extra,
        )
        assert response.status_code == 200, response.content
        return response.json()["access_token"]

    @property
    def access_token(self) -> str:
        if self._access_token is None:
            self._access_token = self.fetch_access_token()
        return self._access_token

    def call(self, method: str, path: str, *, bearer: str | None = None, json=None, data=None, **extra):
        bearer = self.access_token if bearer is None else bearer
        headers = {"HTTP_AUTHORIZATION": f"Bearer {bearer}"} if bearer else {}
        kwargs = {"secure": True, **headers, **extra}
        if json is not None:
            kwargs.update(data=__import__("json").dumps(json), content_type="application/json")
        elif data is not None:
            kwargs.update(data=data)
        return getattr(self.client, method.lower())(f"{BASE}{path}", **kwargs)

    def get(self, path: str, params: dict | None = None, **kwargs):
        return self.call("GET", path, data=params, **kwargs)

    def post(self, path: str, json=None, **kwargs):
        return self.call("POST", path, json=json, **kwargs)

    def patch(self, path: str, json=None, **kwargs):
        return self.call("PATCH", path, json=json, **kwargs)

    def put(self, path: str, json=None, **kwargs):
        return self.call("PUT", path, json=json, **kwargs)

    def delete(self, path: str, **kwargs):
        return self.call("DELETE", path, **kwargs)


def basic(client_id: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{client_id}:{secret}".encode()).decode()


@pytest.fixture
def org(db):
    return OrganizationFactory(name="Västerås Flygklubb")


@pytest.fixture
def other_org(db):
    return OrganizationFactory(name="Bergen Flyklubb", timezone="Europe/Oslo")


@pytest.fixture
def admin(org):
    return make_admin(org, first_name="Karin", last_name="Lindqvist")


@pytest.fixture
def make_api(db):
    """make_api(org, rights=..., allowed_ips=...) -> MainApi for a new token of that organization."""

    def make(organization, *, rights=None, allowed_ips=None, owner=None):
        owner = owner or make_admin(organization)
        token, secret = api_token_create(
            organization=organization,
            owner=owner,
            description="Test token",
            rights=ALL_RIGHTS if rights is None else rights,
            allowed_ips=allowed_ips,
        )
        return MainApi(token, secret)

    return make


@pytest.fixture
def api(org, admin, make_api):
    """A token with every right of `org`, owned by `admin`."""
    return make_api(org, owner=admin)


@pytest.fixture
def other_api(other_org, make_api):
    return make_api(other_org)
