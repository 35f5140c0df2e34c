"""The Mobile API v5 sign-in end to end in a real headless browser (issue 10, Done when): the app opens
/oauth/authorize in Chromium, the member logs in on the club's login page and allows the app on the consent
page, the browser is sent to the app's own scheme with `code` and `state`; the app (requests) exchanges the code
with its PKCE verifier, calls GET /me, refreshes, revokes, and the revoked tokens are refused.

Chromium is the system's (`/usr/bin/chromium`, or CHROMIUM), driven by Playwright (requirements-dev.txt); no
browser is downloaded. Without either the test is skipped with the reason. The server is pytest-django's
live_server (a thread of this process, on the test database; plain http, so the test turns REQUIRE_HTTPS off).

A custom-scheme address cannot load: Chromium starts the navigation (a `request` event whose URL is the redirect
address) and aborts it. The test waits for that request, so the address is the one the browser was sent to.
"""

import os
import shutil
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests

from mobile_api.models import MobileLogin
from tests.mobile_oauth_flow import PASSWORD, REDIRECT_URI, make_app, make_member, new_verifier, s256

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None
    PlaywrightError = Exception


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _chromium()
# Decided at collection, so that a skipped run does not even create the test database.
pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="no playwright (pip install -r requirements-dev.txt)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium at /usr/bin/chromium (apt-get install chromium)"),
]

DEVICE_NAME = "Chromium end-to-end"
TIMEOUT_MS = 15_000


@pytest.fixture
def plain_http(settings):
    """live_server speaks plain http: the APIs must not answer 403 10000, the cookies must not be Secure."""
    settings.REQUIRE_HTTPS = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.SECURE_SSL_REDIRECT = False
    settings.SECURE_HSTS_SECONDS = 0


def browser_part(authorize_url: str, username: str, password: str) -> dict:
    """The member's part in Chromium; returns what the browser saw and the address it was sent back to.

    Playwright is shut before the function returns: its event loop must not be around while the test uses the
    ORM again (Django refuses synchronous database calls where an event loop runs)."""
    seen = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_context(locale="en-GB").new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(authorize_url)
            seen["login_url"] = page.url
            seen["login_text"] = page.inner_text("body")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", password)
            with page.expect_navigation():
                page.click("form button[type=submit]")
            seen["consent_url"] = page.url
            seen["consent_text"] = page.inner_text("body")
            with page.expect_request(lambda request: request.url.startswith(f"{REDIRECT_URI}?")) as sent_back:
                page.click("button[name=allow]")
            seen["back"] = sent_back.value.url
        finally:
            browser.close()
    return seen


def query_of(url: str) -> dict:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def test_a_member_signs_in_an_app_through_a_real_browser(request, transactional_db, live_server, plain_http):
    member = make_member()
    client, _key = make_app(rights={"organization": "r", "objects": "r", "bookings": "rw"})
    verifier = new_verifier()
    query = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": REDIRECT_URI,
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
        "state": "e2e-state-Zq8",
        "cl": "gb",
    }
    api = f"{live_server.url}/mobile/v5"

    seen = browser_part(f"{api}/oauth/authorize?{urlencode(query)}", member.user.username, PASSWORD)

    # authorize → the club's login page with the same query, branded with the app.
    assert urlsplit(seen["login_url"]).path == "/login"
    assert query_of(seen["login_url"]) == query
    assert client.app_name in seen["login_text"]
    # login → the consent page, which names the app and the organization.
    assert urlsplit(seen["consent_url"]).path == "/login/allow"
    assert query_of(seen["consent_url"]) == query
    assert client.app_name in seen["consent_text"]
    assert member.organization.name in seen["consent_text"]
    # allow → the app's own address with a code, the state unchanged and the issuer (RFC 9207, §9.36).
    back = query_of(seen["back"])
    assert set(back) == {"code", "state", "iss"}
    assert back["state"] == query["state"]
    assert back["iss"] == f"{api}"

    app = requests.Session()  # the app's own calls, without the browser's cookies
    # Closed at the end: a kept-alive connection would hold the live server's thread and its database session.
    request.addfinalizer(app.close)
    token_url = f"{api}/oauth/token"
    reply = app.post(
        token_url,
        data={
            "grant_type": "authorization_code",
            "code": back["code"],
            "redirect_uri": REDIRECT_URI,
            "client_id": client.client_id,
            "code_verifier": verifier,
            "device_name": DEVICE_NAME,
        },
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    first = reply.json()
    assert first["token_type"] == "Bearer"
    assert first["expires_in"] == 3600
    assert first["scope"] == client.scope

    def me(access_token: str):
        return app.get(f"{api}/me", headers={"Authorization": f"Bearer {access_token}"}, timeout=10)

    reply = me(first["access_token"])
    assert reply.status_code == 200, reply.text
    assert reply.json()["data"]["id"] == member.user_id
    assert reply.json()["data"]["organization"]["id"] == member.organization_id

    reply = app.post(
        token_url,
        data={"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client.client_id},
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    second = reply.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    assert me(second["access_token"]).status_code == 200

    login = MobileLogin.objects.get(member=member)
    assert login.device_name == DEVICE_NAME
    assert login.ended_at is None

    reply = app.post(
        f"{api}/oauth/revoke", data={"token": second["refresh_token"], "client_id": client.client_id}, timeout=10
    )
    assert reply.status_code == 200, reply.text
    reply = me(second["access_token"])
    assert reply.status_code == 401
    assert 'error="invalid_token"' in reply.headers["WWW-Authenticate"]
    reply = app.post(
        token_url,
        data={"grant_type": "refresh_token", "refresh_token": second["refresh_token"], "client_id": client.client_id},
        timeout=10,
    )
    assert reply.status_code == 400
    assert reply.json()["error"] == "invalid_grant"
    login.refresh_from_db()
    assert login.ended_at is not None
