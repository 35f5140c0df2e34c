"""The counts of failed logins (../shared/DECISIONS.md "Limits that the contract leaves open"; docs/decisions.md
§3.17 "Failed logins", §3.19 "Login checks of other organizations' usernames").

- Per username, shared by the website's login page, the admin login and POST /login-checks (for a member of the
  token's organization): 5 failed logins in 15 minutes, and the username is refused (429 10012 in the API, a
  429 page on the website) for the rest of the window, whatever the password.
- Per checker (a Main API token): 20 failed login checks of usernames that are no member of its organization in
  10 minutes, and that token's checks are refused (429 10012) for the rest of the window.
- Per client address (given by the interface: apicore.client_ip, X-Forwarded-For only from TRUSTED_PROXIES): 30
  failed logins on the
  website's login page (the Mobile sign-in's too) and the admin login in 15 minutes, whatever the usernames;
  the address is refused (a 429 page with Retry-After) for the rest of the window (docs/decisions.md §3.20).

Counters live in Django's cache through django-ratelimit's atomic windows, as the API's token limits do
(apicore/ratelimit.py).
"""

from django.conf import settings
from django_ratelimit.core import get_usage

from accounts.usernames import username_skeleton

GROUP = "failed-logins"
CHECKER_GROUP = "failed-login-checks"
ADDRESS_GROUP = "failed-logins-by-address"


def limit() -> int:
    return getattr(settings, "FAILED_LOGINS_PER_USERNAME", 5)


def window_seconds() -> int:
    return getattr(settings, "FAILED_LOGINS_WINDOW_SECONDS", 15 * 60)


def checker_limit() -> int:
    return getattr(settings, "FAILED_LOGIN_CHECKS_PER_TOKEN", 20)


def checker_window_seconds() -> int:
    return getattr(settings, "FAILED_LOGIN_CHECKS_WINDOW_SECONDS", 10 * 60)


def address_limit() -> int:
    return getattr(settings, "FAILED_LOGINS_PER_ADDRESS", 30)


def address_window_seconds() -> int:
    return getattr(settings, "FAILED_LOGINS_PER_ADDRESS_WINDOW_SECONDS", 15 * 60)


class TooManyFailedLogins(Exception):
    """A count has reached its limit; `retry_after` is the whole seconds left in the window, `of` what was
    counted: "username", "checker" or "address"."""

    def __init__(self, retry_after: int, of: str = "username"):
        super().__init__(f"Too many failed logins; retry after {retry_after} seconds.")
        self.retry_after = retry_after
        self.of = of


def username_key(username: str) -> str:
    """Usernames are compared in NFKC without regard to letter case, and look-alikes are one username, so
    they are counted that way too: `1-erik` in full-width letters, `1-ERIK`, `1-ėrik` and `1-erik` share one
    count (a look-alike logs in to the same login, so it must not bring more tries)."""
    return username_skeleton(username)


def _usage(request, username: str, *, increment: bool) -> dict:
    return _count(request, GROUP, username_key(username), limit(), window_seconds(), increment=increment)


def _count(request, group: str, key: str, allowed: int, window: int, *, increment: bool) -> dict:
    rate = f"{allowed}/{window}s"
    return get_usage(request, group=group, key=lambda _group, _request: key, rate=rate, increment=increment)


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


def ensure_checker_not_blocked(request, checker: str) -> None:
    """Raises TooManyFailedLogins (of "checker") when the checker (a Main API token, by a key of the caller's
    choosing) has reached its failed checks of other organizations' or unknown usernames in this window."""
    usage = _count(request, CHECKER_GROUP, checker, checker_limit(), checker_window_seconds(), increment=False)
    if usage is not None and usage["count"] >= checker_limit():
        raise TooManyFailedLogins(_seconds_to_reset(usage), of="checker")


def count_checker_failure(request, checker: str) -> None:
    _count(request, CHECKER_GROUP, checker, checker_limit(), checker_window_seconds(), increment=True)


def _address_key(address: str) -> str:
    return f"ip:{address}"


def ensure_address_not_blocked(request, address: str) -> None:
    """Raises TooManyFailedLogins (of "address") when the client's address has reached its failed logins in
    this window, whatever the usernames tried."""
    usage = _count(
        request, ADDRESS_GROUP, _address_key(address), address_limit(), address_window_seconds(), increment=False
    )
    if usage is not None and usage["count"] >= address_limit():
        raise TooManyFailedLogins(_seconds_to_reset(usage), of="address")


def count_address_failure(request, address: str) -> None:
    _count(request, ADDRESS_GROUP, _address_key(address), address_limit(), address_window_seconds(), increment=True)
