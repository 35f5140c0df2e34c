"""The member website's login (/login, /logout), 'Reset my password' (/password-reset/...) and /account/.

../shared/DECISIONS.md "Limits that the contract leaves open" and "Languages": failed logins on this page and
POST /login-checks share one count (5 per username in 15 minutes; docs/decisions.md §3.17 "Failed logins");
texts in sv/en/nb/da by Accept-Language, or by the login page's `cl` (se, gb, no, dk).
"""

import re

import pytest
from django.core import mail
from django.utils import translation

from accounts.models import UserEmail
from tests.factories import MemberFactory, UserFactory

PASSWORD = "secret-pass-1"  # UserFactory's
LIMIT = 5
WINDOW = 15 * 60


@pytest.fixture(autouse=True)
def _back_to_the_default_language():
    yield
    translation.deactivate()


@pytest.fixture
def member(org):
    return MemberFactory(
        organization=org,
        member_number="0042",
        user__username="anna.berg",
        user__first_name="Anna",
        user__last_name="Berg",
    )


def log_in(client, username="anna.berg", password=PASSWORD, path="/login", **extra):
    return client.post(path, {"username": username, "password": password}, **extra)


def logged_in_user_id(client) -> int | None:
    value = client.session.get("_auth_user_id")
    return int(value) if value is not None else None


def without_csrf_token(response) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())


def fail_logins(client, times: int, username="anna.berg") -> None:
    for _ in range(times):
        response = log_in(client, username, "wrong-password")
        assert response.status_code == 200


# --- logging in and out ----------------------------------------------------------------------------


def test_the_login_page_shows_the_form(client, db):
    response = client.get("/login")

    assert response.status_code == 200
    assert b'name="username"' in response.content
    assert b'name="password"' in response.content
    assert b"Log in" in response.content


def test_a_right_login_goes_to_the_account_page(client, member, other_org):
    MemberFactory(organization=other_org, user=member.user, member_number="7")

    response = log_in(client)

    assert response.status_code == 302
    assert response["Location"] == "/account/"
    assert logged_in_user_id(client) == member.user_id
    page = client.get("/account/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Anna Berg" in text
    assert "Västerås Flygklubb" in text and "Bergen Flyklubb" in text
    assert "0042" in text


def test_the_username_is_taken_in_any_letter_case(client, member):
    response = log_in(client, "ANNA.Berg")

    assert response.status_code == 302
    assert logged_in_user_id(client) == member.user_id


def test_a_login_goes_to_next_when_it_is_on_this_site(client, member):
    assert log_in(client, path="/login?next=/account/%3Ftab%3D1")["Location"] == "/account/?tab=1"
    client.logout()
    assert log_in(client, path="/login?next=https://evil.example/")["Location"] == "/account/"


def test_a_wrong_password_shows_an_error_and_logs_nobody_in(client, member):
    response = log_in(client, password="wrong-password")

    assert response.status_code == 200
    assert "Wrong username or password." in response.content.decode()
    assert logged_in_user_id(client) is None


def test_an_unknown_username_shows_the_same_error(client, member):
    wrong = without_csrf_token(log_in(client, password="wrong-password"))
    unknown = without_csrf_token(log_in(client, "nobody-here"))

    assert "Wrong username or password." in unknown
    assert unknown.replace("nobody-here", "anna.berg") == wrong


@pytest.mark.parametrize("field", ["locked_login", "is_active"])
def test_a_stopped_login_cannot_log_in(client, org, field):
    MemberFactory(organization=org, user__username="stopped", **{f"user__{field}": field == "locked_login"})

    response = log_in(client, "stopped")

    assert response.status_code == 200
    assert "Wrong username or password." in response.content.decode()
    assert logged_in_user_id(client) is None


def test_a_login_updates_last_login(client, member):
    log_in(client)

    member.user.refresh_from_db()
    assert member.user.last_login is not None


def test_logout_is_a_post_that_ends_the_session(client, member):
    log_in(client)

    assert client.get("/logout").status_code == 405
    response = client.post("/logout")

    assert response.status_code == 302
    assert response["Location"] == "/login"
    assert logged_in_user_id(client) is None


def test_the_account_page_needs_a_login(client, db):
    response = client.get("/account/")

    assert response.status_code == 302
    assert response["Location"] == "/login?next=/account/"


def test_a_logged_in_member_visiting_the_login_page_goes_to_the_account(client, member):
    log_in(client)

    response = client.get("/login")

    assert response.status_code == 302
    assert response["Location"] == "/account/"


# --- the shared limit of failed logins -------------------------------------------------------------


def test_after_5_failures_the_page_answers_429_with_retry_after_even_for_the_right_password(
    client, member, frozen_time
):
    fail_logins(client, LIMIT)

    response = log_in(client)

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= WINDOW
    text = response.content.decode()
    assert "Too many failed logins for this username." in text
    assert re.search(r"Wait \d+ minutes? and try again\.", text)
    assert logged_in_user_id(client) is None


def test_the_page_is_free_again_when_the_window_ends(client, member, frozen_time):
    fail_logins(client, LIMIT)
    retry_after = int(log_in(client)["Retry-After"])

    frozen_time.shift(retry_after)

    assert log_in(client).status_code == 302
    assert logged_in_user_id(client) == member.user_id


def test_the_count_ignores_letter_case_and_counts_unknown_usernames(client, member, frozen_time):
    fail_logins(client, 2, "ANNA.BERG")
    fail_logins(client, 3, "anna.berg")
    fail_logins(client, LIMIT, "nobody-here")

    assert log_in(client, "Anna.Berg").status_code == 429
    assert log_in(client, "NOBODY-HERE", "anything").status_code == 429


def test_checks_through_the_api_block_the_page(client, api, member, frozen_time):
    for _ in range(3):
        api.post("/login-checks", json={"username": "anna.berg", "password": "wrong-password"})
    fail_logins(client, 2)

    assert log_in(client).status_code == 429
    response = api.post("/login-checks", json={"username": "anna.berg", "password": PASSWORD})
    assert response.status_code == 429
    assert response.json()["code"] == 10012


def test_the_limit_text_follows_the_language(client, member, frozen_time):
    fail_logins(client, LIMIT)

    text = log_in(client, path="/login?cl=se").content.decode()

    assert "För många misslyckade inloggningar med det här användarnamnet." in text
    assert re.search(r"Vänta \d+ minut(er)? och försök igen\.", text)


# --- languages -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cl", "language", "log_in_text"),
    [("se", "sv", "Logga in"), ("no", "nb", "Logg inn"), ("dk", "da", "Log ind"), ("gb", "en", "Log in")],
)
def test_cl_picks_the_language_of_the_login_page(client, db, cl, language, log_in_text):
    response = client.get(f"/login?cl={cl}", HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == 200
    assert response["Content-Language"] == language
    assert f"<h1>{log_in_text}</h1>" in response.content.decode()


def test_cl_wins_over_accept_language(client, db):
    response = client.get("/login?cl=gb", HTTP_ACCEPT_LANGUAGE="sv")

    assert response["Content-Language"] == "en"
    assert "<h1>Log in</h1>" in response.content.decode()


@pytest.mark.parametrize(
    ("accept", "log_in_text"), [("sv-SE,sv;q=0.9", "Logga in"), ("nb", "Logg inn"), ("da", "Log ind")]
)
def test_without_cl_accept_language_chooses(client, db, accept, log_in_text):
    response = client.get("/login", HTTP_ACCEPT_LANGUAGE=accept)

    assert f"<h1>{log_in_text}</h1>" in response.content.decode()


@pytest.mark.parametrize("cl", ["fr", "", "sv"])
def test_an_unknown_cl_leaves_the_language_to_accept_language(client, db, cl):
    response = client.get(f"/login?cl={cl}", HTTP_ACCEPT_LANGUAGE="da")

    assert response["Content-Language"] == "da"


def test_english_is_the_default(client, db):
    response = client.get("/login", HTTP_ACCEPT_LANGUAGE="fr")

    assert response["Content-Language"] == "en"
    assert "<h1>Log in</h1>" in response.content.decode()


def test_the_error_is_in_the_language_of_cl(client, member):
    response = log_in(client, password="wrong-password", path="/login?cl=no")

    assert "Feil brukernavn eller passord." in response.content.decode()


# --- reset my password -----------------------------------------------------------------------------


def test_a_new_login_without_a_password_sets_one_through_reset(client, org):
    """Logins made through the API have no usable password; 'Reset my password' is how they get one."""
    member = MemberFactory(organization=org, user__username="7-new.member")
    member.user.set_unusable_password()
    member.user.save()
    UserEmail.objects.create(user=member.user, position=0, address="New.Member@example.com")

    assert client.get("/password-reset/").status_code == 200
    response = client.post("/password-reset/", {"email": "new.member@EXAMPLE.com"})
    assert response.status_code == 302
    assert response["Location"] == "/password-reset/done"
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["New.Member@example.com"]
    link = re.search(r"https?://testserver(/password-reset/\S+)", mail.outbox[0].body).group(1)

    form = client.get(link, follow=True)
    assert form.status_code == 200
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a-new-pass-42", "new_password2": "a-new-pass-42"})
    assert done.status_code == 302
    assert done["Location"] == "/password-reset/complete"

    assert log_in(client, "7-new.member", "a-new-pass-42").status_code == 302


def test_reset_sends_nothing_for_an_unknown_or_locked_address(client, org):
    locked = UserFactory(locked_login=True)
    UserEmail.objects.create(user=locked, position=0, address="locked@example.com")
    inactive = UserFactory(is_active=False)
    UserEmail.objects.create(user=inactive, position=0, address="inactive@example.com")

    for address in ("nobody@example.com", "locked@example.com", "inactive@example.com"):
        response = client.post("/password-reset/", {"email": address})
        assert response.status_code == 302
        assert response["Location"] == "/password-reset/done"

    assert mail.outbox == []


def test_the_reset_page_follows_cl(client, db):
    response = client.get("/password-reset/?cl=dk")

    assert "Nulstil min adgangskode" in response.content.decode()
