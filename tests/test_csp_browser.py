"""The pages work in a real browser under their Content-Security-Policy (config.csp, docs/decisions.md §11.20): the
organization website (the admin's login, index, a change list and an add form with its widgets), both API docs
pages (Swagger UI draws the document) and the member website's login page, in the system's Chromium, with no
CSP violation reported (the `securitypolicyviolation` events and the console) and no script error.

Chromium and Playwright as in tests/test_mobile_e2e.py; without either the test is skipped. With CSP_SCREENSHOTS
set to a folder, each page's screenshot is saved there.
"""

import os
from pathlib import Path

import pytest

from accounts.models import MemberRole
from tests.mobile_oauth_flow import PASSWORD, make_member
from tests.test_mobile_e2e import CHROMIUM, TIMEOUT_MS, sync_playwright

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="no playwright (pip install -r requirements-dev.txt)"),
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium at /usr/bin/chromium (apt-get install chromium)"),
]

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


@pytest.fixture
def plain_http(settings):
    settings.REQUIRE_HTTPS = False
    settings.SESSION_COOKIE_SECURE = False
    settings.CSRF_COOKIE_SECURE = False
    settings.SECURE_SSL_REDIRECT = False
    settings.SECURE_HSTS_SECONDS = 0


def visit_pages(base: str, username: str) -> dict:
    """Each page's CSP header, violations, console messages about CSP, script errors and a piece of its text."""
    seen = {}
    screenshots = os.environ.get("CSP_SCREENSHOTS")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 900})
            context.add_init_script(RECORD_VIOLATIONS)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            console, errors = [], []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.on("pageerror", lambda error: errors.append(str(error)))

            def look(name: str, path: str, ready: str, act=None):
                console.clear()
                errors.clear()
                response = page.goto(f"{base}{path}")
                page.wait_for_selector(ready)
                page.wait_for_load_state("networkidle")
                if act is not None:
                    act()
                    page.wait_for_load_state("networkidle")
                seen[name] = {
                    "status": response.status,
                    "policy": response.header_value("Content-Security-Policy"),
                    "violations": page.evaluate("window.__violations"),
                    "console": [text for text in console if "Content Security Policy" in text],
                    "errors": list(errors),
                    "text": page.inner_text(ready),
                }
                if screenshots:
                    page.screenshot(path=str(Path(screenshots) / f"{name}.png"), full_page=False)

            look("member_login", "/login", "form")
            look("admin_login", "/admin/login/", "#login-form")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", PASSWORD)
            with page.expect_navigation():
                page.click("#login-form input[type=submit]")
            look("admin_index", "/admin/", "#content")
            look("admin_change_list", "/admin/objects_app/bookableobject/", "#changelist")

            def open_calendar():
                page.click(".datetimeshortcuts a:has(.date-icon)")
                page.wait_for_selector(".calendarbox", state="visible")

            # The admin's date and time widgets are drawn by its scripts; the calendar opens.
            look("admin_booking_form", "/admin/bookings/booking/add/", "#booking_form", open_calendar)
            seen["admin_booking_form"]["shortcuts"] = page.locator(".datetimeshortcuts").count()

            def try_an_operation():
                page.click("#operations-bookings-get_bookings .opblock-summary")
                page.click("#operations-bookings-get_bookings .try-out__btn")
                page.click("#operations-bookings-get_bookings .execute")
                page.wait_for_selector("#operations-bookings-get_bookings .live-responses-table .response-col_status")

            # An operation tried out: Swagger UI calls the API (401 without a token) and shows the reply.
            look("main_docs", "/main/v5/docs", ".swagger-ui .info .title", try_an_operation)
            seen["main_docs"]["operations"] = page.locator(".opblock").count()
            seen["main_docs"]["reply"] = page.inner_text("#operations-bookings-get_bookings .live-responses-table")
            look("mobile_docs", "/mobile/v5/docs", ".swagger-ui .info .title")
            seen["mobile_docs"]["operations"] = page.locator(".opblock").count()
        finally:
            browser.close()
    return seen


def test_the_websites_and_the_docs_pages_work_under_their_policies(transactional_db, live_server, plain_http):
    member = make_member()
    MemberRole.objects.create(member=member, role="admin")

    seen = visit_pages(live_server.url, member.user.username)

    for name, page in seen.items():
        assert page["status"] == 200, (name, page)
        assert "default-src" in page["policy"] and "frame-ancestors 'none'" in page["policy"], (name, page)
        assert page["violations"] == [], (name, page)
        assert page["console"] == [], (name, page)
        assert page["errors"] == [], (name, page)
    assert member.organization.name in seen["admin_index"]["text"]
    assert seen["admin_booking_form"]["shortcuts"] > 0
    assert "Main API v5" in seen["main_docs"]["text"]
    assert seen["main_docs"]["operations"] > 10
    assert "401" in seen["main_docs"]["reply"]
    assert "Mobile API v5" in seen["mobile_docs"]["text"]
    assert seen["mobile_docs"]["operations"] > 10
