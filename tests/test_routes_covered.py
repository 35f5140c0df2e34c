"""Every (route, method) of the Main API v5 and the Mobile API v5 has a contract test class (tests/contract/),
or its address is in EXCLUDED with the reason (tests/contract/routes.py).

The routes come from the URL configuration itself, so a route or a method added without a class fails here
by name.
"""

import importlib
import pkgutil
from types import ModuleType

from django.http import HttpResponse
from django.urls import include, path
from django.views import View

import tests
from tests.contract import CONTRACTS, FLAVOURS
from tests.contract.routes import EXCLUDED, api_routes, covered_pairs, uncovered


def load_contract_classes() -> None:
    """Import every tests/test_contract_*.py, so that this test sees all classes when run on its own."""
    for module in pkgutil.iter_modules(tests.__path__):
        if module.name.startswith("test_contract"):
            importlib.import_module(f"tests.{module.name}")


def test_every_route_and_method_has_a_contract_class_or_a_reason():
    load_contract_classes()
    assert uncovered() == [], "API routes without a contract test class (see tests/contract/)"


class Boats(View):
    def get(self, request):
        return HttpResponse()

    def post(self, request):
        return HttpResponse()


class Token(View):
    def get(self, request):
        return HttpResponse()


def test_a_route_or_a_method_added_without_a_class_is_named():
    # The check itself: a URL configuration with a covered route, a covered route with a new method, a new
    # route, a route without a name and an excluded one, in both APIs' namespaces and below an API's address.
    load_contract_classes()
    main = [
        path("token", Token.as_view(), name="token"),
        path("memberships", Boats.as_view(), name="memberships"),  # GET is covered, POST is not
        path("boats", Boats.as_view(), name="boats"),
        path("x", HttpResponse),
        path("oauth/token", HttpResponse, name="oauth-token"),
    ]
    mobile = [path("me", Token.as_view(), name="me"), path("boats/<id:pk>", Token.as_view(), name="boat")]
    urlconf = ModuleType("urls_with_new_routes")
    urlconf.urlpatterns = [
        path("main/v5/", include((main, "main_v5"))),
        path("mobile/v5/", include((mobile, "mobile_v5"))),
        path("mobile/v5/stray", HttpResponse),
        path("elsewhere", HttpResponse),
    ]

    assert uncovered(urlconf) == [
        "POST main/v5/memberships",
        "GET main/v5/boats",
        "POST main/v5/boats",
        "* main/v5/x",
        "GET mobile/v5/boats/<id:pk>",
        "* mobile/v5/stray",
    ]


def test_the_walk_finds_every_api_route_and_only_those():
    routes = api_routes()

    assert {"main/v5/token", "main/v5/users/<id:pk>", "main/v5/login-checks"} <= set(routes)
    assert {"mobile/v5/me", "mobile/v5/bookings/<id:pk>/cancel", "mobile/v5/oauth/revoke"} <= set(routes)
    assert set(EXCLUDED) <= set(routes)
    assert routes["main/v5/users/<id:pk>"] == ["GET", "PATCH", "DELETE"]
    assert routes["mobile/v5/bookings"] == ["GET", "POST"]
    assert all(address.startswith(("main/v5/", "mobile/v5/")) for address in routes)


def test_one_class_per_route_and_method_and_no_exclusion_of_a_covered_route():
    load_contract_classes()
    claimed = covered_pairs()
    routes = api_routes()

    assert {pair: names for pair, names in claimed.items() if len(names) > 1} == {}
    assert [pair for pair in claimed if pair[0] in EXCLUDED] == []
    # A class claims only methods its route offers (the 405 checks hold it to the rest).
    assert [pair for pair in claimed if pair[1] not in routes.get(pair[0], [])] == []


def test_every_class_is_of_a_flavour_and_resolves_in_its_namespace():
    load_contract_classes()
    for contract in CONTRACTS:
        assert contract.flavour in FLAVOURS, contract.__name__
        assert contract.resolved().namespace == contract.flavour.namespace, (contract.__name__, contract.path)


def test_every_class_declares_the_queries_of_each_method_itself():
    # Declared in the class itself: a route's count is never its parent class's by inheritance.
    load_contract_classes()
    missing = [
        f"{contract.__name__} {method}"
        for contract in CONTRACTS
        for method in contract.methods
        if method not in contract.__dict__.get("queries", {})
    ]
    assert missing == []
    without_blocks = [
        contract.__name__
        for contract in CONTRACTS
        if contract.shape_method() == "GET"
        and contract.presenter().blocks
        and "queries_with_blocks" not in contract.__dict__
    ]
    assert without_blocks == []
