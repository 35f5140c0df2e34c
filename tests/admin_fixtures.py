"""Helpers for the organization website's tests (tests/test_admin_*.py)."""

import re

from django.test import Client

from accounts.models import MemberRole
from main_api.models import MODULES
from tests.factories import MemberFactory, UserFactory

ADMIN = "/admin"
# The member page's inline management form with no expiry date rows, for hand-made member POSTs.
NO_EXPIRY_ROWS = {"expiry_dates-TOTAL_FORMS": "0", "expiry_dates-INITIAL_FORMS": "0"}


def web(user) -> Client:
    """A browser logged in as `user`."""
    client = Client()
    client.force_login(user)
    return client


def make_superuser(**fields):
    return UserFactory(is_superuser=True, **fields)


def make_admin_of(user, organization):
    """Make an existing login an administrator of another organization as well."""
    member = MemberFactory(user=user, organization=organization)
    MemberRole.objects.create(member=member, role="admin")
    return member


def listed(response) -> list:
    """The objects of an admin change list, from the page's own context."""
    assert response.status_code == 200, response.content[:500]
    return list(response.context["cl"].result_list)


def token_form(description: str = "Booking sync", rights: dict | None = None, allowed_ips: str = "") -> dict:
    data = {"description": description, "allowed_ips": allowed_ips}
    for module in MODULES:
        data[f"rights_{module}"] = (rights or {}).get(module, "")
    return data


def shown_once(response) -> tuple[str, str]:
    """The Client ID and secret on the page that answers the token add form."""
    html = response.content.decode()
    client_id = re.search(r'id="api-token-client-id">(\d+)<', html)
    secret = re.search(r'id="api-token-secret">([^<]+)<', html)
    assert client_id and secret, html[:2000]
    return client_id.group(1), secret.group(1)


def form_data(response) -> dict:
    """What a browser sends back from an admin add or change page left as it is (inline rows included)."""
    assert response.status_code == 200, response.content[:500]
    forms = [response.context["adminform"].form]
    data = {}
    for inline in response.context["inline_admin_formsets"]:
        data.update(_fields(inline.formset.management_form))
        forms += inline.formset.forms
    for form in forms:
        data.update(_fields(form))
    return data


def _fields(form) -> dict:
    from django import forms

    data = {}
    for bound in form:
        widget = getattr(bound.field.widget, "widget", bound.field.widget)  # the admin's related-field wrapper
        if bound.field.disabled or isinstance(widget, forms.FileInput):
            continue  # a browser sends neither disabled inputs nor a file nobody chose
        value = bound.value()
        if isinstance(widget, forms.CheckboxInput):
            if value:
                data[bound.html_name] = "on"
        elif getattr(widget, "allow_multiple_selected", False):
            data[bound.html_name] = [str(item) for item in value or []]
        elif isinstance(widget, forms.Select):
            data[bound.html_name] = "" if value is None else str(value)
        else:
            data[bound.html_name] = "" if value is None else str(widget.format_value(value) or "")
    return data


def page_errors(response) -> dict:
    """The errors of an admin form page shown again: {"": non-field errors, field: errors, "rows": [...]}."""
    assert response.status_code == 200, f"expected the page again, got {response.status_code}"
    form = response.context["adminform"].form
    errors = {_key(field): list(messages) for field, messages in form.errors.items()}
    errors["rows"] = [
        {_key(field): list(messages) for field, messages in row.errors.items()}
        for inline in response.context["inline_admin_formsets"]
        for row in inline.formset.forms
    ]
    return errors


def _key(field: str) -> str:
    return "" if field == "__all__" else field


def shown_messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []
