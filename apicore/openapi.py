"""The OpenAPI 3.1 document of an API and its browsable page, generated from the endpoints' declarations.

drf-spectacular does the walking and the plumbing: it enumerates the routes of the URL configuration, builds
the root object, collects components and serves the document and Swagger UI (from drf-spectacular-sidecar's
static files, so the page loads nothing from another host). Our views have no serializers, so the part that
reads a view is ours: `DeclaredAutoSchema` turns each `Operation` of `View.describe()`
(apicore.declarations) into an OpenAPI operation. Query parameters, bodies (apicore.schema), items
(Presenter.json_schema) and error statuses (the view's flavour) state their own JSON Schema, so the document
and the behaviour come from the same declarations.

The OAuth token endpoint is django-oauth-toolkit's view, not a DRF one: `OAuthTokenSchema` documents it in
OAuth's own form (a form-encoded request, `{error, error_description}` errors). Another API's OAuth views are
documented by the schemas its generator names (`DeclaredSchemaGenerator.other_view_schema`, e.g. the Mobile
API's in mobile_api.openapi_v5), or by a view's own `openapi_schema`.
"""

import re
from collections import defaultdict
from typing import Any

from django.urls import URLResolver, get_resolver, path
from django.urls.converters import IntConverter, get_converters
from django.utils.module_loading import import_string
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView
from oauth2_provider.views import TokenView as OAuthTokenView
from rest_framework.exceptions import MethodNotAllowed

from apicore.converters import IdConverter
from apicore.errors import KIND_DESCRIPTIONS, ErrorCode, Kind
from apicore.exceptions import PROBLEM_CONTENT_TYPE, as_api_error, problem_response

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
SCHEMAS = ResolvedComponent.SCHEMA
HEADERS = ResolvedComponent.HEADER
OAUTH_SCHEME = "oauth2"
OAUTH_CLIENT_SCHEME = "clientSecretBasic"

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
OAUTH_ERROR = {
    "type": "object",
    "description": "An OAuth 2.0 error (RFC 6749 5.2), described in the caller's language.",
    "properties": {
        "error": {
            "type": "string",
            "enum": [
                "invalid_request",
                "invalid_client",
                "invalid_grant",
                "unauthorized_client",
                "unsupported_grant_type",
                "invalid_scope",
            ],
        },
        "error_description": {"type": "string"},
    },
    "required": ["error", "error_description"],
}
ACCESS_TOKEN = {
    "type": "object",
    "properties": {
        "access_token": {"type": "string"},
        "token_type": {"type": "string", "const": "Bearer"},
        "expires_in": {"type": "integer", "description": "Seconds the access token stays valid."},
        "scope": {"type": "string", "description": "The token's rights, `module:rights` separated by spaces."},
    },
    "required": ["access_token", "token_type", "expires_in", "scope"],
}
TOKEN_REQUEST = {
    "type": "object",
    "properties": {
        "grant_type": {"type": "string", "enum": ["client_credentials"]},
        "client_id": {"type": "string", "description": "The token's Client ID (or give it in a Basic header)."},
        "client_secret": {"type": "string", "description": "The token itself (or give it in a Basic header)."},
        "scope": {"type": "string", "description": "Ignored: the token's own rights apply."},
    },
    "required": ["grant_type"],
}
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
# What any request may get before its view runs (apicore.middleware, config/gunicorn.conf.py): a `Host` that is
# not ours (400 10005 naming `Host`), a request line over gunicorn's limit (414 10005); with a body, a body
# over the limit (413 10004).
REQUEST_ERRORS = (ErrorCode.INVALID_PARAMETER, ErrorCode.ADDRESS_TOO_LONG)
BODY_ERRORS = (ErrorCode.BODY_TOO_LARGE,)
# Path parameters by converter; another converter is documented by its regular expression.
CONVERTER_SCHEMAS = {
    IdConverter: {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    IntConverter: {"type": "integer", "minimum": 0},
}
PATH_PARAMETER_NAMES = re.compile(r"\{(\w+)\}")
# The schema of a declared parameter that accepts no value (apicore.params.NamesParameter without choices).
NEVER_VALID = {"not": {}}
PATH_PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>\w+)>")


# --- components -----------------------------------------------------------------------------------------


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


def header_refs(registry, names) -> dict:
    """Headers the reply always carries."""
    headers = {}
    for name in names:
        description, schema = HEADER_SCHEMAS[name]
        headers[name] = component(
            registry, name, {"description": description, "required": True, "schema": schema}, HEADERS
        )
    return headers


def problem_content(registry, status: int, errors: list[ErrorCode]) -> dict:
    schema = {
        "allOf": [component(registry, "Problem", PROBLEM)],
        "properties": {
            "status": {"const": status},
            "code": {"enum": sorted({error.code for error in errors})},
        },
    }
    return {PROBLEM_CONTENT_TYPE: {"schema": schema}}


def error_responses(registry, errors_by_status: dict[int, list[ErrorCode]]) -> dict:
    """One reply per status, naming every code it can carry."""
    responses = {}
    for status, errors in sorted(errors_by_status.items()):
        kinds = dict.fromkeys(error.kind for error in errors)
        lines = [KIND_DESCRIPTIONS[kind] for kind in kinds]
        lines += [f"- {error.code}: {error.title}" for error in sorted(set(errors), key=lambda e: e.code)]
        responses[str(status)] = {
            "description": "\n".join(lines),
            "headers": header_refs(registry, ("Request-Id", *STATUS_HEADERS.get(status, ()))),
            "content": problem_content(registry, status, errors),
        }
    return responses


# --- items and envelopes -----------------------------------------------------------------------------------


def item_ref(registry, operation, *, excludable: bool) -> dict:
    """The item of the operation's presenter (a component named after it), or the item schema it declares.
    Where `exclude` may drop any field, no field is required; the same presenter without `exclude` (a reply
    that takes no parameters) is the component `<Name>Whole`."""
    presenter = operation.presenter
    if presenter is None:
        if operation.item_schema is None:
            raise ValueError(f"a {operation.method} reply with an item but neither presenter nor item_schema")
        return operation.item_schema
    schema = presenter.json_schema()
    name = presenter.__name__.removesuffix("Presenter") or presenter.__name__
    if excludable:
        schema = {key: value for key, value in schema.items() if key != "required"}
        schema["description"] = "Every field unless named in `exclude`; each block named in `include`."
    elif taken(registry, name, schema):
        name += "Whole"
    return component(registry, name, schema)


def list_envelope(item: dict, operation) -> dict:
    meta = {
        "count": {"type": "integer", "minimum": 0, "description": "Items in this page."},
        "limit": {"type": "integer", "minimum": 1},
        "offset": {"type": "integer", "minimum": 0},
        "has_more": {"type": "boolean", "description": "Whether a next page exists."},
        "total": {"type": "integer", "minimum": 0, "description": "Every matching item; only with include_total=true."},
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


def item_envelope(item: dict) -> dict:
    return {"type": "object", "properties": {"data": item}, "required": ["data"], "additionalProperties": False}


# --- operations ------------------------------------------------------------------------------------------


def operation_id(method: str, path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", f"{method} {path}".lower()).strip("_")


def path_parameters(path_regex: str) -> list[dict]:
    converters = get_converters()
    parameters = []
    for match in PATH_PARAMETER.finditer(path_regex):
        converter = converters[match["converter"] or "str"]
        schema = CONVERTER_SCHEMAS.get(type(converter), {"type": "string", "pattern": f"^{converter.regex}$"})
        # `pk` is shown as `id`, as drf-spectacular writes the path (SCHEMA_COERCE_PATH_PK).
        name = "id" if match["name"] == "pk" else match["name"]
        parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
    return parameters


def right_text(operation) -> str:
    if operation.module is None:
        return "Right: any accepted token."
    right = {"r": "read", "w": "write"}.get(operation.right, operation.right)
    return f"Right: `{operation.module}` {right} (`{operation.right}`)."


def takes_a_value(parameter) -> bool:
    """Whether any value of the parameter is accepted. `include` on an operation without blocks is declared
    (it answers 400 10005, not 10007 as an unknown name does) but takes no value: listed as a parameter with a
    schema that nothing matches, a client or a tester that fills in optional parameters would build requests
    the document calls valid and the API refuses. It is said in the description instead."""
    return parameter.schema != NEVER_VALID


def refused_text(name: str) -> str:
    return f"`{name}`: this operation offers none; any value answers 400 ({ErrorCode.INVALID_PARAMETER.code})."


def error_status(view_class, error: ErrorCode) -> int:
    return view_class.flavour.error_status(error)


class DeclaredAutoSchema(AutoSchema):
    """An operation of a view that declares itself through `describe()`."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        self.registry = registry
        view_class = type(self.view)
        operation = view_class.describe()[method.lower()]
        excludable = "exclude" in operation.parameters
        offered = {name: parameter for name, parameter in operation.parameters.items() if takes_a_value(parameter)}
        parameters = path_parameters(path_regex) + [
            {"name": name, "in": "query", "required": False, "schema": parameter.schema}
            | ({"description": parameter.description} if parameter.description else {})
            for name, parameter in offered.items()
        ]
        refused = [name for name in operation.parameters if name not in offered]
        result = {
            "operationId": operation_id(method, path.removeprefix(path_prefix.lstrip("^"))),
            "summary": operation.summary,
            "description": "\n\n".join([right_text(operation), *(refused_text(name) for name in refused)]),
            "tags": [path.removeprefix(path_prefix.lstrip("^")).strip("/").split("/")[0]],
            "x-right": {"module": operation.module, "right": operation.right},
            "security": [{OAUTH_SCHEME: []}],
        }
        if parameters:
            result["parameters"] = parameters
        if operation.body is not None:
            result["requestBody"] = {"required": True, "content": {JSON: {"schema": self.body_ref(operation)}}}
        errors_by_status = defaultdict(list)
        # The body schema knows the codes its fields answer (a date field: 10110) besides the declared ones.
        body_errors = (*operation.body.error_codes(), *BODY_ERRORS) if operation.body is not None else ()
        for error in dict.fromkeys((*operation.errors, *body_errors, *REQUEST_ERRORS)):
            errors_by_status[error_status(view_class, error)].append(error)
        result["responses"] = {
            str(operation.status): self.success_response(operation, excludable),
            **error_responses(registry, errors_by_status),
        }
        return result

    def body_ref(self, operation) -> dict:
        partial = operation.method == "patch"
        schema = operation.body.json_schema(partial=partial)
        name = operation.body.__name__
        if taken(self.registry, name, schema):
            name += "Partial" if partial else "Whole"
        return component(self.registry, name, schema)

    def success_response(self, operation, excludable: bool) -> dict:
        headers = ("Request-Id", *RATE_LIMIT_HEADERS, *(("Location",) if operation.status == 201 else ()))
        response: dict[str, Any] = {
            "description": {200: "OK", 201: "Created", 204: "Done; no body."}.get(operation.status, "Success"),
            "headers": header_refs(self.registry, headers),
        }
        if operation.reply == "empty":
            return response
        item = item_ref(self.registry, operation, excludable=excludable)
        envelope = list_envelope(item, operation) if operation.reply == "list" else item_envelope(item)
        response["content"] = {JSON: {"schema": envelope}}
        return response


class OAuthTokenSchema(AutoSchema):
    """POST of the OAuth 2.0 token endpoint (client credentials), in OAuth's form."""

    methods = ("POST",)
    token_endpoint = True  # its path is the security scheme's tokenUrl

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        oauth_error = component(registry, "OAuthError", OAUTH_ERROR)
        return {
            "operationId": "oauth_token",
            "summary": "An access token for a token's Client ID and secret (OAuth 2.0 client credentials).",
            "description": (
                "Send the Client ID and the token as HTTP Basic credentials, or as the form fields client_id and "
                "client_secret. Each fetch counts as one call of the token."
            ),
            "tags": ["oauth"],
            "security": [{OAUTH_CLIENT_SCHEME: []}, {}],
            "requestBody": {
                "required": True,
                "content": {FORM: {"schema": component(registry, "TokenRequest", TOKEN_REQUEST)}},
            },
            "responses": {
                "200": {
                    "description": "The access token.",
                    "headers": header_refs(registry, ("Request-Id", *RATE_LIMIT_HEADERS, "Cache-Control")),
                    "content": {JSON: {"schema": component(registry, "AccessToken", ACCESS_TOKEN)}},
                },
                "400": {
                    "description": (
                        "The request is not a valid client credentials request (OAuth's form), or the `Host` header "
                        f"names no host of this service (Problem Details, {ErrorCode.INVALID_PARAMETER.code})."
                    ),
                    "headers": header_refs(registry, ("Request-Id",)),
                    "content": {
                        JSON: {"schema": oauth_error},
                        **problem_content(registry, 400, [ErrorCode.INVALID_PARAMETER]),
                    },
                },
                "401": {
                    "description": "The Client ID or secret is not accepted (`invalid_client`).",
                    "headers": header_refs(registry, ("Request-Id", "WWW-Authenticate")),
                    "content": {JSON: {"schema": oauth_error}},
                },
                "413": {
                    "description": "The form is over the size limit (`invalid_request`).",
                    "headers": header_refs(registry, ("Request-Id",)),
                    "content": {JSON: {"schema": oauth_error}},
                },
                **error_responses(
                    registry,
                    {
                        403: [ErrorCode.HTTPS_REQUIRED],
                        414: [ErrorCode.ADDRESS_TOO_LONG],
                        429: [ErrorCode.TOO_MANY_REQUESTS, ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS],
                    },
                ),
            },
        }


# --- generation ------------------------------------------------------------------------------------------


def view_class_of(callback) -> type:
    return getattr(callback, "cls", None) or callback.view_class


def is_token_view(view_class: type) -> bool:
    return issubclass(view_class, OAuthTokenView)


class DeclaredEndpointEnumerator(EndpointEnumerator):
    """Every route of the API: a view that declares itself, or one its generator has a schema for (the OAuth
    views). Any other view on an API route is an error, so that no route is left out of the document
    unnoticed. `generator` is the DeclaredSchemaGenerator it works for."""

    generator: "DeclaredSchemaGenerator"

    def should_include_endpoint(self, path, callback):
        view_class = view_class_of(callback)
        if hasattr(view_class, "describe"):
            return True
        schema = self.generator.other_view_schema(path, view_class)
        if schema is None:
            return False  # documented elsewhere (the authorize page: the security scheme names it)
        self.generator.view_schemas[callback] = schema
        return True

    def get_allowed_methods(self, callback):
        schema = self.generator.view_schemas.get(callback)
        if schema is not None:
            return list(schema.methods)
        return [method.upper() for method in view_class_of(callback).describe()]


# A view that does not describe itself (django-oauth-toolkit's) may name the AutoSchema that documents it in
# `openapi_schema` (None: on no path of the document); see DeclaredSchemaGenerator.other_view_schema.
NOT_SET = object()


class DeclaredSchemaGenerator(SchemaGenerator):
    """The document of the routes in one URL namespace (an API), with their server prefix trimmed.

    Extension points for an API's document (document_routes' `generator`): `other_view_schema` (the views
    that do not describe themselves) and `security_schemes`."""

    endpoint_inspector_cls = DeclaredEndpointEnumerator
    namespace = ""

    def __init__(self, *args, **kwargs):
        kwargs["patterns"] = [namespace_resolver(self.namespace)]
        super().__init__(*args, **kwargs)
        self.token_url = ""
        self.view_schemas: dict = {}  # callback -> the AutoSchema class of a view that does not describe itself
        self.endpoint_inspector_cls = type("BoundEnumerator", (self.endpoint_inspector_cls,), {"generator": self})

    def other_view_schema(self, path: str, view_class: type) -> type[AutoSchema] | None:
        """The AutoSchema class of a route whose view does not describe itself; None leaves the route out of
        the document. The view's own `openapi_schema` first, then the OAuth token view's (client credentials)."""
        found = getattr(view_class, "openapi_schema", NOT_SET)
        if found is not NOT_SET:
            return found
        if is_token_view(view_class):
            return OAuthTokenSchema
        raise TypeError(f"{path}: {view_class.__name__} does not describe its operations")

    def create_view(self, callback, method, request=None):
        schema_class = self.view_schemas.get(callback)
        if schema_class is not None:
            view = view_class_of(callback)(**getattr(callback, "initkwargs", {}))
            # What drf-spectacular reads of a DRF view, for a plain Django one.
            view.versioning_class = None
            view.initialize_request = lambda request: request
            schema = schema_class()
        else:
            view = super().create_view(callback, method, request)
            schema = DeclaredAutoSchema()
        # Our schema for this view alone, whatever DRF's DEFAULT_SCHEMA_CLASS is.
        self._set_schema_to_view(view, schema)
        schema.view = view
        return view

    def _get_paths_and_endpoints(self):
        endpoints = super()._get_paths_and_endpoints()
        self.token_url = next(
            (path for path, _, _, view in endpoints if getattr(view.schema, "token_endpoint", False)), ""
        )
        return endpoints

    def get_schema(self, request=None, public=False):
        document = super().get_schema(request=request, public=public)
        components = document.setdefault("components", {})
        components["securitySchemes"] = self.security_schemes()
        components.setdefault("responses", {})["MethodNotAllowed"] = {
            "description": f"{KIND_DESCRIPTIONS[Kind.METHOD_NOT_ALLOWED]} ({ErrorCode.METHOD_NOT_ALLOWED.code})",
            "content": {PROBLEM_CONTENT_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        components.setdefault("schemas", {}).setdefault("Problem", PROBLEM)
        add_item_links(document["paths"])
        return document

    def security_schemes(self) -> dict:
        return {
            OAUTH_SCHEME: {
                "type": "oauth2",
                "description": (
                    "An access token from the token endpoint, sent as `Authorization: Bearer <access token>`. "
                    "Until the cut-over, the token itself is accepted in its place."
                ),
                "flows": {"clientCredentials": {"tokenUrl": self.token_url, "scopes": {}}},
            },
            OAUTH_CLIENT_SCHEME: {
                "type": "http",
                "scheme": "basic",
                "description": "For the token endpoint: the token's Client ID and the token as user name and password.",
            },
        }


def add_item_links(paths: dict) -> None:
    """Links that clients and stateful testers (schemathesis) can follow:
    - a 201 reply to the operations on the created item (`<path>/{id}` and the item's own lists such as
      `<path>/{id}/expiry-dates`), with its `data.id`;
    - a PUT reply to the other operations on the same address, with the same path parameters."""
    for collection, operations in paths.items():
        created = operations.get("post", {}).get("responses", {}).get("201")
        if created is not None:
            links = {
                operation["operationId"]: {
                    "operationId": operation["operationId"],
                    "parameters": {"id": "$response.body#/data/id"},
                }
                for path, item_operations in paths.items()
                if PATH_PARAMETER_NAMES.findall(path.removeprefix(collection)) == ["id"]
                and path.startswith(f"{collection}/{{id}}")
                for operation in item_operations.values()
            }
            if links:
                created["links"] = links
        put = operations.get("put", {}).get("responses", {})
        reply = put.get("200") or put.get("201")
        if reply is not None:
            names = PATH_PARAMETER_NAMES.findall(collection)
            reply["links"] = {
                operation["operationId"]: {
                    "operationId": operation["operationId"],
                    "parameters": {name: f"$request.path.{name}" for name in names},
                }
                for method, operation in operations.items()
                if method != "put"
            }


def namespace_resolver(namespace: str) -> URLResolver:
    """The root URL configuration's entry of an API's namespace (e.g. `main/v5/` as `main_v5`)."""
    for pattern in get_resolver().url_patterns:
        if isinstance(pattern, URLResolver) and pattern.namespace == namespace:
            return pattern
    raise LookupError(f"no URL namespace {namespace}")


# --- serving ---------------------------------------------------------------------------------------------


def document_exception_handler(exc, context):
    """Errors of the document's own routes (405 for a POST) in Problem Details, as elsewhere under the API."""
    error = as_api_error(exc)
    if error is None:
        return None
    response = problem_response(context.get("request"), error)
    if isinstance(exc, MethodNotAllowed):
        response["Allow"] = ", ".join(context["view"].allowed_methods)
    return response


class DocumentView(SpectacularJSONAPIView):
    """GET the OpenAPI document (JSON). Public: it shows the API's shape, no data (docs/decisions.md §8.5 "The
    document and the docs page are public")."""

    authentication_classes = []
    permission_classes = []

    def get_exception_handler(self):
        return document_exception_handler


class DocsView(SpectacularSwaggerView):
    """Swagger UI on the document, from the project's own static files (drf-spectacular-sidecar)."""

    authentication_classes = []
    permission_classes = []

    def get_exception_handler(self):
        return document_exception_handler


def document_routes(
    prefix: str,
    *,
    namespace: str,
    title: str,
    version: str,
    description: str = "",
    generator: type[DeclaredSchemaGenerator] | str = DeclaredSchemaGenerator,
) -> list:
    """`<prefix>openapi.json` and `<prefix>docs` for the API whose routes are in `namespace`; place them
    before the API's catch-all route. `generator`: a DeclaredSchemaGenerator subclass (or its dotted path)
    for an API whose security scheme or OAuth views differ from the Main API's."""
    server = "/" + prefix.strip("/")
    base = import_string(generator) if isinstance(generator, str) else generator
    generator = type(f"{namespace}_generator", (base,), {"namespace": namespace})
    settings = {
        "TITLE": title,
        "VERSION": version,
        "DESCRIPTION": description,
        "SERVERS": [{"url": server}],
        "SCHEMA_PATH_PREFIX": server,
        "SCHEMA_PATH_PREFIX_TRIM": True,
        # No post-processing: drf-spectacular's enum hook would move our enums into new components.
        "POSTPROCESSING_HOOKS": [],
    }
    document_name = f"{namespace}-openapi"
    return [
        path(
            f"{prefix}openapi.json",
            DocumentView.as_view(generator_class=generator, custom_settings=settings),
            name=document_name,
        ),
        path(f"{prefix}docs", DocsView.as_view(url_name=document_name, title=title), name=f"{namespace}-docs"),
    ]
