"""The Mobile API v5 flavour (document 2): an app acting for one member of one organization.

Callers: a member's access token (mobile_api.auth); the app's own token only where an endpoint
says so (GET /client), elsewhere 403 10305. Rights: the app client's, per module (403 10002). Limits: per
member login and per client, with the RateLimit-* headers of document 1. Errors and envelopes: the v5
defaults (Problem Details, `{data}`, `{data, meta, links}`). The organization is the login's member's. Its
OpenAPI document: mobile_api.openapi_v5.
"""

from dataclasses import replace
from functools import cached_property

from apicore import clock
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.flavours import Flavour
from apicore.presenters import PresenterContext
from mobile_api.auth import MobileTokenAuthentication
from mobile_api.openapi_v5 import MobileV5Document


class MobileV5(Flavour):
    name = "mobile-v5"
    authentication_classes = (MobileTokenAuthentication,)
    call_errors = (
        ErrorCode.HTTPS_REQUIRED,
        ErrorCode.UNAUTHORIZED,
        ErrorCode.ADDRESS_BLOCKED,
        ErrorCode.TOO_MANY_REQUESTS,
    )
    document_class = MobileV5Document

    def not_authenticated(self) -> ApiError:
        return ApiError(ErrorCode.UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})

    def organization(self, request):
        """The login's member's organization; None for the app's own token (GET /client needs none)."""
        return getattr(request, "organization", None)

    def allows(self, request, module: str, right: str) -> bool:
        return request.auth.client.allows(module, right)

    def refuse_right(self, module: str, right: str, *, block: str | None = None) -> ApiError:
        if block:
            return ApiError(ErrorCode.NO_MODULE_ACCESS, f"The block {block} needs the app's read right of {module}.")
        return ApiError(ErrorCode.NO_MODULE_ACCESS, f"The app lacks the {right} right of the module {module}.")

    def refuse_app_token(self) -> ApiError:
        return ApiError(ErrorCode.MEMBER_TOKEN_NEEDED, "This endpoint needs a member's access token.")

    def presenter_context(self, request, today) -> PresenterContext:
        return PresenterContext(organization=self.organization(request), today=today, caller=request.auth)

    def reply_headers(self, request) -> dict[str, str]:
        # A member's own data (balance, name): kept by no cache between the app and us. An endpoint whose
        # reply may be cached (the thumbnail) sets its own Cache-Control.
        usage = getattr(request._request, "ratelimit_usage", None)
        return {"Cache-Control": "private, no-store", **(usage.headers() if usage is not None else {})}


MOBILE_V5 = MobileV5()


class MobileV5Api:
    """First base of every Mobile API v5 endpoint: `class MeView(MobileV5Api, SingletonEndpoint)`.

    `accepts_app_token`: the endpoint also answers the app's own token (GET /client); any other refuses it
    with 403 10305, after 401 and 405 and before the module right."""

    flavour = MOBILE_V5
    accepts_app_token = False

    def check_permissions(self, request):
        caller = request.auth
        if caller is not None and not caller.is_member and not self.accepts_app_token:
            method = request.method.lower()
            if method in self.http_method_names and getattr(self, method, None) is not None:
                raise self.flavour.refuse_app_token()
        super().check_permissions(request)

    @classmethod
    def describe_operation(cls, method: str):
        operation = super().describe_operation(method)
        if cls.accepts_app_token:
            return operation
        return replace(operation, errors=tuple(dict.fromkeys((*operation.errors, ErrorCode.MEMBER_TOKEN_NEEDED))))

    @cached_property
    def today(self):
        """Today in the member's organization's zone (UTC for the app's own token, which has none)."""
        organization = self.organization
        return clock.today_in(organization.timezone if organization is not None else "UTC")
