"""The OpenAPI 3.1 document of an API and its browsable page, generated from the endpoints' declarations.

drf-spectacular does the walking and the plumbing: it enumerates the routes of the URL configuration, builds
the root object, collects components and serves the document and Swagger UI (from drf-spectacular-sidecar's
static files, so the page loads nothing from another host). Our views have no serializers, so the part that
reads a view is ours: `DeclaredAutoSchema` turns each `Operation` of `View.describe()`
(apicore.declarations) into an OpenAPI operation. Query parameters, bodies (apicore.schema), items
(Presenter.json_schema) and error statuses (the view's flavour) state their own JSON Schema, so the document
and the behaviour come from the same declarations.

The generator is the same for every API: what differs is the flavour's (`Flavour.document`, an
apicore.openapi_document.FlavourDocument): envelopes, error bodies, headers, the security scheme and the
operations of the views that do not describe themselves (the OAuth endpoints, e.g. main_api.openapi_v5). Each
operation is written in its view's flavour, the rest of the document in the API's (document_routes' `flavour`).
"""

import re
from collections import defaultdict
from typing import Any

from django.urls import URLResolver, get_resolver, path
from django.urls.converters import IntConverter, get_converters
from drf_spectacular.generators import EndpointEnumerator, SchemaGenerator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerSplitView
from rest_framework.exceptions import MethodNotAllowed

from apicore.converters import IdConverter
from apicore.errors import ErrorCode
from apicore.exceptions import as_api_error, problem_response
from apicore.flavours import Flavour
from apicore.openapi_document import JSON, FlavourDocument, component, taken

# What any request may get before its view runs (apicore.middleware, config/gunicorn.conf.py): a `Host` that is
# not ours (400 10005 naming `Host`), a request line over gunicorn's limit (414 10005); with a body, a body
# over the limit (413 10004) or not sent as application/json (415 10004).
REQUEST_ERRORS = (ErrorCode.INVALID_PARAMETER, ErrorCode.ADDRESS_TOO_LONG)
BODY_ERRORS = (ErrorCode.BODY_TOO_LARGE, ErrorCode.UNSUPPORTED_MEDIA_TYPE)
# Path parameters by converter; another converter is documented by its regular expression.
CONVERTER_SCHEMAS = {
    IdConverter: {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    IntConverter: {"type": "integer", "minimum": 0},
}
PATH_PARAMETER_NAMES = re.compile(r"\{(\w+)\}")
# The schema of a declared parameter that accepts no value (apicore.params.NamesParameter without choices).
NEVER_VALID = {"not": {}}
PATH_PARAMETER = re.compile(r"<(?:(?P<converter>[^>:]+):)?(?P<name>\w+)>")


# --- items -------------------------------------------------------------------------------------------------


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


class FlavourSchema(AutoSchema):
    """An AutoSchema of a declared document: it writes in `flavour`'s form (its `document`), the view's own
    flavour or, for a view that has none (an OAuth endpoint), the API's. The generator sets `flavour`."""

    flavour: Flavour

    @property
    def document(self) -> FlavourDocument:
        return self.flavour.document


class DeclaredAutoSchema(FlavourSchema):
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
        }
        security = self.document.security(operation)
        if security:
            result["security"] = security
        if parameters:
            result["parameters"] = parameters
        if operation.body is not None:
            result["requestBody"] = {"required": True, "content": {JSON: {"schema": self.body_ref(operation)}}}
        errors_by_status = defaultdict(list)
        # The body schema knows the codes its fields answer (a date field: 10110) besides the declared ones.
        body_errors = (*operation.body.error_codes(), *BODY_ERRORS) if operation.body is not None else ()
        for error in dict.fromkeys((*operation.errors, *body_errors, *REQUEST_ERRORS)):
            errors_by_status[self.flavour.error_status(error)].append(error)
        result["responses"] = {
            str(operation.status): self.success_response(operation, excludable),
            **self.document.error_responses(registry, errors_by_status),
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
        headers = (*self.document.success_headers, *(("Location",) if operation.status == 201 else ()))
        response: dict[str, Any] = {
            "description": {200: "OK", 201: "Created", 204: "Done; no body."}.get(operation.status, "Success"),
            "headers": self.document.header_refs(self.registry, headers),
        }
        if operation.reply == "empty":
            return response
        item = item_ref(self.registry, operation, excludable=excludable)
        if operation.reply == "list":
            envelope = self.document.list_envelope(item, operation)
        else:
            envelope = self.document.item_envelope(item, operation)
        response["content"] = {JSON: {"schema": envelope}}
        return response


# --- generation ------------------------------------------------------------------------------------------


def view_class_of(callback) -> type:
    return getattr(callback, "cls", None) or callback.view_class


class DeclaredEndpointEnumerator(EndpointEnumerator):
    """Every route of the API: a view that declares itself, or one the flavour's document has a schema for (the
    OAuth views; FlavourDocument.other_view_schema). `generator` is the DeclaredSchemaGenerator it works for."""

    generator: "DeclaredSchemaGenerator"

    def should_include_endpoint(self, path, callback):
        view_class = view_class_of(callback)
        self.generator.routes.append((path, view_class))
        if hasattr(view_class, "describe"):
            return True
        schema = self.generator.flavour.document.other_view_schema(path, view_class)
        if schema is None:
            return False  # documented elsewhere (the authorize page: a security scheme names it)
        self.generator.view_schemas[callback] = schema
        return True

    def get_allowed_methods(self, callback):
        schema = self.generator.view_schemas.get(callback)
        if schema is not None:
            return list(schema.methods)
        return [method.upper() for method in view_class_of(callback).describe()]


class DeclaredSchemaGenerator(SchemaGenerator):
    """The document of the routes in one URL namespace (an API), with their server prefix trimmed, in the form of
    the API's `flavour` (document_routes sets both)."""

    endpoint_inspector_cls = DeclaredEndpointEnumerator
    namespace = ""
    flavour: Flavour

    def __init__(self, *args, **kwargs):
        kwargs["patterns"] = [namespace_resolver(self.namespace)]
        super().__init__(*args, **kwargs)
        self.routes: list[tuple[str, type]] = []  # (path, view class) of every route of the namespace
        self.view_schemas: dict = {}  # callback -> the AutoSchema class of a view that does not describe itself
        self.endpoint_inspector_cls = type("BoundEnumerator", (self.endpoint_inspector_cls,), {"generator": self})

    def address(self, view_base: type) -> str:
        """The path of the API's route whose view is a `view_base` (a token endpoint, the authorize page), or ""."""
        return next((path for path, view_class in self.routes if issubclass(view_class, view_base)), "")

    def create_view(self, callback, method, request=None):
        view_class = view_class_of(callback)
        schema_class = self.view_schemas.get(callback)
        if schema_class is not None:
            view = view_class(**getattr(callback, "initkwargs", {}))
            # What drf-spectacular reads of a DRF view, for a plain Django one.
            view.versioning_class = None
            view.initialize_request = lambda request: request
        else:
            view = super().create_view(callback, method, request)
            # A view that declares itself but whose operations have their own shape (the thumbnail's JPEG) names
            # a subclass of DeclaredAutoSchema in `openapi_schema`: that one documents it, from the declarations.
            schema_class = getattr(view_class, "openapi_schema", None) or DeclaredAutoSchema
        schema = schema_class()
        schema.flavour = getattr(view_class, "flavour", None) or self.flavour
        # Our schema for this view alone, whatever DRF's DEFAULT_SCHEMA_CLASS is.
        self._set_schema_to_view(view, schema)
        schema.view = view
        return view

    def get_schema(self, request=None, public=False):
        document = super().get_schema(request=request, public=public)
        components = document.setdefault("components", {})
        for section, entries in self.flavour.document.components(self.address).items():
            for name, entry in entries.items():
                components.setdefault(section, {}).setdefault(name, entry)
        add_item_links(document["paths"])
        return document


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


class DocsView(SpectacularSwaggerSplitView):
    """Swagger UI on the document, from the project's own static files (drf-spectacular-sidecar). Its start script
    is a file too (`docs?script=`), not inline: the page's Content-Security-Policy runs no inline script
    (config.csp)."""

    authentication_classes = []
    permission_classes = []

    def get_exception_handler(self):
        return document_exception_handler


def document_routes(
    prefix: str, *, namespace: str, flavour: Flavour, title: str, version: str, description: str = ""
) -> list:
    """`<prefix>openapi.json` and `<prefix>docs` for the API whose routes are in `namespace`, in the form of its
    `flavour` (its envelopes, errors, security scheme and OAuth operations: Flavour.document); place them before
    the API's catch-all route."""
    server = "/" + prefix.strip("/")
    generator = type(f"{namespace}_generator", (DeclaredSchemaGenerator,), {"namespace": namespace, "flavour": flavour})
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


# --- the deploy check ------------------------------------------------------------------------------------


def documents_check(app_configs=None, **kwargs) -> list:
    """`manage.py check --deploy`: each API's OpenAPI document is generated as its `openapi.json` route makes it
    (its generator, its settings); an exception is an error, a warning of the generator a warning.

    drf-spectacular's own deploy check (switched off: SPECTACULAR_SETTINGS' ENABLE_DJANGO_DEPLOY_CHECK) walks
    every route of the site with its default generator, which reads no view of ours (docs/decisions.md §12.20
    "The deployment checks")."""
    from django.core.checks import Error, Warning
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.settings import patched_settings

    problems = []
    for pattern in get_resolver().url_patterns:
        callback = getattr(pattern, "callback", None)
        view_class = getattr(callback, "cls", None)
        if not (isinstance(view_class, type) and issubclass(view_class, DocumentView)):
            continue
        initkwargs = callback.initkwargs
        GENERATOR_STATS.reset()
        with patched_settings(initkwargs.get("custom_settings")), GENERATOR_STATS.silence():
            try:
                initkwargs["generator_class"]().get_schema(request=None, public=True)
            except Exception as exc:  # any failure is the check's finding
                problems.append(Error(f"The OpenAPI document /{pattern.pattern} fails: {exc}", id="apicore.E001"))
        problems += [
            Warning(f"The OpenAPI document /{pattern.pattern}: {text}", id="apicore.W001")
            for text in [*GENERATOR_STATS._warn_cache, *GENERATOR_STATS._error_cache]
        ]
    GENERATOR_STATS.reset()
    return problems
