"""The member website's app logins (issue 10, point 3): /account/apps lists the person's working Mobile API
logins and ends one; /account/password changes the password; every password change ends every app login
(document 2: "Changes to a member's password end every login"), whichever way the password is changed.
"""

import datetime as dt
import hashlib
import re
import secrets
import uuid

import pytest
import time_machine
from django.contrib.auth.forms import AdminPasswordChangeForm
from django.contrib.auth.tokens import default_token_generator
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from oauth2_provider.models import get_access_token_model, get_refresh_token_model, set_token_value

from accounts.models import User
from apicore import clock
from mobile_api.models import MobileLogin
from mobile_api.services.app_clients import app_client_create, app_client_revoke
from mobile_api.services.logins import mobile_login_renewed, mobile_login_start
from tests.admin_fixtures import web
from tests.factories import MemberFactory, OrganizationFactory

PASSWORD = "secret-pass-1"  # UserFactory's
NEW_PASSWORD = "a-new-pass-42"
AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()


@pytest.fixture(autouse=True)
def _back_to_the_default_language():
    yield
    translation.deactivate()


def make_app(app_name: str, developer: str = "Example Apps AB", organizations=()):
    client, _ = app_client_create(
        name=developer,
        app_name=app_name,
        rights={"organization": "r", "bookings": "rw"},
        organizations=list(organizations),
        redirect_uris=["se.example.flyclub:/oauth"],
        confidential=False,
    )
    return client


def app_login(member, app_client, device_name: str = "") -> MobileLogin:
    """A login as the token endpoint leaves it: an access token, its refresh token and the login row, all of
    one token family."""
    family = uuid.uuid4()
    access = AccessToken(
        user=member.user,
        application=app_client.application,
        expires=clock.now() + dt.timedelta(hours=1),
        scope=app_client.scope,
    )
    set_token_value(access, secrets.token_urlsafe(30))
    access.save()
    refresh = RefreshToken(
        user=member.user, application=app_client.application, access_token=access, token_family=family
    )
    set_token_value(refresh, secrets.token_urlsafe(30))
    refresh.save()
    return mobile_login_start(
        app_client=app_client,
        member=member,
        token_family=family,
        code_digest=hashlib.sha256(secrets.token_bytes(16)).hexdigest(),
        device_name=device_name,
    )


def working(login: MobileLogin) -> bool:
    """The login's row is open, its refresh tokens are live and its access tokens exist."""
    login.refresh_from_db()
    refresh = RefreshToken.objects.filter(token_family=login.token_family)
    return (
        login.ended_at is None
        and refresh.exists()
        and not refresh.filter(revoked__isnull=False).exists()
        and AccessToken.objects.filter(refresh_token__token_family=login.token_family).exists()
    )


def ended(login: MobileLogin, reason: str) -> bool:
    login.refresh_from_db()
    refresh = RefreshToken.objects.filter(token_family=login.token_family)
    return (
        login.ended_at is not None
        and login.end_reason == reason
        and refresh.exists()
        and not refresh.filter(revoked__isnull=True).exists()
        and not AccessToken.objects.filter(user=login.member.user, application=login.app_client.application)
        .filter(pk__in=refresh.values("access_token_id"))
        .exists()
        and not refresh.filter(access_token__isnull=False).exists()
    )


def table_rows(text: str) -> list[list[str]]:
    """The cells of each row of the logins' table (the heading row has no <td>)."""
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>\s*<td>.*?</tr>", text, re.S)]


def page_text(response) -> str:
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__username="anna.berg", user__first_name="Anna")


@pytest.fixture
def apps(db):
    return make_app("Flyg i fickan", "Pocket Aviation AB"), make_app("Bokaren", "Bokaren HB")


@pytest.fixture
def logins(member, apps):
    pocket, bokaren = apps
    return app_login(member, pocket, "Annas iPhone"), app_login(member, bokaren, "")


# --- the list ----------------------------------------------------------------------------------------------


def test_the_list_shows_each_working_login_with_app_developer_organization_and_device(member, logins):
    text = page_text(web(member.user).get("/account/apps"))

    cells = table_rows(text)
    assert len(cells) == 2
    by_app = {row[0]: row for row in cells}
    assert by_app["Flyg i fickan"][1:4] == ["Pocket Aviation AB", "Västerås Flygklubb", "Annas iPhone"]
    assert by_app["Bokaren"][1:4] == ["Bokaren HB", "Västerås Flygklubb", "<em>unnamed device</em>"]
    for login in logins:
        assert f'action="/account/apps/{login.pk}/end"' in text
    assert text.count('name="csrfmiddlewaretoken"') == 2
    assert "End this login" in text
    # Nothing an app or a person should not see: no token family, no code digest.
    for login in logins:
        assert str(login.token_family) not in text and login.code_digest not in text


def test_times_are_in_each_organizations_zone(member, apps, frozen_time):
    """FROZEN_AT is 2026-11-25 12:00 UTC: 13:00 in Stockholm, 07:00 in New York."""
    pocket, bokaren = apps
    abroad = MemberFactory(
        user=member.user, organization=OrganizationFactory(name="Hudson Flyers", timezone="America/New_York")
    )
    here = app_login(member, pocket, "Annas iPhone")
    app_login(abroad, bokaren, "Annas iPad")
    frozen_time.shift(dt.timedelta(days=2, hours=3, minutes=25))
    mobile_login_renewed(token_family=here.token_family)

    text = page_text(web(member.user).get("/account/apps"))

    rows = {cells[3]: cells for cells in table_rows(text)}
    assert rows["Annas iPhone"][2] == "Västerås Flygklubb"
    assert rows["Annas iPhone"][4:6] == ["2026-11-25 13:00 CET", "2026-11-27 16:25 CET"]
    assert rows["Annas iPad"][2] == "Hudson Flyers"
    assert rows["Annas iPad"][4:6] == ["2026-11-25 07:00 EST", "2026-11-25 07:00 EST"]
    # The renewed login comes first (newest use first).
    assert text.index("Annas iPhone") < text.index("Annas iPad")


def test_only_the_persons_own_working_logins_are_listed(member, org, other_org, apps, logins):
    pocket, bokaren = apps
    colleague = MemberFactory(organization=org)
    stranger = MemberFactory(organization=other_org)
    app_login(colleague, pocket, "Colleague phone")
    app_login(stranger, bokaren, "Stranger phone")
    gone = app_login(member, pocket, "Old phone")
    web(member.user).post(f"/account/apps/{gone.pk}/end")

    text = page_text(web(member.user).get("/account/apps"))

    assert "Annas iPhone" in text
    for hidden in ("Colleague phone", "Stranger phone", "Old phone", "Bergen Flyklubb"):
        assert hidden not in text
    assert "Annas iPhone" in page_text(web(member.user).get("/account/apps"))
    assert "Colleague phone" in page_text(web(colleague.user).get("/account/apps"))
    assert "Annas iPhone" not in page_text(web(colleague.user).get("/account/apps"))


def test_a_revoked_apps_logins_are_not_listed(member, apps, logins):
    app_client_revoke(client=apps[0])

    text = page_text(web(member.user).get("/account/apps"))

    assert "Annas iPhone" not in text and "Bokaren" in text


def test_a_device_name_from_the_app_is_shown_as_text(member, apps):
    login = app_login(member, apps[0], '<script>alert("x")</script>')
    browser = web(member.user)

    text = page_text(browser.get("/account/apps"))
    message = page_text(browser.post(f"/account/apps/{login.pk}/end", follow=True))

    for html in (text, message):
        assert "<script>" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in text
    assert "&lt;script&gt;" in message


def test_without_logins_the_page_says_so(member):
    text = page_text(web(member.user).get("/account/apps"))

    assert "You are not logged in to any app." in text
    assert "End this login" not in text


def test_the_list_costs_the_same_queries_for_1_or_6_logins(member, apps, django_assert_max_num_queries):
    browser = web(member.user)
    app_login(member, apps[0], "Phone 0")
    with CaptureQueriesContext(connection) as one:
        page_text(browser.get("/account/apps"))
    for n in range(1, 6):
        app_login(member, apps[n % 2], f"Phone {n}")

    with django_assert_max_num_queries(len(one.captured_queries)):
        text = page_text(browser.get("/account/apps"))
    assert all(f"Phone {n}" in text for n in range(6))


@pytest.mark.parametrize("path", ["/account/apps", "/account/password"])
def test_the_pages_need_a_login(client, db, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"] == f"/login?next={path}"


def test_the_account_page_links_both_pages(member):
    text = page_text(web(member.user).get("/account/"))

    assert 'href="/account/apps"' in text
    assert 'href="/account/password"' in text


# --- ending one login --------------------------------------------------------------------------------------


def test_end_this_login_ends_only_that_login_and_comes_back_with_a_message(member, logins):
    phone, other = logins
    browser = web(member.user)

    response = browser.post(f"/account/apps/{phone.pk}/end")

    assert response.status_code == 302
    assert response["Location"] == "/account/apps"
    assert ended(phone, MobileLogin.EndReason.MEMBER)
    assert working(other)
    text = page_text(browser.get("/account/apps"))
    assert "The login of Flyg i fickan on Annas iPhone has ended. The app has to log in again." in text
    assert f'action="/account/apps/{phone.pk}/end"' not in text
    assert f'action="/account/apps/{other.pk}/end"' in text


def test_ending_a_login_without_a_device_name_says_unnamed(member, logins):
    browser = web(member.user)

    text = page_text(browser.post(f"/account/apps/{logins[1].pk}/end", follow=True))

    assert "The login of Bokaren on an unnamed device has ended." in text
    assert ended(logins[1], MobileLogin.EndReason.MEMBER) and working(logins[0])


def test_another_persons_login_is_404_and_keeps_working(member, org, other_org, apps, logins):
    colleague_login = app_login(MemberFactory(organization=org), apps[0], "Colleague phone")
    stranger_login = app_login(MemberFactory(organization=other_org), apps[1], "Stranger phone")
    browser = web(member.user)

    for login in (colleague_login, stranger_login):
        assert browser.post(f"/account/apps/{login.pk}/end").status_code == 404
        assert working(login)
    assert browser.post("/account/apps/999999/end").status_code == 404
    assert all(working(login) for login in logins)


def test_ending_needs_a_post_with_the_csrf_token(member, logins):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(member.user)
    phone = logins[0]

    assert browser.get(f"/account/apps/{phone.pk}/end").status_code == 405
    assert browser.post(f"/account/apps/{phone.pk}/end").status_code == 403
    assert working(phone)

    page = page_text(browser.get("/account/apps"))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = browser.post(f"/account/apps/{phone.pk}/end", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert ended(phone, MobileLogin.EndReason.MEMBER)


def test_ending_an_ended_login_again_changes_nothing(member, logins, frozen_time):
    browser = web(member.user)
    phone = logins[0]
    browser.post(f"/account/apps/{phone.pk}/end")
    phone.refresh_from_db()
    first_end = phone.ended_at
    frozen_time.shift(60)

    assert browser.post(f"/account/apps/{phone.pk}/end").status_code == 302
    phone.refresh_from_db()
    assert phone.ended_at == first_end
    assert working(logins[1])


def test_ending_needs_a_login(client, logins):
    response = client.post(f"/account/apps/{logins[0].pk}/end")

    assert response.status_code == 302
    assert response["Location"].startswith("/login?next=")
    assert working(logins[0])


# --- password changes end every login ----------------------------------------------------------------------


def test_the_password_change_page_saves_the_password_keeps_the_session_and_ends_every_login(member, logins):
    browser = web(member.user)
    page = page_text(browser.get("/account/password"))
    assert 'name="old_password"' in page and 'name="new_password1"' in page and 'name="new_password2"' in page

    response = browser.post(
        "/account/password",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert response["Location"] == "/account/"
    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in logins)
    text = page_text(browser.get("/account/"))  # still logged in
    assert "Your new password is saved. Every app you were logged in to has to log in again." in text
    member.user.refresh_from_db()
    assert member.user.check_password(NEW_PASSWORD)


def test_a_wrong_old_password_changes_nothing(member, logins):
    browser = web(member.user)

    response = browser.post(
        "/account/password",
        {"old_password": "not-it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 200
    assert 'name="old_password"' in response.content.decode()
    assert all(working(login) for login in logins)
    member.user.refresh_from_db()
    assert member.user.check_password(PASSWORD)


def test_wrong_old_passwords_count_toward_the_failed_login_limit(member, logins, settings):
    settings.FAILED_LOGINS_PER_USERNAME = 2
    browser = web(member.user)
    form = {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    statuses = [browser.post("/account/password", {**form, "old_password": "not-it"}).status_code for _ in range(2)]
    blocked = browser.post("/account/password", {**form, "old_password": PASSWORD})  # right, but too late
    assert statuses == [200, 200]
    assert blocked.status_code == 429 and blocked.has_header("Retry-After")
    member.user.refresh_from_db()
    assert member.user.check_password(PASSWORD) and all(working(login) for login in logins)
    assert Client().post("/login", {"username": member.user.username, "password": PASSWORD}).status_code == 429


def test_a_password_change_ends_the_logins_of_every_membership_and_nobody_elses(member, org, other_org, apps, logins):
    abroad = app_login(MemberFactory(user=member.user, organization=other_org), apps[1], "Annas iPad")
    colleague = app_login(MemberFactory(organization=org), apps[0], "Colleague phone")

    member.user.set_password(NEW_PASSWORD)
    member.user.save()

    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in (*logins, abroad))
    assert working(colleague)


def test_the_password_reset_ends_every_login(client, member, logins):
    uid = urlsafe_base64_encode(force_bytes(member.user.pk))
    token = default_token_generator.make_token(member.user)

    form = client.get(f"/password-reset/{uid}/{token}", follow=True)
    assert form.status_code == 200
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert done.status_code == 302
    assert done["Location"] == "/password-reset/complete"
    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in logins)


def test_the_admins_password_form_ends_every_login(member, logins):
    """The form Django's admin uses for a login's password (AdminPasswordChangeForm)."""
    form = AdminPasswordChangeForm(member.user, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    assert form.is_valid(), form.errors

    form.save()

    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in logins)


def test_set_password_with_update_fields_ends_every_login(member, logins):
    member.user.set_password(NEW_PASSWORD)
    member.user.save(update_fields=["password"])

    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in logins)


def test_an_unusable_password_ends_every_login(member, logins):
    member.user.set_unusable_password()
    member.user.save()

    assert all(ended(login, MobileLogin.EndReason.PASSWORD) for login in logins)


def test_a_plain_save_ends_nothing_and_asks_nothing_more(member, logins):
    user = User.objects.get(pk=member.user_id)
    user.first_name = "Annika"

    with CaptureQueriesContext(connection) as queries:
        user.save()
        user.save(update_fields=["first_name"])

    assert all(working(login) for login in logins)
    sql = " ".join(q["sql"] for q in queries.captured_queries).lower()
    assert "mobilelogin" not in sql and "oauth2_provider" not in sql


def test_a_save_that_leaves_the_password_out_ends_nothing(member, logins):
    member.user.set_password(NEW_PASSWORD)
    member.user.save(update_fields=["first_name"])

    assert all(working(login) for login in logins)


def test_each_password_change_ends_the_logins_made_since(member, apps, logins):
    member.user.set_password(NEW_PASSWORD)
    member.user.save()
    later = app_login(member, apps[0], "New phone")
    member.user.save()  # the password saved above is not a change again

    assert working(later)
    member.user.set_password("yet-another-pass-7")
    member.user.save()
    assert ended(later, MobileLogin.EndReason.PASSWORD)


def test_logging_in_on_the_website_ends_nothing(client, member, logins):
    response = client.post("/login", {"username": "anna.berg", "password": PASSWORD})

    assert response.status_code == 302
    assert all(working(login) for login in logins)


# --- languages ---------------------------------------------------------------------------------------------

TEXTS = {
    # language: (the list's heading, the button, unnamed device, the password page's heading)
    "en": ("Apps you are logged in to", "End this login", "unnamed device", "Change my password"),
    "sv": ("Appar du är inloggad i", "Avsluta den här inloggningen", "namnlös enhet", "Byt mitt lösenord"),
    "nb": ("Apper du er logget inn i", "Avslutt denne innloggingen", "enhet uten navn", "Bytt passordet mitt"),
    "da": ("Apps du er logget ind i", "Afslut dette login", "enhed uden navn", "Skift min adgangskode"),
}
CL = {"en": "gb", "sv": "se", "nb": "no", "da": "dk"}


@pytest.mark.parametrize("language", list(TEXTS))
def test_the_pages_follow_cl(member, logins, language):
    heading, button, unnamed, password_heading = TEXTS[language]
    browser = web(member.user)

    apps_page = browser.get(f"/account/apps?cl={CL[language]}", HTTP_ACCEPT_LANGUAGE="de")
    password_page = browser.get(f"/account/password?cl={CL[language]}", HTTP_ACCEPT_LANGUAGE="de")

    assert apps_page["Content-Language"] == language
    text = page_text(apps_page)
    assert f"<h1>{heading}</h1>" in text and button in text and f"<em>{unnamed}</em>" in text
    assert f"<h1>{password_heading}</h1>" in page_text(password_page)


@pytest.mark.parametrize("language", list(TEXTS))
def test_the_pages_follow_accept_language(member, logins, language):
    heading, button, _, password_heading = TEXTS[language]
    browser = web(member.user)

    text = page_text(browser.get("/account/apps", HTTP_ACCEPT_LANGUAGE=language))
    account = page_text(browser.get("/account/", HTTP_ACCEPT_LANGUAGE=language))

    assert f"<h1>{heading}</h1>" in text and button in text
    assert f">{heading}</a>" in account and f">{password_heading}</a>" in account


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "The login of Flyg i fickan on Annas iPhone has ended."),
        ("sv", "Inloggningen för Flyg i fickan på Annas iPhone är avslutad."),
        ("nb", "Innloggingen til Flyg i fickan på Annas iPhone er avsluttet."),
        ("da", "Login for Flyg i fickan på Annas iPhone er afsluttet."),
    ],
)
def test_the_end_message_is_in_the_persons_language(member, logins, language, message):
    browser = web(member.user)

    text = page_text(browser.post(f"/account/apps/{logins[0].pk}/end", HTTP_ACCEPT_LANGUAGE=language, follow=True))

    assert message in text


def test_a_login_not_renewed_for_90_days_is_no_longer_listed(member, apps):
    from tests.mobile_oauth_flow import App
    from tests.mobile_oauth_flow import make_app as make_mobile_app

    client, _key = make_mobile_app(organizations=[member.organization])
    member.user.set_password("A long test password 7")
    member.user.save()
    app = App(client=client)
    with time_machine.travel(clock.now(), tick=False) as traveller:
        app.login_tokens(member)
        browser = web(member.user)
        assert "Flyclub Pocket" in page_text(browser.get("/account/apps"))
        traveller.shift(dt.timedelta(days=90, minutes=1).total_seconds())
        assert "Flyclub Pocket" not in page_text(web(member.user).get("/account/apps"))
