"""Base classes of the Main API v5: an endpoint declares its module, presenter, filters and order;
these classes apply the conventions (parameters, blocks, paging, replies, headers)."""

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.db import transaction
from django.db.models import QuerySet
from django.http import Http404
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.auth_main_v5 import MainApiTokenAuthentication  # moved into the Main v5 flavour next

from .errors import ErrorCode
from .exceptions import ApiError, FieldProblem
from .params import Filter, ParamError, parse_bool, parse_int, parse_names, problem
from .permissions import ModuleRight
from .presenters import Presenter
from .problems import raise_problems

Parser = Callable[[str], Any]
UNKNOWN = ErrorCode.UNKNOWN_NAME.code
INVALID = ErrorCode.INVALID_PARAMETER.code
MAX_LIMIT = 500
DEFAULT_LIMIT = 100


class MainApiView(APIView):
    authentication_classes = [MainApiTokenAuthentication]
    permission_classes = [ModuleRight]
    http_method_names = ["get", "post", "put", "patch", "delete", "head"]
    # The module whose right the endpoint needs (None: any valid token), and the right when it is not
    # simply read for GET and write otherwise.
    module: str | None = None
    right: str | None = None
    presenter_class: type[Presenter] | None = None
    # The model of an endpoint whose rows belong to one organization; others override get_queryset.
    model = None

    def get_queryset(self) -> QuerySet:
        """Only the calling organization's rows: every endpoint is scoped to its token's organization."""
        return self.model.objects.filter(organization=self.request.organization)

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
        # After the token (401), before the module right (403): a method the address does not offer is 405,
        # whatever the token may do.
        method = request.method.lower()
        if method not in self.http_method_names or getattr(self, method, None) is None:
            self.http_method_not_allowed(request)
        super().check_permissions(request)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        usage = getattr(request, "ratelimit_usage", None)
        if usage is not None:
            for name, value in usage.headers().items():
                response.setdefault(name, value)
        for name, value in getattr(request, "sunset_headers", {}).items():
            response[name] = value
        return response

    # --- query parameters -------------------------------------------------------------------------

    def parse_query(self, parsers: dict[str, Parser]) -> dict[str, Any]:
        """Every parameter must be known, given once and with a value; all problems are raised together."""
        values, problems = {}, []
        for name in self.request.query_params:
            raws = self.request.query_params.getlist(name)
            if name not in parsers:
                problems.append(FieldProblem(name, UNKNOWN, f"{name} is not a parameter of this endpoint."))
            elif len(raws) != 1:
                problems.append(FieldProblem(name, INVALID, f"{name} must be given once."))
            elif raws[0] == "":
                problems.append(FieldProblem(name, INVALID, f"{name} must have a value."))
            else:
                try:
                    values[name] = parsers[name](raws[0])
                except ParamError as error:
                    problems.append(problem(name, error))
        raise_problems(problems, source="query")
        return values

    def shape_parsers(self) -> dict[str, Parser]:
        """`include` and `exclude`, for any reply that carries items. The names are checked here, so that a
        wrong one is reported together with the other parameters' problems."""
        return {"include": self.parse_include, "exclude": self.parse_exclude}

    def parse_include(self, raw: str) -> list[str]:
        names = parse_names(raw)
        unknown = [name for name in names if name not in self.presenter_class.blocks]
        if unknown:
            offered = ", ".join(self.presenter_class.blocks) or "none"
            raise ParamError(f"names blocks not offered: {', '.join(unknown)} (offered: {offered})")
        return names

    def parse_exclude(self, raw: str) -> list[str]:
        names = parse_names(raw)
        unknown = [name for name in names if name not in self.presenter_class.fields]
        if unknown:
            usable = ", ".join(self.presenter_class.fields)
            raise ParamError(f"names unknown fields: {', '.join(unknown)} (usable names: {usable})")
        return names

    def make_presenter(self, params: dict[str, Any]) -> Presenter:
        """The presenter for the parsed `include`/`exclude` (names already checked by shape_parsers); a block
        that needs another module's read right is refused (403 10002), never left empty."""
        include, exclude = params.get("include", []), params.get("exclude", [])
        for name in include:
            for module in self.presenter_class.blocks[name].extra_modules:
                if not self.request.auth.allows(module, "r"):
                    raise ApiError(ErrorCode.NO_MODULE_ACCESS, f"The block {name} needs the read right of {module}.")
        return self.presenter_class(include=include, exclude=exclude)

    # --- bodies -----------------------------------------------------------------------------------

    def json_object(self) -> dict:
        """The body as a JSON object, else 400 (10004)."""
        raw = self.request.body
        try:
            data = json.loads(raw) if raw else None
        except (ValueError, UnicodeDecodeError):
            data = None
        if not isinstance(data, dict):
            raise ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be a JSON object.")
        return data

    # --- replies ----------------------------------------------------------------------------------

    def absolute_url(self, location: str) -> str:
        """An absolute address on this host (https behind a trusted proxy too: see TrustedProxySchemeMiddleware)."""
        return self.request.build_absolute_uri(location)

    def item_response(self, presenter: Presenter, obj: Any, *, status: int = 200, location: str | None = None):
        headers = {"Location": self.absolute_url(location)} if location else None
        return Response({"data": presenter.render(obj)}, status=status, headers=headers)


class ListEndpoint(MainApiView):
    """GET on a collection: filters, order, paging, blocks. Subclasses give `model` or `get_queryset`."""

    filters: dict[str, Filter] = {}
    ordering: tuple = ("id",)

    def list_parsers(self) -> dict[str, Parser]:
        return {
            "limit": lambda raw: parse_int(raw, minimum=1, maximum=MAX_LIMIT),
            "offset": lambda raw: parse_int(raw, minimum=0),
            "include_total": parse_bool,
            **self.shape_parsers(),
            **{name: filter_.parse for name, filter_ in self.filters.items()},
        }

    def filter_queryset(self, queryset: QuerySet, params: dict[str, Any]) -> QuerySet:
        for name, filter_ in self.filters.items():
            if name in params:
                queryset = queryset.filter(filter_.condition(params[name]))
        return queryset

    def get(self, request, *args, **kwargs):
        params = self.parse_query(self.list_parsers())
        presenter = self.make_presenter(params)
        limit, offset = params.get("limit", DEFAULT_LIMIT), params.get("offset", 0)
        queryset = self.filter_queryset(self.get_queryset(), params).order_by(*self.ordering)
        # One row more than asked tells whether there is a next page, without counting.
        rows = list(presenter.prepare(queryset)[offset : offset + limit + 1])
        has_more = len(rows) > limit
        rows = rows[:limit]
        meta = {"count": len(rows), "limit": limit, "offset": offset, "has_more": has_more}
        if params.get("include_total"):
            meta["total"] = queryset.count()
        return Response(
            {
                "data": [presenter.render(row) for row in rows],
                "meta": meta,
                "links": {"next": self.next_link(offset + limit) if has_more else None},
            }
        )

    def next_link(self, offset: int) -> str:
        query = self.request.query_params.copy()
        query["offset"] = str(offset)
        return self.absolute_url(f"{self.request.path}?{urlencode(query, doseq=True)}")


class ItemEndpoint(MainApiView):
    """GET on one item by id. Subclasses give `model` or `get_queryset` (scoped to the organization), and
    `lookup_field` when the id in the path is not the row's own primary key."""

    lookup_field = "pk"

    def get_item(self, presenter: Presenter | None, pk: int):
        queryset = self.get_queryset()
        if presenter is not None:
            queryset = presenter.prepare(queryset)
        item = queryset.filter(**{self.lookup_field: pk}).first()
        if item is None:
            raise Http404
        return item

    def get(self, request, pk: int, *args, **kwargs):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        return self.item_response(presenter, self.get_item(presenter, pk))


class SingletonEndpoint(MainApiView):
    """GET of a resource that takes no parameters at all (GET /token, GET /organization)."""

    def get_object(self) -> Any:
        raise NotImplementedError

    def get(self, request, *args, **kwargs):
        self.parse_query({})
        return self.item_response(self.presenter_class(), self.get_object())
