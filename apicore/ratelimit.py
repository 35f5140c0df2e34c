"""Counters in the shared cache (Redis in production), through django-ratelimit's atomic windows."""

from dataclasses import dataclass

from django.conf import settings
from django_ratelimit.core import get_usage

from .client_ip import client_ip
from .errors import ErrorCode
from .exceptions import ApiError


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


def _usage(request, *, group: str, key: str, rate: str, increment: bool) -> dict:
    return get_usage(request, group=group, key=lambda _group, _request: key, rate=rate, increment=increment)


def _seconds_to_reset(usage: dict) -> int:
    """Whole seconds until the count restarts.

    django-ratelimit's `time_left` is the window's last whole second minus the current one: the window still
    holds at `time_left` seconds from now and restarts one second later. Waiting `Retry-After` must be enough.
    """
    return max(int(usage["time_left"]), 0) + 1


def count_token_call(request, *, token_id: int) -> Usage:
    """One call of a token; raises 429 (10013) past the limit. Both ways of calling share the count."""
    limit = settings.MAIN_API_CALLS_PER_MINUTE
    usage = _usage(request, group="main-token", key=str(token_id), rate=f"{limit}/m", increment=True)
    reset = _seconds_to_reset(usage)
    result = Usage(limit=limit, remaining=max(limit - usage["count"], 0), reset=reset)
    if usage["should_limit"]:
        raise ApiError(
            ErrorCode.TOO_MANY_REQUESTS,
            f"More than {limit} calls a minute with this token.",
            headers={**result.headers(), "Retry-After": str(reset)},
        )
    return result


def _failed_checks_rate() -> str:
    return f"{settings.FAILED_TOKEN_CHECKS_PER_IP}/{settings.FAILED_TOKEN_CHECKS_WINDOW_SECONDS}s"


def ensure_ip_not_blocked(request) -> None:
    """After too many rejected tokens from one address, that address waits out the window (10014)."""
    usage = _usage(
        request, group="failed-token-checks", key=client_ip(request), rate=_failed_checks_rate(), increment=False
    )
    if usage["count"] >= settings.FAILED_TOKEN_CHECKS_PER_IP:
        raise ApiError(
            ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS,
            "Too many calls with a rejected token from this address.",
            headers={"Retry-After": str(_seconds_to_reset(usage))},
        )


def count_failed_token_check(request) -> None:
    _usage(request, group="failed-token-checks", key=client_ip(request), rate=_failed_checks_rate(), increment=True)
