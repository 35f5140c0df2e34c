"""main_api.token_lookup: one statement for both kinds of credential, prepared on PostgreSQL."""

import datetime as dt

import pytest
from django.db import connection
from oauth2_provider.models import get_access_token_model

from apicore import clock
from apicore.secrets import secret_hash
from main_api.token_lookup import find_token_row


def test_the_direct_secret_and_a_live_access_token_find_the_same_token(api, org, admin):
    access = secret_hash(api.access_token)

    by_secret = find_token_row(credential_hash=secret_hash(api.secret), now=clock.now())
    by_access = find_token_row(credential_hash=access, now=clock.now())

    assert by_secret.token_id == by_access.token_id == api.token.pk
    assert by_secret.direct and not by_access.direct
    token = by_access.instance()
    assert (token.organization.name, token.owner.full_name, token.owner_is_admin) == (org.name, admin.full_name, True)
    assert token.rights == api.token.rights


def test_an_access_token_past_its_end_finds_nothing(api):
    assert api.access_token
    expires = get_access_token_model().objects.get(application_id=api.token.application_id).expires

    assert find_token_row(credential_hash=secret_hash(api.access_token), now=expires) is None
    assert find_token_row(credential_hash=secret_hash(api.access_token), now=expires - dt.timedelta(seconds=1))


def test_the_owner_keeps_no_personal_data_in_the_row(api, admin):
    admin.personal_identification_number = "19800101-1234"
    admin.save()

    owner = find_token_row(credential_hash=secret_hash(api.secret), now=clock.now()).instance().owner

    assert "personal_identification_number" in owner.get_deferred_fields()
    assert "password" in owner.get_deferred_fields()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_the_lookup_is_prepared_on_postgresql(api):
    assert not connection.queries_logged
    for _ in range(2):
        assert find_token_row(credential_hash=secret_hash(api.secret), now=clock.now()) is not None

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s", ["%secret_hash%"])
        assert cursor.fetchone()[0] == 1


def test_a_model_with_init_signals_is_built_through_from_db(api, org):
    from django.db.models.signals import post_init

    from accounts.models import Organization

    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance)

    post_init.connect(receiver, sender=Organization)
    try:
        token = find_token_row(credential_hash=secret_hash(api.secret), now=clock.now()).instance()
    finally:
        post_init.disconnect(receiver, sender=Organization)

    assert seen == [token.organization]
    assert token.organization.name == org.name and not token.organization.get_deferred_fields()
