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


# --- the Mobile API v5 --------------------------------------------------------------------------------------
# Its routes are not held to Main's contract classes (another caller, another token): each names the test
# files that hold it to document 2, and every route must be named here, so that a new one is not left untested.

MOBILE_NAMESPACE = "mobile_v5"
MOBILE_ROUTE_TESTS = {
    "client": ("test_mobile_v5_client_me.py", "test_mobile_v5_auth.py", "test_openapi.py"),
    "me": ("test_mobile_v5_client_me.py", "test_mobile_v5_auth.py", "test_blocked_addresses.py", "test_openapi.py"),
    "oauth-authorize": ("test_openapi.py",),
    "oauth-token": ("test_openapi.py",),
    "oauth-revoke": ("test_openapi.py",),
    "organization": ("test_mobile_v5_organization.py",),
    "organization-settings": ("test_mobile_v5_organization.py",),
    "sun-times": ("test_mobile_v5_organization.py",),
    "objects": ("test_mobile_v5_objects.py",),
    "object": ("test_mobile_v5_objects.py",),
    "object-thumbnail": ("test_mobile_v5_objects.py",),
    "flightlogs": ("test_mobile_v5_flightlogs.py",),
    "flightlog": ("test_mobile_v5_flightlogs.py",),
    "transactions": ("test_mobile_v5_transactions.py",),
    "transaction": ("test_mobile_v5_transactions.py",),
    "bookings": ("test_mobile_v5_bookings.py", "test_booking_rules.py"),
    "booking": ("test_mobile_v5_bookings.py",),
    "booking-cut": ("test_mobile_v5_bookings.py",),
    "booking-cancel": ("test_mobile_v5_bookings.py",),
}


def uncovered_mobile_routes(urlconf=None) -> list[str]:
    return [
        f"{name} ({address})"
        for name, address in namespace_routes(MOBILE_NAMESPACE, urlconf)
        if name not in MOBILE_ROUTE_TESTS
    ]


def test_every_mobile_route_names_its_tests():
    assert uncovered_mobile_routes() == [], "Mobile API routes without tests named in MOBILE_ROUTE_TESTS"


def test_the_named_mobile_tests_exist_and_call_their_route():
    names = {name for name, _ in namespace_routes(MOBILE_NAMESPACE)}
    folder = tests.__path__[0]
    for name, files in MOBILE_ROUTE_TESTS.items():
        assert name in names, f"{name} is no route of {MOBILE_NAMESPACE} any more"
        address = next(address for route, address in namespace_routes(MOBILE_NAMESPACE) if route == name)
        endpoint = "/" + address.removeprefix("mobile/v5/")
        for file in files:
            with open(f"{folder}/{file}", encoding="utf-8") as source:
                assert f'"{endpoint}' in source.read(), f"{file} does not call {endpoint}"


def test_a_mobile_route_added_without_tests_is_named():
    view = HttpResponse
    routes = [path("me", view, name="me"), path("boats", view, name="boats")]
    urlconf = ModuleType("mobile_urls_with_a_new_route")
    urlconf.urlpatterns = [path("mobile/v5/", include((routes, MOBILE_NAMESPACE)))]

    assert uncovered_mobile_routes(urlconf) == ["boats (mobile/v5/boats)"]
