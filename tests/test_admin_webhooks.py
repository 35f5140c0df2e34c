"""Webhooks on the organization website: support sets them up (secrets shown once, addresses checked, state
through the services, ping, pause, resume, renew, redeliver); administrators read their own organization's
webhooks and delivery log, and never another organization's."""

import datetime as dt
import ipaddress
import re
import socket

import pytest
import time_machine
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from objects_app.events import object_event_record
from tests import log_secrets
from tests.admin_fixtures import ADMIN, listed, make_superuser, page_errors, shown_messages, web
from tests.factories import make_admin
from tests.factories_operations import ObjectFactory
from webhooks import secrets, services
from webhooks.addresses import AddressRefused
from webhooks.models import Delivery, DeliveryState, Try, Webhook, WebhookState
from webhooks.receiver import Receiver


def stored_secrets(webhook) -> tuple[str, str]:
    """The token and signing key as a try reads them (webhooks.services.delivery_try decrypts the columns)."""
    return secrets.decrypt(webhook.token_encrypted), secrets.decrypt(webhook.signing_key_encrypted)


WEBHOOKS = f"{ADMIN}/webhooks/webhook"
DELIVERIES = f"{ADMIN}/webhooks/delivery"
PUBLIC_IP = "93.184.216.34"
START = dt.datetime(2026, 11, 26, 9, 0, 0, tzinfo=dt.UTC)  # 10:00 in Stockholm, 10:00 in Oslo


@pytest.fixture
def support(db):
    return make_superuser(first_name="Sam", last_name="Support")


@pytest.fixture
def public_dns(monkeypatch):
    """Host names resolve to one public address (the tests need no network)."""

    real = socket.getaddrinfo

    def answers(host, port, *args, **kwargs):
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC_IP, port))]
        return real(host, port, *args, **kwargs)  # an address written as such is itself

    monkeypatch.setattr("webhooks.addresses.socket.getaddrinfo", answers)


@pytest.fixture
def receiver():
    """A loopback receiver; give it the webhook's secrets with `listening_for`."""
    statuses: list[int] = []
    server = Receiver(token="", signing_key="", reply=lambda received: statuses.pop(0) if statuses else 200)
    server.statuses = statuses
    server.start()
    yield server
    server.stop()


def listening_for(receiver, organization, **fields) -> Webhook:
    webhook, token, signing_key = services.webhook_create(organization=organization, url=receiver.url, **fields)
    receiver.token, receiver.signing_key = token, signing_key
    return webhook


def webhook_form(organization=None, url="https://hooks.example.net/flyclub", **fields) -> dict:
    data = {"url": url, "state": fields.pop("state", "active")}
    if organization is not None:
        data["organization"] = str(organization.pk)
    for name in ("bookings", "flightlog", "remarks"):
        if fields.pop(name, True):
            data[f"subscribes_{name}"] = "on"
    assert not fields, fields
    return data


def shown_secrets(response) -> tuple[str, str]:
    html = response.content.decode()
    token = re.search(r'id="webhook-token" value="([^"]+)"', html)
    signing_key = re.search(r'id="webhook-signing-key" value="([^"]+)"', html)
    assert token and signing_key, html[:3000]
    log_secrets.register("webhook token", token.group(1))
    log_secrets.register("webhook signing key", signing_key.group(1))
    return token.group(1), signing_key.group(1)


def event(organization, event_type="booking.create", entity_id=7) -> list[Delivery]:
    with transaction.atomic():
        return object_event_record(
            event_type=event_type, object=ObjectFactory(organization=organization), entity_id=entity_id
        )


# --- setting up: the secrets once -------------------------------------------------------------------------


def test_support_sets_up_a_webhook_and_sees_token_and_key_once(support, org, public_dns):
    client = web(support)

    response = client.post(f"{WEBHOOKS}/add/", webhook_form(org, remarks=False))

    assert response.status_code == 200, page_errors(response)
    assert "no-store" in response["Cache-Control"]
    token, signing_key = shown_secrets(response)
    webhook = Webhook.objects.get()
    assert (webhook.organization, webhook.url, webhook.state) == (org, "https://hooks.example.net/flyclub", "active")
    assert (webhook.subscribes_bookings, webhook.subscribes_flightlog, webhook.subscribes_remarks) == (
        True,
        True,
        False,
    )
    # Stored only encrypted, and decrypting gives exactly what the page showed.
    assert token not in webhook.token_encrypted and signing_key not in webhook.signing_key_encrypted
    assert stored_secrets(webhook) == (token, signing_key)

    for address in [
        f"{WEBHOOKS}/",
        f"{WEBHOOKS}/{webhook.pk}/change/",
        f"{WEBHOOKS}/{webhook.pk}/history/",
        f"{DELIVERIES}/",
        f"{ADMIN}/",
    ]:
        page = client.get(address)
        assert page.status_code == 200, address
        html = page.content.decode()
        assert token not in html and signing_key not in html, address
        assert webhook.token_encrypted not in html and webhook.signing_key_encrypted not in html, address
    stored = [
        *LogEntry.objects.values_list("change_message", flat=True),
        *LogEntry.objects.values_list("object_repr", flat=True),
        *(repr(session.get_decoded()) for session in Session.objects.all()),
        *(str(value) for value in Webhook.objects.values().get().values()),
    ]
    assert not [value for value in stored if token in value or signing_key in value]


def test_a_webhook_may_be_set_up_paused(support, org, public_dns):
    response = web(support).post(f"{WEBHOOKS}/add/", webhook_form(org, state="paused"))

    assert response.status_code == 200, page_errors(response)
    webhook = Webhook.objects.get()
    assert webhook.state == WebhookState.PAUSED and webhook.paused_at is not None


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.1/x",
        "https://169.254.169.254/",
        "http://example.com/",
        "https://user:pass@hooks.example.net/",
        "https://[::ffff:192.168.0.1]/hook",
        "ftp://hooks.example.net/",
    ],
)
def test_an_address_into_the_own_network_or_without_https_is_refused_on_its_field(support, org, url):
    response = web(support).post(f"{WEBHOOKS}/add/", webhook_form(org, url=url))

    errors = page_errors(response)
    assert errors["url"], errors
    assert not Webhook.objects.exists()


def test_a_host_that_resolves_inside_is_refused(support, org, monkeypatch):
    monkeypatch.setattr(
        "webhooks.addresses.socket.getaddrinfo",
        lambda host, port, *a, **k: [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.168.1.20", port))],
    )
    response = web(support).post(f"{WEBHOOKS}/add/", webhook_form(org, url="https://inside.example.net/"))

    assert page_errors(response)["url"] == ["The address leads into a private, loopback or reserved network."]
    assert not Webhook.objects.exists()


def test_an_address_the_service_refuses_after_the_forms_check_is_an_error_too(support, org, public_dns, monkeypatch):
    """A DNS answer that changes between the form's check and webhook_create's: the page again, nothing saved."""

    def refuse(url):
        raise AddressRefused(_("The address leads into a private, loopback or reserved network."))

    monkeypatch.setattr("webhooks.services.url_check", refuse)
    response = web(support).post(f"{WEBHOOKS}/add/", webhook_form(org))

    assert page_errors(response)["url"] == ["The address leads into a private, loopback or reserved network."]
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("sv", "Adressen måste börja med https://."),
        ("nb", "Adressen må begynne med https://."),
        ("da", "Adressen skal begynde med https://."),
        ("en", "The address must begin with https://."),
    ],
)
def test_the_refusal_is_in_the_pages_language(support, org, language, expected):
    response = web(support).post(
        f"{WEBHOOKS}/add/", webhook_form(org, url="http://example.com/"), HTTP_ACCEPT_LANGUAGE=language
    )

    assert page_errors(response)["url"] == [expected]


def test_the_address_is_checked_on_change_too(support, org, public_dns):
    webhook, _, _ = services.webhook_create(organization=org, url="https://hooks.example.net/a")

    response = web(support).post(f"{WEBHOOKS}/{webhook.pk}/change/", webhook_form(url="https://10.1.2.3/a"))

    assert page_errors(response)["url"]
    webhook.refresh_from_db()
    assert webhook.url == "https://hooks.example.net/a"


def test_at_least_one_subscription(support, org, public_dns):
    response = web(support).post(f"{WEBHOOKS}/add/", webhook_form(org, bookings=False, flightlog=False, remarks=False))

    assert page_errors(response)[""] == ["Choose at least one subscription."]
    assert not Webhook.objects.exists()


def test_support_changes_address_and_subscriptions_and_the_secrets_stay(support, org, public_dns):
    webhook, token, signing_key = services.webhook_create(organization=org, url="https://hooks.example.net/a")

    response = web(support).post(
        f"{WEBHOOKS}/{webhook.pk}/change/", webhook_form(url="https://hooks.example.net/b", flightlog=False)
    )

    assert response.status_code == 302, page_errors(response)
    webhook.refresh_from_db()
    assert webhook.url == "https://hooks.example.net/b"
    assert (webhook.subscribes_bookings, webhook.subscribes_flightlog) == (True, False)
    assert stored_secrets(webhook) == (token, signing_key)


def test_renewing_shows_the_new_pair_once_and_the_old_one_stops(support, org, public_dns):
    webhook, old_token, old_key = services.webhook_create(organization=org, url="https://hooks.example.net/a")
    client = web(support)

    confirmation = client.get(f"{WEBHOOKS}/{webhook.pk}/renew/")
    assert confirmation.status_code == 200
    assert webhook.token_encrypted not in confirmation.content.decode()
    response = client.post(f"{WEBHOOKS}/{webhook.pk}/renew/")

    token, signing_key = shown_secrets(response)
    webhook.refresh_from_db()
    assert stored_secrets(webhook) == (token, signing_key)
    assert (token, signing_key) != (old_token, old_key)
    page = client.get(f"{WEBHOOKS}/{webhook.pk}/change/").content.decode()
    assert token not in page and signing_key not in page


def test_support_deletes_a_webhook_with_its_log(support, org, public_dns):
    webhook, _, _ = services.webhook_create(organization=org, url="https://hooks.example.net/a")
    for entity_id in range(3):
        event(org, entity_id=entity_id)
    client = web(support)

    confirmation = client.get(f"{WEBHOOKS}/{webhook.pk}/delete/")
    assert confirmation.status_code == 200
    assert not confirmation.context["perms_lacking"]
    response = client.post(f"{WEBHOOKS}/{webhook.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Webhook.objects.exists() and not Delivery.objects.exists()


# --- state: pause and resume through the services -----------------------------------------------------------


def test_pausing_on_the_form_holds_waiting_events_and_resuming_sends_them(
    support, org, receiver, django_capture_on_commit_callbacks
):
    webhook = listening_for(receiver, org)
    client = web(support)
    with django_capture_on_commit_callbacks(execute=False):
        [delivery] = event(org)  # recorded, not yet sent

    response = client.post(f"{WEBHOOKS}/{webhook.pk}/change/", webhook_form(url=receiver.url, state="paused"))

    assert response.status_code == 302, page_errors(response)
    webhook.refresh_from_db()
    delivery.refresh_from_db()
    assert webhook.state == WebhookState.PAUSED and webhook.paused_at is not None
    assert delivery.state == DeliveryState.HELD

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{WEBHOOKS}/{webhook.pk}/change/", webhook_form(url=receiver.url, state="active"))

    assert response.status_code == 302, page_errors(response)
    webhook.refresh_from_db()
    delivery.refresh_from_db()
    assert webhook.state == WebhookState.ACTIVE and webhook.paused_at is None
    assert delivery.state == DeliveryState.DELIVERED
    [received] = receiver.received
    assert received.accepted and received.event["id"] == delivery.event_id


def test_pause_and_resume_buttons(support, org, receiver, django_capture_on_commit_callbacks):
    webhook = listening_for(receiver, org)
    client = web(support)

    page = client.get(f"{WEBHOOKS}/{webhook.pk}/change/").content.decode()
    assert 'id="webhook-pause-form"' in page and 'id="webhook-ping-form"' in page
    response = client.post(f"{WEBHOOKS}/{webhook.pk}/pause/", follow=True)
    assert "The webhook is paused; new events are held." in shown_messages(response)
    webhook.refresh_from_db()
    assert webhook.state == WebhookState.PAUSED
    assert 'id="webhook-resume-form"' in response.content.decode()

    [held] = event(org)
    assert held.state == DeliveryState.HELD
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{WEBHOOKS}/{webhook.pk}/resume/")
    assert "The webhook is active; 1 held event is sent." in shown_messages(client.get(response["Location"]))
    webhook.refresh_from_db()
    held.refresh_from_db()
    assert webhook.state == WebhookState.ACTIVE and held.state == DeliveryState.DELIVERED
    assert client.get(f"{WEBHOOKS}/{webhook.pk}/pause/").status_code == 405


def test_pause_and_resume_actions_on_the_list(support, org, other_org, public_dns):
    ours, _, _ = services.webhook_create(organization=org, url="https://hooks.example.net/a")
    theirs, _, _ = services.webhook_create(organization=other_org, url="https://hooks.example.net/b")
    client = web(support)

    client.post(f"{WEBHOOKS}/", {"action": "pause_selected", "_selected_action": [ours.pk, theirs.pk]})
    assert set(Webhook.objects.values_list("state", flat=True)) == {WebhookState.PAUSED}
    client.post(f"{WEBHOOKS}/", {"action": "resume_selected", "_selected_action": [ours.pk]})
    assert dict(Webhook.objects.values_list("pk", "state")) == {ours.pk: "active", theirs.pk: "paused"}


# --- ping --------------------------------------------------------------------------------------------------


def test_send_ping_arrives_verified_and_the_page_shows_the_status(
    support, org, receiver, django_capture_on_commit_callbacks
):
    webhook = listening_for(receiver, org)
    client = web(support)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{WEBHOOKS}/{webhook.pk}/ping/")
    page = client.get(response["Location"], follow=True)

    [received] = receiver.received
    assert received.accepted, received.reason
    assert received.event["event_type"] == "webhook.ping" and received.event["data"] == {}
    [shown] = shown_messages(page)
    assert shown.startswith("Ping answered with status 200 in ")
    assert page.request["PATH_INFO"] == f"{WEBHOOKS}/{webhook.pk}/change/"
    [ping] = Delivery.objects.filter(event_type="webhook.ping")
    assert ping.state == DeliveryState.DELIVERED and Try.objects.filter(delivery=ping).count() == 1
    webhook.refresh_from_db()
    assert webhook.last_ping_at is not None


def test_a_refused_ping_shows_the_status(support, org, receiver, django_capture_on_commit_callbacks):
    webhook = listening_for(receiver, org)
    receiver.statuses.append(503)
    client = web(support)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{WEBHOOKS}/{webhook.pk}/ping/")

    assert shown_messages(client.get(response["Location"], follow=True)) == ["Ping refused with status 503."]


def test_an_unreachable_ping_shows_the_error(support, org, django_capture_on_commit_callbacks):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nobody listens there
    webhook, _, _ = services.webhook_create(organization=org, url=f"http://127.0.0.1:{port}/webhook")
    client = web(support)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{WEBHOOKS}/{webhook.pk}/ping/")

    [shown] = shown_messages(client.get(response["Location"], follow=True))
    assert shown.startswith("Ping not delivered: ") and len(shown) > len("Ping not delivered: ") + 3


# --- the delivery log ----------------------------------------------------------------------------------------


@time_machine.travel(START, tick=False)
def test_the_delivery_log_in_the_organizations_time(support, org, receiver):
    webhook = listening_for(receiver, org)
    [delivery] = event(org, entity_id=41)
    receiver.statuses.append(500)
    services.delivery_try(delivery_id=delivery.pk)  # fails: the next try is due a minute later
    admin = make_admin(org)

    for client in (web(admin), web(support)):  # support sees the organization's times too
        page = client.get(f"{DELIVERIES}/")
        assert listed(page) == [delivery]
        html = page.content.decode()
        assert "2026-11-26 10:00:00" in html  # occurred, Stockholm
        assert "2026-11-26 10:01:00" in html  # next try
        assert ">500<" in html

        detail = client.get(f"{DELIVERIES}/{delivery.pk}/change/")
        assert detail.status_code == 200
        html = detail.content.decode()
        assert "2026-11-26 10:00:00" in html
        assert Try.objects.get().request_id in html
        assert "&quot;booking.create&quot;" in html  # the body, shown as JSON
        assert "token_encrypted" not in html and webhook.token_encrypted not in html


def test_the_delivery_log_filters_by_state_and_event(support, org, public_dns):
    services.webhook_create(organization=org, url="https://hooks.example.net/a")
    [booking] = event(org, "booking.create")
    [remark] = event(org, "remark.create")
    Delivery.objects.filter(pk=remark.pk).update(state=DeliveryState.FAILED)
    client = web(support)

    assert listed(client.get(f"{DELIVERIES}/", {"event_type": "remark.create"})) == [remark]
    assert listed(client.get(f"{DELIVERIES}/", {"state__exact": "failed"})) == [remark]
    assert listed(client.get(f"{DELIVERIES}/", {"state__exact": "pending"})) == [booking]


def test_redeliver_sends_a_finished_delivery_again_under_its_event_id(
    support, org, receiver, django_capture_on_commit_callbacks
):
    listening_for(receiver, org)
    [failed] = event(org)
    Delivery.objects.filter(pk=failed.pk).update(state=DeliveryState.FAILED, attempts=8, due_at=None)
    [waiting] = event(org, entity_id=8)  # still pending: left as it is
    client = web(support)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{DELIVERIES}/", {"action": "redeliver_selected", "_selected_action": [failed.pk, waiting.pk]}
        )

    shown = shown_messages(client.get(response["Location"]))
    assert "1 delivery is sent again." in shown
    assert "1 delivery is still being tried and was left as it is." in shown
    failed.refresh_from_db()
    assert failed.state == DeliveryState.DELIVERED and failed.attempts == 1
    [received] = receiver.received
    assert received.accepted and received.event["id"] == failed.event_id


# --- administrators: read-only, own organization only -------------------------------------------------------


@pytest.fixture
def two_clubs(org, other_org, public_dns):
    ours, _, _ = services.webhook_create(organization=org, url="https://hooks.example.net/ours")
    theirs, _, _ = services.webhook_create(organization=other_org, url="https://hooks.example.net/theirs")
    [our_delivery] = event(org)
    [their_delivery] = event(other_org)
    Delivery.objects.update(state=DeliveryState.FAILED, due_at=None)
    return ours, theirs, our_delivery, their_delivery


def test_an_administrator_sees_own_webhooks_and_deliveries_and_not_anothers(admin, two_clubs):
    ours, theirs, our_delivery, their_delivery = two_clubs
    client = web(admin)

    assert listed(client.get(f"{WEBHOOKS}/")) == [ours]
    assert listed(client.get(f"{DELIVERIES}/")) == [our_delivery]
    assert their_delivery not in listed(client.get(f"{DELIVERIES}/", {"webhook__id__exact": theirs.pk}))
    for address in [
        f"{WEBHOOKS}/{theirs.pk}/change/",
        f"{WEBHOOKS}/{theirs.pk}/history/",
        f"{DELIVERIES}/{their_delivery.pk}/change/",
    ]:
        response = client.get(address)
        assert response.status_code == 302, address
        assert response["Location"] == f"{ADMIN}/"
    for address in ["ping", "pause", "resume", "renew"]:
        assert client.post(f"{WEBHOOKS}/{theirs.pk}/{address}/").status_code == 404, address
    assert "hooks.example.net/theirs" not in client.get(f"{DELIVERIES}/").content.decode()


def test_an_administrator_reads_but_cannot_add_change_delete_or_send(admin, two_clubs):
    ours, _, our_delivery, _ = two_clubs
    before = list(Webhook.objects.values())
    deliveries_before = list(Delivery.objects.values())
    client = web(admin)

    page = client.get(f"{WEBHOOKS}/{ours.pk}/change/")
    assert page.status_code == 200
    assert not page.context["has_change_permission"]
    html = page.content.decode()
    assert "hooks.example.net/ours" in html and 'name="_save"' not in html
    assert "webhook-ping-form" not in html and "/renew/" not in html
    assert ours.token_encrypted not in html and ours.signing_key_encrypted not in html
    detail = client.get(f"{DELIVERIES}/{our_delivery.pk}/change/")
    assert detail.status_code == 200 and 'name="_save"' not in detail.content.decode()

    assert client.get(f"{WEBHOOKS}/add/").status_code == 403
    assert client.post(f"{WEBHOOKS}/add/", webhook_form(url="https://hooks.example.net/new")).status_code == 403
    assert (
        client.post(f"{WEBHOOKS}/{ours.pk}/change/", webhook_form(url="https://hooks.example.net/x")).status_code == 403
    )
    assert client.post(f"{WEBHOOKS}/{ours.pk}/delete/", {"post": "yes"}).status_code == 403
    for address in ["ping", "pause", "resume", "renew"]:
        assert client.post(f"{WEBHOOKS}/{ours.pk}/{address}/").status_code == 403, address
    assert client.get(f"{WEBHOOKS}/{ours.pk}/renew/").status_code == 403
    for action in ["pause_selected", "resume_selected", "delete_selected"]:
        client.post(f"{WEBHOOKS}/", {"action": action, "_selected_action": [ours.pk], "post": "yes"})
    client.post(f"{DELIVERIES}/", {"action": "redeliver_selected", "_selected_action": [our_delivery.pk]})

    assert list(Webhook.objects.values()) == before
    assert list(Delivery.objects.values()) == deliveries_before
    assert not Delivery.objects.filter(event_type="webhook.ping").exists()
    assert client.get(f"{DELIVERIES}/add/").status_code == 403
    assert client.post(f"{DELIVERIES}/{our_delivery.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Delivery.objects.filter(pk=our_delivery.pk).exists()


def test_support_sees_every_organizations_webhooks(support, two_clubs):
    ours, theirs, our_delivery, their_delivery = two_clubs
    client = web(support)

    assert set(listed(client.get(f"{WEBHOOKS}/"))) == {ours, theirs}
    assert set(listed(client.get(f"{DELIVERIES}/"))) == {our_delivery, their_delivery}
