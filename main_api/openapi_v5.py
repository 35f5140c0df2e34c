"""The Main API v5's part of its OpenAPI document (/main/v5/openapi.json): its security scheme (OAuth 2.0 client
credentials; until the cut-over the token itself) and POST /oauth/token in OAuth's form.

Envelopes, Problem Details and headers are the v5 defaults of apicore.openapi_document.FlavourDocument; the
endpoints that declare themselves are documented by apicore.openapi as every API's are. MainV5 names this
document in its `document_class` (main_api.flavour_v5).
"""

from oauth2_provider.views import TokenView

from apicore.errors import ErrorCode
from apicore.openapi import FlavourSchema
from apicore.openapi_document import FORM, JSON, RATE_LIMIT_HEADERS, Address, FlavourDocument, component

OAUTH_SCHEME = "oauth2"
CLIENT_SCHEME = "clientSecretBasic"

OAUTH_ERROR = {
    "type": "object",
    "description": "An OAuth 2.0 error (RFC 6749 5.2), described in the caller's language.",
    "properties": {
        "error": {
            "type": "string",
            "enum": [
                "invalid_request",
                "invalid_client",
                "invalid_grant",
                "unauthorized_client",
                "unsupported_grant_type",
                "invalid_scope",
            ],
        },
        "error_description": {"type": "string"},
    },
    "required": ["error", "error_description"],
}
ACCESS_TOKEN = {
    "type": "object",
    "properties": {
        "access_token": {"type": "string"},
        "token_type": {"type": "string", "const": "Bearer"},
        "expires_in": {"type": "integer", "description": "Seconds the access token stays valid."},
        "scope": {"type": "string", "description": "The token's rights, `module:rights` separated by spaces."},
    },
    "required": ["access_token", "token_type", "expires_in", "scope"],
}
TOKEN_REQUEST = {
    "type": "object",
    "properties": {
        "grant_type": {"type": "string", "enum": ["client_credentials"]},
        "client_id": {"type": "string", "description": "The token's Client ID (or give it in a Basic header)."},
        "client_secret": {"type": "string", "description": "The token itself (or give it in a Basic header)."},
        "scope": {"type": "string", "description": "Ignored: the token's own rights apply."},
    },
    "required": ["grant_type"],
}


class TokenSchema(FlavourSchema):
    """POST of the OAuth 2.0 token endpoint (client credentials, main_api.oauth_v5), in OAuth's form."""

    methods = ("POST",)

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        document = self.document
        oauth_error = component(registry, "OAuthError", OAUTH_ERROR)
        return {
            "operationId": "oauth_token",
            "summary": "An access token for a token's Client ID and secret (OAuth 2.0 client credentials).",
            "description": (
                "Send the Client ID and the token as HTTP Basic credentials, or as the form fields client_id and "
                "client_secret. Each fetch counts as one call of the token."
            ),
            "tags": ["oauth"],
            "security": [{CLIENT_SCHEME: []}, {}],
            "requestBody": {
                "required": True,
                "content": {FORM: {"schema": component(registry, "TokenRequest", TOKEN_REQUEST)}},
            },
            "responses": {
                "200": {
                    "description": "The access token.",
                    "headers": document.header_refs(registry, ("Request-Id", *RATE_LIMIT_HEADERS, "Cache-Control")),
                    "content": {JSON: {"schema": component(registry, "AccessToken", ACCESS_TOKEN)}},
                },
                "400": {
                    "description": (
                        "The request is not a valid client credentials request (OAuth's form), or the `Host` header "
                        f"names no host of this service (Problem Details, {ErrorCode.INVALID_PARAMETER.code})."
                    ),
                    "headers": document.header_refs(registry, ("Request-Id",)),
                    "content": {
                        JSON: {"schema": oauth_error},
                        **document.error_content(registry, 400, [ErrorCode.INVALID_PARAMETER]),
                    },
                },
                "401": {
                    "description": "The Client ID or secret is not accepted (`invalid_client`).",
                    "headers": document.header_refs(registry, ("Request-Id", "WWW-Authenticate")),
                    "content": {JSON: {"schema": oauth_error}},
                },
                "413": {
                    "description": "The form is over the size limit (`invalid_request`).",
                    "headers": document.header_refs(registry, ("Request-Id",)),
                    "content": {JSON: {"schema": oauth_error}},
                },
                **document.error_responses(
                    registry,
                    {
                        403: [ErrorCode.HTTPS_REQUIRED],
                        414: [ErrorCode.ADDRESS_TOO_LONG],
                        429: [ErrorCode.TOO_MANY_REQUESTS, ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS],
                    },
                ),
            },
        }


class MainV5Document(FlavourDocument):
    """Every declared operation needs an access token; POST /oauth/token (django-oauth-toolkit's TokenView) is
    documented by TokenSchema, and its path is the scheme's tokenUrl."""

    other_views = {TokenView: TokenSchema}

    def security(self, operation) -> list[dict]:
        return [{OAUTH_SCHEME: []}]

    def security_schemes(self, address: Address) -> dict:
        return {
            OAUTH_SCHEME: {
                "type": "oauth2",
                "description": (
                    "An access token from the token endpoint, sent as `Authorization: Bearer <access token>`. "
                    "Until the cut-over, the token itself is accepted in its place."
                ),
                "flows": {"clientCredentials": {"tokenUrl": address(TokenView), "scopes": {}}},
            },
            CLIENT_SCHEME: {
                "type": "http",
                "scheme": "basic",
                "description": "For the token endpoint: the token's Client ID and the token as user name and password.",
            },
        }
