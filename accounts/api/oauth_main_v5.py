"""POST /main/v5/oauth/token: client credentials, answered in OAuth's error form."""

import json

from django.http import JsonResponse
from oauth2_provider.views import TokenView
from oauthlib.oauth2 import BackendApplicationServer

from apicore import ratelimit
from apicore.exceptions import ApiError, problem_response

from ..oauth import MainApiTokenValidator, current_http_request


def oauth_error(status: int, error: str, description: str) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description}, status=status)
    response["Cache-Control"] = "no-store"
    return response


class MainTokenView(TokenView):
    server_class = BackendApplicationServer
    validator_class = MainApiTokenValidator

    def post(self, request, *args, **kwargs):
        try:
            ratelimit.ensure_ip_not_blocked(request)
            if not request.POST.get("grant_type"):
                return oauth_error(400, "invalid_request", "grant_type is required.")
            context = current_http_request.set(request)
            try:
                response = super().post(request, *args, **kwargs)
            finally:
                current_http_request.reset(context)
        except ApiError as error:
            return problem_response(request, error)
        if response.status_code == 401:
            ratelimit.count_failed_token_check(request)
            response = self._with_description(response)
        usage = getattr(request, "ratelimit_usage", None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        return response

    @staticmethod
    def _with_description(response):
        body = json.loads(response.content or b"{}")
        body.setdefault("error_description", "The client id or secret is not accepted.")
        response.content = json.dumps(body)
        return response
