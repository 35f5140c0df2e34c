"""POST /main/v5/oauth/token: client credentials, answered in OAuth's error form."""

import json

from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.http import JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext as _
from oauth2_provider.views import TokenView
from oauthlib.oauth2 import BackendApplicationServer

from apicore import ratelimit
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError, problem_response
from main_api.oauth import MainApiTokenValidator, current_http_request


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
            try:
                grant_type = request.POST.get("grant_type")
            except (SuspiciousOperation, BadRequest) as error:
                # too large, too many fields (DATA_UPLOAD_*); a form in another charset than UTF-8 (BadRequest)
                return self.refuse_form(error)
            except MultiPartParserError:  # a multipart form that cannot be read (no boundary, cut short)
                return oauth_error(400, "invalid_request", _("The token request is not valid."))
            if not grant_type:
                return oauth_error(400, "invalid_request", _("grant_type is required."))
            context = current_http_request.set(request)
            try:
                response = super().post(request, *args, **kwargs)
            finally:
                current_http_request.reset(context)
            if response.status_code == 401:
                # Counted and checked in one step: past the limit this refusal is already a 429 (10014).
                ratelimit.count_failed_token_check(request)
        except ApiError as error:
            return problem_response(request, error)
        if response.status_code == 401:
            # Document 1's Headers table: a 401 carries the `Bearer` challenge (oauthlib adds its own).
            response["WWW-Authenticate"] = "Bearer"
        if response.status_code >= 400:
            response = self._with_description(response)
        usage = getattr(request, "ratelimit_usage", None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        return response

    @staticmethod
    def refuse_form(error: SuspiciousOperation | BadRequest) -> JsonResponse:
        """A form Django will not read is a token request that is not valid: 413 when it is too large."""
        status = 413 if isinstance(error, RequestDataTooBig) else 400
        return oauth_error(status, "invalid_request", _descriptions()["invalid_request"])

    @classmethod
    def refuse_request(cls, request, error: ApiError) -> JsonResponse:
        """What apicore.middleware refuses before the view (a body over the limit), in OAuth's error form."""
        if error.error.status == 413:
            return cls.refuse_form(RequestDataTooBig())
        return problem_response(request, error)

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
