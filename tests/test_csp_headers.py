"""Browser-facing headers (issue 18 item 8; docs/decisions.md §11.20 "A content security policy per kind of page"):
each kind of page answers its own Content-Security-Policy, exactly; no page has an inline script; the inline
styles that are allowed are allowed by their hash; the member's own pages answer `Cache-Control: private,
no-store`. That the pages still work in a browser under these policies: tests/test_csp_browser.py and
tests/test_mobile_e2e.py.
"""

import base64
import hashlib
import re
from pathlib import Path
from urllib.parse import urlencode

import django.contrib.admin
import pytest
from django.test import Client, override_settings

from accounts.models import MemberRole
from tests.mobile_oauth_flow import HTTPS, App, make_app, make_member

pytestmark = pytest.mark.django_db

ALWAYS = {"frame-ancestors": {"'none'"}, "base-uri": {"'none'"}, "object-src": {"'none'"}}
SITE = {
    "default-src": {"'none'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "form-action": {"'self'"},
    **ALWAYS,
}
SIGN_IN = {name: sources for name, sources in SITE.items() if name != "form-action"}
ADMIN = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'", "'sha256-blvLUW3UscWqsXGByNOqdBboM+ShWAuugp2mC/wbafU='"},
    "img-src": {"'self'", "data:"},
    "form-action": {"'self'"},
    **ALWAYS,
}
DOCS = {
    "default-src": {"'none'"},
    "script-src": {"'self'"},
    "style-src": {"'self'", "'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='"},
    "img-src": {"'self'", "data:"},
    "connect-src": {"'self'"},
    "form-action": {"'self'"},
    **ALWAYS,
}
API = {"default-src": {"'none'"}, "frame-ancestors": {"'none'"}}


def policy(response) -> dict[str, set[str]]:
    """The response's policy as directive → sources (django-csp writes the directives in no fixed order)."""
    header = response.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']}"
    directives = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in directives, header
        directives[name] = set(sources)
    return directives


def cache_control(response) -> set[str]:
    return {part.strip() for part in response.headers.get("Cache-Control", "").split(",") if part.strip()}


def sha256_source(text: str) -> str:
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()}'"


def inline_scripts(html: str) -> list[str]:
    """The text of every <script> element that has some (a script with src has none)."""
    return [body for body in re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S) if body.strip()]


def inline_styles(html: str) -> list[str]:
    return re.findall(r"<style\b[^>]*>(.*?)</style>", html, re.S)


@pytest.fixture
def member():
    return make_member()


@pytest.fixture
def browser(member):
    client = Client()
    client.force_login(member.user)
    return client


# --- the member website, the home page, the error pages ----------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["/", "/errors/validation", "/docs/main-api-v5-migration", "/login", "/password-reset/", "/no-such-page"],
)
def test_the_public_pages_answer_the_site_policy(path):
    response = Client().get(path, **HTTPS)

    assert response.status_code in (200, 404)
    assert policy(response) == SITE
    html = response.content.decode()
    assert inline_scripts(html) == [] and inline_styles(html) == []
    if response.status_code == 200:
        assert "/static/site.css" in html  # the style sheet is a file


@pytest.mark.parametrize("path", ["/account/", "/account/apps", "/account/password"])
def test_the_members_own_pages_answer_the_site_policy_and_are_not_cached(browser, path):
    response = browser.get(path, **HTTPS)

    assert response.status_code == 200
    assert policy(response) == SITE
    assert cache_control(response) == {"private", "no-store"}
    html = response.content.decode()
    assert inline_scripts(html) == [] and inline_styles(html) == []


@pytest.mark.parametrize("path", ["/login", "/password-reset/"])
def test_the_login_and_password_pages_are_not_cached(path):
    assert {"private", "no-store"} <= cache_control(Client().get(path, **HTTPS))


def test_a_logged_out_member_sent_to_the_login_is_not_cached_either():
    response = Client().get("/account/apps", **HTTPS)

    assert response.status_code == 302
    assert cache_control(response) == {"private", "no-store"}


# --- an app's sign-in: the login page with its query and the consent page ---------------------------------


def test_the_sign_in_pages_have_no_form_action_the_app_redirect_would_break(member):
    """Chromium applies form-action to the redirects after a form is sent: "Allow" (and a login whose consent is
    remembered) ends at the app's own scheme, which form-action 'self' blocks."""
    client, _key = make_app(organizations=[member.organization])
    app = App(client)
    query = urlencode(app.authorize_query())

    login = Client().get(f"/login?{query}", **HTTPS)
    assert login.status_code == 200
    assert policy(login) == SIGN_IN
    assert {"private", "no-store"} <= cache_control(login)

    app.browser.force_login(member.user)
    consent = app.browser.get(f"/login/allow?{query}", **HTTPS)
    assert consent.status_code == 200
    assert b'name="allow"' in consent.content
    assert policy(consent) == SIGN_IN
    assert cache_control(consent) == {"private", "no-store"}
    assert inline_scripts(consent.content.decode()) == []

    back = app.browser.post(f"/login/allow?{query}", {"allow": "allow"}, **HTTPS)
    assert back.status_code == 302 and back["Location"].startswith(app.redirect_uri)
    assert cache_control(back) == {"private", "no-store"}


# --- the organization website (the admin) -------------------------------------------------------------------


def test_the_admin_pages_answer_the_admin_policy(member):
    MemberRole.objects.create(member=member, role="admin")
    assert policy(Client().get("/admin/login/", **HTTPS)) == ADMIN
    admin = Client()
    admin.force_login(member.user)

    for path in ("/admin/", "/admin/objects_app/bookableobject/", "/admin/bookings/booking/add/", "/admin/jsi18n/"):
        response = admin.get(path, **HTTPS)
        assert response.status_code == 200, path
        assert policy(response) == ADMIN, path
        if response["Content-Type"].startswith("text/html"):
            assert inline_scripts(response.content.decode()) == [], path


def test_the_admin_policy_allows_the_one_inline_style_of_djangos_templates_by_its_hash():
    """The change list without actions has an inline <style>; the hash in the policy is that block's."""
    templates = Path(django.contrib.admin.__file__).parent / "templates" / "admin"
    styles = [style for page in templates.rglob("*.html") for style in inline_styles(page.read_text())]

    assert styles, "Django's admin has no inline style any more: drop its hash from config.csp.ADMIN"
    assert {sha256_source(style) for style in styles} == ADMIN["style-src"] - {"'self'"}


# --- the API documentation pages -----------------------------------------------------------------------------


@override_settings(WHITENOISE_USE_FINDERS=True, WHITENOISE_AUTOREFRESH=True)
@pytest.mark.parametrize("prefix", ["/main/v5", "/mobile/v5"])
def test_the_docs_pages_answer_the_docs_policy_with_no_inline_script(prefix):
    response = Client().get(f"{prefix}/docs", **HTTPS)

    assert response.status_code == 200
    assert policy(response) == DOCS
    html = response.content.decode()
    assert inline_scripts(html) == []  # the start script is the file `docs?script=`
    styles = inline_styles(html)
    assert styles and {sha256_source(style) for style in styles} == DOCS["style-src"] - {"'self'"}
    script = Client().get(f"{prefix}/docs?script=", **HTTPS)
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")


# --- the APIs' replies ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/main/v5/openapi.json", "/main/v5/token", "/main/v5/no-such-route", "/mobile/v5/me", "/mobile/v5/client"]
)
def test_the_api_replies_answer_the_api_policy(path):
    assert policy(Client().get(path, **HTTPS)) == API
