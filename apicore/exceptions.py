"""Problem Details (RFC 9457) for every error of the APIs, built in one place."""

import logging
from dataclasses import dataclass

from django.db import DatabaseError
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf_exceptions

from .errors import ErrorCode

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"


@dataclass(frozen=True)
class FieldProblem:
    """One named parameter or field in `errors`."""

    field: str
    code: int
    message: str

    def as_dict(self) -> dict:
        return {"field": self.field, "code": self.code, "message": self.message}


class ServiceError(Exception):
    """A refusal with an error code, raised by services and the conventions layer alike. It carries no HTTP:
    each API's flavour decides the status and the body (apicore.flavours)."""

    def __init__(
        self,
        error: ErrorCode,
        detail: str | None = None,
        *,
        errors: list[FieldProblem] | None = None,
        dependents: list[dict] | None = None,
        code: int | None = None,
    ):
        super().__init__(detail or error.title)
        self.error = error
        self.detail = detail
        self.errors = errors or []
        self.dependents = dependents
        # A few problems carry the code of their single field problem (DECISIONS.md, error codes).
        self.code = code or error.code


class ApiError(ServiceError):
    """A refusal of the API layer itself, which may add headers (WWW-Authenticate, Retry-After, Allow)."""

    def __init__(self, error: ErrorCode, detail: str | None = None, *, headers: dict[str, str] | None = None, **kw):
        super().__init__(error, detail, **kw)
        self.headers = headers or {}


def problem_body(request, exc: ServiceError, *, status: int | None = None) -> dict:
    body = {
        "type": error_type_uri(request, exc.error),
        "title": exc.error.title,
        "status": status or exc.error.status,
        "code": exc.code,
        "request_id": getattr(request, "request_id", None),
    }
    if exc.detail:
        body["detail"] = exc.detail
    if exc.errors:
        body["errors"] = [problem.as_dict() for problem in exc.errors]
    if exc.dependents is not None:
        body["dependents"] = exc.dependents
    return body


def error_type_uri(request, error: ErrorCode) -> str:
    host = request.get_host() if request is not None else "localhost"
    return f"https://{host}/errors/{error.kind.value}"


def problem_response(request, exc: ApiError) -> JsonResponse:
    """A plain Django response, for the places outside DRF views (middleware, catch-all routes)."""
    response = JsonResponse(
        problem_body(request, exc),
        status=exc.error.status,
        content_type=PROBLEM_CONTENT_TYPE,
        json_dumps_params={"separators": (",", ":"), "ensure_ascii": False},
    )
    for name, value in exc.headers.items():
        response[name] = value
    return response


def as_api_error(exc: Exception) -> ServiceError | None:
    """Map DRF's and Django's own exceptions onto our codes."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, (Http404, drf_exceptions.NotFound)):
        return ApiError(ErrorCode.NOT_FOUND)
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return ApiError(ErrorCode.METHOD_NOT_ALLOWED, f"The method {exc.args[0] if exc.args else ''} is not allowed.")
    if isinstance(exc, drf_exceptions.UnsupportedMediaType):
        return ApiError(ErrorCode.BODY_NOT_OBJECT, "The body must be JSON (Content-Type: application/json).")
    if isinstance(exc, drf_exceptions.ParseError):
        return ApiError(ErrorCode.BODY_NOT_OBJECT, "The body is not readable as JSON.")
    if isinstance(exc, (drf_exceptions.NotAuthenticated, drf_exceptions.AuthenticationFailed)):
        return ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})
    if isinstance(exc, drf_exceptions.PermissionDenied):
        return ApiError(ErrorCode.NO_MODULE_ACCESS)
    return None


def unhandled_error(exc: Exception) -> ApiError:
    """A fault of ours: logged with its traceback, answered 500 without details."""
    logger.error("Unhandled error", exc_info=exc)
    return ApiError(ErrorCode.DATABASE_ERROR if isinstance(exc, DatabaseError) else ErrorCode.INTERNAL_ERROR)


def problem_exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: the view's flavour answers (every API view has one)."""
    return context["view"].flavour.error_response(context.get("request"), exc)
