"""Checking a username and password: one implementation for the website's login page and POST /login-checks.

Nothing is written by a check: no `last_login`, and no re-hashing of a password stored with an older hasher
(`django.contrib.auth.hashers.check_password` without a setter). Whether a username exists is never shown:
the reply is the same, a hasher runs exactly once either way, and every refusal counts: on the website in the
username's limit; in a login check in the username's limit for a member of the token's organization, else in the
token's (docs/decisions.md §3.19).
"""

import functools

from django.contrib.auth.hashers import check_password, get_hasher, is_password_usable, make_password
from django.db.models import Q
from django.utils.crypto import get_random_string

from accounts import login_limits
from accounts.models import Member, Organization, User
from accounts.usernames import lookup_key, normalize_username, username_skeleton


@functools.cache
def _dummy_hash(algorithm: str) -> str:
    """A hash made by the current default hasher, checked instead of a real one when there is none, so that an
    unknown username takes as long as a known one."""
    return make_password(get_random_string(32), hasher=algorithm)


def _find_login(username: str) -> User | None:
    """Usernames are unique in NFKC without regard to letter case, and so are their look-alike skeletons
    (docs/decisions.md §3.18): the login with this very username, else the one that looks like it (`1-adm` +
    dotless i + `n` finds `1-admin`). The username itself comes first for a login kept without a skeleton
    because it looked like an older one (migration 0013): it still logs in by its own name."""
    key = lookup_key(username)
    found = list(User.objects.filter(Q(username__lower=key) | Q(username_skeleton=username_skeleton(username)))[:2])
    return next((user for user in found if lookup_key(user.username) == key), found[0] if found else None)


def matching_login(*, username: str, password: str, organization: Organization | None = None) -> User | None:
    """The login with this username (any letter case, any Unicode compatibility form: full-width
    `1-erik` is `1-erik`; or one that looks like it: `1-ėrik`) and password, or None.

    None also for a login that is locked (`locked_login`) or deactivated, has no usable password, or, when
    `organization` is given, is not an active, unlocked member of it (a member who cannot log in to the
    club, as the Mobile API treats them). Does not count failures; see `verify_login`.
    """
    user = _find_login(username) if username else None
    usable = user is not None and is_password_usable(user.password)
    encoded = user.password if usable else _dummy_hash(get_hasher().algorithm)
    password_matches = check_password(password, encoded)
    if not (usable and password_matches):
        return None
    if user.locked_login or not user.is_active:
        return None
    member_of_org = Member.objects.filter(user=user, organization=organization, active=True, locked=False)
    if organization is not None and not member_of_org.exists():
        return None
    return user


def verify_login(request, *, username: str, password: str, address: str) -> User | None:
    """`matching_login` under the limits of failed logins (the website's login page, the Mobile sign-in's login
    page and the admin login): the username's, shared with login checks, and the client address's (`address`,
    as apicore.client_ip gives it).

    Raises ServiceError (400 10006 naming `username`) for a username that no login can have (invisible
    characters, mixed scripts: accounts.usernames); it does not count, as it guesses no password. Then raises
    login_limits.TooManyFailedLogins before the password is looked at when the address or the username is
    blocked; otherwise every refusal (unknown username included) counts as one failure of the username, in its
    NFKC form, and one of the address.
    """
    username = normalize_username(username)
    login_limits.ensure_address_not_blocked(request, address)
    login_limits.ensure_not_blocked(request, username)
    user = matching_login(username=username, password=password)
    if user is None:
        login_limits.count_failure(request, username)
        login_limits.count_address_failure(request, address)
    return user


def is_member_login(username: str, organization: Organization) -> bool:
    """Whether the username's login, or the one it looks like (§3.18), is an active member of the organization
    (locked or not): the usernames whose failed checks an organization may count."""
    same = Q(user__username__lower=lookup_key(username)) | Q(user__username_skeleton=username_skeleton(username))
    return Member.objects.filter(same, organization=organization, active=True).exists()


def verify_login_check(
    request, *, username: str, password: str, organization: Organization, checker: str
) -> User | None:
    """An organization's check of a login (POST /login-checks): `matching_login` for its members only.

    Raises ServiceError for a username no login can have (as `verify_login`), then
    login_limits.TooManyFailedLogins (of "checker") when the checker (the token) has used up its failed checks.
    A username that is no active member of the organization (another organization's member, a former member,
    an unknown username alike) is not valid and counts toward the checker only: another organization cannot
    use up a login's failed logins, nor learn that it is blocked. A member's username is checked under its own
    limit, shared with the login page. The hasher runs once either way.
    """
    username = normalize_username(username)
    login_limits.ensure_checker_not_blocked(request, checker)
    if not is_member_login(username, organization):
        check_password(password, _dummy_hash(get_hasher().algorithm))
        login_limits.count_checker_failure(request, checker)
        return None
    login_limits.ensure_not_blocked(request, username)
    user = matching_login(username=username, password=password, organization=organization)
    if user is None:
        login_limits.count_failure(request, username)
    return user
