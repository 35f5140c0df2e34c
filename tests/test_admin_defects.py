"""Issue 7, section 4: the organization website's defects found when it was tried as a new user would.

The token pages are driven as a browser drives them: the page's HTML form is read (inputs, selects, text
boxes as they are shown) and posted back, so that what the page shows is what is saved.
"""

import datetime as dt
import json
import logging
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from django.conf import settings
from django.contrib import admin as django_admin
from django.contrib.admin.models import LogEntry
from django.utils import timezone

from accounts.expiry import NEVER_EXPIRES
from accounts.models import MemberRole, Organization, UserEmail, UserExpiryDate
from accounts.services import expiry_date_type_create
from main_api.models import ApiToken
from tests.admin_fixtures import ADMIN, listed, make_superuser, shown_messages, web
from tests.factories import MemberFactory, MembershipFactory, UserGroupFactory

TOKENS = f"{ADMIN}/main_api/apitoken"


# --- a browser's view of a form ----------------------------------------------------------------------------


class _FormReader(HTMLParser):
    """The fields of the page's form with id `form_id` as a browser would send them (no file inputs)."""

    def __init__(self, form_id: str):
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.data: dict[str, list[str]] = {}
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen = False
        self._textarea: str | None = None
        self._text = ""
        self._option: dict | None = None

    def _add(self, name, value):
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and attrs.get("id") == self.form_id:
            self.inside = True
        if not self.inside or "disabled" in attrs:
            return
        name = attrs.get("name")
        if tag == "input" and name:
            kind = attrs.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in attrs:
                    self._add(name, attrs.get("value", "on"))
            elif kind not in ("file", "submit", "button", "image", "reset"):
                self._add(name, attrs.get("value", ""))
        elif tag == "select" and name:
            self._select, self._select_first, self._select_chosen = name, None, False
        elif tag == "option" and self._select:
            self._option = attrs
        elif tag == "textarea" and name:
            self._textarea, self._text = name, ""

    def handle_data(self, data):
        if self._textarea is not None:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "form" and self.inside:
            self.inside = False
        elif tag == "option" and self._option is not None:
            value = self._option.get("value", "")
            if self._select_first is None:
                self._select_first = value
            if "selected" in self._option:
                self._add(self._select, value)
                self._select_chosen = True
            self._option = None
        elif tag == "select" and self._select:
            if not self._select_chosen and self._select_first is not None:
                self._add(self._select, self._select_first)  # a single select sends its first option
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            # HTML drops one newline right after <textarea>.
            self._add(self._textarea, self._text.removeprefix("\n"))
            self._textarea = None


def browser_form(response, form_id: str) -> dict:
    assert response.status_code == 200, response.content[:500]
    reader = _FormReader(form_id)
    reader.feed(response.content.decode())
    assert reader.data, f"no form {form_id} on the page"
    return {name: values if len(values) > 1 else values[0] for name, values in reader.data.items()}


# --- an existing API token is saved as the page shows it ---------------------------------------------------


@pytest.fixture
def token_page(api, admin):
    """An existing token with two allowed ranges, and its change page in the administrator's browser."""
    api_token = api.token
    ApiToken.objects.filter(pk=api_token.pk).update(
        rights={"users": "r", "bookings": "rw"}, allowed_ips=["127.0.0.1", "10.0.0.0/8"]
    )
    client = web(admin)
    return client, f"{TOKENS}/{api_token.pk}/change/", api_token.pk


def test_the_token_page_shows_the_allowed_addresses_one_a_line(token_page):
    client, url, _ = token_page

    form = browser_form(client.get(url), "apitoken_form")

    assert form["allowed_ips"].splitlines() == ["127.0.0.1", "10.0.0.0/8"]
    assert (form["rights_users"], form["rights_bookings"], form["rights_objects"]) == ("r", "rw", "")


def test_a_token_without_allowed_addresses_shows_an_empty_box(api, admin):
    client = web(admin)

    form = browser_form(client.get(f"{TOKENS}/{api.token.pk}/change/"), "apitoken_form")

    assert form["allowed_ips"] == ""


def test_an_existing_token_saved_unchanged_keeps_everything(token_page):
    client, url, pk = token_page
    before = ApiToken.objects.values("description", "rights", "allowed_ips").get(pk=pk)

    response = client.post(url, browser_form(client.get(url), "apitoken_form"))

    assert response.status_code == 302, response.content.decode()[:3000]
    assert ApiToken.objects.values("description", "rights", "allowed_ips").get(pk=pk) == before


def test_an_existing_token_saved_with_a_changed_right_changes_only_that(token_page):
    client, url, pk = token_page
    form = browser_form(client.get(url), "apitoken_form")
    form["rights_objects"] = "r"

    response = client.post(url, form)

    assert response.status_code == 302, response.content.decode()[:3000]
    token = ApiToken.objects.get(pk=pk)
    assert token.rights == {"users": "r", "objects": "r", "bookings": "rw"}
    assert token.allowed_ips == ["127.0.0.1", "10.0.0.0/8"]


def test_a_wrong_address_on_an_existing_token_is_named(token_page):
    client, url, pk = token_page
    form = browser_form(client.get(url), "apitoken_form")
    form["allowed_ips"] += "\nnot-an-address"

    response = client.post(url, form)

    assert response.status_code == 200
    assert "Not an IP address or CIDR range: not-an-address" in response.content.decode()
    assert ApiToken.objects.get(pk=pk).allowed_ips == ["127.0.0.1", "10.0.0.0/8"]


# --- django-oauth-toolkit's own pages ----------------------------------------------------------------------


OAUTH_MODELS = ["application", "accesstoken", "refreshtoken", "grant", "idtoken"]


def test_the_oauth_librarys_models_are_not_on_the_site():
    registered = {model._meta.app_label for model in django_admin.site._registry}

    assert "oauth2_provider" not in registered


@pytest.mark.parametrize("model", OAUTH_MODELS)
def test_support_cannot_open_or_change_the_oauth_librarys_rows(api, model):
    client = web(make_superuser())

    # The models are not registered, so none of their addresses exists: the admin's catch-all answers 404 to
    # a signed-in user (a redirect would only be for a visitor not signed in, or a missing trailing slash).
    assert client.get(f"{ADMIN}/oauth2_provider/{model}/").status_code == 404
    assert client.get(f"{ADMIN}/oauth2_provider/{model}/1/change/").status_code == 404
    assert client.post(f"{ADMIN}/oauth2_provider/{model}/1/delete/", {"post": "yes"}).status_code == 404


def test_supports_index_and_token_pages_work_without_the_oauth_pages(api):
    client = web(make_superuser())

    index = client.get(f"{ADMIN}/")
    assert index.status_code == 200
    assert "oauth2_provider" not in index.content.decode()
    assert client.get(f"{TOKENS}/{api.token.pk}/change/").status_code == 200


# --- mail: a file under `make run`, EMAIL_URL in production --------------------------------------------------

EMAIL_SETTINGS = [
    "EMAIL_BACKEND",
    "EMAIL_FILE_PATH",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "DEFAULT_FROM_EMAIL",
]


def settings_under(environment: dict) -> subprocess.CompletedProcess:
    """config/settings.py read by a fresh process with this environment (as `make run` or a server reads it)."""
    env = {key: value for key, value in os.environ.items() if key not in ("EMAIL_URL", "DEFAULT_FROM_EMAIL")}
    code = (
        "import json, config.settings as s; "
        f"print(json.dumps({{name: getattr(s, name, None) for name in {EMAIL_SETTINGS!r}}}))"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**env, **environment},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )


def mail_settings(environment: dict) -> dict:
    process = settings_under(environment)
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def test_without_email_url_a_password_reset_is_a_file_in_var_mail(db, client, settings, tmp_path, caplog):
    """`make run` sets no EMAIL_URL: the member's reset mail is a file in var/mail, not a failed SMTP call."""
    chosen = mail_settings({"VAR_DIR": str(tmp_path)})
    assert chosen["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
    assert chosen["EMAIL_FILE_PATH"] == str(tmp_path / "mail")
    settings.EMAIL_BACKEND, settings.EMAIL_FILE_PATH = chosen["EMAIL_BACKEND"], chosen["EMAIL_FILE_PATH"]
    member = MemberFactory(user__username="1-asa", user__first_name="Åsa")
    UserEmail.objects.create(user=member.user, position=0, address="asa@example.com")

    with caplog.at_level(logging.WARNING):
        response = client.post("/password-reset/", {"email": "asa@example.com"})

    assert response.status_code == 302
    (written,) = (tmp_path / "mail").iterdir()
    text = written.read_text()
    assert "To: asa@example.com" in text
    assert "From: noreply@localhost" in text
    assert re.search(r"http://testserver/password-reset/\S+/\S+", text)
    assert not [record for record in caplog.records if "mail" in record.getMessage().lower()]


def test_email_url_sets_the_mail_server_for_production():
    chosen = mail_settings(
        {
            "EMAIL_URL": "submission://club%40example.com:s3cret%2Fpass@smtp.example.com",
            "DEFAULT_FROM_EMAIL": "Flying club <noreply@example.com>",
        }
    )

    assert chosen["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert (chosen["EMAIL_HOST"], chosen["EMAIL_PORT"]) == ("smtp.example.com", 587)
    assert (chosen["EMAIL_HOST_USER"], chosen["EMAIL_HOST_PASSWORD"]) == ("club@example.com", "s3cret/pass")
    assert (chosen["EMAIL_USE_TLS"], chosen["EMAIL_USE_SSL"]) == (True, False)
    assert chosen["DEFAULT_FROM_EMAIL"] == "Flying club <noreply@example.com>"


def test_email_url_with_implicit_tls_and_a_file_folder():
    smtps = mail_settings({"EMAIL_URL": "smtp://user:pw@mail.example.com:465?ssl=true"})
    files = mail_settings({"EMAIL_URL": "file:///srv/flyclub/mail"})
    console = mail_settings({"EMAIL_URL": "console://"})

    assert (smtps["EMAIL_PORT"], smtps["EMAIL_USE_SSL"], smtps["EMAIL_USE_TLS"]) == (465, True, False)
    assert files["EMAIL_FILE_PATH"] == "/srv/flyclub/mail"
    assert console["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


def test_a_mistyped_email_url_stops_the_service_instead_of_trying_localhost():
    process = settings_under({"EMAIL_URL": "smpt://mail.example.com"})

    assert process.returncode != 0
    assert "EMAIL_URL" in process.stderr


# --- search folds letter case beyond ASCII -------------------------------------------------------------------

MEMBERS = f"{ADMIN}/accounts/member"


@pytest.fixture
def nordic_members(org):
    asa = MemberFactory(organization=org, member_number="2001", user__first_name="Åsa", user__last_name="Öberg")
    UserEmail.objects.create(user=asa.user, position=0, address="ÅSA.ÖBERG@example.se")
    ake = MemberFactory(organization=org, member_number="2002", user__first_name="Åke", user__last_name="Ström")
    plain = MemberFactory(organization=org, member_number="2003", user__first_name="Asa", user__last_name="Berg")
    return asa, ake, plain


@pytest.mark.parametrize(
    ("term", "found"),
    [
        ("åsa", ["2001"]),
        ("ÅSA", ["2001"]),
        ("öberg", ["2001"]),
        ("åsa öberg", ["2001"]),  # every word, in any of the fields
        ("STRÖM", ["2002"]),
        ("åsa.öberg@", ["2001"]),  # the email address
        ("asa", ["2003"]),  # å is not a
        ("%", []),  # LIKE's wildcards are letters here
        ("_", []),
    ],
)
def test_member_search_folds_letter_case_of_every_alphabet(admin, nordic_members, term, found):
    response = web(admin).get(f"{MEMBERS}/", {"q": term})

    assert sorted(member.member_number for member in listed(response)) == found


def test_membership_search_folds_letter_case_of_every_alphabet(org, admin):
    MembershipFactory(organization=org, name="Årsmedlem")
    MembershipFactory(organization=org, name="Arsmedlem")

    response = web(admin).get(f"{ADMIN}/accounts/membership/", {"q": "årsMEDLEM"})

    assert [group.name for group in listed(response)] == ["Årsmedlem"]


# --- people by name, "Never", the organization's time -------------------------------------------------------


@pytest.fixture
def erik(org):
    member = MemberFactory(
        organization=org,
        member_number="1002",
        user__username=f"{org.pk}-erik",
        user__first_name="Erik",
        user__last_name="Johansson",
    )
    member.user_groups.add(UserGroupFactory(organization=org, name="Gliders"))
    MemberRole.objects.create(member=member, role="instructor")
    return member


@pytest.fixture
def never_expiring(org, erik):
    medical = expiry_date_type_create(organization=org, name="Medical", may_never_expire=True)
    return UserExpiryDate.objects.create(member=erik, type=medical, expiry_date=NEVER_EXPIRES)


def test_a_member_is_named_by_name_and_number_in_titles_and_breadcrumbs(admin, erik):
    page = web(admin).get(f"{MEMBERS}/{erik.pk}/change/").content.decode()

    assert "Erik Johansson (1002)" in page
    assert f"1002 {erik.user.username}" not in page


def test_the_saved_message_names_the_member(admin, erik):
    client = web(admin)
    url = f"{MEMBERS}/{erik.pk}/change/"
    form = browser_form(client.get(url), "member_form")

    response = client.post(url, form, follow=True)

    assert any("Erik Johansson (1002)" in message for message in shown_messages(response)), shown_messages(response)


def test_the_delete_page_names_the_member_and_what_goes_with_it(admin, erik, never_expiring):
    page = web(admin).get(f"{MEMBERS}/{erik.pk}/delete/").content.decode()

    assert "Erik Johansson (1002)" in page
    assert "User group of a member: Erik Johansson (1002) in Gliders" in page
    assert "Medical: Never" in page
    assert "Instructor" in page
    assert "object (" not in page
    assert "relationship" not in page
    assert "2999-12-31" not in page


def test_a_never_expiring_date_shows_as_never_and_saves_unchanged(admin, erik, never_expiring):
    client = web(admin)
    url = f"{MEMBERS}/{erik.pk}/change/"
    form = browser_form(client.get(url), "member_form")

    assert form["expiry_dates-0-expiry_date"] == "Never"
    assert "2999-12-31" not in client.get(url).content.decode()
    response = client.post(url, form)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert UserExpiryDate.objects.get(pk=never_expiring.pk).expiry_date == NEVER_EXPIRES


@pytest.mark.parametrize("written", ["never", "NEVER", " Never "])
def test_never_may_be_written_for_a_type_that_may_never_expire(admin, erik, never_expiring, written):
    UserExpiryDate.objects.filter(pk=never_expiring.pk).update(expiry_date=dt.date(2027, 1, 31))
    client = web(admin)
    url = f"{MEMBERS}/{erik.pk}/change/"
    form = browser_form(client.get(url), "member_form")
    assert form["expiry_dates-0-expiry_date"] == "2027-01-31"
    form["expiry_dates-0-expiry_date"] = written

    response = client.post(url, form)

    assert response.status_code == 302, response.content.decode()[:3000]
    assert UserExpiryDate.objects.get(pk=never_expiring.pk).expiry_date == NEVER_EXPIRES


def test_a_token_page_names_its_owner(api, admin):
    page = web(admin).get(f"{TOKENS}/{api.token.pk}/change/").content.decode()

    assert "Karin Lindqvist" in page
    assert f">{admin.username}<" not in page


CREATED = dt.datetime(2026, 6, 1, 10, 30, tzinfo=dt.UTC)


@pytest.fixture
def new_york_token(org, api):
    Organization.objects.filter(pk=org.pk).update(timezone="America/New_York")
    ApiToken.objects.filter(pk=api.token.pk).update(created_at=CREATED)
    return api.token


def test_an_administrator_sees_times_in_the_organizations_time_zone(admin, new_york_token):
    client = web(admin)

    change = client.get(f"{TOKENS}/{new_york_token.pk}/change/").content.decode()
    listing = client.get(f"{TOKENS}/").content.decode()

    assert "June 1, 2026, 6:30 a.m." in change  # 10:30 UTC is 06:30 in New York (EDT)
    assert "June 1, 2026, 6:30 a.m." in listing
    assert "10:30 a.m." not in change + listing
    assert timezone.get_current_timezone_name() == "UTC"  # the request's zone did not stay behind


def test_the_history_of_changes_is_in_the_organizations_time_zone(admin, org, erik):
    Organization.objects.filter(pk=org.pk).update(timezone="Asia/Tokyo")
    client = web(admin)
    url = f"{MEMBERS}/{erik.pk}/change/"
    client.post(url, browser_form(client.get(url), "member_form"))
    LogEntry.objects.update(action_time=CREATED)

    history = client.get(f"{MEMBERS}/{erik.pk}/history/").content.decode()

    assert "June 1, 2026, 7:30 p.m." in history  # 10:30 UTC is 19:30 in Tokyo


def test_support_sees_times_in_utc(new_york_token):
    page = web(make_superuser()).get(f"{TOKENS}/{new_york_token.pk}/change/").content.decode()

    assert "June 1, 2026, 10:30 a.m." in page
