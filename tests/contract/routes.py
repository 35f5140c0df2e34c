"""The routes of the v5 APIs, from the URL configuration itself, and which contract class covers each
(route pattern, method). tests/test_routes_covered.py asserts that every one has exactly one.
"""

from django.urls import URLPattern, URLResolver, get_resolver

from .base import CONTRACTS
from .flavours import FLAVOURS

# Addresses of the APIs that are not held to the contract classes, each with the reason; the one place for it.
EXCLUDED = {
    "main/v5/oauth/token": "the OAuth token endpoint speaks OAuth 2.0 (form body, Basic client credentials, OAuth "
    "error form), not the API conventions; tests/test_oauth_token.py and tests/test_auth_edge_cases.py cover it",
    "mobile/v5/oauth/authorize": "OAuth 2.1 authorization in the browser (a redirect to the login page, error pages); "
    "tests/test_mobile_oauth.py covers it",
    "mobile/v5/oauth/token": "OAuth 2.1 token endpoint (form body, OAuth error form); tests/test_mobile_oauth.py "
    "and tests/test_mobile_oauth_languages.py cover it",
    "mobile/v5/oauth/revoke": "OAuth token revocation (RFC 7009, form body, OAuth error form); "
    "tests/test_mobile_oauth.py covers it",
    "main/v5/openapi.json": "the OpenAPI document of the Main API, no token; tests/test_openapi.py covers it",
    "main/v5/docs": "the documentation page of the Main API, no token; tests/test_openapi.py covers it",
    "mobile/v5/openapi.json": "the OpenAPI document of the Mobile API, no token; tests/test_openapi.py covers it",
    "mobile/v5/docs": "the documentation page of the Mobile API, no token; tests/test_openapi.py covers it",
}
# Methods a route answers besides its own, never counted as its routes' methods.
IMPLIED_METHODS = {"head", "options"}


def api_prefixes() -> dict[str, str]:
    """{URL namespace: address prefix} of each API the contract classes cover."""
    return {flavour.namespace: flavour.base.strip("/") + "/" for flavour in FLAVOURS}


def walk(urlconf=None) -> list[tuple[tuple[str, ...], str, object]]:
    """(namespaces, address pattern, view) of every route of the URL configuration, however deeply included."""
    found = []

    def visit(patterns, prefix: str, namespaces: tuple[str, ...]):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                inner = (*namespaces, pattern.namespace) if pattern.namespace else namespaces
                visit(pattern.url_patterns, prefix + str(pattern.pattern), inner)
            elif isinstance(pattern, URLPattern):
                found.append((namespaces, prefix + str(pattern.pattern), pattern.callback))

    visit(get_resolver(urlconf).url_patterns, "", ())
    return found


def view_methods(view) -> list[str]:
    """The methods a route's view offers (upper case), HEAD and OPTIONS aside; a plain function: ["*"]."""
    view_class = getattr(view, "view_class", None)
    if view_class is None:
        return ["*"]
    names = view_class.http_method_names
    return [name.upper() for name in names if name not in IMPLIED_METHODS and hasattr(view_class, name)]


def api_routes(urlconf=None) -> dict[str, list[str]]:
    """{address pattern: its methods} of every route in an API's namespace or below its address (the OpenAPI
    document and the docs page are outside the namespaces), EXCLUDED ones too. The catch-all 404 of each API
    (a regular expression over `main/` and `mobile/`) is neither."""
    prefixes = api_prefixes()
    routes = {}
    for namespaces, address, view in walk(urlconf):
        if any(namespace in prefixes for namespace in namespaces) or address.startswith(tuple(prefixes.values())):
            routes[address] = view_methods(view)
    return routes


def covered_pairs() -> dict[tuple[str, str], list[str]]:
    """{(address pattern, method): the contract classes that claim it} over every class defined so far."""
    claimed: dict[tuple[str, str], list[str]] = {}
    for contract in CONTRACTS:
        for method in contract.methods:
            claimed.setdefault((contract.route_pattern(), method), []).append(contract.__name__)
    return claimed


def uncovered(urlconf=None) -> list[str]:
    """`METHOD address` of each route method of the APIs that no contract class claims and EXCLUDED does not
    name."""
    claimed = covered_pairs()
    return [
        f"{method} {address}"
        for address, methods in api_routes(urlconf).items()
        if address not in EXCLUDED
        for method in methods
        if (address, method) not in claimed
    ]
