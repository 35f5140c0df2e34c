"""The Mobile API's cached callers against a real gunicorn (2 workers) sharing Redis: a change made in
another process (here: this one, committed, with the production cache) is refused by every worker on the
very next call: an ended login, a password change, a locked member and a revoked client.

It needs PostgreSQL (the server process must see the committed test data) and TEST_REDIS_URL (that Redis db
is flushed first), as tests/test_live_throttle.py.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/flyclub TEST_REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/pytest tests/test_live_mobile_cache.py
"""

import pytest
from django.conf import settings
from django.db import connection

from apicore import clock
from bench.server import Gunicorn, database_url_of, flush_redis, service_env
from mobile_api.models import MobileLogin
from mobile_api.services.app_clients import app_client_revoke
from mobile_api.services.logins import mobile_login_end
from tests.factories import MemberFactory, OrganizationFactory
from tests.mobile_helpers import issue_member_tokens, make_app_client

DATABASE_ENGINE = settings.DATABASES["default"]["ENGINE"]

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        "postgresql" not in DATABASE_ENGINE,
        reason=f"live cache test needs PostgreSQL (DATABASE_URL=postgres://...), not {DATABASE_ENGINE}",
    ),
    pytest.mark.skipif(
        not settings.TEST_REDIS_URL, reason="live cache test needs TEST_REDIS_URL (a Redis db it may flush)"
    ),
]

WARM_CALLS = 30  # each worker sees the credential more than twice (a third call is answered from its cache)
CHECK_CALLS = 8


def _end_login(tokens, member, client):
    mobile_login_end(login=MobileLogin.objects.get(pk=tokens.login.pk))


def _change_password(tokens, member, client):
    user = member.user
    user.set_password("a new and long password 2026")
    user.save()


def _lock_member(tokens, member, client):
    user = member.user
    user.locked_login = True
    user.save(update_fields=["locked_login"])


def _revoke_client(tokens, member, client):
    app_client_revoke(client=client)


CHANGES = {
    "ended login": _end_login,
    "password change": _change_password,
    "locked member": _lock_member,
    "revoked client": _revoke_client,
}


def test_every_worker_refuses_a_changed_caller_on_the_next_call(transactional_db, tmp_path, settings):
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": settings.TEST_REDIS_URL}
    }
    organization = OrganizationFactory()
    callers = {}
    for name in CHANGES:
        member = MemberFactory(organization=organization)
        client = make_app_client(rights={"organization": "r", "objects": "r"})
        callers[name] = (issue_member_tokens(member, client), member, client)
    bystander = issue_member_tokens(MemberFactory(organization=organization), make_app_client())
    unseen = issue_member_tokens(MemberFactory(organization=organization), make_app_client())
    flush_redis(settings.TEST_REDIS_URL)
    env = service_env(database_url=database_url_of(connection.settings_dict), redis_url=settings.TEST_REDIS_URL)
    server = Gunicorn(env, workers=2, start_timeout=30, log_path=tmp_path / "gunicorn.log")

    def statuses(bearer: str, calls: int) -> list[int]:
        return [client.get("/mobile/v5/me", bearer=bearer).status for _ in range(calls)]

    found = {}
    try:
        client = server.start()
        for name, (tokens, _member, _client) in callers.items():
            assert statuses(tokens.access_token, WARM_CALLS) == [200] * WARM_CALLS, name
        assert statuses(bystander.access_token, WARM_CALLS) == [200] * WARM_CALLS
        assert statuses(unseen.access_token, WARM_CALLS) == [200] * WARM_CALLS
        # Behind the signals' back (a queryset update): a worker holding the rows answers from them, which
        # shows the workers do answer from their caches.
        MobileLogin.objects.filter(pk=unseen.login.pk).update(ended_at=clock.now())
        found["unseen"] = statuses(unseen.access_token, CHECK_CALLS)
        for name, change in CHANGES.items():
            tokens, member, app_client = callers[name]
            change(tokens, member, app_client)
            found[name] = statuses(tokens.access_token, CHECK_CALLS)
        found["bystander"] = statuses(bystander.access_token, CHECK_CALLS)
    finally:
        server.stop()
        flush_redis(settings.TEST_REDIS_URL)

    assert 200 in found.pop("unseen")
    assert found == {**{name: [401] * CHECK_CALLS for name in CHANGES}, "bystander": [200] * CHECK_CALLS}
