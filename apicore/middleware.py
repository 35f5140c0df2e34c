import io
import logging
import re
import uuid

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.handlers.wsgi import LimitedStream

from apicore.client_ip import is_https
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError, as_api_error, problem_response

# Django's own logger for refused hosts, so that a wrong Host is logged as it is on the websites.
host_logger = logging.getLogger("django.security.DisallowedHost")
# A chunked body is read in pieces of this size, up to one byte over the limit.
READ_PIECE = 64 * 1024
# A body refused for its size is read and dropped up to this many bytes before the answer: a server that
# closes a connection with unread data makes TCP reset it, and most clients (which send the whole body
# before they read) then see a broken connection instead of the 413. Beyond it the connection is closed.
DRAIN_AT_MOST = 16 * 1024 * 1024

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


class ApiRequestLimitsMiddleware:
    """On API addresses, what Django would refuse with an HTML page is refused in the API's own form, before
    any other work (authentication, rate counts, queries):

    - a `Host` that is not one of ours: 400 (10005) naming `Host` (docs/decisions.md §1.24 "A Host that is not
      ours": the websites keep Django's page);
    - a body over DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB): 413 (10004), whether its length is declared
      (Content-Length) or it is sent chunked. A chunked body is read here, at most one byte past the limit;
      within the limit it is handed on as if its length had been declared (Django reads no chunked body).

    The 413 is answered once the address is resolved, in the form of the view that owns it: a view's own
    `refuse_request(request, error)` (the OAuth token endpoint's error form), else its flavour's error reply,
    else Problem Details.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if is_api_path(request.path):
            try:
                request.get_host()
            except DisallowedHost as exc:
                host_logger.warning("Refused Host on an API address: %s", exc)
                return problem_response(request, as_api_error(exc))
            if _chunked(request):
                _read_chunked_body(request)
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not is_api_path(request.path) or not body_over_limit(request):
            return None
        _drain(request)
        return refusal(request, view_func, as_api_error(RequestDataTooBig()))


def body_over_limit(request) -> bool:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return limit is not None and length > limit


def _chunked_transfer(request) -> bool:
    return "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()


def _chunked(request) -> bool:
    """A body sent chunked whose length nobody has declared yet."""
    return not request.META.get("CONTENT_LENGTH") and _chunked_transfer(request)


def _read_chunked_body(request) -> None:
    """Reads the body up to one byte past the limit and declares the length read: over the limit, the
    declared length makes process_view (and Django, should anything read the body) refuse it."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    stream = request.META["wsgi.input"]
    data = bytearray()
    while limit is None or len(data) <= limit:
        want = READ_PIECE if limit is None else min(READ_PIECE, limit + 1 - len(data))
        piece = stream.read(want)
        if not piece:
            break
        data += piece
    request.META["CONTENT_LENGTH"] = str(len(data))
    request._stream = LimitedStream(io.BytesIO(bytes(data)), len(data))


def _drain(request) -> None:
    """Reads and drops what is left of a refused body, when it is at most DRAIN_AT_MOST bytes."""
    stream = request.META.get("wsgi.input")
    if stream is None:
        return
    if _chunked_transfer(request):
        left = DRAIN_AT_MOST  # the length read so far is declared now; the rest is unknown
    else:
        left = int(request.META.get("CONTENT_LENGTH") or 0)
        if left > DRAIN_AT_MOST:
            return
    try:
        while left > 0:
            piece = stream.read(min(READ_PIECE, left))
            if not piece:
                return
            left -= len(piece)
    except OSError:  # the client has gone
        return


def refusal(request, view_func, error: ApiError):
    """`error` in the form of the view that `view_func` serves (see ApiRequestLimitsMiddleware)."""
    view_class = getattr(view_func, "view_class", None)
    refuse = getattr(view_class, "refuse_request", None)
    if refuse is not None:
        return refuse(request, error)
    flavour = getattr(view_class, "flavour", None)
    if flavour is not None:
        from apicore.renderers import ApiJSONRenderer

        response = flavour.error_response(request, error)
        response.accepted_renderer = ApiJSONRenderer()
        response.accepted_media_type = flavour.error_content_type
        response.renderer_context = {"request": request}
        return response.render()
    return problem_response(request, error)
