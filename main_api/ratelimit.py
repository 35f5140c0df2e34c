"""The Main API's call limit: calls per token a minute (10013).

An authenticated call normally costs one round trip (`check_call`): the address check (apicore.ratelimit, 10014),
the revision of the caller's cached token row and the count, together.
"""

from dataclasses import dataclass

from django.conf import settings

from apicore import counters
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.ratelimit import Usage, blocked_error, failed_checks_window

TOKEN_CALLS = "main-token"


def _token_window(token_id: int) -> counters.Window:
    return counters.window(TOKEN_CALLS, str(token_id), 60)


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


def count_token_call(request, *, token_id: int) -> Usage:
    """One call of a token; raises 429 (10013) past the limit. Both ways of calling share the count."""
    window = _token_window(token_id)
    return _usage(counters.backend().increment(window.key, window.ttl), window)


@dataclass(frozen=True)
class CallCheck:
    """`usage` when the call was counted; else `revision`, the current one, read before anything else."""

    revision: str
    usage: Usage | None


def check_call(request, *, token_id: int, revision_keys: list[str], holds: str) -> CallCheck:
    """In one round trip: 10014 when the address is blocked; else the current revision of `revision_keys`,
    and the token's call counted (10013 past the limit) when the caller `holds` that revision ('*': in any
    case; '': never, only read the revision)."""
    blocked, calls = failed_checks_window(request), _token_window(token_id)
    found = counters.backend().check_and_count(
        blocked_key=blocked.key,
        block_at=settings.FAILED_TOKEN_CHECKS_PER_IP,
        counter_key=calls.key,
        counter_ttl=calls.ttl,
        revision_keys=revision_keys,
        holds=holds,
    )
    if found.outcome == counters.BLOCKED:
        raise blocked_error(blocked)
    if found.outcome == counters.STALE:
        return CallCheck(found.revision, None)
    return CallCheck(found.revision, _usage(found.count, calls))
