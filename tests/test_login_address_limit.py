"""Failed logins per client address (issue 18): 30 in 15 minutes, whatever the usernames, on the login page, the
Mobile sign-in's login page (/login with the OAuth query) and the admin login; past them a 429 page with
`Retry-After` (../shared/DECISIONS.md "Limits that the contract leaves open"; docs/decisions.md §3.20).

The address is apicore.client_ip's: REMOTE_ADDR, or the right-most X-Forwarded-For hop from a trusted proxy.
The admin login answers a blocked username with 429 and `Retry-After` too, as /login does.
"""

import re

import pytest
from django.test import Client
from django.utils import translation

from tests.factories import MemberFactory, make_admin
from tests.mobile_oauth_flow import App, make_app

PASSWORD = "secret-pass-1"  # UserFactory's
ADDRESS_LIMIT = 30
WINDOW = 15 * 60
USERNAME_LIMIT = 5
HTTPS = {"secure": True}


@pytest.fixture(autouse=True)
def _back_to_the_default_language():
    yield
    translation.deactivate()


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__username="anna.berg")


def log_in(client, username, password=PASSWORD, path="/login", **extra):
    return client.post(path, {"username": username, "password": password}, **HTTPS, **extra)


def try_usernames(client, count: int, *, start: int = 0, path="/login", **extra) -> list[int]:
    """`count` different usernames, each tried once with a wrong password; their statuses."""
    return [
        log_in(client, f"guess-{number}", "wrong-password-1", path=path, **extra).status_code
        for number in range(start, start + count)
    ]


def assert_address_limit(response) -> int:
    assert response.status_code == 429
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= WINDOW
    assert "Too many failed logins from your address." in response.content.decode()
    return retry_after


def test_80_usernames_from_one_address_are_refused_after_30(client, member, frozen_time):
    statuses = try_usernames(client, 80)

    assert statuses[:ADDRESS_LIMIT] == [200] * ADDRESS_LIMIT
    assert statuses[ADDRESS_LIMIT:] == [429] * (80 - ADDRESS_LIMIT)


def test_past_the_limit_the_right_password_gets_the_page_with_retry_after(client, member, frozen_time):
    try_usernames(client, ADDRESS_LIMIT)

    response = log_in(client, "anna.berg")

    assert_address_limit(response)
    assert re.search(r"Wait \d+ minutes? and try again\.", response.content.decode())
    assert "_auth_user_id" not in client.session


def test_29_failures_leave_the_address_usable(client, member, frozen_time):
    try_usernames(client, ADDRESS_LIMIT - 1)

    assert log_in(client, "anna.berg").status_code == 302


def test_another_address_is_not_affected(client, member, frozen_time):
    try_usernames(client, ADDRESS_LIMIT, REMOTE_ADDR="198.51.100.7")

    assert_address_limit(log_in(client, "anna.berg", REMOTE_ADDR="198.51.100.7"))
    assert log_in(Client(), "anna.berg", REMOTE_ADDR="198.51.100.8").status_code == 302


def test_the_block_ends_with_the_window(client, member, frozen_time):
    try_usernames(client, ADDRESS_LIMIT)
    retry_after = assert_address_limit(log_in(client, "anna.berg"))

    frozen_time.shift(retry_after)

    assert log_in(client, "anna.berg").status_code == 302


def test_behind_a_trusted_proxy_the_forwarded_address_counts(client, member, settings, frozen_time):
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    try_usernames(client, ADDRESS_LIMIT, HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy)

    assert_address_limit(log_in(client, "anna.berg", HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy))
    # Another client behind the same proxy logs in.
    assert log_in(Client(), "anna.berg", HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy).status_code == 302


def test_a_forwarded_header_from_an_untrusted_address_changes_nothing(client, member, settings, frozen_time):
    settings.TRUSTED_PROXIES = []
    for number in range(ADDRESS_LIMIT):
        log_in(client, f"guess-{number}", "wrong-password-1", HTTP_X_FORWARDED_FOR=f"203.0.113.{number}")

    assert_address_limit(log_in(client, "anna.berg", HTTP_X_FORWARDED_FOR="203.0.113.200"))


def test_usernames_blocked_on_their_own_count_for_the_address_once_each(client, member, frozen_time):
    """A refusal by a limit is not counted again: 6 usernames tried 5 times each are 30 failures."""
    for number in range(6):
        for _ in range(USERNAME_LIMIT):
            assert log_in(client, f"guess-{number}", "wrong-password-1").status_code == 200
        assert log_in(client, f"guess-{number}", "wrong-password-1").status_code in (429,)

    assert_address_limit(log_in(client, "anna.berg"))


def test_a_username_no_login_can_have_does_not_count(client, member, frozen_time):
    for _ in range(ADDRESS_LIMIT):
        assert log_in(client, "anna\u200bberg", "wrong-password-1").status_code == 200

    assert log_in(client, "anna.berg").status_code == 302


def test_login_checks_of_the_api_do_not_count_for_the_address(client, api, member, frozen_time):
    """The Main API's login checks come from an integration's server: limited per username and per token."""
    for number in range(ADDRESS_LIMIT):
        api.post("/login-checks", json={"username": f"guess-{number}", "password": "wrong-password-1"})

    assert log_in(client, "anna.berg").status_code == 302


@pytest.mark.parametrize(
    ("cl", "text"),
    [
        ("se", "För många misslyckade inloggningar från din adress."),
        ("no", "For mange mislykkede innlogginger fra adressen din."),
        ("dk", "For mange mislykkede logins fra din adresse."),
    ],
)
def test_the_page_says_so_in_the_language(client, member, frozen_time, cl, text):
    try_usernames(client, ADDRESS_LIMIT)

    response = log_in(client, "anna.berg", path=f"/login?cl={cl}")

    assert response.status_code == 429
    assert text in response.content.decode()


# --- the Mobile sign-in and the admin login share the count ---------------------------------------


def test_the_login_page_the_mobile_sign_in_and_the_admin_login_share_one_count(org, member, frozen_time):
    admin = make_admin(org, username="ada.admin")
    app = App(make_app(organizations=[org])[0])
    website = Client()
    try_usernames(website, 15)
    try_usernames(Client(), 14, start=15, path="/admin/login/")
    assert app.log_in(member, password="wrong-password-1").status_code == 200  # the 30th, on the app's page

    assert_address_limit(app.log_in(member, password=PASSWORD))
    assert_address_limit(log_in(website, "anna.berg"))
    assert_address_limit(log_in(Client(), admin.username, path="/admin/login/"))


def test_the_admin_login_gets_the_address_limit(org, frozen_time):
    admin = make_admin(org, username="ada.admin")
    client = Client()
    assert try_usernames(client, ADDRESS_LIMIT, path="/admin/login/") == [200] * ADDRESS_LIMIT

    response = log_in(client, admin.username, path="/admin/login/")

    assert_address_limit(response)
    assert "_auth_user_id" not in client.session


def test_the_admin_login_answers_a_blocked_username_with_429_and_retry_after(org, frozen_time):
    admin = make_admin(org, username="ada.admin")
    client = Client()
    for _ in range(USERNAME_LIMIT):
        assert log_in(client, admin.username, "wrong-password-1", path="/admin/login/").status_code == 200

    response = log_in(client, admin.username, path="/admin/login/")

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= WINDOW
    assert "Too many failed logins for this username." in response.content.decode()
    assert "_auth_user_id" not in client.session
