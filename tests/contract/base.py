"""The contract test base of the v5 APIs (after NetBox's APIViewTestCases), for every flavour.

A route's test class declares its API (`flavour`: Main v5 or Mobile v5), address, methods, module, how to make
an item in an organization and what a call costs in queries, and inherits the checks every route owes the
contract, run over HTTP with a caller per case (tests/contract/flavours.py says how each API is called):

- another organization's item answers 404 (10100) in the error form to every method and is never listed;
- a caller without the module's right, a write-only one on a read or a read-only one on a write is 403
  (10002); the needed right alone is enough; on the Mobile API the app's own token is 403 (10305) except
  where the route accepts it;
- an unknown query parameter is 400 (10007); a method the address does not offer is 405 (10050) with an
  `Allow` header of exactly the offered ones; the address with a trailing slash is 404 (10100);
- every block of the route's presenter can be included and every field excluded; a block not offered is
  400 (10005); a method whose reply takes neither refuses `include` and `exclude` as unknown (10007);
- a success has the flavour's envelope (`{data}`, `{data, meta, links}`) and reply headers;
- hostile query values (NUL, a lone surrogate, a huge or 64-bit edge number) as a parameter's name and in
  every parameter, and hostile ids in every placeholder of the address, are answered in the error form (400
  naming the parameter, 404), never 500; a value that is harmless after decoding may also succeed;
- a call costs exactly the declared number of queries (`queries`, and `queries_with_blocks` with every
  block included); a list the same at limit=1 and at the largest page, counted after warm-up calls.

A check that does not apply to a declaration (no item in the path, no module, no blocks...) is not
generated for that class, so every test that runs asserts something. Every class is recorded in CONTRACTS;
tests/test_routes_covered.py fails for a (route, method) of either API without one (or an entry in
tests/contract/routes.py EXCLUDED).
"""

import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import resolve

from tests.helpers import problem_fields

from .flavours import JSON, MAIN_V5, ApiFlavour

CONTRACTS: list[type["EndpointContract"]] = []

PROBED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
# Sent with a method the address does not offer: a refused call must not apply it.
STRAY_BODY = {"name": "Changed by a refused call", "expiry_date": "2030-01-01", "misc_info": "Changed"}
SUCCESS = {"GET": 200, "POST": 201, "PUT": 200, "PATCH": 200, "DELETE": 204}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# The items a list holds while its queries are counted (besides another organization's one).
COUNTED_ITEMS = 3

# Hostile values of a query parameter, as they travel in the query string. A lone surrogate can only arrive
# as the UTF-8 form of one (invalid UTF-8), which is decoded to U+FFFD: ordinary text by then.
HOSTILE_VALUES = {
    "nul": "a%00b",
    "surrogate": "%ED%A0%80",
    "huge": "9" * 1000,
    "edge": "999999999999999999",  # the largest id (18 digits): a number that may reach the database
}
# The kinds that may be a valid value of some parameter (a search text, an id): a success is fine there.
MAY_SUCCEED = {"surrogate", "edge"}
# Hostile ids in a path: past every row, past 64 bits, huge, with NUL or a lone surrogate, signed, zero.
HOSTILE_IDS = {
    "no-such-row": "999999999999999999",
    "past-64-bits": "9" * 19,
    "huge": "9" * 400,
    "nul": "1%00",
    "surrogate": "%ED%A0%80",
    "negative": "-1",
    "zero": "0",
}


class EndpointContract:
    """Subclass as `class Test...(EndpointContract)` with the declarations below."""

    # The API the route belongs to (tests/contract/flavours.py).
    flavour: ApiFlavour = MAIN_V5
    # The address below the API's base with `{name}` placeholders that `placeholders(item)` fills.
    path: str = ""
    # The module whose right the route needs; None: any accepted caller may call it.
    module: str | None = None
    # The methods the address offers (HEAD comes with GET).
    methods: tuple[str, ...] = ("GET",)
    # The right a method needs where it is not `r` for GET and `w` for the others.
    rights: dict[str, str] = {}
    # The status of a successful call where it is not SUCCESS's.
    success: dict[str, int] = {}
    # True for a list address (GET answers data, meta, links); its items are checked for tenancy.
    lists: bool = False
    # The methods whose replies take `include` and `exclude`: True for every method but DELETE, False for
    # none, or a tuple of methods.
    shaped: bool | tuple[str, ...] = True
    # A factory of the address's items, called with `organization=` (or override `make`).
    factory = None
    # The exact number of queries of one call of each method (a list's GET at limit=1 and at the largest
    # page alike), and of the GET with every block included.
    queries: dict[str, int] = {}
    queries_with_blocks: int | None = None
    # Mobile: the route also answers the app's own token (GET /client).
    accepts_app_token: bool = False
    # A successful reply's top-level keys beyond the flavour's envelope, by method; a list's meta beyond it.
    reply_keys: dict[str, frozenset] = {}
    meta_keys: frozenset = frozenset()
    # The media type of a GET reply that is not JSON (a picture), and reply headers beyond the flavour's.
    media_type: str = JSON
    headers: dict[str, str | None] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.path:
            return  # a shared part of several routes' classes, not a route
        CONTRACTS.append(cls)
        for name, params in cls.cases().items():
            if not params:
                setattr(cls, name, None)  # pytest collects nothing for it: the check does not apply
            elif name not in cls.__dict__:
                # A parent's class may have switched the check off for its own declaration.
                setattr(cls, name, next(k.__dict__[name] for k in cls.__mro__ if k.__dict__.get(name) is not None))

    # --- what a route's class declares or overrides -------------------------------------------------------

    def make(self, organization):
        """An item of the organization at this address (None where the address has no items). On the Mobile
        API `self.member` is the calling member (of the test's organization) by then."""
        return None if self.factory is None else self.factory(organization=organization)

    def make_list(self, organization, count: int) -> list:
        """`count` items of the organization at one list address (the first one's, where it has an id)."""
        return [self.make(organization) for _ in range(count)]

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
    def shaped_methods(cls) -> list[str]:
        if cls.shaped is True:
            return [m for m in cls.methods if m != "DELETE"]
        return [m for m in cls.methods if m in (cls.shaped or ())]

    @classmethod
    def shape_method(cls) -> str | None:
        """The method whose reply the include and exclude checks read."""
        shaped = cls.shaped_methods()
        return next((m for m in ("GET", "PUT", "POST", "PATCH") if m in shaped), None)

    @classmethod
    def route_pattern(cls) -> str:
        """The address pattern of the route in the URL configuration, e.g. `mobile/v5/objects/<id:pk>`."""
        return cls.resolved().route

    @classmethod
    def resolved(cls):
        """The route the address resolves to (every placeholder given 1)."""
        return resolve(cls.flavour.base + PLACEHOLDER.sub("1", cls.path))

    @classmethod
    def view(cls):
        return cls.resolved().func.view_class

    @classmethod
    def presenter(cls):
        return cls.view().presenter_class

    @classmethod
    def parameters(cls, method: str) -> list[str]:
        """The names of the query parameters the route takes with `method`."""
        return list(cls.view().parameters_for(method.lower()))

    @classmethod
    def query_cases(cls) -> list[str]:
        """The calls whose queries are counted: each method once, a list's GET at limit=1 and at the largest
        page, and the GET with every block included."""
        limits = (1, cls.flavour.max_limit)
        cases = []
        for method in cls.methods:
            cases += [f"GET?limit={n}" for n in limits] if method == "GET" and cls.lists else [method]
        if cls.shape_method() == "GET" and cls.presenter().blocks:  # `include=*`: every block, named in the call
            cases += [f"GET?limit={n}&include=*" for n in limits] if cls.lists else ["GET?include=*"]
        return cases

    @classmethod
    def cases(cls) -> dict[str, list]:
        """The parameters of each check for this declaration; an empty list: the check does not apply."""
        methods = list(cls.methods)
        presenter = cls.presenter() if cls.shape_method() else None
        blocks = dict(presenter.blocks) if presenter else {}
        in_path = bool(PLACEHOLDER.search(cls.path))
        app_token = cls.flavour.app_token_refused is not None
        return {
            "test_another_organizations_item_is_404": methods if in_path else [],
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
            "test_the_apps_own_token_is_refused": methods if app_token and not cls.accepts_app_token else [],
            "test_the_apps_own_token_may_call": methods if app_token and cls.accepts_app_token else [],
            "test_an_unknown_query_parameter_is_400_10007": methods,
            "test_a_method_not_offered_is_405_with_allow": [m for m in PROBED_METHODS if m not in cls.offered()],
            "test_the_address_with_a_trailing_slash_is_404": methods,
            "test_every_block_can_be_included": list(blocks),
            "test_a_block_needing_another_modules_right_is_403_without_it": [
                name for name, block in blocks.items() if block.extra_modules
            ],
            "test_a_block_not_offered_is_400_10005": cls.shaped_methods() if presenter else [],
            "test_every_field_can_be_excluded": list(presenter.fields) if presenter else [],
            "test_include_and_exclude_are_unknown_parameters": [
                f"{method}?{name}"
                for method in methods
                if method not in cls.shaped_methods()
                for name in ("include", "exclude")
            ],
            "test_a_success_has_the_envelope": methods,
            "test_a_hostile_query_value_is_refused_never_500": [
                f"{method}:{kind}" for method in methods for kind in HOSTILE_VALUES
            ],
            "test_a_hostile_id_is_404": list(HOSTILE_IDS) if in_path else [],
            "test_the_queries_of_a_call": cls.query_cases(),
        }

    def pytest_generate_tests(self, metafunc):
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", self.cases()[metafunc.function.__name__])

    # --- calls --------------------------------------------------------------------------------------------

    def caller(self, organization, /, **rights):
        """A caller of the organization with every right but the given ones for the modules named (None: no
        right there); the calling member (Mobile) becomes `self.member`, for `make`."""
        given = self.flavour.all_rights() | rights
        api = self.flavour.caller(organization, {module: right for module, right in given.items() if right})
        self.member = api.member
        return api

    def only_rights(self, organization, rights: dict):
        """A caller of the organization with exactly these rights."""
        api = self.flavour.caller(organization, rights)
        self.member = api.member
        return api

    def address(self, item, **placeholders) -> str:
        if not PLACEHOLDER.search(self.path):
            return self.path
        return self.path.format(**(self.placeholders(item) | placeholders))

    def send(self, api, method: str, item, *, params: dict | None = None, query: str = "", suffix: str = ""):
        """`method` on `item`'s address with a valid body; `params` (or the raw `query`) as the query string."""
        query = urlencode(params) if params else query
        path = self.address(item) + suffix + (f"?{query}" if query else "")
        return api.call(method, path, json=self.body(method, item))

    def success_status(self, method: str) -> int:
        return self.success.get(method, SUCCESS[method])

    def error(self, response, status: int, code: int) -> dict:
        return self.flavour.assert_error(response, status, code)

    def rows(self, item) -> list[dict]:
        """Every row of the item's table, to show that a refused call changed nothing."""
        return [] if item is None else list(type(item).objects.order_by("pk").values())

    def assert_refused(self, api, method: str, item, status: int, code: int, **send) -> dict:
        """The call is refused with this status and code, and nothing of the item's table changed."""
        before = self.rows(item)
        body = self.error(self.send(api, method, item, **send), status, code)
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

    # --- tenancy ------------------------------------------------------------------------------------------

    def test_another_organizations_item_is_404(self, case, org, other_org):
        api = self.caller(org)
        foreign, own = self.make(other_org), self.make(org)

        self.assert_refused(api, case, foreign, *self.not_found)

        assert self.send(api, case, own).status_code == self.success_status(case)

    @property
    def not_found(self) -> tuple[int, int]:
        return 404, self.flavour.not_found

    def test_another_organizations_item_is_not_listed(self, case, org, other_org):
        api = self.caller(org)
        foreign, own = self.make(other_org), self.make(org)

        response = self.send(api, case, own, params={"limit": self.flavour.max_limit})

        assert response.status_code == 200
        listed = [self.reply_key(entry) for entry in response.json()["data"]]
        assert self.key(own) in listed
        assert self.key(foreign) not in listed

    # --- rights -------------------------------------------------------------------------------------------

    def test_a_token_without_the_modules_right_is_403(self, case, org):
        api = self.caller(org, **{self.module: None})
        self.assert_refused(api, case, self.make(org), 403, self.flavour.no_right)

    def test_a_write_only_token_cannot_read(self, case, org):
        api = self.caller(org, **{self.module: "w"})
        self.assert_refused(api, case, self.make(org), 403, self.flavour.no_right)

    def test_a_read_only_token_cannot_write(self, case, org):
        api = self.caller(org, **{self.module: "r"})
        self.assert_refused(api, case, self.make(org), 403, self.flavour.no_right)

    def test_the_needed_right_alone_is_enough(self, case, org):
        api = self.only_rights(org, {self.module: self.needed_right(case)})
        assert self.send(api, case, self.make(org)).status_code == self.success_status(case)

    def test_any_valid_token_may_call(self, case, org):
        api = self.only_rights(org, {})
        assert self.send(api, case, self.make(org)).status_code == self.success_status(case)

    def test_the_apps_own_token_is_refused(self, case, org):
        member_caller = self.caller(org)
        item = self.make(org)
        api = self.flavour.app_caller(member_caller.app_client)
        self.assert_refused(api, case, item, *self.flavour.app_token_refused)

    def test_the_apps_own_token_may_call(self, case, org):
        member_caller = self.caller(org)
        item = self.make(org)
        api = self.flavour.app_caller(member_caller.app_client)
        assert self.send(api, case, item).status_code == self.success_status(case)

    # --- the conventions of every address -----------------------------------------------------------------

    def test_an_unknown_query_parameter_is_400_10007(self, case, org):
        api = self.caller(org)
        unknown = self.flavour.unknown_name
        body = self.assert_refused(api, case, self.make(org), 400, unknown, params={"colour": "red"})
        assert problem_fields(body) == {"colour": unknown}

    def test_a_method_not_offered_is_405_with_allow(self, case, org):
        api = self.caller(org)
        item = self.make(org)
        before = self.rows(item)

        response = api.call(case, self.address(item), json=None if case in ("GET", "HEAD") else STRAY_BODY)

        assert response.status_code == 405, response.content
        assert self.rows(item) == before
        allowed = [method.strip() for method in response["Allow"].split(",")]
        assert sorted(allowed) == sorted(self.offered())
        if case != "HEAD":  # a reply to HEAD has no body to read
            self.error(response, 405, self.flavour.method_not_allowed)

    def test_the_address_with_a_trailing_slash_is_404(self, case, org):
        api = self.caller(org)
        self.assert_refused(api, case, self.make(org), *self.flavour.trailing_slash, suffix="/")

    def test_a_success_has_the_envelope(self, case, org):
        api = self.caller(org)
        response = self.send(api, case, self.make(org))

        assert response.status_code == self.success_status(case), response.content
        for name, value in (self.flavour.reply_headers | self.headers).items():
            assert name in response, name
            assert value is None or response[name] == value, (name, response[name])
        if case == "DELETE":
            assert response.content == b""
            return
        media_type = self.media_type if case == "GET" else JSON
        assert response["Content-Type"] == media_type
        if media_type != JSON:
            return
        body = response.json()
        extra = self.reply_keys.get(case, frozenset())
        if self.lists and case == "GET":
            assert set(body) == self.flavour.list_keys | extra
            assert isinstance(body["data"], list)
            assert set(body["meta"]) == self.flavour.meta_keys | self.meta_keys
            assert set(body["links"]) == self.flavour.link_keys
        else:
            assert set(body) == self.flavour.item_keys | extra
            assert isinstance(body["data"], dict)

    # --- include and exclude ------------------------------------------------------------------------------

    def test_every_block_can_be_included(self, case, org):
        # The caller has every right (Main: users_sensitive too, which some blocks need).
        api = self.caller(org)
        items = self.shaped_items(api, self.make(org), {"include": case})
        assert [set(item) for item in items] == [set(self.presenter().fields) | {case}] * len(items)

    def test_a_block_needing_another_modules_right_is_403_without_it(self, case, org):
        api = self.caller(org, **{module: None for module in self.presenter().blocks[case].extra_modules})
        self.assert_refused(
            api, self.shape_method(), self.make(org), 403, self.flavour.no_right, params={"include": case}
        )

    def test_a_block_not_offered_is_400_10005(self, case, org):
        api = self.caller(org)
        invalid = self.flavour.invalid_parameter
        body = self.assert_refused(api, case, self.make(org), 400, invalid, params={"include": "no_such_block"})
        assert problem_fields(body) == {"include": invalid}

    def test_every_field_can_be_excluded(self, case, org):
        api = self.caller(org)
        items = self.shaped_items(api, self.make(org), {"exclude": case})
        assert [set(item) for item in items] == [set(self.presenter().fields) - {case}] * len(items)

    def test_include_and_exclude_are_unknown_parameters(self, case, org):
        method, name = case.split("?")
        api = self.caller(org)
        unknown = self.flavour.unknown_name
        body = self.assert_refused(api, method, self.make(org), 400, unknown, params={name: "id"})
        assert problem_fields(body) == {name: unknown}

    # --- hostile input ------------------------------------------------------------------------------------

    def test_a_hostile_query_value_is_refused_never_500(self, case, org):
        """The value as a parameter's name: 400 (10007) in the error form. The value in each parameter of the
        method in turn (an unknown name where it takes none): 400 in the error form naming that parameter
        alone, or (a value that is harmless once decoded) a success."""
        method, kind = case.split(":")
        api = self.caller(org)
        item = self.make(org)
        unknown = self.flavour.unknown_name
        self.error(self.send(api, method, item, query=f"{HOSTILE_VALUES[kind]}=1"), 400, unknown)
        names = self.parameters(method) or ["q"]
        allowed = {self.flavour.invalid_parameter, self.flavour.invalid_date} if names != ["q"] else set()
        for name in names:
            response = self.send(api, method, item, query=f"{name}={HOSTILE_VALUES[kind]}")
            if kind in MAY_SUCCEED and response.status_code == self.success_status(method):
                continue
            assert response.status_code == 400, (name, response.status_code, response.content)
            code = response.json().get("code")
            body = self.error(response, 400, code)
            assert problem_fields(body) == {name: code}
            assert code in (allowed or {unknown}), (name, code)

    def test_a_hostile_id_is_404(self, case, org):
        """The id in each placeholder of the address in turn, with every method: 404 in the error form."""
        api = self.caller(org)
        item = self.make(org)
        for method in self.methods:
            for name in PLACEHOLDER.findall(self.path):
                path = self.address(item, **{name: HOSTILE_IDS[case]})
                before = self.rows(item)
                response = api.call(method, path, json=self.body(method, item))
                assert response.status_code == 404, (method, path, response.status_code, response.content)
                self.error(response, *self.not_found)
                assert self.rows(item) == before

    # --- queries ------------------------------------------------------------------------------------------

    def test_the_queries_of_a_call(self, case, org, other_org, django_assert_num_queries):
        """One call costs exactly the declared queries (a list: the same at limit=1 and the largest page,
        with COUNTED_ITEMS items), after two warm-up calls of the same caller to another address; none of
        them reads the tables of the authentication."""
        method, _, query = case.partition("?")
        if "include=*" in query:
            query = query.replace("include=*", "include=" + ",".join(self.presenter().blocks))
        api = self.caller(org)
        items = self.make_list(org, COUNTED_ITEMS) if self.lists else [self.make(org)]
        self.make(other_org)
        path = self.address(items[0]) + (f"?{query}" if query else "")
        body = self.body(method, items[0])  # made before counting: a body may make rows
        for _ in range(2):
            assert api.call("GET", self.flavour.warm_up).status_code == 200
        expected = self.queries_with_blocks if "include=" in query else self.queries.get(method)
        if expected is None:
            with CaptureQueriesContext(connection) as counted:
                api.call(method, path, json=body)
            pytest.fail(f"{type(self).__name__}: declare the queries of {case}: {len(counted)} today")

        with django_assert_num_queries(expected) as counted:
            response = api.call(method, path, json=body)
        # None of them is the authentication's: a repeated call costs it no query. (A DELETE may remove what
        # the tables hold: a deleted user's tokens go with the user.)
        authentication = (
            []
            if method == "DELETE"
            else [
                query["sql"]
                for query in counted.captured_queries
                if any(f'"{table}"' in query["sql"] for table in self.flavour.authentication_tables)
            ]
        )
        assert not authentication, authentication

        assert response.status_code == self.success_status(method), response.content
        if self.lists and method == "GET":
            meta = response.json()["meta"]
            if "limit=1&" in f"{query}&":
                assert (meta["count"], meta["has_more"]) == (1, True)
            else:
                assert meta["count"] >= COUNTED_ITEMS
