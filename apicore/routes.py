from django.urls import re_path
from django.views.decorators.csrf import csrf_exempt

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError, problem_response


@csrf_exempt  # API callers have no CSRF cookie: a POST to a wrong address is a JSON 404, not an HTML 403.
def not_found(request, *args, **kwargs):
    return problem_response(request, ApiError(ErrorCode.NOT_FOUND, "No such address."))


def catch_all(prefix: str):
    """Last route of an API: any other address under `prefix` (a trailing slash too, and one with a line break,
    which `.` alone would not match) is a JSON 404."""
    return re_path(rf"^{prefix}[\s\S]*$", not_found)
