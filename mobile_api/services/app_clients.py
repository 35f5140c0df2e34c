"""Mobile API app clients (issue 10): made, changed, given a new key and revoked by support.

Each client owns a django-oauth-toolkit Application (authorization code flow) whose client secret is the key:
DOT keeps it only as a password hash, so the key is shown once, by the page that made or renewed it. Revoking
a client deletes every grant and token of its Application in the same transaction, so it stops at once.
"""

import re
from urllib.parse import urlsplit

from django.db import transaction
from django.utils.translation import gettext
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from accounts.models import Organization
from apicore import clock
from apicore.bearer import RIGHT_VALUES
from apicore.errors import ErrorCode, FieldProblem, ServiceError
from apicore.secrets import new_secret
from mobile_api.models import MOBILE_MODULES, AppClient

INVALID = ErrorCode.INVALID_FIELD.code
MAX_REDIRECT_URIS = 10
MAX_REDIRECT_URI_LENGTH = 500
# A custom scheme in reverse-domain form (RFC 8252 7.1): at least two labels joined by dots.
REVERSE_DOMAIN_SCHEME = re.compile(r"^[a-z][a-z0-9+-]*(\.[a-z0-9][a-z0-9+-]*)+$")
WHITESPACE = re.compile(r"\s")
# Plain http only to the device itself (RFC 8252 7.3, 8.3: a native app's loopback redirect; docs/decisions.md
# §9.3): the request never leaves the device, so nobody on the way can read the code.
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


def _refused(problems: list[FieldProblem]) -> ServiceError:
    return ServiceError(ErrorCode.INVALID_FIELD, errors=problems)


# --- the checks ---------------------------------------------------------------------------------------------


def redirect_uri_problem(text: str) -> str | None:
    """Why `text` cannot be a registered redirect address, or None when it can.

    Addresses are compared as exact strings (../shared/DECISIONS.md "Mobile sign-in"; docs/decisions.md §9.3
    "Redirect addresses"), so this only decides what may be
    registered: an https address with a host, the app's own scheme in reverse-domain form
    (`se.example.flyclub:/oauth`), or plain http to the device itself (`http://127.0.0.1:8400/cb`,
    `http://[::1]/cb`, `http://localhost/cb`: RFC 8252 7.3); never a fragment, userinfo or whitespace, never
    plain http to another host or a scheme such as javascript:, data: or file:.
    """
    if not isinstance(text, str) or not text:
        return gettext("The address is empty.")
    if len(text) > MAX_REDIRECT_URI_LENGTH:
        return gettext("The address may be at most %(count)s characters.") % {"count": MAX_REDIRECT_URI_LENGTH}
    if WHITESPACE.search(text) or not text.isprintable():
        return gettext("The address must not contain spaces or control characters.")
    if "#" in text:
        return gettext("The address must not have a fragment (#).")
    scheme, _, rest = text.partition(":")
    if not rest:
        return gettext("The address has no scheme.")
    if scheme in ("https", "http"):
        try:
            parts = urlsplit(text)
            parts.port  # noqa: B018 - raises ValueError for a port that is no number
        except ValueError:
            return gettext("The address is not a valid URL.")
        if not rest.startswith("//") or not parts.hostname:
            return gettext("The address has no host.")
        if "@" in parts.netloc:
            return gettext("The address must not carry a user name or password.")
        if scheme == "http" and parts.hostname not in LOOPBACK_HOSTS:
            return gettext("Plain http is allowed only to the device itself (127.0.0.1, [::1], localhost): use https.")
        return None
    if REVERSE_DOMAIN_SCHEME.match(scheme):
        return None
    if scheme.lower() == "http":
        return gettext("Plain http is allowed only to the device itself (127.0.0.1, [::1], localhost): use https.")
    return gettext(
        "The address must begin with https:// or with the app's own scheme in reverse-domain form, such as "
        "com.example.app:/callback."
    )


def redirect_uris_problems(uris: list[str]) -> list[FieldProblem]:
    """Every problem of a list of redirect addresses: each address, duplicates, and their number."""
    if not isinstance(uris, list):
        return [FieldProblem("redirect_uris", INVALID, gettext("The redirect addresses must be a list."))]
    problems = []
    if len(uris) > MAX_REDIRECT_URIS:
        message = gettext("At most %(count)s redirect addresses.") % {"count": MAX_REDIRECT_URIS}
        problems.append(FieldProblem("redirect_uris", INVALID, message))
    seen = set()
    for index, uri in enumerate(uris):
        field = f"redirect_uris[{index}]"
        problem = redirect_uri_problem(uri)
        if problem is None and uri in seen:
            problem = gettext("The address is listed twice.")
        if problem is not None:
            problems.append(FieldProblem(field, INVALID, f"{uri}: {problem}" if isinstance(uri, str) else problem))
        seen.add(uri)
    return problems


def app_client_rights_problems(rights: dict) -> list[FieldProblem]:
    if not isinstance(rights, dict):
        return [FieldProblem("rights", INVALID, gettext("The rights must name modules."))]
    problems = []
    for module, right in rights.items():
        if module not in MOBILE_MODULES:
            message = gettext("Unknown module %(module)s.") % {"module": module}
            problems.append(FieldProblem("rights", INVALID, message))
        elif right not in ("", None, *RIGHT_VALUES):
            message = gettext("The right of %(module)s must be r, w or rw.") % {"module": module}
            problems.append(FieldProblem(f"rights.{module}", INVALID, message))
    return problems


def _clean_rights(rights: dict) -> dict[str, str]:
    return {module: rights[module] for module in MOBILE_MODULES if rights.get(module)}


def _check(*, rights: dict, redirect_uris: list[str], rate_limit_per_minute: int | None) -> None:
    problems = app_client_rights_problems(rights) + redirect_uris_problems(redirect_uris)
    limit = rate_limit_per_minute
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        message = gettext("The limit must be a whole number of at least 1, or empty for the default.")
        problems.append(FieldProblem("rate_limit_per_minute", INVALID, message))
    if problems:
        raise _refused(problems)


def _not_revoked(client: AppClient) -> None:
    if client.revoked:
        raise ServiceError(ErrorCode.INVALID_FIELD, gettext("The client is revoked; nothing of it can change."))


# --- the writes ---------------------------------------------------------------------------------------------


@transaction.atomic
def app_client_create(
    *,
    name: str,
    app_name: str,
    developer_contact: str = "",
    rights: dict[str, str],
    organizations: list[Organization],
    redirect_uris: list[str],
    confidential: bool,
    rate_limit_per_minute: int | None = None,
) -> tuple[AppClient, str | None]:
    """Make a client; returns it with its key (None for a public client), shown once and stored only hashed.

    A public client gets a random key that nobody is told: DOT wants one, and it can never be used.
    """
    _check(rights=rights, redirect_uris=redirect_uris, rate_limit_per_minute=rate_limit_per_minute)
    key = new_secret()
    application = get_application_model().objects.create(
        name=app_name[:255],
        client_secret=key,  # hashed by DOT on save (hash_client_secret)
        hash_client_secret=True,
        client_type="confidential" if confidential else "public",
        authorization_grant_type="authorization-code",
        redirect_uris=" ".join(redirect_uris),
        algorithm="",
        skip_authorization=False,
    )
    client = AppClient.objects.create(
        name=name,
        app_name=app_name,
        developer_contact=developer_contact or "",
        rights=_clean_rights(rights),
        redirect_uris=list(redirect_uris),
        confidential=confidential,
        rate_limit_per_minute=rate_limit_per_minute,
        application=application,
    )
    client.organizations.set(organizations)
    return client, key if confidential else None


@transaction.atomic
def app_client_update(
    *,
    client: AppClient,
    name: str,
    app_name: str,
    developer_contact: str = "",
    rights: dict[str, str],
    organizations: list[Organization],
    redirect_uris: list[str],
    rate_limit_per_minute: int | None = None,
) -> AppClient:
    """Change everything but the kind (public or confidential: a kind of its own is another client).

    A removed redirect address or organization applies to the next sign-in; logins already made stay.
    """
    _not_revoked(client)
    _check(rights=rights, redirect_uris=redirect_uris, rate_limit_per_minute=rate_limit_per_minute)
    client.name = name
    client.app_name = app_name
    client.developer_contact = developer_contact or ""
    client.rights = _clean_rights(rights)
    client.redirect_uris = list(redirect_uris)
    client.rate_limit_per_minute = rate_limit_per_minute
    client.save()
    client.organizations.set(organizations)
    application = client.application
    application.name = app_name[:255]
    application.redirect_uris = " ".join(redirect_uris)
    application.save(update_fields=["name", "redirect_uris", "updated"])
    return client


@transaction.atomic
def app_client_key_renew(*, client: AppClient) -> str:
    """A new key for a confidential client; the old one stops at once, and so do the access tokens the app got
    for itself with it (client credentials). Members' logins stay: renewing them needs the new key."""
    _not_revoked(client)
    if not client.confidential:
        raise ServiceError(ErrorCode.INVALID_FIELD, gettext("A public client has no key."))
    key = new_secret()
    application = client.application
    application.client_secret = key
    application.hash_client_secret = True
    application.save(update_fields=["client_secret", "hash_client_secret", "updated"])
    get_access_token_model().objects.filter(application=application, user__isnull=True).delete()
    return key


@transaction.atomic
def app_client_revoke(*, client: AppClient) -> AppClient:
    """Stop a client at once and for good: every grant, access, refresh and ID token of it is deleted, and its
    Application can no longer be signed in to (no redirect address, a key nobody knows)."""
    from mobile_api.services.logins import mobile_logins_end_for_client

    application = client.application
    mobile_logins_end_for_client(app_client=client)
    get_grant_model().objects.filter(application=application).delete()
    get_refresh_token_model().objects.filter(application=application).delete()
    get_access_token_model().objects.filter(application=application).delete()
    get_id_token_model().objects.filter(application=application).delete()
    application.redirect_uris = ""
    application.client_secret = new_secret()
    application.hash_client_secret = True
    application.save(update_fields=["redirect_uris", "client_secret", "hash_client_secret", "updated"])
    if client.revoked_at is None:
        client.revoked_at = clock.now()
        client.save(update_fields=["revoked_at"])
    return client
