"""Limits that every API shares: failed token checks per address (10014), and the usage headers of a
call limit (each API counts its own calls: main_api.ratelimit, mobile_api.ratelimit). The counters are
apicore.counters' windows in the shared cache (Redis in production). The login limits (accounts.login_limits)
stay on django-ratelimit: they are not on the hot path.
"""

from dataclasses import dataclass

from django.conf import settings

from apicore import counters
from apicore.client_ip import client_ip
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError

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


def failed_checks_window(request) -> counters.Window:
    return counters.window(FAILED_CHECKS, client_ip(request), settings.FAILED_TOKEN_CHECKS_WINDOW_SECONDS)


def blocked_error(window: counters.Window) -> ApiError:
    return ApiError(
        ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS,
        "Too many calls with a rejected token from this address.",
        headers={"Retry-After": str(window.seconds_left())},
    )


def ensure_ip_not_blocked(request) -> None:
    """After too many rejected tokens from one address, that address waits out the window (10014)."""
    window = failed_checks_window(request)
    if counters.backend().get(window.key) >= settings.FAILED_TOKEN_CHECKS_PER_IP:
        raise blocked_error(window)


def count_failed_token_check(request) -> None:
    """Counts one refused token of the caller's address. The count and the check are one atomic step: a
    refusal past the limit raises 429 (10014) itself, so that calls racing past `ensure_ip_not_blocked`
    together still give exactly FAILED_TOKEN_CHECKS_PER_IP refusals (401) in a window, never more."""
    window = failed_checks_window(request)
    if counters.backend().increment(window.key, window.ttl) > settings.FAILED_TOKEN_CHECKS_PER_IP:
        raise blocked_error(window)
