"""The endpoint classes every API shares. An endpoint declares its flavour, module, presenter, filters,
bodies and the service calls; these classes apply the conventions (parameters, blocks, paging, bodies,
replies, one transaction per write, tenancy) and leave callers, statuses and envelopes to the flavour."""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import urlencode

from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from django.urls import reverse
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response
from rest_framework.views import APIView

from apicore import clock, jsonbody, tenancy
from apicore.database import prepared_statements
from apicore.declarations import Operation
from apicore.errors import ErrorCode, FieldProblem
from apicore.exceptions import ApiError
from apicore.flavours import Flavour
from apicore.params import BoolParameter, IntParameter, NamesParameter, ParamError, Parameter, problem
from apicore.presenters import Presenter
from apicore.problems import raise_problems
from apicore.schema import Schema, clean_object, has_changes

UNKNOWN = ErrorCode.UNKNOWN_NAME.code
INVALID = ErrorCode.INVALID_PARAMETER.code
# The attribute that names the body schema of each write method (see the write mixins below).
BODY_OF_METHOD = {"post": "create_body", "patch": "update_body", "put": "replace_body"}


class Endpoint(APIView):
    flavour: Flavour = Flavour()
    http_method_names = ["get", "post", "put", "patch", "delete", "head"]
    # The module whose right the endpoint needs (None: any accepted caller), and the right when it is not
    # simply read for GET and write otherwise.
    module: str | None = None
    right: str | None = None
    presenter_class: type[Presenter] | None = None
    # The rows of the endpoint (unscoped: get_queryset scopes them); or override base_queryset().
    model = None
    # A nested address (/users/{id}/expiry-dates): the parent's model, its field that the path's
    # `parent_kwarg` names. The parent is scoped like every row; an unknown parent is 404.
    parent_model = None
    parent_lookup = "pk"
    parent_kwarg = "pk"
    # Rows of a model shared through objects (apicore.tenancy): True gives the organization's own rows alone,
    # not those it sees through sharing (Main v5's flight log: own objects only).
    own_rows_only = False
    # Error codes an operation can answer beyond the conventions' own, by method (documentation).
    errors: dict[str, tuple[ErrorCode, ...]] = {}
    # The JSON Schema of a reply's item where no presenter makes it (documentation).
    item_schema: dict | None = None

    # --- DRF hooks: the flavour's callers and errors --------------------------------------------------

    def get_authenticators(self):
        return [authentication() for authentication in self.flavour.authentication_classes]

    def get_exception_handler(self):
        # Every error below an endpoint is answered by its flavour (status, body, media type).
        return lambda exc, context: self.flavour.error_response(context.get("request"), exc)

    def dispatch(self, request, *args, **kwargs):
        # Reads run in autocommit: one query is one round trip. Every write is one transaction, rolled
        # back whenever the reply is an error, so a refused or failed write leaves nothing half-saved.
        if request.method in SAFE_METHODS:
            return super().dispatch(request, *args, **kwargs)
        with transaction.atomic():
            response = super().dispatch(request, *args, **kwargs)
            if response.status_code >= 400:
                transaction.set_rollback(True)
            return response

    def check_permissions(self, request):
        # 401 first, then a method the address does not offer (405, whatever the caller may do), then the
        # module right (403).
        if request.auth is None:
            raise self.flavour.not_authenticated()
        method = request.method.lower()
        if method not in self.http_method_names or getattr(self, method, None) is None:
            self.http_method_not_allowed(request)
        if self.module is not None:
            right = self.right_for(method)
            if not self.flavour.allows(request, self.module, right):
                raise self.flavour.refuse_right(self.module, right)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        for name, value in self.flavour.reply_headers(request).items():
            response.setdefault(name, value)
        return response

    @classmethod
    def right_for(cls, method: str) -> str:
        return cls.right or ("r" if method in ("get", "head") else "w")

    # --- tenancy --------------------------------------------------------------------------------------

    @cached_property
    def organization(self):
        return self.flavour.organization(self.request)

    def base_queryset(self) -> QuerySet:
        """The endpoint's rows before scoping (override for annotations or nested rows)."""
        return self.model.objects.all()

    def get_queryset(self) -> QuerySet:
        """Only the caller's organization's rows (by the model's tenancy declaration, apicore.tenancy): the one
        place every endpoint is scoped."""
        return tenancy.scope(self.base_queryset(), self.organization, own_only=self.own_rows_only)

    @cached_property
    def parent(self):
        rows = tenancy.scope(self.parent_model.objects.all(), self.organization)
        found = rows.filter(**{self.parent_lookup: self.kwargs[self.parent_kwarg]}).first()
        if found is None:
            raise Http404
        return found

    # --- query parameters -----------------------------------------------------------------------------

    @classmethod
    def parameters_for(cls, method: str) -> dict[str, Parameter]:
        """The query parameters of one method (a reply with items takes `include` and `exclude`)."""
        if method == "delete":
            return getattr(cls, "delete_parameters", {})
        return cls.shape_parameters()

    @classmethod
    def shape_parameters(cls) -> dict[str, Parameter]:
        presenter = cls.presenter_class
        if presenter is None:
            return {}
        return {
            "include": NamesParameter(
                list(presenter.blocks), what="blocks not offered", description="Blocks to add to each item."
            ),
            "exclude": NamesParameter(
                list(presenter.fields), what="unknown fields", description="Fields to leave out of each item."
            ),
        }

    def parse_query(self, parameters: dict[str, Parameter]) -> dict[str, Any]:
        """Every parameter must be known, given once and with a value; all problems are raised together."""
        values, problems = {}, []
        for name in self.request.query_params:
            raws = self.request.query_params.getlist(name)
            if name not in parameters:
                problems.append(FieldProblem(name, UNKNOWN, f"{name} is not a parameter of this endpoint."))
            elif len(raws) != 1:
                problems.append(FieldProblem(name, INVALID, f"{name} must be given once."))
            elif raws[0] == "":
                problems.append(FieldProblem(name, INVALID, f"{name} must have a value."))
            else:
                try:
                    values[name] = parameters[name].parse(raws[0])
                except ParamError as error:
                    problems.append(problem(name, error))
        raise_problems(problems, source="query")
        return values

    def query(self) -> dict[str, Any]:
        return self.parse_query(self.parameters_for(self.request.method.lower()))

    # --- presenters -----------------------------------------------------------------------------------

    @cached_property
    def context(self):
        """The presenter context of this request, made once for the presenter and the filters."""
        return self.flavour.presenter_context(self.request, self.today)

    @cached_property
    def today(self):
        return clock.today_in(self.organization.timezone)

    def make_presenter(self, params: dict[str, Any]) -> Presenter:
        """The presenter for the parsed `include`/`exclude`; a block that needs another module's read right
        is refused (403 10002), never left empty."""
        include, exclude = params.get("include", []), params.get("exclude", [])
        for name in include:
            for module in self.presenter_class.blocks[name].extra_modules:
                if not self.flavour.allows(self.request, module, "r"):
                    raise self.flavour.refuse_right(module, "r", block=name)
        return self.presenter_class(context=self.context, include=include, exclude=exclude)

    # --- bodies ---------------------------------------------------------------------------------------

    def json_object(self) -> dict:
        """The body as a JSON object (sent as application/json, UTF-8, names once, at most 32 levels deep, exact
        numbers), else 400 (10004), or 415 (10004) for another media type."""
        return jsonbody.parse_object(self.request.body, self.request.META.get("CONTENT_TYPE", ""))

    def validated_body(self, schema: type[Schema], data: dict | None = None, *, partial: bool = False) -> dict:
        """The body by its schema; when it has problems, the checks that need the organization run too, so
        that every problem is reported at once (a body without problems leaves those checks to the service,
        which runs them once)."""
        data = self.json_object() if data is None else data
        problems: list[FieldProblem] = []
        body = clean_object(schema.fields, data, "", problems, partial=partial)
        if problems:
            problems += self.body_problems(body)
        raise_problems(problems, source="body")
        return body

    def body_problems(self, body: dict) -> list[FieldProblem]:
        """Problems of a body that its form alone cannot show (override with the service's check)."""
        return []

    # --- replies --------------------------------------------------------------------------------------

    def absolute_url(self, location: str) -> str:
        """An absolute address on this host (https behind a trusted proxy too: see TrustedProxySchemeMiddleware)."""
        return self.request.build_absolute_uri(location)

    def reply_item(self, item: dict | None, *, status: int = 200, location: str | None = None) -> Response:
        if item is None:
            raise Http404
        headers = {"Location": self.absolute_url(location)} if location else None
        return Response(self.flavour.item_body(self, item), status=status, headers=headers)

    def route(self, name: str, **kwargs) -> str:
        """The address of a route of this endpoint's API (its URL namespace)."""
        namespace = self.request.resolver_match.namespace
        return reverse(f"{namespace}:{name}" if namespace else name, kwargs=kwargs)

    # --- documentation --------------------------------------------------------------------------------

    @classmethod
    def offered_methods(cls) -> list[str]:
        return [m for m in cls.http_method_names if m not in ("head", "options") and hasattr(cls, m)]

    @classmethod
    def describe(cls) -> dict[str, Operation]:
        return {method: cls.describe_operation(method) for method in cls.offered_methods()}

    @classmethod
    def describe_operation(cls, method: str) -> Operation:
        parameters = cls.parameters_for(method)
        body = cls.body_for(method)
        reply, status = cls.reply_for(method)
        errors = [*cls.flavour.call_errors, ErrorCode.METHOD_NOT_ALLOWED]
        if cls.module is not None:
            errors.append(ErrorCode.NO_MODULE_ACCESS)
        errors.append(ErrorCode.UNKNOWN_NAME)  # an unknown parameter is refused everywhere
        if parameters:
            errors.append(ErrorCode.INVALID_PARAMETER)
        if any(getattr(p, "schema", {}).get("format") == "date" for p in parameters.values()):
            errors.append(ErrorCode.INVALID_DATE)
        if body is not None:
            errors += [ErrorCode.BODY_NOT_OBJECT, *body.error_codes()]
        if cls.addresses_item() or cls.parent_model is not None:
            errors.append(ErrorCode.NOT_FOUND)
        errors += cls.errors.get(method, ())
        # A read is described by the endpoint's own docstring; a write by its method's ("Create an item.").
        own, generic = cls.__doc__, getattr(cls, method).__doc__
        doc = ((own if method == "get" else generic) or own or generic or "").strip().splitlines()
        return Operation(
            method=method,
            summary=doc[0] if doc else "",
            module=cls.module,
            right=cls.right_for(method) if cls.module else None,
            parameters=parameters,
            body=body,
            reply=reply,
            presenter=cls.presenter_class if reply != "empty" else None,
            status=status,
            errors=tuple(dict.fromkeys(errors)),
            list_meta=cls.list_meta_for(method),
            item_schema=cls.item_schema,
        )

    @classmethod
    def body_for(cls, method: str) -> type[Schema] | None:
        return getattr(cls, BODY_OF_METHOD.get(method, ""), None)

    @classmethod
    def reply_for(cls, method: str) -> tuple[str, int]:
        if method == "delete":
            return "empty", 204
        if method == "post" and getattr(cls, "create_body", None) is not None:
            return "item", 201
        return "item", 200

    @classmethod
    def list_meta_for(cls, method: str) -> dict[str, dict]:
        return {}

    @classmethod
    def addresses_item(cls) -> bool:
        return False


# --- reads ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paging:
    """`limit` and `offset` of a list endpoint: its default and largest page."""

    default_limit: int = 100
    max_limit: int = 500

    def parameters(self) -> dict[str, Parameter]:
        return {
            "limit": IntParameter(minimum=1, maximum=self.max_limit, description="Items per page."),
            "offset": IntParameter(minimum=0, description="Items to skip."),
            "include_total": BoolParameter(description="Add meta.total, the number of items of every page."),
        }


class OrderParameter(Parameter):
    """A parameter that chooses the list's order out of named orders (e.g. asc and desc)."""

    def __init__(self, orders: dict[str, tuple], *, default: str, description: str = ""):
        self.orders, self.default, self.description = orders, default, description
        self.schema = {"type": "string", "enum": list(orders)}

    def parse(self, raw: str) -> tuple:
        if raw not in self.orders:
            raise ParamError(f"must be one of {', '.join(self.orders)}")
        return self.orders[raw]


class ListEndpoint(Endpoint):
    """GET on a collection: filters, order, paging, blocks."""

    filters: dict = {}
    ordering: tuple = ("id",)
    paging = Paging()
    # An optional parameter that chooses the order: (name, OrderParameter).
    order_parameter: tuple[str, OrderParameter] | None = None
    # True where the list's rows depend on nothing but the caller's organization, the address and the query's
    # parameters (no "today", no other caller's value, no filter with a default): its page statement is then
    # compiled once per organization and query in each process (statement_key) instead of on every call.
    statement_cache = False

    @classmethod
    def parameters_for(cls, method: str) -> dict[str, Parameter]:
        if method != "get":
            return super().parameters_for(method)
        order = dict([cls.order_parameter]) if cls.order_parameter else {}
        return {**cls.paging.parameters(), **cls.shape_parameters(), **cls.filters, **order}

    @classmethod
    def reply_for(cls, method: str) -> tuple[str, int]:
        return ("list", 200) if method == "get" else super().reply_for(method)

    def filter_queryset(self, queryset: QuerySet, params: dict[str, Any]) -> QuerySet:
        context = self.context
        for name, filter_ in self.filters.items():
            value = params.get(name)
            if value is None and filter_.default is not None:
                value = filter_.default(context)
            if value is not None:
                queryset = queryset.filter(filter_.condition(value, context))
        return queryset

    def get_ordering(self, params: dict[str, Any]) -> tuple:
        if self.order_parameter is not None:
            name, parameter = self.order_parameter
            return params.get(name) or parameter.orders[parameter.default]
        return self.ordering

    def extra_meta(self, queryset: QuerySet, params: dict[str, Any]) -> dict:
        """More `meta` fields of a flavour's list (the Mobile API's balance); see list_meta_for."""
        return {}

    def statement_key(self) -> tuple | None:
        """What determines the page's statement where `statement_cache` allows it: the endpoint, the
        organization, the address's arguments and the query's parameters (as given: their values decide the
        filters, the order, the page and the blocks); None otherwise."""
        if not self.statement_cache or any(filter_.default is not None for filter_ in self.filters.values()):
            return None
        return (
            type(self),
            getattr(self.organization, "pk", None),
            tuple(sorted(self.kwargs.items())),
            tuple(sorted((name, tuple(values)) for name, values in self.request.query_params.lists())),
        )

    def get(self, request, *args, **kwargs):
        """List the items."""
        params = self.query()
        presenter = self.make_presenter(params)
        limit, offset = params.get("limit", self.paging.default_limit), params.get("offset", 0)
        built: list[QuerySet] = []

        def queryset() -> QuerySet:
            if not built:
                built.append(self.filter_queryset(self.get_queryset(), params).order_by(*self.get_ordering(params)))
            return built[0]

        key = self.statement_key()
        if key is None:
            queryset()  # built outside the prepared statements, as a filter may read while it is built
        # One row more than asked tells whether there is a next page, without counting.
        with prepared_statements():
            if key is None:
                items = presenter.page(queryset(), offset=offset, limit=limit + 1)
            else:
                items = presenter.keyed_page(key, queryset, offset=offset, limit=limit + 1)
        has_more = len(items) > limit
        items = items[:limit]
        meta = {"count": len(items), "limit": limit, "offset": offset, "has_more": has_more}
        if params.get("include_total"):
            meta["total"] = queryset().count()
        if type(self).extra_meta is not ListEndpoint.extra_meta:  # (the queryset is built only for it)
            meta.update(self.extra_meta(queryset(), params))
        next_url = self.next_link(offset + limit) if has_more else None
        return Response(self.flavour.list_body(self, items, meta, next_url))

    def next_link(self, offset: int) -> str:
        query = self.request.query_params.copy()
        query["offset"] = str(offset)
        return self.absolute_url(f"{self.request.path}?{urlencode(query, doseq=True)}")


class ItemEndpoint(Endpoint):
    """One item by the id in the path (`lookup_kwarg`), matched against `lookup_field` of the rows."""

    lookup_field = "pk"
    lookup_kwarg = "pk"

    @classmethod
    def addresses_item(cls) -> bool:
        return True

    def item_rows(self) -> QuerySet:
        return self.get_queryset().filter(**{self.lookup_field: self.kwargs[self.lookup_kwarg]})

    def get_object(self) -> Any:
        """The row itself (for a write), 404 when the organization has none."""
        found = self.item_rows().first()
        if found is None:
            raise Http404
        return found

    def present(self, presenter: Presenter) -> dict | None:
        return presenter.one(self.item_rows())

    def get(self, request, *args, **kwargs):
        """Fetch one item."""
        presenter = self.make_presenter(self.query())
        return self.reply_item(self.present(presenter))


class SingletonEndpoint(Endpoint):
    """GET of a resource that takes no parameters at all (GET /token, GET /organization)."""

    @classmethod
    def parameters_for(cls, method: str) -> dict[str, Parameter]:
        return {}

    def get_object(self) -> Any:
        raise NotImplementedError

    def get(self, request, *args, **kwargs):
        """Fetch the resource."""
        self.query()
        return self.reply_item(self.make_presenter({}).render(self.get_object()))


# --- writes -----------------------------------------------------------------------------------------------


class CreateMixin:
    """POST on a collection: the body by `create_body`, `create()` calls the service, 201 with the item as
    GET gives it and `Location` (the route `item_route`, keyed by the created row's `location_field`)."""

    create_body: type[Schema]
    item_route: str
    location_field = "pk"

    def create(self, body: dict) -> Any:
        raise NotImplementedError

    def post(self, request, *args, **kwargs):
        """Create an item."""
        presenter = self.make_presenter(self.query())
        created = self.create(self.validated_body(self.create_body))
        item = presenter.one(self.get_queryset().filter(pk=created.pk))
        location = self.route(self.item_route, pk=getattr(created, self.location_field))
        return self.reply_item(item, status=201, location=location)


class ItemWriteMixin:
    def change_item(self, change: Callable[[Any], Any]) -> Response:
        """Parameters, the row (404), the change, and the item as GET gives it afterwards."""
        presenter = self.make_presenter(self.query())
        change(self.get_object())
        return self.reply_item(self.present(presenter))


class UpdateMixin(ItemWriteMixin):
    """PATCH of an item: only the fields sent change. An empty body, or one that changes nothing (`{}` nested
    objects only), is 400 10105. `update()` calls the service."""

    update_body: type[Schema]

    def update(self, item: Any, changes: dict) -> Any:
        raise NotImplementedError

    def patch(self, request, *args, **kwargs):
        """Change fields of an item."""
        return self.change_item(lambda item: self.update(item, self.changes()))

    def changes(self) -> dict:
        data = self.json_object()
        changes = self.validated_body(self.update_body, data, partial=True) if data else {}
        if not has_changes(changes):
            raise ApiError(ErrorCode.NOTHING_TO_CHANGE, "Send at least one field to change.")
        return changes


class ReplaceMixin(ItemWriteMixin):
    """PUT of an item: the whole body by `replace_body`; `replace()` calls the service."""

    replace_body: type[Schema]

    def replace(self, item: Any, body: dict) -> Any:
        raise NotImplementedError

    def put(self, request, *args, **kwargs):
        """Set an item."""
        return self.change_item(lambda item: self.replace(item, self.validated_body(self.replace_body)))


class DeleteMixin:
    """DELETE of an item: 204; `delete_parameters` are its query parameters, `destroy()` calls the service."""

    delete_parameters: dict[str, Parameter] = {}

    def destroy(self, item: Any, params: dict[str, Any]) -> None:
        raise NotImplementedError

    def delete(self, request, *args, **kwargs):
        """Delete an item."""
        params = self.query()
        self.destroy(self.get_object(), params)
        return Response(status=204)
