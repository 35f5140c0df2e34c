"""Problem Details (RFC 9457) for every error of the APIs, built in one place."""

import logging

from django.conf import settings
from django.core import exceptions as django_exceptions
from django.db import DatabaseError
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf_exceptions

from apicore.errors import ErrorCode, FieldProblem, ServiceError

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"


class ApiError(ServiceError):
    """A refusal of the API layer itself, which may add headers (WWW-Authenticate, Retry-After, Allow)."""

    def __init__(self, error: ErrorCode, detail: str | None = None, *, headers: dict[str, str] | None = None, **kw):
        super().__init__(error, detail, **kw)
        self.headers = headers or {}


def problem_body(request, exc: ServiceError, *, status: int | None = None) -> dict:
    body = {
        "type": error_type_uri(request, exc.error),
        "title": exc.title,
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
    return f"https://{_own_host(request)}/errors/{error.kind.value}"


def _own_host(request) -> str:
    """The request's host when it is one of ours; else our first named host: a refused `Host` header is
    never echoed into a reply."""
    if request is not None:
        try:
            return request.get_host()
        except django_exceptions.DisallowedHost:
            pass
    named = [host for host in settings.ALLOWED_HOSTS if host and not host.startswith((".", "*"))]
    return named[0] if named else "localhost"


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
    """Map DRF's and Django's own exceptions onto our codes; None for a fault of ours (500).

    The order matters where classes are related: RequestDataTooBig, TooManyFieldsSent and DisallowedHost are
    SuspiciousOperations; NotFound, MethodNotAllowed ... are APIExceptions."""
    if isinstance(exc, ServiceError):
        return exc
    if isinstance(exc, (Http404, drf_exceptions.NotFound)):
        return ApiError(ErrorCode.NOT_FOUND)
    for kinds, make in _MAPPED:
        if isinstance(exc, kinds):
            return make(exc)
    return None


def _too_large(exc) -> ApiError:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return ApiError(ErrorCode.BODY_TOO_LARGE, f"The body may be at most {limit} bytes.")


def _bad_host(exc) -> ApiError:
    problem = FieldProblem("Host", ErrorCode.INVALID_PARAMETER.code, "Not a host name of this service.")
    return ApiError(ErrorCode.INVALID_PARAMETER, "The Host header names no host of this service.", errors=[problem])


def _throttled(exc) -> ApiError:
    wait = exc.wait
    headers = {"Retry-After": str(max(int(wait + 0.999), 1))} if wait is not None else {}
    return ApiError(ErrorCode.TOO_MANY_REQUESTS, headers=headers)


def _not_acceptable(exc) -> ApiError:
    problem = FieldProblem("Accept", ErrorCode.INVALID_PARAMETER.code, "The API answers application/json only.")
    return ApiError(ErrorCode.INVALID_PARAMETER, "The API answers JSON only.", errors=[problem])


def _validation(exc) -> ApiError:
    """DRF's or Django's ValidationError: a problem of the body, field by field when it names fields."""
    detail = exc.detail if isinstance(exc, drf_exceptions.ValidationError) else getattr(exc, "message_dict", None)
    problems = []
    if isinstance(detail, dict):
        for field, messages in detail.items():
            message = messages[0] if isinstance(messages, list) and messages else messages
            problems.append(FieldProblem(str(field), ErrorCode.INVALID_FIELD.code, str(message)))
    return ApiError(ErrorCode.INVALID_FIELD, "Check the body." if not problems else None, errors=problems)


# (exception classes, the ApiError for one), checked in this order after ServiceError and 404.
_MAPPED = (
    (drf_exceptions.MethodNotAllowed, lambda e: ApiError(ErrorCode.METHOD_NOT_ALLOWED, _method_text(e))),
    (
        drf_exceptions.UnsupportedMediaType,
        lambda e: ApiError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "The body must be JSON (Content-Type: application/json)."),
    ),
    (drf_exceptions.ParseError, lambda e: ApiError(ErrorCode.BODY_NOT_OBJECT, "The body is not readable as JSON.")),
    (
        (drf_exceptions.NotAuthenticated, drf_exceptions.AuthenticationFailed),
        lambda e: ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"}),
    ),
    (
        (drf_exceptions.PermissionDenied, django_exceptions.PermissionDenied),
        lambda e: ApiError(ErrorCode.NO_MODULE_ACCESS),
    ),
    (drf_exceptions.Throttled, _throttled),
    # The API answers JSON only, whatever Accept asks (apicore.negotiation); a refusal is a wrong parameter.
    (drf_exceptions.NotAcceptable, _not_acceptable),
    ((drf_exceptions.ValidationError, django_exceptions.ValidationError), _validation),
    (django_exceptions.RequestDataTooBig, _too_large),
    # In a JSON API the only fields Django counts are the query's (form bodies: see the token view).
    (
        (django_exceptions.TooManyFieldsSent, django_exceptions.TooManyFilesSent),
        lambda e: ApiError(ErrorCode.INVALID_PARAMETER, "Too many parameters."),
    ),
    (django_exceptions.DisallowedHost, _bad_host),
    (django_exceptions.BadRequest, lambda e: ApiError(ErrorCode.BODY_NOT_OBJECT, "The request is not readable.")),
    (django_exceptions.SuspiciousOperation, lambda e: ApiError(ErrorCode.BODY_NOT_OBJECT, "The request is refused.")),
    # Any other APIException (a library's own subclass): the code of its status; a 5xx is a fault of ours.
    (drf_exceptions.APIException, lambda e: _api_exception(e)),
)


def _method_text(exc) -> str:
    return f"The method {exc.args[0] if exc.args else ''} is not allowed."


_CODE_OF_STATUS = {
    401: ErrorCode.UNAUTHORIZED,
    403: ErrorCode.NO_MODULE_ACCESS,
    404: ErrorCode.NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    413: ErrorCode.BODY_TOO_LARGE,
    415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    429: ErrorCode.TOO_MANY_REQUESTS,
}


def _api_exception(exc) -> ApiError | None:
    status = getattr(exc, "status_code", 500)
    if not 400 <= status < 500:
        return None
    error = _CODE_OF_STATUS.get(status, ErrorCode.BODY_NOT_OBJECT)
    headers = {"WWW-Authenticate": "Bearer"} if error is ErrorCode.UNAUTHORIZED else {}
    return ApiError(error, str(exc.detail) if isinstance(exc.detail, str) else None, headers=headers)


def unhandled_error(exc: Exception) -> ApiError:
    """A fault of ours: logged with its traceback, answered 500 without details."""
    logger.error("Unhandled error", exc_info=exc)
    return ApiError(ErrorCode.DATABASE_ERROR if isinstance(exc, DatabaseError) else ErrorCode.INTERNAL_ERROR)
