"""The Content-Security-Policy of each kind of page (docs/decisions.md §11.20 "A content security policy per kind
of page"), set by django-csp's middleware.

django-csp sets one policy for the site (CONTENT_SECURITY_POLICY, here the member website's) and lets a view
choose another with its decorators; the organization website is Django's admin, whose many views are not ours to
decorate, so the middleware picks the policy by the page's address (its documented extension point,
`get_policy_parts`). A view's own decorator still wins.

No page runs an inline script. The two inline `<style>` blocks of pages we do not write (Swagger UI's page in
drf-spectacular, the admin's change list without actions) are allowed by their SHA-256 hash; the tests compute the
hashes from the rendered pages, so an upgrade that changes them is noticed.
"""

from csp.constants import NONE, SELF
from csp.middleware import CSPMiddleware, PolicyParts

from mobile_api.consent import is_oauth_query

# What every page forbids: being framed, a <base>, plugins.
_ALWAYS = {
    "frame-ancestors": [NONE],
    "base-uri": [NONE],
    "object-src": [NONE],
}

# The member website (/login, /account..., the password pages), the home page, /errors/<kind>, the migration guide:
# plain HTML forms with the site's style sheet, no script at all.
SITE = {
    "default-src": [NONE],
    "style-src": [SELF],
    "img-src": [SELF],
    "form-action": [SELF],
    **_ALWAYS,
}

# The pages of an app's sign-in, the consent page /login/allow and the login page with the sign-in's query: as the
# site, but without form-action. "Allow" posts to /login/allow, which answers with a redirect to the app's own
# address (a custom scheme such as `se.example.flyclub:/oauth/callback`); so does the login's POST when the member
# allowed the app before (/login, then /login/allow, then the app). Chromium applies form-action to the redirects
# after a form is sent too, and blocks that last step (tests/test_mobile_e2e.py fails with form-action 'self').
CONSENT = {key: value for key, value in SITE.items() if key != "form-action"}

# The organization website (Django's admin): its scripts and style sheets are static files; the change list
# without actions has one inline <style> (django/contrib/admin/templates/admin/change_list.html).
ADMIN_CHANGE_LIST_STYLE = "'sha256-blvLUW3UscWqsXGByNOqdBboM+ShWAuugp2mC/wbafU='"
ADMIN = {
    "default-src": [SELF],
    "script-src": [SELF],
    "style-src": [SELF, ADMIN_CHANGE_LIST_STYLE],
    "img-src": [SELF, "data:"],
    "form-action": [SELF],
    **_ALWAYS,
}

# The API documentation pages (Swagger UI from drf-spectacular-sidecar's static files, its start script served by
# the docs route itself): the document is fetched from our own address; Swagger UI's style sheet draws its icons
# from data: URIs; drf-spectacular's page has one inline <style>.
SWAGGER_PAGE_STYLE = "'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='"
DOCS = {
    "default-src": [NONE],
    "script-src": [SELF],
    "style-src": [SELF, SWAGGER_PAGE_STYLE],
    "img-src": [SELF, "data:"],
    "connect-src": [SELF],
    "form-action": [SELF],
    **_ALWAYS,
}

# Replies of the APIs (JSON, Problem Details, the OpenAPI documents): nothing to load, not to be framed.
API = {"default-src": [NONE], "frame-ancestors": [NONE]}

DOCS_PATHS = ("/main/v5/docs", "/mobile/v5/docs")
CONSENT_PATH = "/login/allow"
LOGIN_PATH = "/login"
ADMIN_PREFIX = "/admin/"
API_PREFIXES = ("/main/", "/mobile/")


def policy_for(request) -> dict:
    """The policy of the page that `request` asks for, by its address."""
    path = request.path_info
    if path in DOCS_PATHS:
        return DOCS
    if path == CONSENT_PATH or (path == LOGIN_PATH and is_oauth_query(request)):
        return CONSENT
    if path.startswith(ADMIN_PREFIX):
        return ADMIN
    if path.startswith(API_PREFIXES):
        return API
    return SITE


class PageKindCSPMiddleware(CSPMiddleware):
    """django-csp's middleware with the policy chosen by the page's address where the view chose none."""

    def get_policy_parts(self, request, response, report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and parts.config is None:
            parts.config = policy_for(request)
        return parts
