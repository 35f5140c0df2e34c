"""System settings → Authorization: API tokens made, changed and deleted on the organization website."""

import hashlib

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from oauth2_provider.models import AccessToken, Application

from main_api.models import MODULES, ApiToken
from tests.admin_fixtures import ADMIN, listed, make_superuser, shown_once, token_form, web
from tests.conftest import BASE, MainApi, basic

TOKENS = f"{ADMIN}/main_api/apitoken"


def create_through_admin(client, **form) -> tuple[ApiToken, str]:
    before = set(ApiToken.objects.values_list("pk", flat=True))
    response = client.post(f"{TOKENS}/add/", token_form(**form))
    assert response.status_code == 200, response.content[:2000]
    client_id, secret = shown_once(response)
    (token,) = ApiToken.objects.exclude(pk__in=before)
    assert str(token.client_id) == client_id
    return token, secret


def token_call(client_id, secret, **extra):
    from django.test import Client

    return Client().post(
        f"{BASE}/oauth/token",
        {"grant_type": "client_credentials"},
        secure=True,
        HTTP_AUTHORIZATION=basic(str(client_id), secret),
        **extra,
    )


# --- making a token ----------------------------------------------------------------------------------------


def test_the_add_form_has_one_choice_per_module_in_order_and_no_organization_or_owner(admin):
    form = web(admin).get(f"{TOKENS}/add/").context["adminform"].form

    assert [name for name in form.fields if name.startswith("rights_")] == [f"rights_{m}" for m in MODULES]
    assert [value for value, _ in form.fields["rights_users"].choices] == ["", "r", "w", "rw"]
    assert "organization" not in form.fields
    assert "owner" not in form.fields
    assert "allowed_ips" in form.fields


def test_a_token_made_in_the_admin_works_and_only_its_hash_is_kept(org, admin):
    client = web(admin)

    token, secret = create_through_admin(
        client, rights={"users": "r", "bookings": "rw", "objects": "w"}, allowed_ips="127.0.0.1\n10.0.0.0/8"
    )

    assert token.organization == org
    assert token.owner == admin
    assert token.description == "Booking sync"
    assert token.rights == {"users": "r", "objects": "w", "bookings": "rw"}
    assert token.allowed_ips == ["127.0.0.1", "10.0.0.0/8"]
    assert token.secret_hash == hashlib.sha256(secret.encode()).hexdigest()

    reply = token_call(token.client_id, secret)
    assert reply.status_code == 200, reply.content
    assert reply.json()["scope"] == "users:r objects:w bookings:rw"
    api = MainApi(token, secret)
    body = api.get("/token", bearer=reply.json()["access_token"]).json()["data"]
    assert body["rights"] == {"users": "r", "objects": "w", "bookings": "rw"}
    assert body["owner"]["id"] == admin.pk
    assert body["organization"]["id"] == org.pk


def test_the_secret_is_shown_once_and_stored_nowhere(admin):
    client = web(admin)
    token, secret = create_through_admin(client)

    for path in [f"{TOKENS}/", f"{TOKENS}/{token.pk}/change/", f"{ADMIN}/"]:
        page = client.get(path)
        assert page.status_code == 200
        assert secret not in page.content.decode(), path
    assert str(token.client_id) in client.get(f"{TOKENS}/").content.decode()

    application = Application.objects.get(pk=token.application_id)
    stored = [
        *(str(value) for value in ApiToken.objects.filter(pk=token.pk).values().get().values()),
        application.client_secret,
        *LogEntry.objects.values_list("change_message", flat=True),
        *LogEntry.objects.values_list("object_repr", flat=True),
        *(session.get_decoded().__repr__() for session in Session.objects.all()),
    ]
    assert not [value for value in stored if secret in value]


def test_the_add_page_does_not_redirect_and_is_not_cached(admin):
    response = web(admin).post(f"{TOKENS}/add/", token_form())

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_allowed_ips_are_validated_one_per_line(admin):
    client = web(admin)

    response = client.post(f"{TOKENS}/add/", token_form(allowed_ips="192.0.2.1\nnot-an-address\n10.0.0.0/33"))

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["allowed_ips"][0]
    assert "not-an-address" in errors and "10.0.0.0/33" in errors and "192.0.2.1" not in errors
    assert not ApiToken.objects.exists()

    token, _ = create_through_admin(client, allowed_ips=" 2001:db8::/32 \n\n192.0.2.7\n")
    assert token.allowed_ips == ["2001:db8::/32", "192.0.2.7"]


def test_a_token_limited_to_other_addresses_is_refused_at_the_token_endpoint(admin):
    token, secret = create_through_admin(web(admin), allowed_ips="10.0.0.0/8")

    assert token_call(token.client_id, secret, REMOTE_ADDR="127.0.0.1").status_code == 401
    assert token_call(token.client_id, secret, REMOTE_ADDR="10.1.2.3").status_code == 200


def test_a_token_with_no_rights(admin):
    token, secret = create_through_admin(web(admin), rights={})

    assert token.rights == {}
    assert token_call(token.client_id, secret).json()["scope"] == ""
    assert "none" in web(admin).get(f"{TOKENS}/").content.decode()


# --- which tokens an administrator sees --------------------------------------------------------------------


def test_an_administrator_sees_only_their_organizations_tokens(api, other_api, admin):
    client = web(admin)

    assert listed(client.get(f"{TOKENS}/")) == [api.token]
    other = other_api.token
    page = client.get(f"{TOKENS}/{other.pk}/change/")
    assert page.status_code == 302
    assert page["Location"] == f"{ADMIN}/"
    assert client.get(f"{TOKENS}/{other.pk}/delete/").status_code == 302

    client.post(f"{TOKENS}/{other.pk}/change/", token_form(description="Taken over"))
    client.post(f"{TOKENS}/{other.pk}/delete/", {"post": "yes"})
    client.post(f"{TOKENS}/", {"action": "delete_selected", "_selected_action": [other.pk], "post": "yes"})
    other.refresh_from_db()
    assert other.description == "Test token"
    assert other_api.get("/token").status_code == 200


def test_a_superuser_sees_both_organizations_tokens(api, other_api):
    client = web(make_superuser())

    assert set(listed(client.get(f"{TOKENS}/"))) == {api.token, other_api.token}
    assert client.get(f"{TOKENS}/{other_api.token.pk}/change/").status_code == 200


def test_a_superuser_cannot_make_a_token_for_an_organization_they_do_not_administer(org):
    client = web(make_superuser())

    response = client.post(f"{TOKENS}/add/", {**token_form(), "organization": org.pk})

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors()
    assert not ApiToken.objects.exists()


# --- changing rights ----------------------------------------------------------------------------------------


def test_changing_rights_changes_get_token(api, admin):
    assert api.get("/token").json()["data"]["rights"] == {module: "rw" for module in MODULES}
    client = web(admin)
    url = f"{TOKENS}/{api.token.pk}/change/"
    form = client.get(url).context["adminform"].form
    assert form.initial["rights_bookings"] == "rw"

    response = client.post(
        url,
        token_form(
            description="Read only now",
            rights={"users": "r", "users_sensitive": "r", "bookings": "r"},
            allowed_ips="127.0.0.0/8",
        ),
    )

    assert response.status_code == 302
    body = api.get("/token").json()["data"]
    assert body["rights"] == {"users": "r", "users_sensitive": "r", "bookings": "r"}
    assert body["description"] == "Read only now"
    api.token.refresh_from_db()
    assert api.token.allowed_ips == ["127.0.0.0/8"]
    # The secret and Client ID stay the same.
    assert api.fetch_access_token()


def test_an_existing_token_cannot_gain_users_sensitive(make_api, org, admin):
    api = make_api(org, owner=admin, rights={"users": "r"})
    client = web(admin)
    url = f"{TOKENS}/{api.token.pk}/change/"

    response = client.post(url, token_form(rights={"users": "r", "users_sensitive": "r"}))

    assert response.status_code == 200
    assert "users_sensitive" in str(response.context["adminform"].form.non_field_errors())
    assert api.get("/token").json()["data"]["rights"] == {"users": "r"}


def test_removing_users_sensitive_is_allowed(make_api, org, admin):
    api = make_api(org, owner=admin, rights={"users": "r", "users_sensitive": "rw"})

    response = web(admin).post(
        f"{TOKENS}/{api.token.pk}/change/", token_form(rights={"users": "r", "users_sensitive": "r"})
    )

    assert response.status_code == 302
    assert api.get("/token").json()["data"]["rights"] == {"users": "r", "users_sensitive": "r"}


# --- deleting -----------------------------------------------------------------------------------------------


def test_deleting_a_token_in_the_admin_stops_its_access_tokens_at_once(api, admin):
    access_token = api.access_token
    assert api.get("/token").status_code == 200

    response = web(admin).post(f"{TOKENS}/{api.token.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert api.get("/token", bearer=access_token).status_code == 401
    assert api.get("/token", bearer=api.secret).status_code == 401
    assert token_call(api.token.client_id, api.secret).status_code == 401
    assert not ApiToken.objects.filter(pk=api.token.pk).exists()
    assert not Application.objects.filter(pk=api.token.application_id).exists()
    assert not AccessToken.objects.exists()


@pytest.mark.parametrize("count", [1, 2])
def test_deleting_tokens_from_the_list_goes_through_the_service(make_api, org, admin, count):
    apis = [make_api(org, owner=admin) for _ in range(count)]
    access_tokens = [api.access_token for api in apis]

    response = web(admin).post(
        f"{TOKENS}/",
        {"action": "delete_selected", "_selected_action": [api.token.pk for api in apis], "post": "yes"},
    )

    assert response.status_code == 302
    for api, access_token in zip(apis, access_tokens, strict=True):
        assert api.get("/token", bearer=access_token).status_code == 401
    assert not Application.objects.filter(pk__in=[api.token.application_id for api in apis]).exists()
