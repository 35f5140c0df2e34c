"""The contract test base of the Main API v5 (after NetBox's APIViewTestCases).

An endpoint's test class declares its address, module, methods and how to make an item in an organization,
and inherits the checks every endpoint owes the contract, run over HTTP with a token per case:

- another organization's item answers 404 (10100) to every method and is never listed;
- a token without the module's right, a write-only token on a read or a read-only token on a write is 403
  (10002); the needed right alone is enough;
- an unknown query parameter is 400 (10007); a method the address does not offer is 405 (10050) with an
  `Allow` header of exactly the offered ones; the address with a trailing slash is 404 (10100);
- every block of the endpoint's presenter can be included and every field excluded.

A check that does not apply to a declaration (no item in the path, no module, no blocks...) is not
generated for that class, so every test that runs asserts something. Every class is recorded in CONTRACTS;
tests/test_routes_covered.py fails for a route of the API without one (or an entry in EXEMPT).
"""

import re
from urllib.parse import urlencode

from django.urls import resolve

from main_api.models import MODULES
from tests.conftest import BASE
from tests.helpers import assert_problem, problem_fields

NAMESPACE = "main_v5"
# Routes of the namespace that are not held to this contract, each with the reason; the one place for it.
EXEMPT = {
    "oauth-token": "the OAuth token endpoint speaks OAuth 2.0 (form body, Basic client credentials, OAuth error "
    "form), not the API conventions; tests/test_oauth_token.py and tests/test_auth_edge_cases.py cover it",
}
CONTRACTS: list[type["EndpointContract"]] = []

PROBED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# Sent with a method the address does not offer: a refused call must not apply it.
STRAY_BODY = {"name": "Changed by a refused call", "expiry_date": "2030-01-01", "misc_info": "Changed"}
SUCCESS = {"GET": 200, "POST": 201, "PUT": 200, "PATCH": 200, "DELETE": 204}
PLACEHOLDER = re.compile(r"\{(\w+)\}")


class EndpointContract:
    """Subclass as `class Test...(EndpointContract)` with the declarations below."""

    # The address below /main/v5 with `{name}` placeholders that `placeholders(item)` fills.
    path: str = ""
    # The module whose right the endpoint needs; None: any valid token may call it.
    module: str | None = None
    # The methods the address offers (HEAD comes with GET).
    methods: tuple[str, ...] = ("GET",)
    # The right a method needs where it is not `r` for GET and `w` for the others.
    rights: dict[str, str] = {}
    # The status of a successful call where it is not SUCCESS's.
    success: dict[str, int] = {}
    # True for a list address (GET answers data, meta, links); its items are checked for tenancy.
    lists: bool = False
    # True when the replies carry items that take `include` and `exclude`.
    shaped: bool = True
    # A factory of the address's items, called with `organization=` (or override `make`).
    factory = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.path:
            return  # a shared part of several endpoints' classes, not an endpoint
        CONTRACTS.append(cls)
        for name, params in cls.cases().items():
            if not params:
                setattr(cls, name, None)  # pytest collects nothing for it: the check does not apply
            elif name not in cls.__dict__:
                # A parent's class may have switched the check off for its own declaration.
                setattr(cls, name, next(k.__dict__[name] for k in cls.__mro__ if k.__dict__.get(name) is not None))

    # --- what an endpoint's class declares or overrides ---------------------------------------------------

    def make(self, organization):
        """An item of the organization at this address (None where the address has no items)."""
        return None if self.factory is None else self.factory(organization=organization)

    def placeholders(self, item) -> dict:
        return {"id": item.pk}

    def body(self, method: str, item) -> dict | None:
        """A valid body of a write on `item`'s address."""
        return None

    def key(self, item):
        """What identifies `item` in a list reply (compared with `reply_key`)."""
        return item.pk

    def reply_key(self, data: dict):
        return data["id"]

    # --- derived ------------------------------------------------------------------------------------------

    @classmethod
    def needed_right(cls, method: str) -> str:
        return cls.rights.get(method, "r" if method == "GET" else "w")

    @classmethod
    def offered(cls) -> set[str]:
        return set(cls.methods) | ({"HEAD"} if "GET" in cls.methods else set())

    @classmethod
    def shape_method(cls) -> str | None:
        """The method whose reply the include and exclude checks read."""
        return next((m for m in ("GET", "PUT", "POST", "PATCH") if m in cls.methods), None) if cls.shaped else None

    @classmethod
    def resolved(cls):
        """The route the address resolves to (every placeholder given 1)."""
        return resolve(BASE + PLACEHOLDER.sub("1", cls.path))

    @classmethod
    def presenter(cls):
        return cls.resolved().func.view_class.presenter_class

    @classmethod
    def cases(cls) -> dict[str, list]:
        """The parameters of each check for this declaration; an empty list: the check does not apply."""
        methods = list(cls.methods)
        presenter = cls.presenter() if cls.shape_method() else None
        blocks = dict(presenter.blocks) if presenter else {}
        return {
            "test_another_organizations_item_is_404": methods if PLACEHOLDER.search(cls.path) else [],
            "test_another_organizations_item_is_not_listed": ["GET"] if cls.lists else [],
            "test_a_token_without_the_modules_right_is_403": methods if cls.module else [],
            "test_any_valid_token_may_call": [] if cls.module else methods,
            "test_a_write_only_token_cannot_read": [m for m in methods if cls.needed_right(m) == "r"]
            if cls.module
            else [],
            "test_the_needed_right_alone_is_enough": methods if cls.module else [],
            "test_a_read_only_token_cannot_write": [m for m in methods if cls.needed_right(m) == "w"]
            if cls.module
            else [],
            "test_an_unknown_query_parameter_is_400_10007": methods,
            "test_a_method_not_offered_is_405_with_allow": [m for m in PROBED_METHODS if m not in cls.offered()],
            "test_the_address_with_a_trailing_slash_is_404": methods,
            "test_every_block_can_be_included": list(blocks),
            "test_a_block_needing_another_modules_right_is_403_without_it": [
                name for name, block in blocks.items() if block.extra_modules
            ],
            "test_a_block_not_offered_is_400_10005": [cls.shape_method()] if presenter else [],
            "test_every_field_can_be_excluded": list(presenter.fields) if presenter else [],
            "test_include_and_exclude_are_unknown_parameters": [] if cls.shaped else ["include", "exclude"],
        }

    def pytest_generate_tests(self, metafunc):
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", self.cases()[metafunc.function.__name__])

    # --- calls --------------------------------------------------------------------------------------------

    def address(self, item) -> str:
        return self.path.format(**self.placeholders(item)) if PLACEHOLDER.search(self.path) else self.path

    def send(self, api, method: str, item, *, params: dict | None = None, suffix: str = ""):
        """`method` on `item`'s address with a valid body; `params` as the query string."""
        path = self.address(item) + suffix + (f"?{urlencode(params)}" if params else "")
        return api.call(method, path, json=self.body(method, item))

    def success_status(self, method: str) -> int:
        return self.success.get(method, SUCCESS[method])

    def token_with(self, make_api, organization, **module_rights):
        """A token with every right but the given ones for this endpoint's module (None: no right there)."""
        rights = {module: "rw" for module in MODULES} | module_rights
        return make_api(organization, rights={module: right for module, right in rights.items() if right})

    def rows(self, item) -> list[dict]:
        """Every row of the item's table, to show that a refused call changed nothing."""
        return [] if item is None else list(type(item).objects.order_by("pk").values())

    def assert_refused(self, api, method: str, item, status: int, code: int, **send) -> dict:
        """The call is refused with this status and code, and nothing of the item's table changed."""
        before = self.rows(item)
        body = assert_problem(self.send(api, method, item, **send), status, code)
        assert self.rows(item) == before
        return body

    def shaped_items(self, api, item, params: dict) -> list[dict]:
        """The items of the shape method's reply to a call on `item`'s address with `params` (a list's
        items, at least `item` itself)."""
        method = self.shape_method()
        response = self.send(api, method, item, params=params)
        assert response.status_code == self.success_status(method), response.content
        data = response.json()["data"]
        items = data if self.lists and method == "GET" else [data]
        assert items
        return items

    # --- the checks ---------------------------------------------------------------------------------------

    def test_another_organizations_item_is_404(self, case, api, org, other_org):
        foreign, own = self.make(other_org), self.make(org)

        self.assert_refused(api, case, foreign, 404, 10100)

        assert self.send(api, case, own).status_code == self.success_status(case)

    def test_another_organizations_item_is_not_listed(self, case, api, org, other_org):
        foreign, own = self.make(other_org), self.make(org)

        response = self.send(api, case, own, params={"limit": 500})

        assert response.status_code == 200
        listed = [self.reply_key(entry) for entry in response.json()["data"]]
        assert self.key(own) in listed
        assert self.key(foreign) not in listed

    def test_a_token_without_the_modules_right_is_403(self, case, make_api, org):
        api = self.token_with(make_api, org, **{self.module: None})
        self.assert_refused(api, case, self.make(org), 403, 10002)

    def test_a_write_only_token_cannot_read(self, case, make_api, org):
        api = self.token_with(make_api, org, **{self.module: "w"})
        self.assert_refused(api, case, self.make(org), 403, 10002)

    def test_a_read_only_token_cannot_write(self, case, make_api, org):
        api = self.token_with(make_api, org, **{self.module: "r"})
        self.assert_refused(api, case, self.make(org), 403, 10002)

    def test_the_needed_right_alone_is_enough(self, case, make_api, org):
        api = make_api(org, rights={self.module: self.needed_right(case)})
        assert self.send(api, case, self.make(org)).status_code == self.success_status(case)

    def test_any_valid_token_may_call(self, case, make_api, org):
        api = make_api(org, rights={})
        assert self.send(api, case, self.make(org)).status_code == self.success_status(case)

    def test_an_unknown_query_parameter_is_400_10007(self, case, api, org):
        body = self.assert_refused(api, case, self.make(org), 400, 10007, params={"colour": "red"})
        assert problem_fields(body) == {"colour": 10007}

    def test_a_method_not_offered_is_405_with_allow(self, case, api, org):
        item = self.make(org)
        before = self.rows(item)

        response = api.call(case, self.address(item), json=None if case in ("GET", "HEAD") else STRAY_BODY)

        assert response.status_code == 405, response.content
        assert self.rows(item) == before
        allowed = [method.strip() for method in response["Allow"].split(",")]
        assert sorted(allowed) == sorted(self.offered())
        if case != "HEAD":  # a reply to HEAD has no body to read
            assert_problem(response, 405, 10050)

    def test_the_address_with_a_trailing_slash_is_404(self, case, api, org):
        self.assert_refused(api, case, self.make(org), 404, 10100, suffix="/")

    def test_every_block_can_be_included(self, case, api, org):
        # `api` has every right, users_sensitive too, which some blocks need.
        items = self.shaped_items(api, self.make(org), {"include": case})
        assert [set(item) for item in items] == [set(self.presenter().fields) | {case}] * len(items)

    def test_a_block_needing_another_modules_right_is_403_without_it(self, case, make_api, org):
        extra = {module: None for module in self.presenter().blocks[case].extra_modules}
        api = self.token_with(make_api, org, **extra)
        self.assert_refused(api, self.shape_method(), self.make(org), 403, 10002, params={"include": case})

    def test_a_block_not_offered_is_400_10005(self, case, api, org):
        body = self.assert_refused(api, case, self.make(org), 400, 10005, params={"include": "no_such_block"})
        assert problem_fields(body) == {"include": 10005}

    def test_every_field_can_be_excluded(self, case, api, org):
        items = self.shaped_items(api, self.make(org), {"exclude": case})
        assert [set(item) for item in items] == [set(self.presenter().fields) - {case}] * len(items)

    def test_include_and_exclude_are_unknown_parameters(self, case, api, org):
        method = self.methods[0]
        body = self.assert_refused(api, method, self.make(org), 400, 10007, params={case: "id"})
        assert problem_fields(body) == {case: 10007}


def covered_routes() -> dict[str, type[EndpointContract]]:
    """{route name: its contract class} over every class defined so far."""
    covered = {}
    for contract in CONTRACTS:
        match = contract.resolved()
        assert match.namespace == NAMESPACE, (contract.__name__, contract.path)
        covered[match.url_name] = contract
    return covered
