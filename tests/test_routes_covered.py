"""Every route of the Main API v5 has a contract test class (tests/contract.py), or a reason in EXEMPT.

The routes come from the URL configuration itself, so a route added without a class fails here by name.
"""

import importlib
import pkgutil
from types import ModuleType

from django.http import HttpResponse
from django.urls import URLPattern, URLResolver, get_resolver, include, path

import tests
from tests.contract import CONTRACTS, EXEMPT, NAMESPACE, covered_routes


def namespace_routes(namespace: str, urlconf=None) -> list[tuple[str | None, str]]:
    """(name, address pattern) of every route inside the namespace, however deeply it is included."""
    found = []

    def walk(patterns, prefix: str, namespaces: tuple[str, ...]):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = (*namespaces, pattern.namespace) if pattern.namespace else namespaces
                walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern) and namespace in namespaces:
                found.append((pattern.name, prefix + str(pattern.pattern)))

    walk(get_resolver(urlconf).url_patterns, "", ())
    return found


def load_contract_classes() -> None:
    """Import every tests/test_contract_*.py, so that this test sees all classes when run on its own."""
    for module in pkgutil.iter_modules(tests.__path__):
        if module.name.startswith("test_contract"):
            importlib.import_module(f"tests.{module.name}")


def uncovered_routes(urlconf=None) -> list[str]:
    """The API's routes that neither a contract class claims nor EXEMPT names (an unnamed one never is)."""
    load_contract_classes()
    known = set(covered_routes()) | set(EXEMPT)
    return [f"{name} ({address})" for name, address in namespace_routes(NAMESPACE, urlconf) if name not in known]


def test_every_route_has_a_contract_class_or_a_reason():
    assert uncovered_routes() == [], "API routes without a contract test class (see tests/contract.py)"


def test_a_route_added_without_a_class_is_named():
    # The check itself: a URL configuration with one covered route, one new route and one without a name.
    view = HttpResponse
    api_routes = [path("token", view, name="token"), path("boats", view, name="boats"), path("x", view)]
    urlconf = ModuleType("urls_with_a_new_route")
    urlconf.urlpatterns = [path("main/v5/", include((api_routes, NAMESPACE)))]

    assert uncovered_routes(urlconf) == ["boats (main/v5/boats)", "None (main/v5/x)"]


def test_the_walk_finds_the_api_routes():
    names = {name for name, _ in namespace_routes(NAMESPACE)}
    assert {"token", "users", "user", "login-checks", "oauth-token"} <= names


def test_one_class_per_route_and_no_exemption_for_a_covered_or_missing_route():
    load_contract_classes()
    claimed = [contract.resolved().url_name for contract in CONTRACTS]
    names = {name for name, _ in namespace_routes(NAMESPACE)}

    assert sorted(name for name in set(claimed) if claimed.count(name) > 1) == []
    assert set(EXEMPT) <= names - set(claimed)
