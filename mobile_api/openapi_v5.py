"""The Mobile API v5's part of its OpenAPI document (/mobile/v5/openapi.json): its security scheme (OAuth 2.1
authorization code with PKCE, and the app's own client credentials) and its OAuth endpoints in OAuth's form.

The endpoints that declare themselves (GET /client, GET /me ...) are documented by apicore.openapi as every
API's are, with the v5 envelopes and Problem Details (apicore.openapi_document.FlavourDocument's defaults). The
OAuth views are django-oauth-toolkit's (mobile_api.oauth_v5): POST /oauth/token and POST /oauth/revoke are
documented here by their base classes, so that the document follows whatever those views are; GET
/oauth/authorize is a page for the browser, named by the security scheme (authorizationUrl), not an operation
of the document. MobileV5 names this document in its `document_class` (mobile_api.flavour_v5).
"""

from oauth2_provider.views import RevokeTokenView, TokenView

from apicore.errors import ErrorCode
from apicore.openapi import FlavourSchema
from apicore.openapi_document import FORM, JSON, RATE_LIMIT_HEADERS, Address, FlavourDocument, component
from mobile_api.oauth_v5 import MobileAuthorizeView

OAUTH_SCHEME = "oauth2"
CLIENT_SCHEME = "clientSecretBasic"

OAUTH_ERRORS = [
    "invalid_request",
    "invalid_client",
    "invalid_grant",
    "unauthorized_client",
    "unsupported_grant_type",
    "invalid_scope",
    "unsupported_token_type",
    "access_denied",
]
OAUTH_ERROR = {
    "type": "object",
    "description": "An OAuth 2.0 error (RFC 6749 5.2); `error_description` is for the app's user, in the language "
    "of Accept-Language.",
    "properties": {
        "error": {"type": "string", "enum": OAUTH_ERRORS},
        "error_description": {"type": "string"},
        "code": {"type": "integer", "description": "10003 when the address is blocked (403)."},
    },
    "required": ["error", "error_description"],
}
TOKEN_REQUEST = {
    "type": "object",
    "description": (
        "authorization_code: `code`, `redirect_uri` (as in the authorize request), `code_verifier`, optional "
        "`device_name`. refresh_token: `refresh_token`. client_credentials (a client with a key only): nothing "
        "more. A client with a key authenticates with HTTP Basic or `client_id` and `client_secret`; a public "
        "client sends `client_id` alone."
    ),
    "properties": {
        "grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token", "client_credentials"]},
        "code": {"type": "string", "minLength": 1, "description": "The authorization code (valid 2 minutes, once)."},
        "redirect_uri": {
            "type": "string",
            "minLength": 1,
            "description": "Exactly the redirect_uri of the authorize request.",
        },
        "code_verifier": {
            "type": "string",
            "minLength": 43,
            "maxLength": 128,
            "pattern": "^[A-Za-z0-9._~-]{43,128}$",
            "description": "PKCE: the verifier whose BASE64URL(SHA-256) was the code_challenge (S256).",
        },
        "device_name": {"type": "string", "description": "Shown to the member in their settings."},
        "refresh_token": {"type": "string", "minLength": 1},
        "client_id": {"type": "string", "minLength": 1},
        "client_secret": {"type": "string", "minLength": 1, "description": "The key of a client that has one."},
        "scope": {"type": "string", "description": "Ignored: a token has the client's rights."},
    },
    "required": ["grant_type"],
    "additionalProperties": False,
}
ACCESS_TOKEN = {
    "type": "object",
    "properties": {
        "access_token": {"type": "string"},
        "token_type": {"type": "string", "const": "Bearer"},
        "expires_in": {"type": "integer", "description": "Seconds the access token stays valid (3600)."},
        "scope": {"type": "string", "description": "The client's rights, `module:rights` separated by spaces."},
        "refresh_token": {
            "type": "string",
            "description": "authorization_code and refresh_token only: the login's new refresh token (the one "
            "sent is dead at once).",
        },
    },
    "required": ["access_token", "token_type", "expires_in", "scope"],
}
REVOKE_REQUEST = {
    "type": "object",
    "properties": {
        "token": {"type": "string", "minLength": 1, "description": "The login's refresh token."},
        "token_type_hint": {"type": "string", "enum": ["refresh_token", "access_token"]},
        "client_id": {"type": "string", "minLength": 1},
        "client_secret": {"type": "string", "minLength": 1},
    },
    "required": ["token"],
    "additionalProperties": False,
}
REVOKED = {"type": "object", "description": "Not shown: rely on the status alone."}


class MobileOAuthFormSchema(FlavourSchema):
    """A POST of an OAuth endpoint of the Mobile API, in OAuth's form (document 2: errors `{error,
    error_description}` except 429 and 500, and what the shared layer answers before the view)."""

    methods = ("POST",)
    operation_id = ""
    summary = ""
    description = ""
    request_name = ""
    request_schema: dict = {}
    reply_name = ""
    reply_schema: dict = {}
    reply_description = ""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        document = self.document
        oauth_error = {JSON: {"schema": component(registry, "OAuthError", OAUTH_ERROR)}}

        def reply(description, headers=("Request-Id",), **content):
            return {"description": description, "headers": document.header_refs(registry, headers), "content": content}

        return {
            "operationId": self.operation_id,
            "summary": self.summary,
            "description": self.description,
            "tags": ["oauth"],
            "security": [{CLIENT_SCHEME: []}, {}],
            "requestBody": {
                "required": True,
                "content": {FORM: {"schema": component(registry, self.request_name, self.request_schema)}},
            },
            "responses": {
                "200": reply(
                    self.reply_description,
                    ("Request-Id", *RATE_LIMIT_HEADERS, "Cache-Control"),
                    **{JSON: {"schema": component(registry, self.reply_name, self.reply_schema)}},
                ),
                "400": reply(
                    "The request is not valid (OAuth's form), or the `Host` header names no host of this service "
                    f"(Problem Details, {ErrorCode.INVALID_PARAMETER.code}).",
                    **oauth_error,
                    **document.error_content(registry, 400, [ErrorCode.INVALID_PARAMETER]),
                ),
                "401": reply(
                    "The client id or key is not accepted (`invalid_client`).",
                    ("Request-Id", "WWW-Authenticate"),
                    **oauth_error,
                ),
                "403": reply(
                    "The address is blocked (`access_denied`), or plain HTTP was used (Problem Details, "
                    f"{ErrorCode.HTTPS_REQUIRED.code}).",
                    **oauth_error,
                    **document.error_content(registry, 403, [ErrorCode.HTTPS_REQUIRED]),
                ),
                "413": reply("The form is over the size limit (`invalid_request`).", **oauth_error),
                **document.error_responses(
                    registry,
                    {
                        414: [ErrorCode.ADDRESS_TOO_LONG],
                        429: [ErrorCode.TOO_MANY_REQUESTS, ErrorCode.TOO_MANY_FAILED_AUTHORIZATIONS],
                    },
                ),
            },
        }


class MobileTokenSchema(MobileOAuthFormSchema):
    operation_id = "oauth_token"
    summary = "Tokens for a member's login (authorization code with PKCE), a renewal, or the app's own token."
    description = (
        "OAuth 2.1. A code or refresh token that is no longer valid gives 400 `invalid_grant` (a refresh failing "
        "so means logged out); `grant_type=password` gives 400 `unsupported_grant_type`. Each call counts as "
        "one call of the client."
    )
    request_name = "TokenRequest"
    request_schema = TOKEN_REQUEST
    reply_name = "AccessToken"
    reply_schema = ACCESS_TOKEN
    reply_description = "The tokens."


class MobileRevokeSchema(MobileOAuthFormSchema):
    operation_id = "oauth_revoke"
    summary = "Log out: end the login of a refresh token (200 also when it is already gone)."
    description = "The refresh token and every access token fetched with it stop working at once."
    request_name = "RevokeRequest"
    request_schema = REVOKE_REQUEST
    reply_name = "Revoked"
    reply_schema = REVOKED
    reply_description = "The login has ended (or was gone already)."


class MobileV5Document(FlavourDocument):
    """Every declared operation needs a member's (or, for GET /client, the app's) access token; the OAuth
    endpoints are documented by their schemas above, and the authorize page is the scheme's authorizationUrl."""

    other_views = {TokenView: MobileTokenSchema, RevokeTokenView: MobileRevokeSchema, MobileAuthorizeView: None}

    def security(self, operation) -> list[dict]:
        return [{OAUTH_SCHEME: []}]

    def security_schemes(self, address: Address) -> dict:
        token_url = address(TokenView)
        return {
            OAUTH_SCHEME: {
                "type": "oauth2",
                "description": (
                    "A member's access token from the authorization code flow with PKCE (code_challenge_method "
                    "S256 only; the login page opens in the system browser), sent as `Authorization: Bearer "
                    "<access token>`; it lives 3600 seconds and is renewed with the refresh token. No scope is "
                    "asked for: the client's rights apply. The app's own token (client credentials, clients with "
                    "a key) is good for GET /client only."
                ),
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": address(MobileAuthorizeView),
                        "tokenUrl": token_url,
                        "refreshUrl": token_url,
                        "scopes": {},
                    },
                    "clientCredentials": {"tokenUrl": token_url, "scopes": {}},
                },
            },
            CLIENT_SCHEME: {
                "type": "http",
                "scheme": "basic",
                "description": "For the OAuth endpoints: the client id and key as user name and password.",
            },
        }
