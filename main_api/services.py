"""Writes on the Main API's tokens: create, change rights and addresses, delete."""

import secrets

from django.db import transaction
from oauth2_provider.models import get_application_model

from accounts.models import Organization, User
from apicore.bearer import RIGHT_VALUES
from apicore.secrets import new_secret, secret_hash
from main_api.models import MODULES, ApiToken


class InvalidRights(ValueError):
    pass


def _clean_rights(rights: dict[str, str]) -> dict[str, str]:
    cleaned = {}
    for module, right in rights.items():
        if module not in MODULES:
            raise InvalidRights(f"Unknown module {module!r}.")
        if right in ("", None):
            continue
        if right not in RIGHT_VALUES:
            raise InvalidRights(f"The right of {module} must be r, w or rw.")
        cleaned[module] = right
    return {module: cleaned[module] for module in MODULES if module in cleaned}


def api_token_check_rights(*, rights: dict[str, str], token: ApiToken | None = None) -> dict[str, str]:
    """The rights as they would be stored, or InvalidRights.

    An existing token cannot gain `users_sensitive` (document 1, Authentication 1: a token gets it only by
    being replaced with a new one); it may keep or lose it.
    """
    cleaned = _clean_rights(rights)
    if token is not None:
        had = set(token.rights.get("users_sensitive", ""))
        if set(cleaned.get("users_sensitive", "")) - had:
            raise InvalidRights("An existing token cannot get the users_sensitive right: create a new token.")
    return cleaned


def _new_client_id() -> int:
    while True:
        candidate = 100_000_000 + secrets.randbelow(900_000_000)
        if not ApiToken.objects.filter(client_id=candidate).exists():
            return candidate


@transaction.atomic
def api_token_create(
    *,
    organization: Organization,
    owner: User,
    description: str,
    rights: dict[str, str],
    allowed_ips: list[str] | None = None,
    client_id: int | None = None,
    secret: str | None = None,
) -> tuple[ApiToken, str]:
    """Create a token; returns it with its secret, which is shown once and never stored.

    `client_id` and `secret` are given only by the demo world, to stay the same from run to run.
    """
    secret = secret or new_secret()
    client_id = client_id or _new_client_id()
    application = get_application_model().objects.create(
        name=f"API token {client_id}",
        client_id=str(client_id),
        # Never used: the token is checked against its own hash (main_api.oauth); DOT wants a value.
        client_secret=new_secret(),
        hash_client_secret=False,
        client_type="confidential",
        authorization_grant_type="client-credentials",
    )
    token = ApiToken.objects.create(
        organization=organization,
        owner=owner,
        description=description,
        rights=_clean_rights(rights),
        allowed_ips=list(allowed_ips or []),
        client_id=client_id,
        secret_hash=secret_hash(secret),
        application=application,
    )
    return token, secret


@transaction.atomic
def api_token_update(*, token: ApiToken, description: str, rights: dict[str, str], allowed_ips: list[str]) -> ApiToken:
    token.description = description
    token.rights = api_token_check_rights(rights=rights, token=token)
    token.allowed_ips = list(allowed_ips)
    token.save(update_fields=["description", "rights", "allowed_ips"])
    return token


@transaction.atomic
def api_token_delete(*, token: ApiToken) -> None:
    """Deleting the OAuth client takes the token and every access token issued to it along."""
    token.application.delete()
