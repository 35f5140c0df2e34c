"""The Mobile API v5's OAuth endpoints (document 2): GET /oauth/authorize, POST /oauth/token, POST /oauth/revoke.

django-oauth-toolkit's views and oauthlib's server (mobile_api.oauth) do the protocol. Here: the
blocked-address check, the client's rate limit, every `error_description` in the caller's language
(Accept-Language), the authorize request's error page, and the hand-over to the member website's login page.
Errors are in OAuth's form, except 429 and 500 (Problem Details), as document 2 says.
"""

import json
from urllib.parse import urlencode

from django.core.exceptions import BadRequest, RequestDataTooBig, SuspiciousOperation
from django.db import transaction
from django.http import HttpResponseRedirect, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.generic import View
from oauth2_provider.views import RevokeTokenView, TokenView
from oauthlib.oauth2.rfc6749 import errors as oauth_errors

from apicore import ratelimit
from apicore.client_ip import client_ip
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError, problem_response
from mobile_api import oauth as mobile_oauth
from mobile_api.oauth import MobileOAuthValidator, MobileServer


def _blocked(request) -> bool:
    from mobile_api.blocked_addresses import address_blocked  # the Mobile API's block list (admin)

    return address_blocked(client_ip(request))


def error_descriptions() -> dict[str, str]:
    """Texts for the app's user, in the language of Accept-Language (../shared/DECISIONS.md "Languages";
    docs/decisions.md §9.16 "Replies of the token and revoke endpoints")."""
    return {
        "invalid_client": _("The app's client id or key is not accepted."),
        "unsupported_grant_type": _(
            "Only grant_type authorization_code, refresh_token and client_credentials are supported."
        ),
        "unauthorized_client": _("This app may not use this kind of request."),
        "invalid_request": _("The request is not valid."),
        "invalid_grant": _("The login is no longer valid. Please log in again."),
        "unsupported_token_type": _("This kind of token cannot be revoked."),
        "access_denied": _("Requests from this address are blocked."),
        "server_error": _("Something went wrong. Please try again."),
        "invalid_scope": _("The app asked for rights it does not have."),
        "unsupported_response_type": _("Only response_type=code is supported."),
    }


def _reason_descriptions() -> dict[str, str]:
    return {
        mobile_oauth.CODE_EXPIRED: _("The login took too long. Please log in again."),
        mobile_oauth.CODE_REPLAYED: _("The login code was already used. Please log in again."),
        mobile_oauth.MEMBER_CANNOT_LOG_IN: _(
            "Your membership cannot be used to log in to this app. Please contact your club."
        ),
        mobile_oauth.LOGIN_ENDED: _("You have been logged out. Please log in again."),
        mobile_oauth.DEVICE_NAME_REFUSED: _(
            "device_name may have at most 100 characters, and no NUL or lone surrogate."
        ),
    }


def authorize_descriptions() -> dict[str, str]:
    """What the app is told in the redirect when the authorize request itself is wrong."""
    return {
        "missing_code_challenge": _("code_challenge is required (PKCE with code_challenge_method=S256)."),
        "unsupported_code_challenge_method": _("Only code_challenge_method=S256 is supported."),
        "unsupported_response_type": _("Only response_type=code is supported."),
        "invalid_request": _("The sign-in request is not valid."),
        "invalid_code_challenge": _("code_challenge must be the BASE64URL form of a SHA-256 digest (43 characters)."),
    }


def oauth_error(status: int, error: str, description: str, **extra) -> JsonResponse:
    response = JsonResponse({"error": error, "error_description": description, **extra}, status=status)
    response["Cache-Control"] = "no-store"
    response.described = True  # our own text already: not replaced by the generic one
    return response


# The form fields of each endpoint (document 2, POST /oauth/token; RFC 7009 for revoke): any other field, a
# query parameter, or a field sent twice is refused (document 2: unknown parameters or body fields give 400).
# A field of another grant type is known to the endpoint and ignored (`scope` too: a token has the rights of
# its client).
CLIENT_FIELDS = {"client_id", "client_secret"}
GRANT_TYPES = ("authorization_code", "refresh_token", "client_credentials")
TOKEN_FIELDS = {"grant_type", "code", "redirect_uri", "code_verifier", "device_name", "refresh_token", "scope"}
REVOKE_FIELDS = {"token", "token_type_hint"}


def form_problem(request, allowed: set[str]) -> str | None:
    """The first field that may not be sent, or None."""
    for name in request.GET:
        return name
    for name, values in request.POST.lists():
        if name not in allowed | CLIENT_FIELDS or len(values) > 1:
            return name
    return None


class _MobileOAuthView:
    """What the token and revoke endpoints share: checks before oauthlib, texts and headers after it."""

    server_class = MobileServer
    validator_class = MobileOAuthValidator
    http_method_names = ["post"]

    def post(self, request, *args, **kwargs):
        if _blocked(request):
            # OAuth's form, as every /oauth reply but 429 and 500, with document 2's code for a blocked address.
            return oauth_error(403, "access_denied", error_descriptions()["access_denied"], code=10003)
        try:
            ratelimit.ensure_ip_not_blocked(request)
            try:
                request.POST.get("grant_type")  # reads the form: too large or broken is refused here
            except (SuspiciousOperation, BadRequest) as error:  # BadRequest: a form not in UTF-8
                status = 413 if isinstance(error, RequestDataTooBig) else 400
                return oauth_error(status, "invalid_request", error_descriptions()["invalid_request"])
            except MultiPartParserError:
                return oauth_error(400, "invalid_request", error_descriptions()["invalid_request"])
            refusal = self.refuse_before_oauth(request)
            if refusal is not None:
                return refusal
            reason_token = mobile_oauth.refusal_reason.set(None)
            request_token = mobile_oauth.current_http_request.set(request)
            try:
                with transaction.atomic():
                    response = self.oauth_response(request)
                reason = mobile_oauth.refusal_reason.get()
            finally:
                mobile_oauth.refusal_reason.reset(reason_token)
                mobile_oauth.current_http_request.reset(request_token)
            if response.status_code == 401:
                ratelimit.count_failed_token_check(request)  # 429 (10014) past the limit
        except ApiError as error:
            return problem_response(request, error)
        if response.status_code == 401:
            response["WWW-Authenticate"] = "Basic"
        if response.status_code >= 400 and not getattr(response, "described", False):
            response = self._with_description(response, reason)
        usage = getattr(request, "ratelimit_usage", None)
        if usage is not None:
            for name, value in usage.headers().items():
                response[name] = value
        response["Cache-Control"] = "no-store"
        return response

    def oauth_response(self, request):
        raise NotImplementedError

    def refuse_before_oauth(self, request) -> JsonResponse | None:
        """What oauthlib would let through but document 2 refuses."""
        return None

    @staticmethod
    def unknown_field(name: str) -> JsonResponse:
        return oauth_error(
            400, "invalid_request", _("The field %(name)s is unknown here or sent twice.") % {"name": name[:100]}
        )

    @staticmethod
    def _with_description(response, reason: str | None):
        try:
            body = json.loads(response.content or b"{}")
        except ValueError:
            return response
        error = body.get("error")
        if not error:
            return response
        description = error_descriptions().get(error, error_descriptions()["invalid_request"])
        if body.get("error_description") == mobile_oauth.DEVICE_NAME_REFUSED:
            description = _reason_descriptions()[mobile_oauth.DEVICE_NAME_REFUSED]
        elif error == "invalid_grant" and reason in _reason_descriptions():
            description = _reason_descriptions()[reason]
        body["error_description"] = description
        response.content = json.dumps(body)
        response["Content-Type"] = "application/json"
        return response

    def http_method_not_allowed(self, request, *args, **kwargs):
        error = ApiError(ErrorCode.METHOD_NOT_ALLOWED, f"The method {request.method} is not allowed.")
        response = problem_response(request, error)
        response["Allow"] = "POST"
        return response

    @classmethod
    def refuse_request(cls, request, error: ApiError) -> JsonResponse:
        """What apicore.middleware refuses before the view (a body over the limit), in OAuth's error form."""
        if error.error.status == 413:
            return oauth_error(413, "invalid_request", error_descriptions()["invalid_request"])
        return problem_response(request, error)


class MobileTokenView(_MobileOAuthView, TokenView):
    def refuse_before_oauth(self, request):
        grant_type = request.POST.get("grant_type")
        if not grant_type:
            return oauth_error(400, "invalid_request", _("grant_type is required."))
        if grant_type not in GRANT_TYPES:
            return oauth_error(400, "unsupported_grant_type", error_descriptions()["unsupported_grant_type"])
        unknown = form_problem(request, TOKEN_FIELDS)
        if unknown is not None:
            return self.unknown_field(unknown)
        if grant_type == "client_credentials" and mobile_oauth.is_public_client(request.POST.get("client_id")):
            # Not a wrong key (not counted toward the address's failed checks): this kind of app has none.
            return oauth_error(
                400, "unauthorized_client", _("An app without a key cannot get a token for itself alone.")
            )
        return None

    def oauth_response(self, request):
        _url, headers, body, status = self.create_token_response(request)
        response = JsonResponse(json.loads(body or "{}"), status=status)
        for name, value in headers.items():
            if name.lower() != "content-type":
                response[name] = value
        return response


class MobileRevokeView(_MobileOAuthView, RevokeTokenView):
    def refuse_before_oauth(self, request):
        unknown = form_problem(request, REVOKE_FIELDS)
        return self.unknown_field(unknown) if unknown is not None else None

    def oauth_response(self, request):
        _url, headers, body, status = self.create_revocation_response(request)
        if status == 200:
            return JsonResponse({}, status=200)
        response = JsonResponse(json.loads(body or "{}"), status=status)
        for name, value in headers.items():
            if name.lower() != "content-type":
                response[name] = value
        return response


class MobileAuthorizeView(View):
    """GET /oauth/authorize: checks the request, then 302 to the member website's login page with the same
    query. An unknown client or a redirect address not registered for it gets an error page, never a
    redirect; other mistakes go back to the app's redirect address with `error` and the `state`."""

    http_method_names = ["get", "head"]

    def http_method_not_allowed(self, request, *args, **kwargs):
        error = ApiError(ErrorCode.METHOD_NOT_ALLOWED, f"The method {request.method} is not allowed.")
        response = problem_response(request, error)
        response["Allow"] = "GET, HEAD"
        return response

    def get(self, request, *args, **kwargs):
        from apicore.language import activate_cl_language

        activate_cl_language(request)
        if _blocked(request):
            return authorize_error_page(request, _("Requests from this address are blocked."), status=403)
        try:
            mobile_oauth.oauth_server().validate_authorization_request(request.build_absolute_uri(), http_method="GET")
        except oauth_errors.FatalClientError as error:
            return authorize_error_page(request, fatal_error_text(error))
        except oauth_errors.OAuth2Error as error:
            return app_redirect(request, redirect_with_error(error))
        query = request.META.get("QUERY_STRING", "")
        return HttpResponseRedirect(f"/login?{query}")


class _AppRedirect(HttpResponseRedirect):
    """A redirect to the app's own scheme (reverse-domain, RFC 8252 7.1), which Django's guard refuses."""

    def __init__(self, redirect_to: str, *args, **kwargs):
        scheme = redirect_to.split(":", 1)[0].lower()
        self.allowed_schemes = [*HttpResponseRedirect.allowed_schemes, scheme]
        super().__init__(redirect_to, *args, **kwargs)


def issuer(request) -> str:
    """The authorization server's issuer identifier (RFC 9207, RFC 8414 2): the Mobile API's base address,
    e.g. `https://example.org/mobile/v5`, from the request's scheme and host (ALLOWED_HOSTS vouches for the host;
    behind a trusted proxy its X-Forwarded-Proto) and the API's mount point (docs/decisions.md §9.36)."""
    authorize = reverse("mobile_v5:oauth-authorize")
    return request.build_absolute_uri(authorize.removesuffix("oauth/authorize").rstrip("/"))


def app_redirect(request, url: str) -> HttpResponseRedirect:
    """The authorization response: back to the app's registered address, with `iss` (RFC 9207, RFC 9700 4.4)
    beside `code` and `state`, or beside `error`: an app that talks to several servers can tell which one
    answered (mix-up attacks)."""
    separator = "&" if "?" in url else "?"
    return _AppRedirect(f"{url}{separator}{urlencode({'iss': issuer(request)})}")


def redirect_with_error(error: oauth_errors.OAuth2Error) -> str:
    """The app's redirect address with `error`, a description in the page's language and the `state`."""
    descriptions = authorize_descriptions()
    if isinstance(error, oauth_errors.MissingCodeChallengeError):
        description = descriptions["missing_code_challenge"]
    elif isinstance(error, oauth_errors.UnsupportedCodeChallengeMethodError):
        description = descriptions["unsupported_code_challenge_method"]
    elif error.description == mobile_oauth.CHALLENGE_REFUSED:
        description = descriptions["invalid_code_challenge"]
    elif isinstance(error, oauth_errors.UnsupportedResponseTypeError):
        description = descriptions["unsupported_response_type"]
    else:
        description = error_descriptions().get(error.error, descriptions["invalid_request"])
    params = {"error": error.error, "error_description": description}
    if error.state:
        params["state"] = error.state
    separator = "&" if "?" in error.redirect_uri else "?"
    return f"{error.redirect_uri}{separator}{urlencode(params)}"


def fatal_error_text(error: oauth_errors.FatalClientError) -> str:
    if isinstance(error, oauth_errors.InvalidClientIdError | oauth_errors.MissingClientIdError):
        return _("The app is not known here, or it has been switched off.")
    if isinstance(error, oauth_errors.MissingRedirectURIError):
        return _("The app did not say where to go back to after the login.")
    if isinstance(error, oauth_errors.MismatchingRedirectURIError | oauth_errors.InvalidRedirectURIError):
        return _("The app's return address is not registered for it.")
    return _("The sign-in request is not valid.")


def authorize_error_page(request, text: str, *, status: int = 400):
    response = render(request, "registration/oauth_error.html", {"error_text": text}, status=status)
    response["Cache-Control"] = "no-store"
    return response
