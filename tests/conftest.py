import base64
import datetime as dt

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client, override_settings

from accounts.services import expiry_date_type_create
from main_api import token_cache
from main_api.models import MODULES
from main_api.services import api_token_create
from mobile_api import blocked_addresses, caller_cache
from tests.factories import MemberFactory, MembershipFactory, OrganizationFactory, UserGroupFactory, make_admin

# The log of the whole run is checked for the secrets the tests used (tests/log_secrets.py);
# the bookings page's fixtures (plane, anna, erik) serve its two test modules (a module's own fixture wins).
pytest_plugins = ["tests.log_secrets", "tests.admin_booking_fixtures"]

BASE = "/main/v5"
ALL_RIGHTS = {module: "rw" for module in MODULES}
# A fixed instant for tests that count calls or move the clock; not on a whole second on purpose.
FROZEN_AT = dt.datetime(2026, 11, 25, 12, 0, 0, 250_000, tzinfo=dt.UTC)


@pytest.fixture(autouse=True, scope="session")
def _website_over_plain_http():
    """The website's tests browse over plain HTTP (Client() without secure=True), which REQUIRE_HTTPS now
    redirects to https; tests/test_security_settings.py turns the redirect back on where it is the subject."""
    with override_settings(SECURE_SSL_REDIRECT=False):
        yield


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()
    # The processes' own copies (each also checked against stamps that the clear above renews).
    caller_cache.clear()
    token_cache.clear()
    blocked_addresses.forget_local_list()


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
def media(settings, tmp_path):
    """Uploaded files (expiry date images) go to a fresh folder of the test."""
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def medical(org):
    """An expiry date type of `org` that may never expire."""
    return expiry_date_type_create(organization=org, name="Medical", may_never_expire=True)


@pytest.fixture
def frozen_time():
    """The clock stopped at FROZEN_AT; move it with `frozen_time.shift(seconds)` or `.move_to(instant)`."""
    with time_machine.travel(FROZEN_AT, tick=False) as traveller:
        yield traveller


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


class GroupEndpoint:
    """GET /memberships or GET /user-groups, with the factory of its items."""

    def __init__(self, path: str, factory):
        self.path = path
        self.factory = factory

    def make(self, organization, name: str, **fields):
        return self.factory(organization=organization, name=name, **fields)

    def item_path(self, pk) -> str:
        return f"{self.path}/{pk}"

    def add_member(self, group, *, organization=None, **member_fields):
        """A member of `organization` (default: the group's) in the group; user fields as `user__name`."""
        organization = organization or group.organization
        if self.factory is MembershipFactory:
            return MemberFactory(organization=organization, membership=group, **member_fields)
        member = MemberFactory(organization=organization, **member_fields)
        member.user_groups.add(group)
        return member


@pytest.fixture(params=["/memberships", "/user-groups"])
def group_endpoint(request):
    """Each test runs once through /memberships and once through /user-groups."""
    factory = MembershipFactory if request.param == "/memberships" else UserGroupFactory
    return GroupEndpoint(request.param, factory)
