"""The Main API's limits: calls per token a minute (10013) and failed token checks per address (10014).

The counters are apicore.counters' windows in the shared cache (Redis in production). An authenticated
call normally costs one round trip (`check_call`): the address check, the revision of the caller's cached
token row and the count, together. The login limits (accounts.login_limits) stay on django-ratelimit: they
are not on the hot path.
"""

from dataclasses import dataclass

from django.conf import settings

from . import counters
from .client_ip import client_ip
from .errors import ErrorCode
from .exceptions import ApiError

TOKEN_CALLS = "main-token"
FAILED_CHECKS = "failed-token-checks"


@dataclass(frozen=True)
class Usage:
    limit: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
        }


def _token_window(token_id: int) -> counters.Window:
    return counters.window(TOKEN_CALLS, str(token_id), 60)


def _failed_checks_window(request) -> counters.Window:
    return counters.window(FAILED_CHECKS, client_ip(request), settings.FAILED_TOKEN_CHECKS_WINDOW_SECONDS)


def _usage(count: int, window: counters.Window) -> Usage:
    """The usage after call number `count` of the window; raises 429 (10013) past the limit."""
    limit = settings.MAIN_API_CALLS_PER_MINUTE
    result = Usage(limit=limit, remaining=max(limit - count, 0), reset=window.seconds_left())
    if count > limit:
        raise ApiError(
            ErrorCode.TOO_MANY_REQUESTS,
            f"More than {limit} calls a minute with this token.",
            headers={**result.headers(), "Retry-After": str(result.reset)},
        )
    return result


def _blocked(window: counters.Window) -> ApiError:
    return ApiError(
        ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS,
        "Too many calls with a rejected token from this address.",
        headers={"Retry-After": str(window.seconds_left())},
    )


def count_token_call(request, *, token_id: int) -> Usage:
    """One call of a token; raises 429 (10013) past the limit. Both ways of calling share the count."""
    window = _token_window(token_id)
    return _usage(counters.backend().increment(window.key, window.ttl), window)


def ensure_ip_not_blocked(request) -> None:
    """After too many rejected tokens from one address, that address waits out the window (10014)."""
    window = _failed_checks_window(request)
    if counters.backend().get(window.key) >= settings.FAILED_TOKEN_CHECKS_PER_IP:
        raise _blocked(window)


def count_failed_token_check(request) -> None:
    """Counts one refused token of the caller's address. The count and the check are one atomic step: a
    refusal past the limit raises 429 (10014) itself, so that calls racing past `ensure_ip_not_blocked`
    together still give exactly FAILED_TOKEN_CHECKS_PER_IP refusals (401) in a window, never more."""
    window = _failed_checks_window(request)
    if counters.backend().increment(window.key, window.ttl) > settings.FAILED_TOKEN_CHECKS_PER_IP:
        raise _blocked(window)


@dataclass(frozen=True)
class CallCheck:
    """`usage` when the call was counted; else `revision`, the current one, read before anything else."""

    revision: str
    usage: Usage | None


def check_call(request, *, token_id: int, revision_keys: list[str], holds: str) -> CallCheck:
    """In one round trip: 10014 when the address is blocked; else the current revision of `revision_keys`,
    and the token's call counted (10013 past the limit) when the caller `holds` that revision ('*': in any
    case; '': never, only read the revision)."""
    blocked, calls = _failed_checks_window(request), _token_window(token_id)
    found = counters.backend().check_and_count(
        blocked_key=blocked.key,
        block_at=settings.FAILED_TOKEN_CHECKS_PER_IP,
        counter_key=calls.key,
        counter_ttl=calls.ttl,
        revision_keys=revision_keys,
        holds=holds,
    )
    if found.outcome == counters.BLOCKED:
        raise _blocked(blocked)
    if found.outcome == counters.STALE:
        return CallCheck(found.revision, None)
    return CallCheck(found.revision, _usage(found.count, calls))
