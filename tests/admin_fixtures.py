"""Helpers for the organization website's tests (tests/test_admin_*.py)."""

import re

from django.test import Client

from accounts.models import MODULES, MemberRole
from tests.factories import MemberFactory, UserFactory

ADMIN = "/admin"


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
