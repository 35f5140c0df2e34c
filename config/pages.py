"""Small public pages: the home page, the error kinds and the v5 migration guide."""

from django.db import connection
from django.http import Http404, JsonResponse
from django.shortcuts import render
from django.views import defaults

from apicore.errors import KIND_DESCRIPTIONS, KIND_STATUS, Kind, codes_of_kind


def home(request):
    return render(request, "home.html")


def error_kind(request, kind: str):
    try:
        found = Kind(kind)
    except ValueError:
        raise Http404 from None
    context = {
        "kind": found.value,
        "status": KIND_STATUS[found],
        "description": KIND_DESCRIPTIONS[found],
        "codes": codes_of_kind(found),
    }
    return render(request, "errors/kind.html", context)


def migration_guide(request):
    return render(request, "docs/migration.html")


def health(request):
    """For load balancers and the benchmark's unauthenticated baseline: no token, no query of data."""
    connection.ensure_connection()
    return JsonResponse({"status": "ok"})


def bad_request(request, exception):
    """Django's 400 (a BadRequest or SuspiciousOperation raised outside a DRF view): Problem Details on API
    addresses (docs/decisions.md §1.31 "Only the API's form under an API's address"), a page elsewhere."""
    return _api_problem(request, exception, "BODY_NOT_OBJECT", defaults.bad_request)


def permission_denied(request, exception):
    return _api_problem(request, exception, "NO_MODULE_ACCESS", defaults.permission_denied)


def page_not_found(request, exception):
    return _api_problem(request, exception, "NOT_FOUND", defaults.page_not_found)


def _api_problem(request, exception, fallback: str, default_page):
    """The exception as the API's refusal (`fallback`, an ErrorCode's name, when it maps to none)."""
    from apicore.errors import ErrorCode
    from apicore.exceptions import ApiError, as_api_error, problem_response
    from apicore.middleware import is_api_path

    if not is_api_path(request.path):
        return default_page(request, exception)
    return problem_response(request, as_api_error(exception) or ApiError(ErrorCode[fallback]))


def server_error(request):
    """A fault outside a DRF view (middleware, commit): Problem Details on API addresses, a page elsewhere."""
    from apicore.errors import ErrorCode
    from apicore.exceptions import ApiError, problem_response
    from apicore.middleware import is_api_path

    if is_api_path(request.path):
        return problem_response(request, ApiError(ErrorCode.INTERNAL_ERROR))
    return render(request, "500.html", status=500)
