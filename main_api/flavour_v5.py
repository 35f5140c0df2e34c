"""The Main API v5 flavour: an organization's API token (OAuth access token or, until the cut-over, the token
itself), module rights, 120 calls a minute per token with RateLimit-* headers, Problem Details. Its OpenAPI
document: main_api.openapi_v5."""

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.flavours import Flavour
from main_api.auth import MainApiTokenAuthentication
from main_api.openapi_v5 import MainV5Document


class MainV5(Flavour):
    name = "main-v5"
    authentication_classes = (MainApiTokenAuthentication,)
    call_errors = (
        ErrorCode.HTTPS_REQUIRED,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.TOKEN_MUST_BE_EXCHANGED,
        ErrorCode.TOO_MANY_REQUESTS,
        ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS,
    )
    document_class = MainV5Document

    def not_authenticated(self) -> ApiError:
        return ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})

    def reply_headers(self, request) -> dict[str, str]:
        # The authentication leaves the rate usage and, for a direct token, the Sunset/Link headers.
        usage = getattr(request._request, "ratelimit_usage", None)
        headers = usage.headers() if usage is not None else {}
        return {**headers, **getattr(request._request, "sunset_headers", {})}


MAIN_V5 = MainV5()


class MainV5Api:
    """First base of every Main API v5 endpoint: `class UserList(MainV5Api, ListEndpoint)`."""

    flavour = MAIN_V5
