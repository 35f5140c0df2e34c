"""The demo club's webhook: in the JSON of `manage.py demo` with the token and signing key that the stored
(encrypted) ones are, subscribed to everything, and delivering to a receiver set up from the JSON alone."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from demo.world import DEMO_WEBHOOK_URL
from webhooks import secrets, services
from webhooks.models import Delivery, DeliveryState, Webhook, WebhookState
from webhooks.receiver import Receiver


def stored_secrets(webhook) -> tuple[str, str]:
    """The token and signing key as a try reads them (webhooks.services.delivery_try decrypts the columns)."""
    return secrets.decrypt(webhook.token_encrypted), secrets.decrypt(webhook.signing_key_encrypted)


def run_demo() -> tuple[dict, str]:
    out, err = StringIO(), StringIO()
    call_command("demo", stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


@pytest.fixture
def world(db, media, monkeypatch):
    monkeypatch.delenv("DEMO_WEBHOOK_URL", raising=False)
    document, errors = run_demo()
    assert errors == ""
    return document


def test_the_demo_club_has_one_webhook_for_everything_with_the_secrets_shown(world):
    entry = world["webhooks"]
    assert set(entry) == {"id", "url", "token", "signing_key"}
    assert entry["url"] == DEMO_WEBHOOK_URL == "http://127.0.0.1:8766/webhook"
    [webhook] = Webhook.objects.all()
    assert (webhook.pk, webhook.url, webhook.organization_id) == (
        entry["id"],
        entry["url"],
        world["organization"]["id"],
    )
    assert webhook.state == WebhookState.ACTIVE
    assert webhook.subscribes_bookings and webhook.subscribes_flightlog and webhook.subscribes_remarks
    # Kept only encrypted, and the encrypted ones are the ones shown.
    assert entry["token"] not in webhook.token_encrypted
    assert entry["signing_key"] not in webhook.signing_key_encrypted
    assert stored_secrets(webhook) == (entry["token"], entry["signing_key"])
    assert len(entry["token"]) >= 32 and len(entry["signing_key"]) == 64


def test_building_the_world_records_no_events_for_the_demo_receiver(world):
    assert not Delivery.objects.exists()


def test_a_receiver_set_up_from_the_json_verifies_the_demo_webhooks_tries(db, media, monkeypatch):
    with Receiver(token="", signing_key="") as receiver:
        monkeypatch.setenv("DEMO_WEBHOOK_URL", receiver.url)
        document, _ = run_demo()
        entry = document["webhooks"]
        assert entry["url"] == receiver.url
        receiver.token, receiver.signing_key = entry["token"], entry["signing_key"]

        ping = services.webhook_ping(webhook=Webhook.objects.get(pk=entry["id"]))
        services.delivery_try(delivery_id=ping.pk)

        [received] = receiver.wait_for(1)
        assert received.accepted, received.reason
        assert received.event["event_type"] == "webhook.ping"
        assert received.event["organization"] == {"id": document["organization"]["id"]}
        ping.refresh_from_db()
        assert ping.state == DeliveryState.DELIVERED


def test_where_loopback_is_not_allowed_the_demo_has_no_webhook_and_says_so(db, media, settings, monkeypatch):
    monkeypatch.delenv("DEMO_WEBHOOK_URL", raising=False)
    settings.WEBHOOK_ALLOW_LOOPBACK = False

    document, errors = run_demo()

    assert document["webhooks"] is None
    assert not Webhook.objects.exists()
    assert "WEBHOOK_ALLOW_LOOPBACK" in errors
