"""The Mobile API's call limits (document 2, Limits): per member login (MOBILE_LOGIN_CALLS_PER_MINUTE, 120)
and per app client over all its members (the client's own limit, else MOBILE_CLIENT_CALLS_PER_MINUTE, 600).

Both count every call, on apicore.counters' windows in the shared cache, as the Main API's do. The reply
carries the RateLimit-* headers of the limit with fewer calls left; past either limit the call is 429 (10013)
with Retry-After (the longer wait when both are past). The OAuth token endpoint counts the client's calls
with `count_client_call`.
"""

from django.conf import settings

from apicore import counters
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.ratelimit import Usage

LOGIN_CALLS = "mobile-login"
CLIENT_CALLS = "mobile-client"
PERIOD = 60


def _count(group: str, ident: int, limit: int) -> tuple[Usage, bool]:
    """One call in the window of `ident`: its usage, and whether it is past the limit."""
    window = counters.window(group, str(ident), PERIOD)
    count = counters.backend().increment(window.key, window.ttl)
    return Usage(limit=limit, remaining=max(limit - count, 0), reset=window.seconds_left()), count > limit


def _refused(usage: Usage, retry_after: int, message: str) -> ApiError:
    return ApiError(ErrorCode.TOO_MANY_REQUESTS, message, headers={**usage.headers(), "Retry-After": str(retry_after)})


def count_client_call(request, app_client) -> Usage:
    """One call of the app client (its own token, or the OAuth token endpoint); 429 (10013) past its limit."""
    usage, over = _count(CLIENT_CALLS, app_client.pk, app_client.calls_per_minute)
    if over:
        raise _refused(usage, usage.reset, f"More than {usage.limit} calls a minute by this app.")
    return usage


def count_member_call(request, *, login_id: int, app_client) -> Usage:
    """One call with a member's token: counted for the login and for the client, both always. The usage of
    the one with fewer calls left; 429 (10013) when either is past its limit."""
    login_limit = settings.MOBILE_LOGIN_CALLS_PER_MINUTE
    login, login_over = _count(LOGIN_CALLS, login_id, login_limit)
    client, client_over = _count(CLIENT_CALLS, app_client.pk, app_client.calls_per_minute)
    usage = login if login.remaining <= client.remaining else client
    past = [(found, who) for found, over, who in ((login, login_over, "login"), (client, client_over, "app")) if over]
    if past:
        # The wait until every limit passed has room again, with the headers of that limit.
        shown, who = max(past, key=lambda entry: entry[0].reset)
        raise _refused(shown, shown.reset, f"More than {shown.limit} calls a minute by this {who}.")
    return usage
