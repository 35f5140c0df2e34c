"""gunicorn settings shared by `make run`, the benchmarks and production.

The application alone decides whether a request came over https (apicore.middleware, TRUSTED_PROXIES):
gunicorn must not turn X-Forwarded-Proto from loopback into https on its own.
"""

import json
import os
import uuid

forwarded_allow_ips = ""
# The access and error logs go through the service's redaction (a password-reset address holds a token).
logger_class = "config.gunicorn_logging.RedactingLogger"
secure_scheme_headers: dict[str, str] = {}

# The longest request line gunicorn reads (its own maximum while bounded; 0 would be unbounded and costly
# to read). Addresses up to it reach the application, which answers a wrong or too long parameter in
# Problem Details itself (400 10005, 404 10100); a longer line is answered 414 in Problem Details by
# `_answer_too_long_lines` below instead of gunicorn's HTML page.
limit_request_line = 8190
limit_request_field_size = 8190


def _own_host() -> str:
    """The first named host of ALLOWED_HOSTS (as config.settings reads it): the host of a problem `type`
    when no request could be read."""
    named = [h.strip() for h in os.environ.get("ALLOWED_HOSTS", "localhost").split(",")]
    named = [h for h in named if h and not h.startswith((".", "*"))]
    return named[0] if named else "localhost"


def too_long_line_reply(limit: int) -> bytes:
    """The whole HTTP reply to a request line over `limit` bytes: 414, Problem Details, code 10005."""
    from apicore.errors import ErrorCode

    error = ErrorCode.ADDRESS_TOO_LONG
    request_id = uuid.uuid4().hex
    body = json.dumps(
        {
            "type": f"https://{_own_host()}/errors/{error.kind.value}",
            "title": error.title,
            "status": error.status,
            "code": error.code,
            "request_id": request_id,
            "detail": f"The request line (method, address and version) may be at most {limit} bytes.",
        },
        separators=(",", ":"),
    ).encode()
    head = (
        f"HTTP/1.1 {error.status} URI Too Long\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Request-Id: {request_id}\r\n\r\n"
    )
    return head.encode("latin-1") + body


def _answer_too_long_lines(worker) -> None:
    """gunicorn refuses a request line over limit_request_line before the application sees it, with an HTML
    page; this worker answers it as the API does. Other refusals keep gunicorn's own handling."""
    from gunicorn import util
    from gunicorn.http.errors import LimitRequestLine

    original = worker.handle_error

    def handle_error(req, client, addr, exc):
        if not isinstance(exc, LimitRequestLine):
            return original(req, client, addr, exc)
        worker.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, too_long_line_reply(worker.cfg.limit_request_line))
        except Exception:
            worker.log.debug("Failed to send error message.")

    worker.handle_error = handle_error


def post_worker_init(worker):
    """Once a worker has loaded the application: the objects of start-up (modules, URL patterns, models)
    move out of the garbage collector's sight, and full collections run less often. A request makes
    many short-lived objects but few cycles; without this, collections walking every loaded module took
    47-64 ms of a 500-member users page (issue 6's profile) and now and then a millisecond of a small call."""
    import gc

    _answer_too_long_lines(worker)
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
