"""Mobile API app clients (issue 10, point 1): set up by support on the organization website."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import check_password
from django.db import connection
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken

from apicore import clock
from apicore.errors import ServiceError
from mobile_api.models import MOBILE_MODULES, AppClient
from mobile_api.services.app_clients import (
    app_client_create,
    app_client_key_renew,
    app_client_revoke,
    app_client_update,
    redirect_uri_problem,
)
from tests.admin_fixtures import ADMIN, listed, make_superuser, page_errors, web
from tests.factories import OrganizationFactory, UserFactory
from tests.log_secrets import REGISTRY

CLIENTS = f"{ADMIN}/mobile_api/appclient"


def make_client(**changes) -> tuple[AppClient, str | None]:
    values = {
        "name": "Example Apps AB",
        "app_name": "Flyclub",
        "developer_contact": "dev@example.com",
        "rights": {"bookings": "rw", "objects": "r"},
        "organizations": [],
        "redirect_uris": ["https://app.example.com/cb", "se.example.flyclub:/oauth"],
        "confidential": True,
        **changes,
    }
    client, key = app_client_create(**values)
    remember(key)
    return client, key


def remember(key: str | None) -> None:
    """The run's log check looks for the key too (tests/log_secrets.py): no key may reach a log."""
    if key is not None:
        REGISTRY.add("client secret", key)


def client_form(**changes) -> dict:
    data = {
        "name": "Example Apps AB",
        "app_name": "Flyclub",
        "developer_contact": "dev@example.com",
        "confidential": "on",
        "redirect_uris": "https://app.example.com/cb\nse.example.flyclub:/oauth",
        "rate_limit_per_minute": "",
        **{f"rights_{module}": "" for module in MOBILE_MODULES},
        "rights_bookings": "rw",
    }
    data.update(changes)
    return {name: value for name, value in data.items() if value is not None}


def stored_secrets() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT client_secret FROM {Application._meta.db_table}")
        return [row[0] for row in cursor.fetchall()]


def issue_tokens(application, user) -> None:
    expires = clock.now() + timedelta(hours=1)
    n = application.pk
    access = AccessToken.objects.create(user=user, application=application, token=f"a-{n}", expires=expires)
    AccessToken.objects.create(user=None, application=application, token=f"o-{n}", expires=expires)
    RefreshToken.objects.create(user=user, application=application, token=f"r-{n}", access_token=access)
    Grant.objects.create(
        user=user, application=application, code=f"c-{n}", expires=expires, redirect_uri="https://app.example.com/cb"
    )


# --- the service --------------------------------------------------------------------------------------------


def test_a_confidential_client_gets_a_key_that_is_kept_only_hashed(db):
    client, key = make_client(rate_limit_per_minute=900)

    application = client.application
    assert key and len(key) >= 40
    assert application.client_type == "confidential"
    assert application.authorization_grant_type == "authorization-code"
    assert application.redirect_uris == "https://app.example.com/cb se.example.flyclub:/oauth"
    assert application.algorithm == ""
    assert application.skip_authorization is False
    assert client.rights == {"objects": "r", "bookings": "rw"}
    assert client.scope == "objects:r bookings:rw"
    assert client.calls_per_minute == 900
    assert client.revoked_at is None
    # Only a password hash is stored, and the key checks against it.
    assert key not in stored_secrets()
    application.refresh_from_db()
    assert application.client_secret != key
    assert check_password(key, application.client_secret)


def test_a_public_client_has_no_key_and_the_default_limit(db, settings):
    client, key = make_client(confidential=False)

    assert key is None
    assert client.application.client_type == "public"
    assert client.rate_limit_per_minute is None
    assert client.calls_per_minute == settings.MOBILE_CLIENT_CALLS_PER_MINUTE == 600
    with pytest.raises(ServiceError):
        app_client_key_renew(client=client)


def test_allowed_organizations_blank_means_every_organization(db):
    first, second = OrganizationFactory(), OrganizationFactory()
    limited, _ = make_client(organizations=[first, second])
    everywhere, _ = make_client()

    assert set(limited.organizations.all()) == {first, second}
    assert not everywhere.organizations.exists()


@pytest.mark.parametrize(
    "address",
    [
        "https://app.example.com/cb",
        "se.example.flyclub:/oauth",
        "com.example.app://callback",
        "https://app.example.com:8443/a/b?x=1",
        # A native app's loopback redirect (RFC 8252 7.3): plain http to the device itself.
        "http://127.0.0.1:8400/callback",
        "http://127.0.0.1/callback",
        "http://[::1]:8400/callback",
        "http://localhost:8400/callback",
    ],
)
def test_redirect_addresses_that_may_be_registered(address):
    assert redirect_uri_problem(address) is None


@pytest.mark.parametrize(
    "address",
    [
        "http://app.example.com/cb",
        "http://127.0.0.1.example.com/cb",
        "http://localhost.example.com/cb",
        "http://10.0.0.1/cb",
        "http://u@127.0.0.1/cb",
        "http://127.0.0.1/cb#x",
        "http://127.0.0.1:x/cb",
        "http:127.0.0.1/cb",
        "https://u:p@app.example.com/cb",
        "https://user@app.example.com/cb",
        "https://app.example.com/cb#frag",
        "https://app.example.com/cb#",
        "se.example.flyclub:/oauth#x",
        "javascript:alert(1)",
        "data:text/html,hi",
        "file:///etc/passwd",
        "flyclub:/cb",
        "https:///cb",
        "https:app.example.com/cb",
        "https://app.example.com/c b",
        "https://app.example.com/cb\n",
        "",
        "/cb",
        "https://app.example.com/" + "a" * 500,
    ],
)
def test_redirect_addresses_that_are_refused(address):
    assert redirect_uri_problem(address) is not None


def test_duplicate_and_too_many_redirect_addresses_are_refused_and_nothing_is_made(db):
    with pytest.raises(ServiceError) as duplicate:
        make_client(redirect_uris=["https://app.example.com/cb", "https://app.example.com/cb"])
    with pytest.raises(ServiceError) as too_many:
        make_client(redirect_uris=[f"https://app.example.com/cb{n}" for n in range(11)])
    with pytest.raises(ServiceError) as bad:
        make_client(redirect_uris=["https://app.example.com/cb", "flyclub:/cb"])

    assert [problem.field for problem in duplicate.value.errors] == ["redirect_uris[1]"]
    assert [problem.field for problem in too_many.value.errors] == ["redirect_uris"]
    assert [problem.field for problem in bad.value.errors] == ["redirect_uris[1]"]
    assert not AppClient.objects.exists()
    assert not Application.objects.exists()
    make_client(redirect_uris=[f"https://app.example.com/cb{n}" for n in range(10)])  # ten are allowed


@pytest.mark.parametrize(
    "rights",
    [{"users": "r"}, {"bookings": "x"}, {"bookings": "wr"}, {"login_checks": "r"}, {"objects": 1}],
)
def test_rights_outside_the_five_modules_or_values_are_refused(db, rights):
    with pytest.raises(ServiceError) as refused:
        make_client(rights=rights)

    assert refused.value.errors
    assert not AppClient.objects.exists()


def test_a_limit_below_one_is_refused(db):
    with pytest.raises(ServiceError):
        make_client(rate_limit_per_minute=0)


def test_an_update_mirrors_the_redirect_addresses_into_the_oauth_application(db):
    client, _ = make_client()
    organization = OrganizationFactory()

    app_client_update(
        client=client,
        name="Other AB",
        app_name="Flyclub 2",
        rights={"flightlogs": "r"},
        organizations=[organization],
        redirect_uris=["com.example.other:/cb"],
        rate_limit_per_minute=60,
    )

    client.refresh_from_db()
    assert (client.name, client.app_name, client.rights) == ("Other AB", "Flyclub 2", {"flightlogs": "r"})
    assert list(client.organizations.all()) == [organization]
    assert client.application.redirect_uris == "com.example.other:/cb"
    assert client.calls_per_minute == 60


def test_a_new_key_replaces_the_old_one_at_once(db):
    client, old_key = make_client()
    user = UserFactory()
    issue_tokens(client.application, user)

    new_key = app_client_key_renew(client=client)
    remember(new_key)

    application = Application.objects.get(pk=client.application_id)
    assert new_key != old_key
    assert check_password(new_key, application.client_secret)
    assert not check_password(old_key, application.client_secret)
    assert new_key not in stored_secrets()
    # The app's own tokens (got with the old key) end; members' logins stay.
    assert not AccessToken.objects.filter(application=application, user__isnull=True).exists()
    assert AccessToken.objects.filter(application=application, user=user).exists()


def test_revoking_ends_every_token_and_grant_at_once(db):
    client, key = make_client()
    other, _ = make_client(app_name="Other app")
    user = UserFactory()
    issue_tokens(client.application, user)
    issue_tokens(other.application, UserFactory())

    app_client_revoke(client=client)

    client.refresh_from_db()
    application = client.application
    assert client.revoked_at is not None
    for model in (AccessToken, RefreshToken, Grant):
        assert not model.objects.filter(application=application).exists()
        assert model.objects.filter(application=other.application).exists()
    assert application.redirect_uris == ""
    assert not check_password(key, application.client_secret)
    with pytest.raises(ServiceError):
        app_client_key_renew(client=client)
    with pytest.raises(ServiceError):
        app_client_update(
            client=client, name="x", app_name="y", rights={}, organizations=[], redirect_uris=["https://a.example/cb"]
        )
    first = client.revoked_at
    app_client_revoke(client=client)  # again: nothing changes
    client.refresh_from_db()
    assert client.revoked_at == first


def test_the_migration_holds_the_model(db):
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    assert not executor.migration_plan(executor.loader.graph.leaf_nodes())


# --- the admin ----------------------------------------------------------------------------------------------


def shown_key(response) -> tuple[str, str | None]:
    html = response.content.decode()
    client_id = re.search(r'id="app-client-id">([^<]+)<', html)
    key = re.search(r'id="app-client-key" value="([^"]+)"', html)
    assert client_id, html[:2000]
    remember(key.group(1) if key else None)
    return client_id.group(1), key.group(1) if key else None


def test_the_add_form_has_one_choice_per_mobile_module_in_order(db):
    form = web(make_superuser()).get(f"{CLIENTS}/add/").context["adminform"].form

    assert [name for name in form.fields if name.startswith("rights_")] == [f"rights_{m}" for m in MOBILE_MODULES]
    assert MOBILE_MODULES == ("organization", "objects", "bookings", "flightlogs", "transactions")
    assert [value for value, _ in form.fields["rights_bookings"].choices] == ["", "r", "w", "rw"]
    assert {"name", "app_name", "developer_contact", "confidential", "organizations"} <= set(form.fields)
    assert {"redirect_uris", "rate_limit_per_minute"} <= set(form.fields)


def test_support_makes_a_client_and_sees_its_key_once(db):
    support = web(make_superuser())
    organization = OrganizationFactory()

    response = support.post(f"{CLIENTS}/add/", client_form(organizations=[str(organization.pk)]))

    assert response.status_code == 200, page_errors(response) if response.context else response.content[:500]
    client_id, key = shown_key(response)
    client = AppClient.objects.get()
    assert client.client_id == client_id
    assert client.rights == {"bookings": "rw"}
    assert client.confidential is True
    assert list(client.organizations.all()) == [organization]
    assert client.redirect_uris == ["https://app.example.com/cb", "se.example.flyclub:/oauth"]
    assert check_password(key, Application.objects.get(pk=client.application_id).client_secret)
    assert key not in stored_secrets()
    for address in [f"{CLIENTS}/", f"{CLIENTS}/{client.pk}/change/", f"{ADMIN}/"]:
        page = support.get(address)
        assert page.status_code == 200
        assert key not in page.content.decode()


def test_a_public_client_made_in_the_admin_shows_no_key(db):
    support = web(make_superuser())

    response = support.post(f"{CLIENTS}/add/", client_form(confidential=None))

    _, key = shown_key(response)
    assert key is None
    assert AppClient.objects.get().confidential is False
    assert "app-client-renew-key" not in support.get(f"{CLIENTS}/{AppClient.objects.get().pk}/change/").content.decode()


def test_the_admin_refuses_bad_addresses_on_their_field(db):
    support = web(make_superuser())

    response = support.post(
        f"{CLIENTS}/add/", client_form(redirect_uris="http://app.example.com/cb\nflyclub:/cb\nflyclub:/cb")
    )

    errors = page_errors(response)
    assert len(errors["redirect_uris"]) == 3
    assert not AppClient.objects.exists()


def test_the_list_shows_the_organizations_or_all_and_the_revoked_state(db):
    support = web(make_superuser())
    organization = OrganizationFactory(name="Aeroklubben")
    limited, _ = make_client(app_name="Limited", organizations=[organization])
    everywhere, _ = make_client(app_name="Everywhere", confidential=False)
    app_client_revoke(client=everywhere)

    response = support.get(f"{CLIENTS}/")

    assert set(listed(response)) == {limited, everywhere}
    html = response.content.decode()
    assert "Aeroklubben" in html
    assert ">all<" in html
    assert "yes, " in html


def test_support_renews_the_key_on_the_clients_page(db):
    support = web(make_superuser())
    client, old_key = make_client()

    assert "app-client-renew-key" in support.get(f"{CLIENTS}/{client.pk}/change/").content.decode()
    assert support.get(f"{CLIENTS}/{client.pk}/renew-key/").status_code == 200  # the confirmation
    response = support.post(f"{CLIENTS}/{client.pk}/renew-key/")

    _, new_key = shown_key(response)
    secret = Application.objects.get(pk=client.application_id).client_secret
    assert check_password(new_key, secret)
    assert not check_password(old_key, secret)
    assert new_key not in support.get(f"{CLIENTS}/{client.pk}/change/").content.decode()


def test_support_revokes_a_client_and_it_can_no_longer_be_changed(db):
    support = web(make_superuser())
    client, _ = make_client()
    issue_tokens(client.application, UserFactory())

    response = support.post(f"{CLIENTS}/{client.pk}/revoke/")

    assert response.status_code == 302
    client.refresh_from_db()
    assert client.revoked_at is not None
    assert not AccessToken.objects.filter(application=client.application).exists()
    page = support.get(f"{CLIENTS}/{client.pk}/change/")
    assert page.status_code == 200
    assert "app-client-revoke" not in page.content.decode()
    assert support.post(f"{CLIENTS}/{client.pk}/change/", client_form(name="Changed")).status_code == 403
    client.refresh_from_db()
    assert client.name == "Example Apps AB"


def test_support_cannot_delete_a_client(db):
    support = web(make_superuser())
    client, _ = make_client()

    assert support.post(f"{CLIENTS}/{client.pk}/delete/", {"post": "yes"}).status_code == 403
    assert AppClient.objects.filter(pk=client.pk).exists()


def test_an_organization_administrator_cannot_reach_the_pages(org, admin):
    client, _ = make_client(organizations=[org])
    browser = web(admin)

    index = browser.get(f"{ADMIN}/")
    assert index.status_code == 200
    assert "appclient" not in index.content.decode()
    assert browser.get(f"{CLIENTS}/").status_code == 403
    assert browser.get(f"{CLIENTS}/add/").status_code == 403
    assert browser.post(f"{CLIENTS}/add/", client_form()).status_code == 403
    assert browser.get(f"{CLIENTS}/{client.pk}/change/").status_code == 403
    assert browser.post(f"{CLIENTS}/{client.pk}/change/", client_form(name="x")).status_code == 403
    assert browser.get(f"{CLIENTS}/{client.pk}/renew-key/").status_code == 403
    assert browser.post(f"{CLIENTS}/{client.pk}/renew-key/").status_code == 403
    assert browser.post(f"{CLIENTS}/{client.pk}/revoke/").status_code == 403
    client.refresh_from_db()
    assert client.revoked_at is None
    assert AppClient.objects.count() == 1


def test_a_member_without_admin_rights_is_sent_to_the_login(db):
    client, _ = make_client()
    browser = web(UserFactory())

    response = browser.get(f"{CLIENTS}/")
    assert response.status_code == 302
    assert "/login/" in response["Location"]
    assert browser.post(f"{CLIENTS}/{client.pk}/revoke/").status_code == 302
    client.refresh_from_db()
    assert client.revoked_at is None
