"""Main API authentication: `Bearer <access token>`, or the token itself until the cut-over.

The hot path of every call. A process that has seen the credential before holds its token row
(main_api.token_cache) and checks it in one round trip to the shared cache: the address is not blocked,
the row's revision stamps are current, and the call is counted. Otherwise (first call, or something the row
holds changed) the row comes from one prepared SQL statement (main_api.token_lookup) and the call is
counted in a second round trip.
"""

import datetime as dt

from rest_framework.authentication import BaseAuthentication

from apicore import clock, ratelimit
from apicore.bearer import INVALID_TOKEN_CHALLENGE, bearer_credential
from apicore.client_ip import client_ip, ip_allowed
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.secrets import secret_hash
from main_api import ratelimit as main_limits
from main_api import token_cache
from main_api.selectors import api_token_for_credential

# Midnight in Stockholm at the end of 2027 (../shared/DECISIONS.md "Readings of the contract": cut-over instants).
DIRECT_TOKEN_SUNSET = dt.datetime(2027, 12, 31, 23, 0, tzinfo=dt.UTC)
MIGRATION_GUIDE_PATH = "/docs/main-api-v5-migration"


def _refused(error: ErrorCode = ErrorCode.UNAUTHORIZED, challenge: str = INVALID_TOKEN_CHALLENGE) -> ApiError:
    return ApiError(error, headers={"WWW-Authenticate": challenge})


def _usable(known: token_cache.Known | None, ip: str):
    """The cached row when this call may be answered from it: the access token has not ended, the direct
    token is before its sunset, the address is allowed (a refusal goes the long way, counted as today)."""
    row = known.row if known is not None else None
    if row is None or not ip_allowed(ip, row.allowed_ips):
        return None
    now = clock.now()
    if (now >= DIRECT_TOKEN_SUNSET) if row.direct else (now >= row.access_expires):
        return None
    return row


class MainApiTokenAuthentication(BaseAuthentication):
    """Identifies the API token; leaves `request.api_token`, `request.organization` and the rate usage.

    Returns None without a Bearer credential, so that another authentication class may recognise the call.
    """

    def authenticate(self, request):
        credential = bearer_credential(request.headers.get("Authorization", ""))
        if credential is None:
            return None
        key = secret_hash(credential)  # the cache and the database know the credential only by its hash
        ip = client_ip(request)
        known = token_cache.get(key)
        revision = None
        if known is not None:
            row = _usable(known, ip)
            # One round trip: 10014 for a blocked address; the call counted when the row's stamps are current.
            check = main_limits.check_call(
                request, token_id=known.token_id, revision_keys=known.keys, holds=known.revision if row else ""
            )
            if check.usage is not None:
                return self._accept(request, row.instance(), check.usage, direct=row.direct)
            revision = check.revision  # read before the query below: a row read after it may be kept
        else:
            ratelimit.ensure_ip_not_blocked(request)

        row = api_token_for_credential(credential_hash=key)
        if row is None or not row.owner_is_admin or not ip_allowed(ip, row.allowed_ips):
            token_cache.forget(key)
            # Counted and checked at once: past the limit this refusal is a 429 (10014), not a 401, also
            # when calls racing past ensure_ip_not_blocked together are counted after it.
            ratelimit.count_failed_token_check(request)
            raise _refused()
        if row.direct and clock.now() >= DIRECT_TOKEN_SUNSET:
            raise _refused(ErrorCode.TOKEN_MUST_BE_EXCHANGED)
        # Kept with the stamps read before the query; not when the credential now leads elsewhere.
        same = known is not None and known.keys == token_cache.revision_keys(row)
        token_cache.remember(key, row, revision if same else None)
        usage = main_limits.count_token_call(request, token_id=row.token_id)
        return self._accept(request, row.instance(), usage, direct=row.direct)

    def _accept(self, request, token, usage: ratelimit.Usage, *, direct: bool):
        if direct:
            request._request.sunset_headers = direct_token_headers(request)
        request._request.ratelimit_usage = usage
        request.api_token = token
        request.organization = token.organization
        return (token.owner, token)

    def authenticate_header(self, request):
        return "Bearer"


def direct_token_headers(request) -> dict[str, str]:
    guide = request.build_absolute_uri(MIGRATION_GUIDE_PATH)
    return {
        "Sunset": clock.http_date(DIRECT_TOKEN_SUNSET),
        "Link": f'<{guide}>; rel="sunset"; type="text/html"',
    }
