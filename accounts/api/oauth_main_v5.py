"""POST /main/v5/oauth/token: client credentials, answered in OAuth's error form."""

import json

from django.http import JsonResponse
from django.utils.translation import gettext as _
from oauth2_provider.views import TokenView
from oauthlib.oauth2 import BackendApplicationServer

from apicore import ratelimit
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError, problem_response

from ..oauth import MainApiTokenValidator, current_http_request


def _descriptions() -> dict[str, str]:
    """Our own texts, in the caller's language (Accept-Language), instead of oauthlib's English ones."""
    return {
        "invalid_client": _("The client id or secret is not accepted."),
        "unsupported_grant_type": _("Only grant_type=client_credentials is supported."),
        "invalid_request": _("The token request is not valid."),
    }


def oauth_error(status: int, error: str, description: str) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description}, status=status)
    response["Cache-Control"] = "no-store"
    return response


class MainTokenView(TokenView):
    server_class = BackendApplicationServer
    validator_class = MainApiTokenValidator
    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        try:
            ratelimit.ensure_ip_not_blocked(request)
            if not request.POST.get("grant_type"):
                return oauth_error(400, "invalid_request", _("grant_type is required."))
            context = current_http_request.set(request)
            try:
                response = super().post(request, *args, **kwargs)
            finally:
                current_http_request.reset(context)
        except ApiError as error:
            return problem_response(request, error)
        if response.status_code == 401:
            ratelimit.count_failed_token_check(request)
            # Document 1's Headers table: a 401 carries the `Bearer` challenge (oauthlib adds its own).
            response["WWW-Authenticate"] = "Bearer"
        if response.status_code >= 400:
            response = self._with_description(response)
        usage = getattr(request, "ratelimit_usage", None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        return response

    def http_method_not_allowed(self, request, *args, **kwargs):
        """Any method but POST: 405 (10050) in Problem Details, as elsewhere in the API."""
        allowed = ", ".join(method.upper() for method in self._allowed_methods())
        error = ApiError(ErrorCode.METHOD_NOT_ALLOWED, f"The method {request.method} is not allowed.")
        response = problem_response(request, error)
        response["Allow"] = allowed
        return response

    @staticmethod
    def _with_description(response):
        """Every OAuth error carries an `error_description` in the caller's language."""
        body = json.loads(response.content or b"{}")
        if "error" in body:
            fallback = body.get("error_description") or _("The token request is not valid.")
            body["error_description"] = _descriptions().get(body["error"], fallback)
            response.content = json.dumps(body)
        return response
