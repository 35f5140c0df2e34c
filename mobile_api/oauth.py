"""OAuth 2.1 for the Mobile API v5 on django-oauth-toolkit: the server, its grants and the request validator.

What DOT and oauthlib do as the contract wants stays theirs (PKCE S256, code lifetime, refresh-token
rotation and reuse protection, hashed tokens, client secrets as password hashes). What differs is here:

- Only apps (accounts.AppClient) that are not revoked are clients; Main API tokens' OAuth clients are not.
- Redirect addresses are compared as exact strings against the client's list (../shared/DECISIONS.md "Mobile
  sign-in"; docs/decisions.md §9.3 "Redirect addresses"), where DOT's own comparison ignores some differences
  and allows only http and https.
- Only S256 PKCE; a missing verifier and a redirect address that differs from the authorize request are
  `invalid_grant` (../shared/DECISIONS.md "Mobile sign-in"; docs/decisions.md §9.7 "PKCE").
- Grants: authorization_code, refresh_token, and client_credentials for confidential clients only; any other
  grant type (`password` too) is `unsupported_grant_type`.
- Authorization codes are stored as their SHA-256 digest. A code used a second time ends the login it made.
- Each login (a refresh-token family) has a MobileLogin row with the member and the device name; a refresh
  checks that the member can still log in and the app is still allowed for the organization.
"""

import base64
import contextvars
import hashlib
import json
import re
from urllib.parse import unquote_plus

from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_refresh_token_model,
)
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2 import AuthorizationEndpoint, ResourceEndpoint, RevocationEndpoint, TokenEndpoint
from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc6749.grant_types import AuthorizationCodeGrant, ClientCredentialsGrant, RefreshTokenGrant
from oauthlib.oauth2.rfc6749.grant_types.authorization_code import code_challenge_method_s256
from oauthlib.oauth2.rfc6749.tokens import BearerToken

from accounts.models import Member
from apicore.schema import unsafe_text
from mobile_api.models import MobileLogin
from mobile_api.services.logins import (
    member_may_use_app,
    mobile_login_end,
    mobile_login_end_family,
    mobile_login_renewed,
    mobile_login_start,
)

Application = get_application_model()
AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()
Grant = get_grant_model()

# Why the last request was refused, for the view's error_description (oauthlib's own texts are English).
refusal_reason: contextvars.ContextVar[str | None] = contextvars.ContextVar("mobile_oauth_refusal", default=None)
# The Django request of the token or revoke call under way (oauthlib's request does not carry it).
current_http_request: contextvars.ContextVar = contextvars.ContextVar("mobile_oauth_http_request")

MEMBER_CANNOT_LOG_IN = "member-cannot-log-in"
CODE_REPLAYED = "code-replayed"
CODE_EXPIRED = "code-expired"
LOGIN_ENDED = "login-ended"


CODE_VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")  # BASE64URL of 32 bytes, without padding
CHALLENGE_REFUSED = "code-challenge"
DEVICE_NAME_LENGTH = 100
DEVICE_NAME_REFUSED = "device-name"


def _refuse(reason: str) -> bool:
    refusal_reason.set(reason)
    return False


def is_public_client(client_id) -> bool:
    if not isinstance(client_id, str) or not client_id or len(client_id) > 100 or unsafe_text(client_id):
        return False
    return Application.objects.filter(
        client_id=client_id, client_type=Application.CLIENT_PUBLIC, app_client__revoked_at__isnull=True
    ).exists()


def code_digest(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()


def _checksum(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class MobileCodeGrant(AuthorizationCodeGrant):
    """S256 only; a missing verifier or another redirect address than at authorize is `invalid_grant`."""

    _code_challenge_methods = {"S256": code_challenge_method_s256}

    def validate_authorization_request(self, request):
        scopes, info = super().validate_authorization_request(request)
        if not S256_CHALLENGE.fullmatch(request.code_challenge or ""):
            raise errors.InvalidRequestError(request=request, description=CHALLENGE_REFUSED)
        return scopes, info

    def validate_code_challenge(self, challenge, challenge_method, verifier):
        # RFC 7636 4.1: 43 to 128 unreserved characters; anything else cannot be the verifier.
        if not isinstance(verifier, str) or not CODE_VERIFIER.fullmatch(verifier):
            return False
        return super().validate_code_challenge(challenge, challenge_method, verifier)

    def validate_token_request(self, request):
        device_name = request._params.get("device_name")
        if device_name is not None and (
            not isinstance(device_name, str) or len(device_name) > DEVICE_NAME_LENGTH or unsafe_text(device_name)
        ):
            raise errors.InvalidRequestError(request=request, description=DEVICE_NAME_REFUSED)
        try:
            super().validate_token_request(request)
        except (
            errors.MissingCodeVerifierError,
            errors.MismatchingRedirectURIError,
            errors.MissingRedirectURIError,
        ) as error:
            raise errors.InvalidGrantError(request=request, description=error.description) from error


class MobileServer(AuthorizationEndpoint, TokenEndpoint, ResourceEndpoint, RevocationEndpoint):
    """oauthlib's all-in-one server with the three grants of document 2 and nothing else (no implicit grant,
    no password grant, no device flow): an unknown grant type is `unsupported_grant_type`."""

    def __init__(
        self, request_validator, token_expires_in=None, token_generator=None, refresh_token_generator=None, **kwargs
    ):
        self.auth_grant = MobileCodeGrant(request_validator)
        self.refresh_grant = RefreshTokenGrant(request_validator)
        self.credentials_grant = ClientCredentialsGrant(request_validator)
        self.bearer = BearerToken(request_validator, token_generator, token_expires_in, refresh_token_generator)
        AuthorizationEndpoint.__init__(
            self, default_response_type="code", response_types={"code": self.auth_grant}, default_token_type=self.bearer
        )
        TokenEndpoint.__init__(
            self,
            default_grant_type="authorization_code",
            grant_types={
                "authorization_code": self.auth_grant,
                "refresh_token": self.refresh_grant,
                "client_credentials": self.credentials_grant,
            },
            default_token_type=self.bearer,
        )
        ResourceEndpoint.__init__(self, default_token="Bearer", token_types={"Bearer": self.bearer})
        RevocationEndpoint.__init__(self, request_validator)


def oauth_server() -> "MobileServer":
    from oauth2_provider.settings import oauth2_settings

    return MobileServer(MobileOAuthValidator(), **oauth2_settings.server_kwargs)


class MobileOAuthValidator(OAuth2Validator):
    # --- clients ---------------------------------------------------------------------------------------------

    def _load_application(self, client_id, request):
        if request.client is not None and getattr(request.client, "client_id", None) == client_id:
            return request.client
        request.client = None
        if not isinstance(client_id, str) or not client_id or "\x00" in client_id or len(client_id) > 100:
            return None
        client = (
            Application.objects.select_related("app_client")
            .filter(client_id=client_id, app_client__isnull=False, app_client__revoked_at__isnull=True)
            .first()
        )
        request.client = client
        return client

    def _extract_basic_auth(self, request):
        """As DOT, with the scheme in any letter case (RFC 9110 11.1)."""
        scheme, _, credentials = (request.headers.get("HTTP_AUTHORIZATION") or "").partition(" ")
        if scheme.lower() != "basic" or not credentials.strip():
            return None
        return credentials.strip()

    def _accepted(self, request) -> bool:
        """A client that has shown who it is makes a call of its own: counted (429 10013 past its limit)."""
        from mobile_api.ratelimit import count_client_call

        http_request = current_http_request.get(None)
        if http_request is not None and not getattr(http_request, "client_counted", False):
            http_request.client_counted = True
            http_request.ratelimit_usage = count_client_call(http_request, request.client.app_client)
        return True

    def authenticate_client(self, request, *args, **kwargs):
        if super().authenticate_client(request, *args, **kwargs):
            return self._accepted(request)
        # A public client may send its id in the Basic header with an empty password (RFC 6749 2.3.1).
        client_id = self._public_id_in_basic(request)
        client = self._load_application(client_id, request) if client_id is not None else None
        if client is not None and client.client_type == Application.CLIENT_PUBLIC:
            request.client_id = client_id
            return self._accepted(request)
        return False

    def _public_id_in_basic(self, request) -> str | None:
        encoded = self._extract_basic_auth(request)
        if not encoded:
            return None
        try:
            client_id, separator, secret = base64.b64decode(encoded, validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return unquote_plus(client_id) if separator and not secret else None

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        return super().authenticate_client_id(client_id, request, *args, **kwargs) and self._accepted(request)

    def client_authentication_required(self, request, *args, **kwargs):
        if request.grant_type == "client_credentials":
            return True
        return super().client_authentication_required(request, *args, **kwargs)

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        if grant_type in ("authorization_code", "refresh_token"):
            return True
        return grant_type == "client_credentials" and client.client_type == Application.CLIENT_CONFIDENTIAL

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        return response_type == "code"

    # --- rights as scopes --------------------------------------------------------------------------------------

    def _rights(self, request) -> list[str]:
        return request.client.app_client.scope.split()

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return self._rights(request)

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        # No scope is asked for: the client's rights apply, whatever the request says.
        request.scopes = self._rights(request)
        return True

    def get_original_scopes(self, refresh_token, request, *args, **kwargs):
        return self._rights(request)

    # --- redirect addresses: exact strings ------------------------------------------------------------------

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        return redirect_uri in request.client.app_client.redirect_uris

    def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
        return None  # the authorize request must name one

    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, *args, **kwargs):
        grant = Grant.objects.filter(code=code_digest(code), application=client).first()
        return grant is not None and redirect_uri == grant.redirect_uri

    # --- authorization codes, stored as their digest -------------------------------------------------------

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        super().save_authorization_code(client_id, {**code, "code": code_digest(code["code"])}, request)

    def get_code_challenge(self, code, request):
        return super().get_code_challenge(code_digest(code), request)

    def get_code_challenge_method(self, code, request):
        return super().get_code_challenge_method(code_digest(code), request)

    def get_authorization_code_scopes(self, client_id, code, redirect_uri, request):
        return super().get_authorization_code_scopes(client_id, code_digest(code), redirect_uri, request)

    def get_authorization_code_nonce(self, client_id, code, redirect_uri, request):
        return None

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        super().invalidate_authorization_code(client_id, code_digest(code), request)

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        digest = code_digest(code)
        # Locked until the token request ends: two requests with one code are one after the other.
        grant = Grant.objects.select_for_update().filter(code=digest, application=client).first()
        if grant is None:
            # By the digest alone: a code replayed by another client ends the login too (RFC 9700 4.1).
            login = MobileLogin.objects.filter(code_digest=digest).first()
            if login is not None:  # the code was used before: what it gave stops (RFC 9700 4.1)
                mobile_login_end(login=login, reason=MobileLogin.EndReason.CODE_REPLAY)
                return _refuse(CODE_REPLAYED)
            return False
        if grant.is_expired():
            return _refuse(CODE_EXPIRED)
        member_id = json.loads(grant.claims or "{}").get("member")
        member = Member.objects.select_related("user").filter(pk=member_id, user_id=grant.user_id).first()
        if member is None or not member_may_use_app(member=member, app_client=client.app_client):
            return _refuse(MEMBER_CANNOT_LOG_IN)
        request.scopes = self._rights(request)
        request.user = grant.user
        request.mobile_member = member
        request.code_digest = digest
        return True

    # --- tokens ----------------------------------------------------------------------------------------------

    def _create_refresh_token(self, request, refresh_token_code, access_token, previous_refresh_token):
        refresh_token = super()._create_refresh_token(request, refresh_token_code, access_token, previous_refresh_token)
        request.new_refresh_token = refresh_token
        return refresh_token

    def save_bearer_token(self, token, request, *args, **kwargs):
        super().save_bearer_token(token, request, *args, **kwargs)
        new_refresh_token = getattr(request, "new_refresh_token", None)
        if request.grant_type == "authorization_code" and new_refresh_token is not None:
            mobile_login_start(
                app_client=request.client.app_client,
                member=request.mobile_member,
                token_family=new_refresh_token.token_family,
                code_digest=request.code_digest,
                device_name=_text_param(request, "device_name"),
            )
        elif request.grant_type == "refresh_token" and new_refresh_token is not None:
            mobile_login_renewed(token_family=new_refresh_token.token_family)

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            # An old (rotated) token used again ends the whole login; DOT has revoked the family already.
            old = (
                # Whichever client sends it: DOT has revoked the family already, so the login ends too.
                RefreshToken.objects.filter(token_checksum=_checksum(refresh_token))
                .exclude(revoked=None)
                .values_list("token_family", flat=True)
                .first()
            )
            if old is not None:
                mobile_login_end_family(token_family=old, reason=MobileLogin.EndReason.REFRESH_REUSE)
            return _refuse(LOGIN_ENDED)
        family = request.refresh_token_instance.token_family
        login = (
            MobileLogin.objects.select_related("member__user", "app_client")
            .filter(token_family=family, ended_at=None)
            .first()
        )
        if login is None:
            return _refuse(LOGIN_ENDED)
        if not member_may_use_app(member=login.member, app_client=login.app_client):
            mobile_login_end(login=login, reason=MobileLogin.EndReason.MEMBER_GONE)
            return _refuse(MEMBER_CANNOT_LOG_IN)
        return True

    def revoke_token(self, token, token_type_hint, request, *args, **kwargs):
        """The app's logout: the whole login ends, whichever of its tokens is sent (RFC 7009 2.1)."""
        application = getattr(request.client, "pk", None)
        if application is None or not isinstance(token, str):
            return
        checksum = _checksum(token)
        family = (
            RefreshToken.objects.filter(token_checksum=checksum, application_id=application)
            .values_list("token_family", flat=True)
            .first()
        )
        if family is None:
            family = (
                RefreshToken.objects.filter(access_token__token_checksum=checksum, application_id=application)
                .values_list("token_family", flat=True)
                .first()
            )
        if family is not None:
            mobile_login_end_family(token_family=family, reason=MobileLogin.EndReason.APP)
            return
        # The app's own token (client credentials) has no login.
        AccessToken.objects.filter(token_checksum=checksum, application_id=application, user=None).delete()


def _text_param(request, name: str) -> str:
    value = request._params.get(name) if hasattr(request, "_params") else None
    return value if isinstance(value, str) else ""
