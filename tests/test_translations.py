"""Every text a person sees exists in sv, nb and da (English is the source language).

The catalogs are locale/<lang>/LC_MESSAGES/django.po, compiled to the committed django.mo beside them. After a
change of texts: `manage.py makemessages` with MAKEMESSAGES_ARGS below, translate every entry, then
`manage.py compilemessages -l sv -l nb -l da --ignore=.venv --ignore=var`.
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest
from django.apps import apps
from django.conf import settings
from django.utils.functional import Promise

from accounts.models import MemberRole
from tests.admin_fixtures import ADMIN, web
from tests.factories import ExpiryDateTypeFactory, MemberFactory, MembershipFactory

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ["sv", "nb", "da"]
MAKEMESSAGES_ARGS = [
    *[arg for lang in LANGUAGES for arg in ("-l", lang)],
    "--no-obsolete",
    *[arg for ignored in (".venv", "var", "bench", "tests") for arg in ("--ignore", ignored)],
]
# The project's own apps: their models and fields are shown on the organization website.
PROJECT_APPS = ["accounts", "economy", "objects_app", "bookings", "flightlog", "webhooks"]
PLACEHOLDER = re.compile(r"%\((\w+)\)[sdif]|\{(\w+)\}")


def catalog(lang: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"))


def entries(po, only_translated: bool = False) -> dict:
    """(context, msgid) -> the translation (a tuple of forms for a plural entry), without obsolete entries."""
    return {
        (entry.msgctxt, entry.msgid): tuple(entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural))
        if entry.msgid_plural
        else entry.msgstr
        for entry in po
        if not entry.obsolete and (not only_translated or entry.translated())
    }


def nplurals(po) -> int:
    return int(re.search(r"nplurals=(\d+)", po.metadata["Plural-Forms"]).group(1))


# --- the catalogs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_entry_of_a_catalog_is_translated_and_none_is_fuzzy(lang):
    po = catalog(lang)
    forms = nplurals(po)
    assert forms == 2, "sv, nb and da have two plural forms (one, other)"
    problems = []
    for entry in po:
        if entry.obsolete:
            continue
        if "fuzzy" in entry.flags:
            problems.append(f"fuzzy: {entry.msgid!r}")
        if entry.msgid_plural:
            if sorted(entry.msgstr_plural) != list(range(forms)) or not all(entry.msgstr_plural.values()):
                problems.append(f"plural forms missing: {entry.msgid!r}")
        elif not entry.msgstr:
            problems.append(f"empty: {entry.msgid!r}")
    assert not problems, f"locale/{lang}: " + "; ".join(problems)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translations_keep_the_placeholders_of_their_source(lang):
    """A translation that drops or renames %(name)s breaks the page (KeyError) or loses the value."""
    wrong = []
    for entry in catalog(lang):
        if entry.obsolete:
            continue
        sources = [entry.msgid, entry.msgid_plural] if entry.msgid_plural else [entry.msgid]
        expected = {name for source in sources for name in PLACEHOLDER.findall(source)}
        translations = entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr]
        for translation in translations:
            found = set(PLACEHOLDER.findall(translation))
            # A singular form may leave the count out ("one member"); every other name must be kept.
            if not found <= expected or not {name for name in expected if "counter" not in name} <= found:
                wrong.append(f"{entry.msgid!r} -> {translation!r}")
    assert not wrong, f"locale/{lang}: " + "; ".join(wrong)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_compiled_catalog_is_the_catalog(lang):
    """The committed .mo (what Django reads) holds exactly the .po's translations: compilemessages was run."""
    po = catalog(lang)
    mo = polib.mofile(str(ROOT / "locale" / lang / "LC_MESSAGES" / "django.mo"))
    # msgfmt leaves out fuzzy and untranslated entries (the first test catches those); the header is no text.
    translated = {key: value for key, value in entries(po, only_translated=True).items() if key[1]}
    compiled = {key: value for key, value in entries(mo).items() if key[1]}
    assert compiled == translated, (
        f"locale/{lang}/LC_MESSAGES/django.mo is out of date: run "
        "`manage.py compilemessages -l sv -l nb -l da --ignore=.venv --ignore=var`"
    )


@pytest.mark.skipif(shutil.which("xgettext") is None, reason="makemessages needs GNU gettext (apt-get install gettext)")
def test_the_catalogs_hold_every_text_of_the_sources_and_no_other(tmp_path):
    """makemessages on a copy of the sources finds no text that a catalog lacks, and no entry without a text."""
    copy = tmp_path / "src"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".venv", ".git", "var", "bench", "__pycache__", ".pytest_cache", ".ruff_cache", "staticfiles", "*.mo"
        ),
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "makemessages", *MAKEMESSAGES_ARGS],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for lang in LANGUAGES:
        kept = set(entries(catalog(lang)))
        fresh = set(entries(polib.pofile(str(copy / "locale" / lang / "LC_MESSAGES" / "django.po"))))
        missing = sorted(msgid for _, msgid in fresh - kept)
        stale = sorted(msgid for _, msgid in kept - fresh if msgid)
        assert not missing, f"locale/{lang} lacks texts of the sources (run makemessages, translate): {missing}"
        assert not stale, f"locale/{lang} has entries no source uses any more (run makemessages): {stale}"


# --- the models --------------------------------------------------------------------------------------------


def test_every_model_and_field_of_the_project_has_a_translatable_name():
    """The admin shows models and fields by their verbose names: a plain string stays English in every language."""
    plain = []
    for label in PROJECT_APPS:
        for model in apps.get_app_config(label).get_models():
            meta = model._meta
            for option in ("verbose_name", "verbose_name_plural"):
                if not isinstance(getattr(meta, option), Promise):
                    plain.append(f"{meta.label} {option}")
            for field in [*meta.fields, *meta.many_to_many]:
                if field.auto_created:
                    continue  # the primary key
                if not isinstance(field.verbose_name, Promise):
                    plain.append(f"{meta.label}.{field.name} verbose_name")
                if field.help_text and not isinstance(field.help_text, Promise):
                    plain.append(f"{meta.label}.{field.name} help_text")
                for value, text in field.flatchoices or []:
                    if not isinstance(text, Promise):
                        plain.append(f"{meta.label}.{field.name} choice {value}")
    assert not plain, plain


# --- the organization website in the browser's language ------------------------------------------------------

MEMBER_LIST_TITLES = {
    "sv": "Välj medlem att ändra",
    "nb": "Velg medlem du ønsker å endre",
    "da": "Vælg medlem, der skal ændres",
}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_member_list_speaks_the_browsers_language(admin, org, lang):
    MemberFactory(organization=org, membership=MembershipFactory(organization=org, name="Senior"))
    page = web(admin).get(f"{ADMIN}/accounts/member/", HTTP_ACCEPT_LANGUAGE=lang, secure=True)
    assert page.status_code == 200
    html = page.content.decode()
    assert f"<title>{MEMBER_LIST_TITLES[lang]} |" in html
    assert "member to change" not in html.lower()
    assert not re.search(r"\bBy (membership|active|locked)\b", html), "filter headings in English"


def test_the_language_cookie_chooses_the_language_too(admin, org):
    browser = web(admin)
    browser.cookies[settings.LANGUAGE_COOKIE_NAME] = "nb"
    page = browser.get(f"{ADMIN}/accounts/member/", HTTP_ACCEPT_LANGUAGE="en", secure=True)
    assert f"<title>{MEMBER_LIST_TITLES['nb']} |" in page.content.decode()


def test_the_member_list_in_swedish_says_medlem_not_member(admin, org):
    # The membership filter lists the memberships of the listed members: one has one.
    MemberFactory(organization=org, membership=MembershipFactory(organization=org, name="Senior"))
    page = web(admin).get(f"{ADMIN}/accounts/member/", HTTP_ACCEPT_LANGUAGE="sv", secure=True)
    html = page.content.decode()
    assert "Välj medlem att ändra" in html
    assert "Lägg till medlem" in html
    for heading in ("På medlemskap", "På aktiv", "På låst"):  # the filters: the fields' verbose names
        assert heading in html
    assert "Medlemsnummer" in html  # a column: the field's verbose name
    assert not re.search(r"Välj member|Lägg till member|På membership", html)


def test_an_expiry_date_type_page_in_swedish(admin, org):
    expiry_type = ExpiryDateTypeFactory(organization=org, name="Medical")
    page = web(admin).get(
        f"{ADMIN}/accounts/expirydatetype/{expiry_type.pk}/change/", HTTP_ACCEPT_LANGUAGE="sv", secure=True
    )
    html = page.content.decode()
    assert "Ändra typ av utgångsdatum" in html
    assert "Kan gälla tills vidare" in html  # a field's label
    assert "expiry date type" not in html.lower()


def test_a_role_is_named_in_the_browsers_language(admin, org):
    member = MemberRole.objects.get(member__user=admin, role="admin").member
    page = web(admin).get(f"{ADMIN}/accounts/member/{member.pk}/change/", HTTP_ACCEPT_LANGUAGE="da", secure=True)
    html = page.content.decode()
    assert "Bestyrelsesmedlem" in html
    assert "Board member" not in html


def test_the_admin_login_error_is_in_swedish(admin, client):
    page = client.post(
        f"{ADMIN}/login/",
        {"username": admin.username, "password": "not the password"},
        HTTP_ACCEPT_LANGUAGE="sv",
        secure=True,
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert "Ange rätt användarnamn och lösenord för en administratör" in html
    assert "Please enter the correct" not in html


def fieldset_titles(html: str) -> list[str]:
    return re.findall(r'<h2[^>]*class="fieldset-heading"[^>]*>\s*([^<]+?)\s*</h2>', html)


def test_the_member_and_api_token_pages_in_swedish_have_swedish_fieldset_titles(admin, org):
    """The fieldset titles, column names and choices the admin code names itself are translated too."""
    browser = web(admin)
    member = MemberRole.objects.get(member__user=admin, role="admin").member
    member_page = browser.get(
        f"{ADMIN}/accounts/member/{member.pk}/change/", HTTP_ACCEPT_LANGUAGE="sv", secure=True
    ).content.decode()
    token_page = browser.get(f"{ADMIN}/main_api/apitoken/add/", HTTP_ACCEPT_LANGUAGE="sv", secure=True).content.decode()

    titles = fieldset_titles(member_page)
    for title in ("Roller", "Namn", "Kontakt", "Identifiering och närmast anhörig", "Konto", "Övrigt"):
        assert title in titles, titles
    for english in ("Roles", "Name", "Contact", "Identification and emergency contact", "Account", "Other"):
        assert english not in titles
    for label in ("Saldo", "Andra e-postadress", "Ogiltiga e-postadresser"):  # the page's own labels
        assert label in member_page
    assert "Second email" not in member_page and "Invalid email addresses" not in member_page

    titles = fieldset_titles(token_page)
    assert "Rättigheter" in titles and "Tillåtna IP-adresser" in titles, titles
    assert "Rights" not in titles and "Allowed IP addresses" not in titles
    assert "Per modul: inga, läsa, skriva eller båda." in token_page
    assert "rw: läsa och skriva" in token_page and "rw: read and write" not in token_page


def test_the_index_names_system_settings_in_swedish(admin, org):
    html = web(admin).get(f"{ADMIN}/", HTTP_ACCEPT_LANGUAGE="sv", secure=True).content.decode()
    assert "Systeminställningar" in html and "Behörighet" in html
    assert "Medlemmar och organisationer" in html
    assert "System settings" not in html and "Members and organizations" not in html
