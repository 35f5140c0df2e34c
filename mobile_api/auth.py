"""Mobile API v5 authentication (document 2, Authentication): `Authorization: Bearer <access token>`.

Before anything else the caller's address is checked against the block list (403 10003). The access token is
django-oauth-toolkit's row, found by the SHA-256 of the credential (tokens are kept hashed) with its
Application, app client and refresh token in one query; a member's token also needs its login (MobileLogin,
by the refresh token's family) with the member, login and organization: a second query.

Accepted: not expired; an Application that is an app client's (a Main API token's never is), not revoked;
for a member's token a login of that client that has not ended, an active member and an active login (user).
Anything else is 401 10001 with `WWW-Authenticate: Bearer error="invalid_token"`. The app's own token
(client credentials: no user, no refresh token) is accepted here; the endpoints other than GET /client
refuse it (403 10305, flavour_mobile_v5). Every accepted call is counted (mobile_api.ratelimit).

The hot path of every call: a process that has seen the credential before holds its rows
(mobile_api.caller_cache) and its copy of the block list (mobile_api.blocked_addresses), and checks both in
one round trip to the shared cache that also counts the call: no query. Otherwise (the first calls, or
something the rows hold changed) the two queries above, and the count in a second round trip.
"""

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ObjectDoesNotExist
from oauth2_provider.models import get_access_token_model
from rest_framework.authentication import BaseAuthentication

from apicore import clock, counters
from apicore.bearer import INVALID_TOKEN_CHALLENGE, bearer_credential
from apicore.client_ip import client_ip
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.secrets import secret_hash
from mobile_api import blocked_addresses, caller_cache
from mobile_api import ratelimit as mobile_ratelimit
from mobile_api.caller import MobileCaller
from mobile_api.models import AppClient, MobileLogin

__all__ = ["MobileCaller", "MobileTokenAuthentication", "caller_for_credential"]


def refused() -> ApiError:
    return ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": INVALID_TOKEN_CHALLENGE})


def _blocked() -> ApiError:
    return ApiError(ErrorCode.ADDRESS_BLOCKED, "Calls from this address are not accepted.")


def ensure_address_not_blocked(request) -> None:
    if blocked_addresses.address_blocked(client_ip(request)):
        raise _blocked()


def _access_token(checksum: str):
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
    return caller_for_checksum(secret_hash(credential))


def caller_for_checksum(checksum: str) -> MobileCaller | None:
    token = _access_token(checksum)
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
        credential = bearer_credential(request.headers.get("Authorization", ""))
        if credential is None:
            ensure_address_not_blocked(request)
            return None  # 401 with `WWW-Authenticate: Bearer` (the flavour's not_authenticated)
        key = secret_hash(credential)  # the cache and the database know the credential only by its hash
        ip = client_ip(request)
        known = caller_cache.get(key)
        listed = blocked_addresses.local_list()
        if listed is not None and listed.blocks(ip):
            listed = None  # refused only on the current list: read it again
        row = known.row if known is not None else None
        if row is not None and row.access_expires <= clock.now():
            row = None
        # One round trip: the stamps of the block list and of the cached rows; the call counted when both
        # copies are current.
        cached = row.caller() if row is not None and listed is not None else None
        limits = mobile_ratelimit.limits_of(cached) if cached is not None else []
        check = counters.backend().check_and_count_each(
            revision_keys=[blocked_addresses.STAMP_KEY, *(known.keys if known is not None else [])],
            holds=f"{listed.stamp}/{known.revision}" if cached is not None else "",
            counters=mobile_ratelimit.counted(limits),
        )
        if check.outcome == counters.COUNTED:
            return self._accept(request, cached, mobile_ratelimit.usage_of(limits, check.counts))

        # Read before the database below: rows read after these stamps may be kept with them.
        list_stamp, revision = check.stamps[0], "/".join(check.stamps[1:])
        if listed is None or listed.stamp != list_stamp:
            listed = blocked_addresses.local_list_read(list_stamp)
        if listed.blocks(ip):
            raise _blocked()
        if row is not None and known.revision == revision:
            caller = row.caller()  # only the block list had changed
        else:
            caller = caller_for_checksum(key)
            if caller is None:
                caller_cache.forget(key)
                raise refused()
            # Kept with the stamps read before the queries; not when the credential now leads elsewhere.
            same = known is not None and known.keys == caller_cache.revision_keys(caller)
            caller_cache.remember(key, caller, revision if same else None)
        return self._accept(request, caller, mobile_ratelimit.count_call(caller))

    def _accept(self, request, caller: MobileCaller, usage):
        request._request.ratelimit_usage = usage
        request.mobile_caller = caller
        request.organization = caller.member.organization if caller.member is not None else None
        user = caller.member.user if caller.member is not None else AnonymousUser()
        return (user, caller)

    def authenticate_header(self, request):
        return "Bearer"
