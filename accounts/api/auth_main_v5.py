"""Main API authentication: `Bearer <access token>`, or the token itself until the cut-over."""

import datetime as dt

from rest_framework.authentication import BaseAuthentication

from apicore import clock, ratelimit
from apicore.client_ip import client_ip, ip_allowed
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError

from ..selectors import api_token_for_access_token, api_token_for_secret

# Midnight in Stockholm at the end of 2027 (DECISIONS.md, cut-over instants).
DIRECT_TOKEN_SUNSET = dt.datetime(2027, 12, 31, 23, 0, tzinfo=dt.UTC)
MIGRATION_GUIDE_PATH = "/docs/main-api-v5-migration"

INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"'


def _refused(error: ErrorCode = ErrorCode.UNAUTHORIZED, challenge: str = INVALID_TOKEN_CHALLENGE) -> ApiError:
    return ApiError(error, headers={"WWW-Authenticate": challenge})


class MainApiTokenAuthentication(BaseAuthentication):
    """Identifies the API token; leaves `request.api_token`, `request.organization` and the rate usage."""

    def authenticate(self, request):
        header = request.headers.get("Authorization", "")
        scheme, _, credential = header.partition(" ")
        credential = credential.strip()
        # The word Bearer is required; like every HTTP auth scheme, in any letter case (RFC 9110 11.1).
        if scheme.lower() != "bearer" or not credential:
            raise _refused(challenge="Bearer")
        ratelimit.ensure_ip_not_blocked(request)

        direct = False
        token = api_token_for_access_token(access_token=credential)
        if token is None:
            token = api_token_for_secret(secret=credential)
            direct = token is not None
        if token is None or not token.owner_is_admin or not ip_allowed(client_ip(request), token.allowed_ips):
            ratelimit.count_failed_token_check(request)
            raise _refused()
        if direct:
            if clock.now() >= DIRECT_TOKEN_SUNSET:
                raise _refused(ErrorCode.TOKEN_MUST_BE_EXCHANGED)
            request._request.sunset_headers = direct_token_headers(request)

        usage = ratelimit.count_token_call(request, token_id=token.pk)
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
