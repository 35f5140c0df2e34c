"""A flavour's part of its API's OpenAPI document: what apicore.openapi's generic generator reads from the
flavour (`Flavour.document`, an instance of the flavour's `document_class`).

A flavour decides the runtime's envelopes, error bodies and callers (apicore.flavours); its `FlavourDocument`
states the same things as JSON Schema and OpenAPI objects:
- `item_envelope` and `list_envelope`: the replies around the items (pairs of Flavour.item_body and list_body);
- `error_schema` and `error_body_schema`: the error body (Flavour.error_body), in the flavour's media type;
- `headers`, `success_headers`, `status_headers`: the headers of the replies, as components;
- `security` and `security_schemes`: what each declared operation requires, and the schemes themselves;
- `other_views`: the views of the API's routes that do not describe themselves (django-oauth-toolkit's), each
  with the AutoSchema that documents it (an extra operation, e.g. POST /oauth/token), or None for a page
  outside the document that a scheme may name (the authorize page). `security_schemes` gets their addresses.

The defaults are the conventions of the v5 APIs, as Flavour's are: `{data}`, `{data, meta, links}`, Problem
Details with the API's error code, `Request-Id` and the `RateLimit-*` headers; no security. An API's document
subclasses it next to its flavour (main_api.openapi_v5, mobile_api.openapi_v5) and names it in the flavour's
`document_class`; no generator subclass is needed.
"""

from collections.abc import Callable
from typing import Any

from drf_spectacular.plumbing import ResolvedComponent

from apicore.errors import KIND_DESCRIPTIONS, ErrorCode, Kind

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
SCHEMAS = ResolvedComponent.SCHEMA
HEADERS = ResolvedComponent.HEADER

PROBLEM = {
    "type": "object",
    "description": "Problem Details (RFC 9457) with the API's error code.",
    "properties": {
        "type": {"type": "string", "format": "uri", "description": "https://<host>/errors/<kind>"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "code": {"type": "integer", "description": "The API's error code (see each operation's replies)."},
        "request_id": {"type": "string", "description": "The Request-Id of the call."},
        "detail": {"type": "string"},
        "errors": {
            "type": "array",
            "description": "Each wrong parameter or field, all at once.",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string", "description": "Its name or path (`address.city`, `email[1]`)."},
                    "code": {"type": "integer"},
                    "message": {"type": "string"},
                },
                "required": ["field", "code", "message"],
                "additionalProperties": False,
            },
        },
        "dependents": {
            "type": "array",
            "description": "What depends on the item, with a count of each (10106).",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "count": {"type": "integer", "minimum": 1}},
                "required": ["name", "count"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["type", "title", "status", "code", "request_id"],
    "additionalProperties": False,
}
# The headers of apicore (middleware, rate limits, the endpoint classes): name -> (description, schema).
HEADER_SCHEMAS = {
    "Request-Id": ("The caller's Request-Id (at most 64 characters), else a generated one.", {"type": "string"}),
    "RateLimit-Limit": ("Calls allowed a minute with the token.", {"type": "integer", "minimum": 0}),
    "RateLimit-Remaining": ("Calls left in the current minute.", {"type": "integer", "minimum": 0}),
    "RateLimit-Reset": ("Seconds until the count restarts.", {"type": "integer", "minimum": 0}),
    "Retry-After": ("Seconds to wait before calling again.", {"type": "integer", "minimum": 0}),
    "WWW-Authenticate": ("The Bearer challenge.", {"type": "string"}),
    "Location": ("The address of the created item.", {"type": "string", "format": "uri"}),
    "Allow": ("The methods the address offers.", {"type": "string"}),
    "Cache-Control": ("no-store", {"type": "string"}),
}
RATE_LIMIT_HEADERS = ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
STATUS_HEADERS = {401: ("WWW-Authenticate",), 405: ("Allow",), 429: ("Retry-After",)}
# A view's `openapi_schema` not set (None is set: the route is on no path of the document).
NOT_SET = object()
# `security_schemes`' argument: the address of the API's route whose view is a given class (or a subclass), "".
Address = Callable[[type], str]


def component(registry, name: str, schema: dict, kind: str = SCHEMAS) -> dict:
    """A named component and its `$ref`; one name never stands for two different schemas."""
    resolved = ResolvedComponent(name=name, type=kind, schema=schema, object=name)
    if taken(registry, name, schema, kind):
        raise ValueError(f"two different {kind} named {name}")
    registry.register_on_missing(resolved)
    return resolved.ref


def taken(registry, name: str, schema: dict, kind: str = SCHEMAS) -> bool:
    """Whether the name already stands for another schema."""
    probe = ResolvedComponent(name=name, type=kind, object=name)
    return probe in registry and registry[probe].schema != schema


class FlavourDocument:
    """The v5 conventions; a subclass states another flavour's. `flavour` is the Flavour it documents."""

    def __init__(self, flavour):
        self.flavour = flavour

    # --- security -------------------------------------------------------------------------------------

    def security(self, operation) -> list[dict]:
        """The security requirement of a declared operation (apicore.declarations.Operation); [] adds none."""
        return []

    def security_schemes(self, address: Address) -> dict:
        """`components.securitySchemes`; `address(SomeView)` is the path of the route of that view (its token or
        authorize endpoint)."""
        return {}

    # --- views that do not describe themselves --------------------------------------------------------

    # Base class of a view -> the AutoSchema subclass that documents it, or None: on no path of the document.
    other_views: dict[type, Any] = {}

    def other_view_schema(self, path: str, view_class: type):
        """The AutoSchema class of a route whose view does not describe itself, None to leave it out: the view's
        own `openapi_schema` first, then `other_views`. Any other view stops the generation, so that no route
        is left out of the document unnoticed."""
        found = getattr(view_class, "openapi_schema", NOT_SET)
        if found is not NOT_SET:
            return found
        for base, schema in self.other_views.items():
            if issubclass(view_class, base):
                return schema
        raise TypeError(f"{path}: {view_class.__name__} does not describe its operations")

    # --- headers --------------------------------------------------------------------------------------

    headers: dict[str, tuple[str, dict]] = HEADER_SCHEMAS
    # On every success (a 201 adds Location), and on every error with those of its status.
    success_headers: tuple[str, ...] = ("Request-Id", *RATE_LIMIT_HEADERS)
    error_headers: tuple[str, ...] = ("Request-Id",)
    status_headers: dict[int, tuple[str, ...]] = STATUS_HEADERS

    def header_refs(self, registry, names) -> dict:
        """Headers the reply always carries, as components."""
        refs = {}
        for name in names:
            description, schema = self.headers[name]
            refs[name] = component(
                registry, name, {"description": description, "required": True, "schema": schema}, HEADERS
            )
        return refs

    # --- envelopes (Flavour.item_body, Flavour.list_body) ---------------------------------------------

    def item_envelope(self, item: dict, operation) -> dict:
        return {"type": "object", "properties": {"data": item}, "required": ["data"], "additionalProperties": False}

    def list_envelope(self, item: dict, operation) -> dict:
        meta = {
            "count": {"type": "integer", "minimum": 0, "description": "Items in this page."},
            "limit": {"type": "integer", "minimum": 1},
            "offset": {"type": "integer", "minimum": 0},
            "has_more": {"type": "boolean", "description": "Whether a next page exists."},
            "total": {
                "type": "integer",
                "minimum": 0,
                "description": "Every matching item; only with include_total=true.",
            },
            **operation.list_meta,
        }
        return {
            "type": "object",
            "properties": {
                "data": {"type": "array", "items": item},
                "meta": {
                    "type": "object",
                    "properties": meta,
                    "required": ["count", "limit", "offset", "has_more", *operation.list_meta],
                    "additionalProperties": False,
                },
                "links": {
                    "type": "object",
                    "properties": {"next": {"type": ["string", "null"], "format": "uri"}},
                    "required": ["next"],
                    "additionalProperties": False,
                },
            },
            "required": ["data", "meta", "links"],
            "additionalProperties": False,
        }

    # --- errors (Flavour.error_body, error_content_type, error_status) --------------------------------

    error_schema_name = "Problem"
    error_schema: dict = PROBLEM

    def error_body_schema(self, registry, status: int, errors: list[ErrorCode]) -> dict:
        """The body of an error reply of `status` that carries one of `errors`."""
        return {
            "allOf": [component(registry, self.error_schema_name, self.error_schema)],
            "properties": {
                "status": {"const": status},
                "code": {"enum": sorted({error.code for error in errors})},
            },
        }

    def error_content(self, registry, status: int, errors: list[ErrorCode]) -> dict:
        return {self.flavour.error_content_type: {"schema": self.error_body_schema(registry, status, errors)}}

    def error_responses(self, registry, errors_by_status: dict[int, list[ErrorCode]]) -> dict:
        """One reply per status, naming every code it can carry."""
        responses = {}
        for status, errors in sorted(errors_by_status.items()):
            kinds = dict.fromkeys(error.kind for error in errors)
            lines = [KIND_DESCRIPTIONS[kind] for kind in kinds]
            lines += [f"- {error.code}: {error.title}" for error in sorted(set(errors), key=lambda e: e.code)]
            responses[str(status)] = {
                "description": "\n".join(lines),
                "headers": self.header_refs(registry, (*self.error_headers, *self.status_headers.get(status, ()))),
                "content": self.error_content(registry, status, errors),
            }
        return responses

    # --- the document's own components ----------------------------------------------------------------

    def components(self, address: Address) -> dict[str, dict]:
        """Components beyond those the operations name: the security schemes, the error body, and the reply to
        a method an address does not offer."""
        not_allowed = ErrorCode.METHOD_NOT_ALLOWED
        return {
            "securitySchemes": self.security_schemes(address),
            "responses": {
                "MethodNotAllowed": {
                    "description": f"{KIND_DESCRIPTIONS[Kind.METHOD_NOT_ALLOWED]} ({not_allowed.code})",
                    "content": {
                        self.flavour.error_content_type: {
                            "schema": {"$ref": f"#/components/schemas/{self.error_schema_name}"}
                        }
                    },
                }
            },
            "schemas": {self.error_schema_name: self.error_schema},
        }
