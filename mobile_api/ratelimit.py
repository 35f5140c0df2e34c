"""The Mobile API's call limits (document 2, Limits): per member login (MOBILE_LOGIN_CALLS_PER_MINUTE, 120)
and per app client over all its members (the client's own limit, else MOBILE_CLIENT_CALLS_PER_MINUTE, 600).

Both count every call, on apicore.counters' windows in the shared cache, as the Main API's do. The reply
carries the RateLimit-* headers of the limit with fewer calls left; past either limit the call is 429 (10013)
with Retry-After (the longer wait when both are past). An API call is counted in the same round trip that
checks the caller's cached rows (mobile_api.auth, `limits_of` and `usage_of`); the OAuth token endpoint
counts the client's calls with `count_client_call`.
"""

from dataclasses import dataclass

from django.conf import settings

from apicore import counters
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.ratelimit import Usage

LOGIN_CALLS = "mobile-login"
CLIENT_CALLS = "mobile-client"
PERIOD = 60


@dataclass(frozen=True)
class Limit:
    """One limit a call counts against: its window, the calls it allows, and whose it is (for the message)."""

    window: counters.Window
    calls: int
    who: str


def limits_of(caller) -> list[Limit]:
    """The limits a call of this caller counts against: the login's (a member's token) and the app's."""
    client = caller.client
    found = [Limit(counters.window(CLIENT_CALLS, str(client.pk), PERIOD), client.calls_per_minute, "app")]
    if caller.login is not None:
        login = Limit(
            counters.window(LOGIN_CALLS, str(caller.login.pk), PERIOD), settings.MOBILE_LOGIN_CALLS_PER_MINUTE, "login"
        )
        found.insert(0, login)
    return found


def counted(limits: list[Limit]) -> list[tuple[str, int]]:
    """The counters of `limits` as apicore.counters takes them (key, lifetime)."""
    return [(limit.window.key, limit.window.ttl) for limit in limits]


def usage_of(limits: list[Limit], counts) -> Usage:
    """The usage after these counts: the limit with fewer calls left; 429 (10013) when any is past."""
    usages = [
        (
            Usage(limit=limit.calls, remaining=max(limit.calls - count, 0), reset=limit.window.seconds_left()),
            count > limit.calls,
            limit.who,
        )
        for limit, count in zip(limits, counts, strict=True)
    ]
    past = [(usage, who) for usage, over, who in usages if over]
    if past:
        # The wait until every limit passed has room again, with the headers of that limit.
        shown, who = max(past, key=lambda entry: entry[0].reset)
        raise _refused(shown, shown.reset, f"More than {shown.limit} calls a minute by this {who}.")
    return min((usage for usage, _over, _who in usages), key=lambda usage: usage.remaining)


def count_call(caller) -> Usage:
    """One call of this caller, counted in every limit at once (one round trip)."""
    limits = limits_of(caller)
    found = counters.backend().check_and_count_each(revision_keys=[], holds="*", counters=counted(limits))
    return usage_of(limits, found.counts)


def _refused(usage: Usage, retry_after: int, message: str) -> ApiError:
    return ApiError(ErrorCode.TOO_MANY_REQUESTS, message, headers={**usage.headers(), "Retry-After": str(retry_after)})


def count_client_call(request, app_client) -> Usage:
    """One call of the app client (the OAuth token endpoint); 429 (10013) past its limit."""
    window = counters.window(CLIENT_CALLS, str(app_client.pk), PERIOD)
    count = counters.backend().increment(window.key, window.ttl)
    usage = Usage(
        limit=app_client.calls_per_minute,
        remaining=max(app_client.calls_per_minute - count, 0),
        reset=window.seconds_left(),
    )
    if count > usage.limit:
        raise _refused(usage, usage.reset, f"More than {usage.limit} calls a minute by this app.")
    return usage
