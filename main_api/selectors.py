"""Reads of the Main API's tokens: the token behind a credential or a client id, with what a call needs."""

import re

from django.db.models import (
    Exists,
    OuterRef,
    QuerySet,
)

from accounts.models import MemberRole, Role
from apicore import clock
from main_api.models import ApiToken
from main_api.token_lookup import TokenRow, find_token_row

CLIENT_ID_FORM = re.compile(r"[0-9]{1,18}")


def _tokens_with_owner_admin_flag() -> QuerySet[ApiToken]:
    owner_is_admin = MemberRole.objects.filter(
        member__user_id=OuterRef("owner_id"),
        member__organization_id=OuterRef("organization_id"),
        role=Role.ADMIN,
    )
    return ApiToken.objects.select_related("organization", "owner").annotate(owner_is_admin=Exists(owner_is_admin))


def _one(queryset: QuerySet[ApiToken]) -> ApiToken | None:
    # The lookups hit unique columns: no ORDER BY (first() would sort by the model's ordering, with a join).
    return next(iter(queryset.order_by()[:1]), None)


def api_token_for_credential(*, credential_hash: str) -> TokenRow | None:
    """The token behind a Bearer credential (the SHA-256 of a live OAuth access token, or of the token's own
    secret), with its organization, its owner's name and `owner_is_admin`, in one query."""
    return find_token_row(credential_hash=credential_hash, now=clock.now())


def api_token_for_client_id(*, client_id: str) -> ApiToken | None:
    # ASCII digits only: str.isdigit() also takes full-width digits, and int() would read them.
    if not CLIENT_ID_FORM.fullmatch(client_id):
        return None
    return _one(_tokens_with_owner_admin_flag().select_related("application").filter(client_id=int(client_id)))
