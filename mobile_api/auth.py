"""Mobile API v5 authentication (document 2, Authentication): `Authorization: Bearer <access token>`.

Before anything else the caller's address is checked against the block list (403 10003, no query). The
access token is django-oauth-toolkit's row, found by the SHA-256 of the credential (tokens are kept hashed)
with its Application, app client and refresh token in one query; a member's token also needs its login
(MobileLogin, by the refresh token's family) with the member, login and organization: a second query.

Accepted: not expired; an Application that is an app client's (a Main API token's never is), not revoked;
for a member's token a login of that client that has not ended, an active member and an active login (user).
Anything else is 401 10001 with `WWW-Authenticate: Bearer error="invalid_token"`. The app's own token
(client credentials: no user, no refresh token) is accepted here; the endpoints other than GET /client
refuse it (403 10305, flavour_mobile_v5). Every accepted call is counted (mobile_api.ratelimit).
"""

import hashlib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ObjectDoesNotExist
from oauth2_provider.models import get_access_token_model
from rest_framework.authentication import BaseAuthentication

from accounts.models import Member
from apicore import clock
from apicore.bearer import INVALID_TOKEN_CHALLENGE, bearer_credential
from apicore.client_ip import client_ip
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from mobile_api import ratelimit as mobile_ratelimit
from mobile_api.blocked_addresses import address_blocked
from mobile_api.models import AppClient, MobileLogin


@dataclass(frozen=True)
class MobileCaller:
    """`request.auth` of the Mobile API: the app client, and for a member's token its login and member."""

    client: AppClient
    login: MobileLogin | None
    member: Member | None
    access_token: Any

    @property
    def is_member(self) -> bool:
        return self.login is not None

    def allows(self, module: str, right: str) -> bool:
        return self.client.allows(module, right)


def refused() -> ApiError:
    return ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": INVALID_TOKEN_CHALLENGE})


def ensure_address_not_blocked(request) -> None:
    if address_blocked(client_ip(request)):
        raise ApiError(ErrorCode.ADDRESS_BLOCKED, "Calls from this address are not accepted.")


def _access_token(credential: str):
    checksum = hashlib.sha256(credential.encode("utf-8")).hexdigest()
    rows = get_access_token_model().objects.select_related("application__app_client", "refresh_token")
    return next(iter(rows.filter(token_checksum=checksum).order_by()[:1]), None)


def _client_of(token) -> AppClient | None:
    try:
        client = token.application.app_client
    except (ObjectDoesNotExist, AttributeError):
        return None  # no application, or a Main API token's
    return None if client.revoked else client


def _refresh_token_of(token):
    try:
        return token.refresh_token
    except ObjectDoesNotExist:
        return None


def _login_of(token, client: AppClient) -> MobileLogin | None:
    """The member's login the token belongs to, when it still works."""
    refresh = _refresh_token_of(token)
    if refresh is None or refresh.token_family is None or refresh.revoked is not None:
        return None
    logins = MobileLogin.objects.select_related("member__user", "member__organization").order_by()
    login = next(iter(logins.filter(token_family=refresh.token_family)[:1]), None)
    if login is None or login.ended or login.app_client_id != client.pk:
        return None
    member = login.member
    if not member.active or not member.user.is_active or member.user.locked_login or member.user_id != token.user_id:
        return None
    return login


def caller_for_credential(credential: str) -> MobileCaller | None:
    """The caller behind an access token, or None when it is not accepted (see the module's text)."""
    token = _access_token(credential)
    if token is None or token.expires <= clock.now():
        return None
    client = _client_of(token)
    if client is None:
        return None
    if token.user_id is None:
        # The app's own token: client credentials give no refresh token.
        if _refresh_token_of(token) is not None:
            return None
        return MobileCaller(client=client, login=None, member=None, access_token=token)
    login = _login_of(token, client)
    if login is None:
        return None
    return MobileCaller(client=client, login=login, member=login.member, access_token=token)


class MobileTokenAuthentication(BaseAuthentication):
    """Leaves `request.mobile_caller` (also `request.auth`), the member's organization and the rate usage."""

    def authenticate(self, request):
        ensure_address_not_blocked(request)
        credential = bearer_credential(request.headers.get("Authorization", ""))
        if credential is None:
            return None  # 401 with `WWW-Authenticate: Bearer` (the flavour's not_authenticated)
        caller = caller_for_credential(credential)
        if caller is None:
            raise refused()
        if caller.is_member:
            usage = mobile_ratelimit.count_member_call(request, login_id=caller.login.pk, app_client=caller.client)
        else:
            usage = mobile_ratelimit.count_client_call(request, caller.client)
        request._request.ratelimit_usage = usage
        request.mobile_caller = caller
        request.organization = caller.member.organization if caller.member is not None else None
        user = caller.member.user if caller.member is not None else AnonymousUser()
        return (user, caller)

    def authenticate_header(self, request):
        return "Bearer"
