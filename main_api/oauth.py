"""OAuth 2.0 client credentials for Main API tokens, through django-oauth-toolkit.

The client id is the token's numeric Client ID and the client secret is the token itself; the secret is
checked against the token's own hash, and a client is refused (`invalid_client`) when its owner is no
longer an administrator or the call comes from an address outside the token's list.
"""

import base64
import binascii
import contextvars
from urllib.parse import unquote_plus

from oauth2_provider.oauth2_validators import OAuth2Validator

from apicore.client_ip import client_ip, ip_allowed
from apicore.secrets import secret_matches
from main_api import ratelimit as main_limits
from main_api.selectors import api_token_for_client_id

# The Django request of the token call under way: oauthlib's own request object does not carry it.
current_http_request: contextvars.ContextVar = contextvars.ContextVar("current_http_request")


def _credentials(request) -> tuple[str, str] | None:
    """From the Basic header (URL-decoded, RFC 6749 2.3.1) or else the form fields."""
    scheme, _, encoded = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "basic":  # auth schemes are case-insensitive (RFC 9110 11.1)
        try:
            decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        client_id, separator, secret = decoded.partition(":")
        if not separator:
            return None
        return unquote_plus(client_id), unquote_plus(secret)
    client_id = getattr(request, "client_id", None)
    secret = getattr(request, "client_secret", None)
    if client_id and secret:
        return client_id, secret
    return None


class MainApiTokenValidator(OAuth2Validator):
    def client_authentication_required(self, request, *args, **kwargs):
        return True

    def authenticate_client(self, request, *args, **kwargs):
        credentials = _credentials(request)
        if credentials is None:
            return False
        client_id, secret = credentials
        token = api_token_for_client_id(client_id=client_id)
        if token is None or not secret_matches(secret, token.secret_hash):
            return False
        http_request = current_http_request.get()
        if not token.owner_is_admin or not ip_allowed(client_ip(http_request), token.allowed_ips):
            return False
        # Fetching an access token is one call of the token (raises 429 past the limit).
        http_request.ratelimit_usage = main_limits.count_token_call(http_request, token_id=token.pk)
        request.client = token.application
        request.client_id = client_id
        request.api_token = token
        return True

    def authenticate_client_id(self, client_id, request, *args, **kwargs):
        return False

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type == "client_credentials"

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return request.api_token.scope.split()

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        # No scope is requested: the token's rights apply, whatever the form says.
        request.scopes = request.api_token.scope.split()
        return True
