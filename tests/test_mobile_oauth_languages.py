"""The sign-in in sv, en, nb and da (../shared/DECISIONS.md "Languages"): the login and consent pages by `cl`,
every OAuth `error_description` by Accept-Language, one test per language."""

import pytest
from django.utils import translation

from mobile_api import oauth_v5 as oauth_mobile_v5
from tests.mobile_oauth_flow import HTTPS, App, make_app, make_member

pytestmark = pytest.mark.django_db

# cl, Accept-Language, and texts the pages and replies must show in that language.
LANGUAGES = {
    "sv": ("se", "Logga in", "Tillåt", "Inloggningskoden har redan använts. Logga in igen."),
    "en": ("gb", "Log in", "Allow", "The login code was already used. Please log in again."),
    "nb": ("no", "Logg inn", "Tillat", "Innloggingskoden er allerede brukt. Logg inn på nytt."),
    "da": ("dk", "Log ind", "Tillad", "Loginkoden er allerede brugt. Log ind igen."),
}


def all_descriptions() -> dict[str, str]:
    texts = {}
    texts.update({f"error:{k}": v for k, v in oauth_mobile_v5.error_descriptions().items()})
    texts.update({f"reason:{k}": v for k, v in oauth_mobile_v5._reason_descriptions().items()})
    texts.update({f"authorize:{k}": v for k, v in oauth_mobile_v5.authorize_descriptions().items()})
    return texts


@pytest.fixture
def org_app(org):
    client, _ = make_app(organizations=[org])
    return client


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_sign_in_speaks_the_language(language, org_app, org):
    cl, log_in, allow, replayed = LANGUAGES[language]
    member = make_member(org)
    app = App(client=org_app)
    login_page = app.browser.get(app.authorize(cl=cl)["Location"], **HTTPS).content.decode()
    assert f"<h1>{log_in}</h1>" in login_page
    reply = app.log_in(member, cl=cl)
    consent_page = app.browser.get(reply["Location"], **HTTPS).content.decode()
    assert f'name="allow" value="allow">{allow}</button>' in consent_page
    code = app.code(member, cl=cl)
    assert app.exchange(code).status_code == 200
    again = app.api.post(
        "/mobile/v5/oauth/token",
        {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": app.redirect_uri,
            "code_verifier": app.verifier,
            "client_id": org_app.client_id,
        },
        headers={"Accept-Language": language},
        **HTTPS,
    )
    assert again.status_code == 400 and again.json()["error_description"] == replayed
    error_page = app.browser.get(
        f"/mobile/v5/oauth/authorize?client_id=unknown&cl={cl}&redirect_uri=x", **HTTPS
    ).content.decode()
    with translation.override(language):
        assert oauth_mobile_v5.fatal_error_text(oauth_mobile_v5.oauth_errors.InvalidClientIdError()) in error_page


@pytest.mark.parametrize("language", ["sv", "nb", "da"])
def test_every_oauth_error_description_is_translated(language):
    with translation.override("en"):
        english = all_descriptions()
    with translation.override(language):
        translated = all_descriptions()
    untranslated = [key for key, text in translated.items() if text == english[key]]
    assert not untranslated


def test_english_is_the_default(org_app):
    reply = App(client=org_app).token({"grant_type": "authorization_code", "code": "x", "code_verifier": "y"})
    assert reply.json()["error_description"] == "The login is no longer valid. Please log in again."
