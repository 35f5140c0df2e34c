"""50 concurrent POST /mobile/v5/bookings for overlapping times on one aircraft, against a live server (a thread
per request, each with its own database connection), on PostgreSQL: exactly one primary booking; the rest are
queue bookings where the aircraft allows a queue, else refused with 409 10300; never a 500.

The rules lock the object's row (SELECT ... FOR UPDATE, bookings.services.object_for_booking) before they look
for overlaps, so the requests are served one after the other. Without the lock, several requests see the time
free at once and several primaries are made (try it by making `lock=False` in bookings.rules.book). SQLite
serializes writers by itself and is not what this test is about: skipped there.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/flyclub .venv/bin/pytest tests/test_mobile_v5_booking_concurrency.py
"""

import threading
from collections import Counter

import pytest
import requests
from django.conf import settings as django_settings
from django.core.servers.basehttp import ThreadedWSGIServer
from django.test.testcases import LiveServerThread, _StaticFilesHandler

from bookings.models import Booking
from tests.factories import MemberFactory, OrganizationFactory
from tests.factories_operations import ObjectFactory
from tests.mobile_helpers import issue_member_tokens, make_app_client

DATABASE_ENGINE = django_settings.DATABASES["default"]["ENGINE"]
pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        "postgresql" not in DATABASE_ENGINE,
        reason=f"the concurrency test needs PostgreSQL (DATABASE_URL=postgres://...), not {DATABASE_ENGINE}",
    ),
]

REQUESTS = 50
# Each member has their own login (120 calls a minute each is far away either way); all start together.
MEMBERS = 10


def hammer(url: str, tokens: list[str], body: dict) -> list[tuple[int, dict]]:
    """REQUESTS posts of `body`, all released at once from their own threads; (status, JSON) of each."""
    barrier = threading.Barrier(REQUESTS)
    results: list = [None] * REQUESTS

    def post(index: int) -> None:
        session = requests.Session()
        headers = {"Authorization": f"Bearer {tokens[index % len(tokens)]}", "Accept-Language": "en"}
        barrier.wait(timeout=30)
        try:
            response = session.post(url, json=body, headers=headers, timeout=60)
            results[index] = (response.status_code, response.json())
        except Exception as error:
            results[index] = (0, {"error": repr(error)})
        finally:
            session.close()

    threads = [threading.Thread(target=post, args=(index,)) for index in range(REQUESTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


class _Server(ThreadedWSGIServer):
    # 50 connections at once: socketserver's listen backlog of 5 would reset some before they are served.
    request_queue_size = 128


class _ServerThread(LiveServerThread):
    server_class = _Server


@pytest.fixture
def live(settings, transactional_db):
    """A live server of its own (pytest-django's `live_server`, with a listen backlog for 50 connections at
    once); each request thread has its own database connection."""
    settings.REQUIRE_HTTPS = False  # the live server speaks plain HTTP
    thread = _ServerThread("localhost", _StaticFilesHandler)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    try:
        yield f"http://localhost:{thread.port}"
    finally:
        thread.terminate()


@pytest.mark.parametrize("queue_allowed", [True, False])
def test_fifty_concurrent_bookings_make_exactly_one_primary(live, queue_allowed):
    club = OrganizationFactory(name="Västerås Flygklubb")
    aircraft = ObjectFactory(organization=club, registration="SE-KBT", queue_allowed=queue_allowed)
    app = make_app_client()
    tokens = [issue_member_tokens(MemberFactory(organization=club), app).access_token for _ in range(MEMBERS)]
    body = {"object_id": aircraft.pk, "start_at": "2030-06-01T10:00Z", "end_at": "2030-06-01T12:00Z"}

    results = hammer(f"{live}/mobile/v5/bookings", tokens, body)

    statuses = Counter(status for status, _ in results)
    assert statuses[500] == 0 and statuses[0] == 0, [r for r in results if r[0] in (0, 500)]
    primaries = Booking.objects.filter(object=aircraft, is_primary=True)
    assert primaries.count() == 1
    made = [data["data"] for status, data in results if status == 201]
    assert sum(item["is_primary"] for item in made) == 1
    if queue_allowed:
        assert statuses == {201: REQUESTS}, statuses
        assert Booking.objects.filter(object=aircraft, is_primary=False).count() == REQUESTS - 1
    else:
        assert statuses == {201: 1, 409: REQUESTS - 1}, statuses
        refusals = [data for status, data in results if status == 409]
        assert all(refusal["code"] == 10300 for refusal in refusals)
        assert {refusal["errors"][0]["message"] for refusal in refusals} == {
            "The object is already booked at that time."
        }
        assert Booking.objects.filter(object=aircraft).count() == 1
