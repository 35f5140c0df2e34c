import re
import uuid

from django.conf import settings

from .client_ip import is_https
from .errors import ErrorCode
from .exceptions import ApiError, problem_response

REQUEST_ID_MAX_LENGTH = 64
API_PATH = re.compile(r"^/(main|mobile)/v\d+(/|$)")


def is_api_path(path: str) -> bool:
    return bool(API_PATH.match(path))


class RequestIdMiddleware:
    """Every reply carries `Request-Id`: the client's own (64 characters at most) or a generated one."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get("Request-Id", "")
        request.request_id = given if 0 < len(given) <= REQUEST_ID_MAX_LENGTH else uuid.uuid4().hex
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        return response


class TrustedProxySchemeMiddleware:
    """Behind a trusted proxy that says https, the request is https: addresses built from it (links.next,
    Location, Link) say https, and Django treats it as secure. Other callers' X-Forwarded-Proto is ignored."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.is_secure() and is_https(request):
            request.META["wsgi.url_scheme"] = "https"
        return self.get_response(request)


class HttpsRequiredMiddleware:
    """Plain HTTP to an API address answers 403 (10000) in Problem Details (REQUIRE_HTTPS turns it off)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if settings.REQUIRE_HTTPS and is_api_path(request.path) and not is_https(request):
            return problem_response(request, ApiError(ErrorCode.HTTPS_REQUIRED, "Use https."))
        return self.get_response(request)
