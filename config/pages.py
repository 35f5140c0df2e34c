"""Small public pages: the home page, the error kinds, the v5 migration guide, liveness and readiness."""

import logging

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, connection
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


def ready(request):
    """Readiness (docs/decisions.md §12.21): the database, the cache and the broker, each "ok" or "down".
    503 only without the database; without the cache or the broker the APIs still answer (the limits per
    process, webhook events later), so the service is "degraded" and stays in rotation."""
    dependencies = {"database": _database_state(), "cache": _cache_state(), "broker": _broker_state()}
    if dependencies["database"] != "ok":
        status, http_status = "unavailable", 503
    elif all(state == "ok" for state in dependencies.values()):
        status, http_status = "ok", 200
    else:
        status, http_status = "degraded", 200
    reply = JsonResponse({"status": status, "dependencies": dependencies}, status=http_status)
    reply["Cache-Control"] = "no-store"
    return reply


def _database_state() -> str:
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as error:
        logging.getLogger("config.ready").warning("readiness: the database is unreachable (%s)", error)
        return "down"
    return "ok"


def _cache_state() -> str:
    """A Redis cache is asked directly (not through its fallback); a cache of the process's own is always up."""
    ping = getattr(cache, "ping", None)
    if ping is None:
        return "ok"
    return "ok" if ping() else "down"


def _broker_state() -> str:
    """A broker of this machine's own (the file system, the tests' eager tasks) is always up; any other is
    asked for a connection, bounded by short timeouts."""
    from celery import current_app

    url = settings.CELERY_BROKER_URL
    if settings.CELERY_TASK_ALWAYS_EAGER or url.startswith(("filesystem://", "memory://")):
        return "ok"
    try:
        with current_app.connection_for_write(url, connect_timeout=1) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=2)
    except Exception:
        return "down"
    return "ok"


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
