"""What the contract classes need to know about each public API: a flavour of the contract test base.

A flavour says where the API lives (address, URL namespace), who calls it and how (Main API v5: an
organization's API token with rights per module; Mobile API v5: a member's access token of an app client that
holds the module rights), the error form and codes, the envelopes of its replies and the headers every reply
to an accepted call carries. The checks in tests/contract/base.py read only this, so one contract class is
declared the same way for either API.
"""

import json as jsonlib
from dataclasses import dataclass, field

from django.test import Client
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from main_api.models import MODULES, ApiToken
from main_api.services import api_token_create
from mobile_api.models import MOBILE_MODULES, MobileLogin
from tests.conftest import MainApi
from tests.factories import MemberFactory, make_admin
from tests.helpers import assert_problem
from tests.mobile_helpers import issue_app_token, issue_member_tokens, make_app_client

AccessToken, RefreshToken = get_access_token_model(), get_refresh_token_model()
JSON = "application/json"
WRITES = ("POST", "PUT", "PATCH", "DELETE")


class Caller:
    """A client of one API over HTTPS with one bearer. `member` is the member a Mobile caller acts for."""

    def __init__(self, base: str, bearer: str, *, member=None, app_client=None):
        self.base, self.bearer, self.member, self.app_client = base, bearer, member, app_client
        self.client = Client()

    def call(self, method: str, path: str, *, json=None, **extra):
        """`method` on `path` (below the API's base, with its query string); a write without `json` sends an
        empty JSON body (the test client would send an empty multipart form)."""
        kwargs = {"secure": True, "HTTP_AUTHORIZATION": f"Bearer {self.bearer}", **extra}
        if json is not None:
            kwargs.update(data=jsonlib.dumps(json), content_type=JSON)
        elif method in WRITES:
            kwargs.update(data=b"", content_type=JSON)
        return getattr(self.client, method.lower())(self.base + path, **kwargs)


@dataclass(frozen=True)
class ApiFlavour:
    name: str
    # The address of the API (what the paths of its contract classes follow) and its URL namespace.
    base: str
    namespace: str
    # The modules a right is given for, and the largest page of a list.
    modules: tuple[str, ...]
    max_limit: int = 500
    # A call made twice before the queries of a call are counted, so that what every later call of a caller
    # finds warm is warm (Main: the token cache learns a credential on its first call and keeps its row on
    # the second; tests/test_token_cache.py).
    warm_up: str = ""
    # The tables the authentication of a call reads: after the warm-up no counted call may read them
    # (a repeated call is authenticated from the process's cache, in one round trip to the shared cache).
    authentication_tables: tuple[str, ...] = ()
    # The error codes the checks expect (document 1 and 2 share them).
    not_found: int = 10100
    no_right: int = 10002
    method_not_allowed: int = 10050
    unknown_name: int = 10007
    invalid_parameter: int = 10005
    invalid_date: int = 10110
    # The status and code of an address with a trailing slash (both documents: "no trailing slash (404)").
    trailing_slash: tuple[int, int] = (404, 10100)
    # The app's own token (client credentials) on a member endpoint (Mobile only); None: no such caller.
    app_token_refused: tuple[int, int] | None = None
    # The envelope of a successful JSON reply: an item's and a list's top-level keys, a list's meta and links.
    item_keys: frozenset = frozenset({"data"})
    list_keys: frozenset = frozenset({"data", "meta", "links"})
    meta_keys: frozenset = frozenset({"count", "limit", "offset", "has_more"})
    link_keys: frozenset = frozenset({"next"})
    # Headers of every reply to an accepted caller: a name with None only has to be there.
    reply_headers: dict = field(default_factory=dict)

    def caller(self, organization, rights: dict | None = None) -> Caller:
        """A caller of `organization` with these module rights (None: every right of every module)."""
        raise NotImplementedError

    def all_rights(self) -> dict[str, str]:
        return {module: "rw" for module in self.modules}

    def assert_error(self, response, status: int, code: int) -> dict:
        """The reply is this flavour's error form with this status and code; returns its body."""
        return assert_problem(response, status, code)


class MainV5(ApiFlavour):
    def caller(self, organization, rights=None) -> Caller:
        """An API token of the organization (owned by an administrator), called with its OAuth access token."""
        token, secret = api_token_create(
            organization=organization,
            owner=make_admin(organization),
            description="Contract token",
            rights=self.all_rights() if rights is None else rights,
            allowed_ips=None,
        )
        return Caller(self.base, MainApi(token, secret).access_token)


class MobileV5(ApiFlavour):
    def caller(self, organization, rights=None) -> Caller:
        """A new member of the organization logged in to a new app client that holds these rights."""
        member = MemberFactory(organization=organization)
        app_client = make_app_client(rights=self.all_rights() if rights is None else rights)
        tokens = issue_member_tokens(member, app_client)
        return Caller(self.base, tokens.access_token, member=member, app_client=app_client)

    def app_caller(self, app_client) -> Caller:
        """The app's own token (client credentials): no member."""
        return Caller(self.base, issue_app_token(app_client), app_client=app_client)


RATE_LIMIT_HEADERS = {"RateLimit-Limit": None, "RateLimit-Remaining": None, "RateLimit-Reset": None}

MAIN_V5 = MainV5(
    name="Main API v5",
    base="/main/v5",
    namespace="main_v5",
    modules=MODULES,
    warm_up="/token",
    authentication_tables=(ApiToken._meta.db_table, AccessToken._meta.db_table),
    reply_headers=RATE_LIMIT_HEADERS,
)
MOBILE_V5 = MobileV5(
    name="Mobile API v5",
    base="/mobile/v5",
    namespace="mobile_v5",
    modules=MOBILE_MODULES,
    warm_up="/me",
    authentication_tables=(AccessToken._meta.db_table, RefreshToken._meta.db_table, MobileLogin._meta.db_table),
    app_token_refused=(403, 10305),
    # A member's own data is kept by no cache (an endpoint whose reply may be cached declares its own).
    reply_headers={**RATE_LIMIT_HEADERS, "Cache-Control": "private, no-store"},
)
FLAVOURS = (MAIN_V5, MOBILE_V5)
