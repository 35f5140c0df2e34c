"""Norwegian by any of its names (config/language.py): `no`, `no-NO` and `nn` get the Bokmål texts."""

import pytest
from django.test import Client

from config.language import NORWEGIAN

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("header", ["no", "no-NO", "nn-NO,en;q=0.5", "NO", "nb-NO"])
def test_norwegian_by_any_name_gets_the_norwegian_login_page(header):
    page = Client().get("/login", HTTP_ACCEPT_LANGUAGE=header, secure=True).content.decode()
    assert "<h1>Logg inn</h1>" in page


@pytest.mark.parametrize("header", ["en", "sv-SE", "da", "nob", "x-no", "en-NO"])
def test_other_languages_are_left_as_they_are(header):
    assert NORWEGIAN.sub("nb", header) == header
