"""The one count of failed logins per username, shared by the website's login page and POST /login-checks.

../shared/DECISIONS.md "Limits that the contract leaves open" (docs/decisions.md §3.17 "Failed logins"): 5 failed
logins for a username in 15 minutes, and the
username is refused (429 10012 in the API, a 429 page on the website) for the rest of the window, whatever
the password. Counters live in Django's cache through django-ratelimit's atomic windows, as the API's token
limits do (apicore/ratelimit.py).
"""

from django.conf import settings
from django_ratelimit.core import get_usage

from accounts.usernames import username_skeleton

GROUP = "failed-logins"


def limit() -> int:
    return getattr(settings, "FAILED_LOGINS_PER_USERNAME", 5)


def window_seconds() -> int:
    return getattr(settings, "FAILED_LOGINS_WINDOW_SECONDS", 15 * 60)


class TooManyFailedLogins(Exception):
    """The username has used up its failed logins; `retry_after` is the whole seconds left in the window."""

    def __init__(self, retry_after: int):
        super().__init__(f"Too many failed logins; retry after {retry_after} seconds.")
        self.retry_after = retry_after


def username_key(username: str) -> str:
    """Usernames are compared in NFKC without regard to letter case, and look-alikes are one username, so
    they are counted that way too: `1-erik` in full-width letters, `1-ERIK`, `1-ėrik` and `1-erik` share one
    count (a look-alike logs in to the same login, so it must not bring more tries)."""
    return username_skeleton(username)


def _usage(request, username: str, *, increment: bool) -> dict:
    key = username_key(username)
    rate = f"{limit()}/{window_seconds()}s"
    return get_usage(request, group=GROUP, key=lambda _group, _request: key, rate=rate, increment=increment)


def _seconds_to_reset(usage: dict) -> int:
    """Whole seconds until the count restarts (as apicore.ratelimit: the window still holds `time_left`
    seconds from now and restarts one second later, so waiting `Retry-After` is always enough)."""
    return max(int(usage["time_left"]), 0) + 1


def ensure_not_blocked(request, username: str) -> None:
    """Raises TooManyFailedLogins when the username's failures have reached the limit in this window.

    Called before the password is looked at: once blocked, a right password is refused too, and the
    refused attempt is not counted again.
    """
    usage = _usage(request, username, increment=False)
    if usage is not None and usage["count"] >= limit():
        raise TooManyFailedLogins(_seconds_to_reset(usage))


def count_failure(request, username: str) -> None:
    _usage(request, username, increment=True)
