"""Webhook delivery in one process: outbox rows, tries against a loopback receiver, the retry schedule with the
clock moved, pausing after 72 hours of failures, the daily ping, resuming, redelivery and the log's 30 days.
(tests/test_webhook_worker.py does the same through a real Celery worker and broker.)"""

import datetime as dt
import json

import pytest
import time_machine
from django.db import transaction

from objects_app.events import object_event_record
from tests.factories import OrganizationFactory
from tests.factories_operations import ObjectFactory, ObjectShareFactory
from webhooks import secrets, services
from webhooks.models import Delivery, DeliveryState, Try, WebhookState
from webhooks.receiver import Receiver


def stored_secrets(webhook) -> tuple[str, str]:
    """The token and signing key as a try reads them (webhooks.services.delivery_try decrypts the columns)."""
    return secrets.decrypt(webhook.token_encrypted), secrets.decrypt(webhook.signing_key_encrypted)


START = dt.datetime(2026, 11, 26, 9, 0, 0, tzinfo=dt.UTC)


@pytest.fixture
def world(db):
    organization = OrganizationFactory()
    return organization, ObjectFactory(organization=organization)


@pytest.fixture
def hook(world):
    """A webhook of the organization pointed at a loopback receiver that answers what `statuses` says."""
    organization, _ = world
    statuses: list[int] = []
    receiver = Receiver(token="", signing_key="", reply=lambda received: statuses.pop(0) if statuses else 200)
    receiver.start()
    webhook, token, signing_key = services.webhook_create(organization=organization, url=receiver.url)
    receiver.token, receiver.signing_key = token, signing_key
    yield webhook, receiver, statuses
    receiver.stop()


def record(world, event_type="booking.create", entity_id=7, change=None):
    _, booking_object = world
    with transaction.atomic():
        return object_event_record(event_type=event_type, object=booking_object, entity_id=entity_id, change=change)


def try_all_due():
    for delivery_id in services.deliveries_due(now=services.clock.now() + services.SWEEP_GRACE):
        services.delivery_try(delivery_id=delivery_id)


@time_machine.travel(START, tick=False)
def test_an_event_arrives_signed_with_exactly_the_documented_body_and_headers(world, hook):
    _, receiver, _ = hook
    organization, booking_object = world
    [delivery] = record(world, "remark.update", entity_id=12, change="commented")

    services.delivery_try(delivery_id=delivery.pk)

    [received] = receiver.received
    assert received.accepted, received.reason
    assert received.event == {
        "organization": {"id": organization.pk},
        "event_type": "remark.update",
        "data": {"id": 12, "change": "commented", "object_id": booking_object.pk},
        "id": delivery.event_id,
        "occurred_at": "2026-11-26T09:00:00Z",
        "schema_version": 1,
    }
    order = ["organization", "event_type", "data", "id", "occurred_at", "schema_version"]
    assert list(json.loads(received.body)) == order
    assert received.header("X-Service-Event-Id") == delivery.event_id
    assert received.header("X-Service-Attempt") == "1"
    assert received.header("X-Service-Timestamp") == str(int(START.timestamp()))
    assert received.header("User-Agent") == "service-webhooks/1.0"
    assert received.header("Content-Type") == "application/json"
    assert len(received.header("Request-Id")) == 32
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED and delivery.last_status_code == 200
    [logged] = Try.objects.filter(delivery=delivery)
    assert (logged.attempt, logged.status_code, logged.request_id) == (1, 200, received.header("Request-Id"))


def test_the_secrets_are_kept_only_encrypted(hook):
    webhook, receiver, _ = hook
    webhook.refresh_from_db()
    assert receiver.token not in webhook.token_encrypted and receiver.signing_key not in webhook.signing_key_encrypted
    assert stored_secrets(webhook) == (receiver.token, receiver.signing_key)


def test_a_rolled_back_change_records_nothing(world, hook):
    _, booking_object = world
    with pytest.raises(RuntimeError), transaction.atomic():
        object_event_record(event_type="booking.create", object=booking_object, entity_id=1)
        raise RuntimeError("the change fails")
    assert not Delivery.objects.exists()


def test_events_of_a_shared_object_go_to_the_sharing_organization_too_with_its_own_id(world, hook):
    _, booking_object = world
    sharing = OrganizationFactory()
    ObjectShareFactory(object=booking_object, organization=sharing)
    stranger = OrganizationFactory()
    theirs, _, _ = services.webhook_create(organization=sharing, url="http://127.0.0.1:9/webhook")
    services.webhook_create(organization=stranger, url="http://127.0.0.1:9/webhook")

    deliveries = record(world)

    bodies = {delivery.webhook_id: json.loads(bytes(delivery.body)) for delivery in deliveries}
    assert set(bodies) == {hook[0].pk, theirs.pk}
    assert bodies[theirs.pk]["organization"] == {"id": sharing.pk}
    assert bodies[theirs.pk]["data"]["object_id"] == booking_object.pk


def test_subscriptions_choose_the_events(world, hook):
    webhook, _, _ = hook
    webhook.subscribes_flightlog = False
    webhook.save()
    assert record(world, "flightlog.create") == []
    assert len(record(world, "booking.delete")) == 1


def test_three_failures_give_tries_one_to_four_at_the_documented_times(world, hook):
    _, receiver, statuses = hook
    statuses.extend([500, 500, 500])
    with time_machine.travel(START, tick=False) as clock:
        [delivery] = record(world)
        services.delivery_try(delivery_id=delivery.pk)
        for minutes in (1, 5, 30):
            clock.move_to(START + dt.timedelta(minutes=minutes) - dt.timedelta(seconds=1))
            try_all_due()  # not yet
            clock.move_to(START + dt.timedelta(minutes=minutes))
            try_all_due()

    attempts = [(item.header("X-Service-Attempt"), item.header("X-Service-Event-Id")) for item in receiver.received]
    assert attempts == [(str(n), delivery.event_id) for n in (1, 2, 3, 4)]
    assert [item.status for item in receiver.received] == [500, 500, 500, 200]
    assert len({item.header("Request-Id") for item in receiver.received}) == 4
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED and delivery.attempts == 4


def test_eight_failed_tries_end_the_series_by_22_hours(world, hook):
    _, receiver, statuses = hook
    statuses.extend([503] * 20)
    with time_machine.travel(START, tick=False) as clock:
        [delivery] = record(world)
        for offset in (*services.SCHEDULE, dt.timedelta(hours=23)):
            clock.move_to(START + offset)
            try_all_due()
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.FAILED and delivery.attempts == 8
    assert [item.header("X-Service-Attempt") for item in receiver.received] == [str(n) for n in range(1, 9)]


def test_a_claim_lets_one_worker_have_a_try(world, hook):
    [delivery] = record(world)
    assert services.delivery_claim(delivery_id=delivery.pk, now=services.clock.now()) is not None
    assert services.delivery_claim(delivery_id=delivery.pk, now=services.clock.now()) is None
    # A worker that died mid-try: its claim lapses and the sweep hands the delivery over, as try 2.
    later = services.clock.now() + services.CLAIM + services.SWEEP_GRACE
    assert services.deliveries_due(now=later) == [delivery.pk]
    assert services.delivery_claim(delivery_id=delivery.pk, now=later).attempts == 2


def test_72_hours_of_failures_pause_then_a_daily_ping_answered_resumes(world, hook):
    webhook, receiver, statuses = hook
    statuses.extend([500] * 100)
    with time_machine.travel(START, tick=False) as clock:
        for hour in range(0, 73, 12):
            clock.move_to(START + dt.timedelta(hours=hour))
            record(world)
            try_all_due()
        webhook.refresh_from_db()
        assert webhook.state == WebhookState.PAUSED
        # While paused, a new event is held, not sent.
        sent = len(receiver.received)
        [held] = record(world)
        try_all_due()
        assert len(receiver.received) == sent and Delivery.objects.get(pk=held.pk).state == DeliveryState.HELD

        # The daily ping: not answered 2xx, the webhook stays paused; a day later one is answered and it resumes.
        services.paused_webhooks_ping()
        try_all_due()
        assert receiver.received[-1].event["event_type"] == "webhook.ping"
        assert receiver.received[-1].event["data"] == {}
        assert services.paused_webhooks_ping() == 0  # once a day
        statuses.clear()
    with time_machine.travel(START + dt.timedelta(hours=97), tick=False):
        [young] = record(world)  # held, 0 hours old at the resumption
        assert services.paused_webhooks_ping() == 1
        try_all_due()
        webhook.refresh_from_db()
        assert webhook.state == WebhookState.ACTIVE
        try_all_due()
    young.refresh_from_db()
    held.refresh_from_db()
    assert young.state == DeliveryState.DELIVERED
    # The event held 25 hours earlier is past 22 hours: it stays held for support to redeliver.
    assert held.state == DeliveryState.HELD


def test_support_redelivers_an_event_under_its_id(world, hook):
    _, receiver, _ = hook
    [delivery] = record(world)
    services.delivery_try(delivery_id=delivery.pk)
    with transaction.atomic():
        services.delivery_redeliver(delivery=delivery)
    services.delivery_try(delivery_id=delivery.pk)
    first, again = receiver.received
    assert again.header("X-Service-Event-Id") == first.header("X-Service-Event-Id")
    assert again.duplicate and again.header("Request-Id") != first.header("Request-Id")


def test_the_delivery_log_keeps_30_days(world, hook):
    with time_machine.travel(START, tick=False):
        [old] = record(world)
        services.delivery_try(delivery_id=old.pk)
    with time_machine.travel(START + dt.timedelta(days=29), tick=False):
        [recent] = record(world)
        services.delivery_try(delivery_id=recent.pk)
    with time_machine.travel(START + dt.timedelta(days=30, minutes=1), tick=False):
        assert services.delivery_log_purge() == 1
    assert list(Delivery.objects.values_list("pk", flat=True)) == [recent.pk]
    assert Try.objects.filter(delivery=recent).count() == 1


def test_no_try_goes_out_more_than_22_hours_after_the_event(world, hook):
    _, receiver, statuses = hook
    statuses.extend([500] * 20)
    with time_machine.travel(START, tick=False) as clock:
        [delivery] = record(world)
        services.delivery_try(delivery_id=delivery.pk)
        # The sweep hands a try over up to half a minute late: the last slot leaves room for it.
        clock.move_to(START + services.SCHEDULE[-1] + dt.timedelta(seconds=30))
        assert START + services.SCHEDULE[-1] + dt.timedelta(seconds=30) < START + dt.timedelta(hours=22)
        # No worker ran between: every try but the first is due; from 22 hours on none may go out.
        clock.move_to(START + dt.timedelta(hours=22, seconds=1))
        assert services.delivery_claim(delivery_id=delivery.pk, now=services.clock.now()) is None
        assert services.deliveries_due(now=services.clock.now()) == []
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.FAILED and delivery.attempts == 1
    assert len(receiver.received) == 1


def test_a_redelivery_is_one_try_numbered_1(world, hook):
    _, receiver, statuses = hook
    statuses.extend([500] * 20)
    with time_machine.travel(START, tick=False) as clock:
        [delivery] = record(world)
        for offset in (*services.SCHEDULE, dt.timedelta(hours=23)):
            clock.move_to(START + offset)
            try_all_due()
        clock.move_to(START + dt.timedelta(hours=72))
        with transaction.atomic():
            services.delivery_redeliver(delivery=delivery)
        try_all_due()
        clock.move_to(START + dt.timedelta(hours=73))
        try_all_due()
    delivery.refresh_from_db()
    assert [item.header("X-Service-Attempt") for item in receiver.received] == [*map(str, range(1, 9)), "1"]
    assert delivery.state == DeliveryState.FAILED and delivery.attempts == 1


def test_a_2xx_ends_the_webhooks_run_of_failures_though_a_try_failed_after_its_claim(world, hook):
    webhook, _, statuses = hook
    [first] = record(world)
    [second] = record(world)
    claimed = services.delivery_claim(delivery_id=first.pk, now=services.clock.now())
    assert claimed.failing_since is None
    statuses.append(500)
    services.delivery_try(delivery_id=second.pk)  # fails after the first was claimed
    webhook.refresh_from_db()
    assert webhook.failing_since is not None

    services.claims.success_record(claimed=claimed, log=_log(status=200), now=services.clock.now())

    webhook.refresh_from_db()
    assert webhook.failing_since is None


def _log(*, status: int) -> dict:
    return {
        "request_id": "c" * 32,
        "sent_at": services.clock.now(),
        "status_code": status,
        "duration_ms": 3,
        "reply": "{}",
        "error": "",
    }
