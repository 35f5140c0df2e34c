"""Webhooks: record events (the outbox), try deliveries, retry, pause, ping and resume
(../shared/DECISIONS.md "Webhooks"; docs/decisions.md §10 "Webhooks").

`event_record` is called by the services of bookings, the flight log and remarks inside their transaction
(through objects_app.events, which knows who hears of an object):
the deliveries are rows of that transaction, so a rolled-back change sends nothing, and they are handed to
Celery only once it commits. A try is claimed with a conditional UPDATE (one worker per try, whatever the
broker delivers twice); the next try's time lives in `Delivery.due_at`, and the sweep (Celery beat) hands
over whatever is due that no worker is handling: a lost broker message or a killed worker delays an event,
never drops it.
"""

import contextlib
import datetime as dt
import logging
import secrets as random

import orjson
from celery import current_app
from django.db import connection, transaction
from django.db.models import F, Q

from apicore import clock
from apicore.clock import utc_iso
from webhooks import claims, secrets, signing, transport
from webhooks.addresses import url_check
from webhooks.models import Delivery, DeliveryState, Try, Webhook, WebhookState

logger = logging.getLogger(__name__)

# Tries 1 to 8, counted from the occurrence (../shared/DECISIONS.md "Webhooks": about 0, 1 min, 5 min, 30 min,
# 2 h, 6 h, 12 h, 22 h; docs/decisions.md §10.4 "Schedule").
SCHEDULE = (
    dt.timedelta(0),
    dt.timedelta(minutes=1),
    dt.timedelta(minutes=5),
    dt.timedelta(minutes=30),
    dt.timedelta(hours=2),
    dt.timedelta(hours=6),
    dt.timedelta(hours=12),
    # "About 22 h", but never past it: the sweep hands a try over up to half a minute after it falls due.
    dt.timedelta(hours=22) - dt.timedelta(minutes=2),
)
# No try later than this after the occurrence (document 3: X-Service-Timestamp up to 22 hours later).
LAST_TRY_AFTER = dt.timedelta(hours=22)
# A claim outlives the 10-second timeout with room to record the try; a worker that dies mid-try leaves a
# claim that lapses after this, and the sweep hands the delivery over again.
CLAIM = dt.timedelta(seconds=60)
# A try later than its time by less than this is not the sweep's: the task queued on commit has it.
SWEEP_GRACE = dt.timedelta(seconds=10)
PAUSE_AFTER = dt.timedelta(hours=72)
PING_EVERY = dt.timedelta(hours=24)
HELD_RESENT_WITHIN = dt.timedelta(hours=22)
LOG_KEPT = dt.timedelta(days=30)
SCHEMA_VERSION = 1
PING = "webhook.ping"


# --- set-up -----------------------------------------------------------------------------------------------


def new_token() -> str:
    return random.token_urlsafe(32)


def new_signing_key() -> str:
    return random.token_hex(32)


@transaction.atomic
def webhook_create(
    *,
    organization,
    url: str,
    subscribes_bookings: bool = True,
    subscribes_flightlog: bool = True,
    subscribes_remarks: bool = True,
    state: str = WebhookState.ACTIVE,
    token: str | None = None,
    signing_key: str | None = None,
) -> tuple[Webhook, str, str]:
    """Set up a webhook; returns it with its token and signing key, which are shown once and then exist only
    encrypted (generated unless given: the demo world's are fixed). The address is checked
    (webhooks.addresses.url_check raises AddressRefused)."""
    url_check(url)
    token, signing_key = token or new_token(), signing_key or new_signing_key()
    webhook = Webhook.objects.create(
        organization=organization,
        url=url,
        subscribes_bookings=subscribes_bookings,
        subscribes_flightlog=subscribes_flightlog,
        subscribes_remarks=subscribes_remarks,
        state=state,
        paused_at=clock.now() if state == WebhookState.PAUSED else None,
        token_encrypted=secrets.encrypt(token),
        signing_key_encrypted=secrets.encrypt(signing_key),
        created_at=clock.now(),
    )
    return webhook, token, signing_key


@transaction.atomic
def webhook_update(
    *,
    webhook: Webhook,
    url: str,
    subscribes_bookings: bool,
    subscribes_flightlog: bool,
    subscribes_remarks: bool,
    state: str,
) -> Webhook:
    """Change a webhook's address, subscriptions and state; the address is checked as when it was set up, and
    the state moves through webhook_pause / webhook_resume (held events, pending tries)."""
    url_check(url)
    Webhook.objects.filter(pk=webhook.pk).update(
        url=url,
        subscribes_bookings=subscribes_bookings,
        subscribes_flightlog=subscribes_flightlog,
        subscribes_remarks=subscribes_remarks,
    )
    current = Webhook.objects.get(pk=webhook.pk)
    if state != current.state:
        (webhook_pause if state == WebhookState.PAUSED else webhook_resume)(webhook=current)
    return Webhook.objects.get(pk=webhook.pk)


@transaction.atomic
def webhook_secrets_renew(*, webhook: Webhook) -> tuple[str, str]:
    """New token and signing key (the old ones stop working at once); shown once like the first ones."""
    token, signing_key = new_token(), new_signing_key()
    Webhook.objects.filter(pk=webhook.pk).update(
        token_encrypted=secrets.encrypt(token), signing_key_encrypted=secrets.encrypt(signing_key)
    )
    return token, signing_key


# --- events (the outbox) ------------------------------------------------------------------------------------


def event_body(*, organization_id: int, event_type: str, event_id: str, occurred_at: dt.datetime, data: dict) -> bytes:
    """Version 1 of the body: exactly document 3's fields, in its order."""
    return orjson.dumps(
        {
            "organization": {"id": organization_id},
            "event_type": event_type,
            "data": data,
            "id": event_id,
            "occurred_at": utc_iso(occurred_at),
            "schema_version": SCHEMA_VERSION,
        }
    )


def _new_delivery(*, webhook: Webhook, event_type: str, data: dict, now: dt.datetime, **fields) -> Delivery:
    event_id = signing.new_event_id()
    held = webhook.state == WebhookState.PAUSED and event_type != PING
    return Delivery(
        webhook=webhook,
        event_id=event_id,
        event_type=event_type,
        entity_id=data.get("id"),
        object_id=data.get("object_id"),
        body=event_body(
            organization_id=webhook.organization_id,
            event_type=event_type,
            event_id=event_id,
            occurred_at=now,
            data=data,
        ),
        occurred_at=now,
        series_from=now,
        state=DeliveryState.HELD if held else DeliveryState.PENDING,
        due_at=None if held else now,
        **fields,
    )


def _send_on_commit(deliveries: list[Delivery]) -> None:
    ids = [delivery.pk for delivery in deliveries if delivery.state == DeliveryState.PENDING]
    if ids:
        transaction.on_commit(lambda: deliveries_enqueue(ids))


# The task that tries one delivery (webhooks.tasks). The services name it instead of importing it: the task
# calls the services, and WebhooksConfig.ready registers it in every process.
DELIVERY_TRY_TASK = "webhooks.delivery_try"


def deliveries_enqueue(ids: list[int]) -> None:
    """Hand deliveries to Celery. A broker that refuses is only a delay: the sweep finds them."""
    delivery_try_task = current_app.tasks[DELIVERY_TRY_TASK]
    for delivery_id in ids:
        try:
            delivery_try_task.delay(delivery_id)
        except Exception:  # whatever the broker raises, the row in the database stays due
            logger.warning("webhook delivery %s not queued; the sweep will hand it over", delivery_id, exc_info=True)
            return


def event_record(*, event_type: str, organization_ids, data: dict) -> list[Delivery]:
    """Record an event for every webhook of `organization_ids` (ids, or a query of them) that subscribes to
    it, each body naming the receiving organization. Call it inside the change's transaction. Who hears of an
    object's event is the objects' rule (objects_app.events), which calls this."""
    webhooks = [
        webhook
        for webhook in Webhook.objects.filter(organization_id__in=organization_ids).only(
            "id", "organization_id", "state", "subscribes_bookings", "subscribes_flightlog", "subscribes_remarks"
        )
        if webhook.subscribes_to(event_type)
    ]
    if not webhooks:
        return []
    now = clock.now()
    deliveries = Delivery.objects.bulk_create(
        [_new_delivery(webhook=webhook, event_type=event_type, data=data, now=now) for webhook in webhooks]
    )
    _send_on_commit(deliveries)
    return deliveries


# --- tries ------------------------------------------------------------------------------------------------


def _next_due(delivery, *, attempts: int, now: dt.datetime) -> dt.datetime | None:
    """When try number `attempts + 1` is due, or None when the series is over (8 tries, or past 22 h)."""
    if attempts >= delivery.final_attempt or attempts >= len(SCHEDULE):
        return None
    due = max(delivery.series_from + SCHEDULE[attempts], now)
    if due > delivery.series_from + LAST_TRY_AFTER:
        return None
    return due


@contextlib.contextmanager
def _bookkeeping():
    """A transaction of the worker's bookkeeping, committed without waiting for the disk on PostgreSQL (see
    webhooks.claims: a lost result only repeats a try under the same event id)."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(claims.ASYNC_COMMIT)
        yield


def delivery_claim(*, delivery_id: int, now: dt.datetime) -> claims.Claimed | None:
    """Take the delivery's next try if it is due and no live claim holds it; None when another worker has it
    or it is not due. The claim counts the attempt, so a try cut short by a dead worker is not repeated
    under the same number."""
    return claims.claim(delivery_id=delivery_id, now=now, lease=CLAIM, series_after=now - LAST_TRY_AFTER)


def delivery_try(*, delivery_id: int) -> transport.Outcome | None:
    """One try of a delivery, if it can be claimed: sign, POST, log, and schedule the next or finish."""
    claimed = delivery_claim(delivery_id=delivery_id, now=clock.now())
    if claimed is None:
        return None
    token, signing_key = secrets.decrypt(claimed.token_encrypted), secrets.decrypt(claimed.signing_key_encrypted)
    sent_at = clock.now()
    request_id = random.token_hex(16)
    headers = signing.request_headers(
        token=token,
        signing_key=signing_key,
        event_id=claimed.event_id,
        attempt=claimed.attempts,
        timestamp=int(sent_at.timestamp()),
        body=claimed.body,
        request_id=request_id,
    )
    outcome = transport.post(claimed.url, body=claimed.body, headers=headers)
    log = {
        "request_id": request_id,
        "sent_at": sent_at,
        "status_code": outcome.status_code,
        "duration_ms": outcome.duration_ms,
        "reply": outcome.reply,
        "error": outcome.error,
    }
    now = clock.now()
    if outcome.succeeded:
        claims.success_record(claimed=claimed, log=log, now=now)
        if claimed.event_type == PING and claimed.webhook_state == WebhookState.PAUSED:
            webhook_resume(webhook=Webhook(pk=claimed.webhook_id))
    else:
        with _bookkeeping():
            _failure_log(claimed=claimed, log=log, now=now)
    return outcome


def _failure_log(*, claimed: claims.Claimed, log: dict, now: dt.datetime) -> None:
    """Log a failed try, then schedule the next (held while the webhook is paused) or end the series; the
    webhook's run of failures begins or goes on, and pauses it after 72 hours."""
    Try.objects.create(delivery_id=claimed.id, attempt=claimed.attempts, **log)
    # Only the claim's holder records: a worker whose claim lapsed and was taken over changes nothing.
    ours = Delivery.objects.filter(pk=claimed.id, state=DeliveryState.SENDING, attempts=claimed.attempts)
    webhooks = Webhook.objects.filter(pk=claimed.webhook_id)
    status_code = log["status_code"]
    # The state now, not at the claim: support may have paused the webhook while the try was under way.
    webhook_state = webhooks.values_list("state", flat=True).get()
    due = _next_due(claimed, attempts=claimed.attempts, now=now)
    if due is None:
        ours.update(state=DeliveryState.FAILED, due_at=None, finished_at=now, last_status_code=status_code)
    elif webhook_state == WebhookState.PAUSED and claimed.event_type != PING:
        ours.update(state=DeliveryState.HELD, due_at=None, last_status_code=status_code)
    else:
        ours.update(state=DeliveryState.PENDING, due_at=due, last_status_code=status_code)
    if claimed.failing_since is None:
        webhooks.filter(failing_since__isnull=True).update(failing_since=log["sent_at"])
    if claimed.event_type != PING:
        to_pause = webhooks.filter(state=WebhookState.ACTIVE, failing_since__lte=now - PAUSE_AFTER)
        if to_pause.update(state=WebhookState.PAUSED, paused_at=now):
            _hold_pending(claimed.webhook_id)


def _hold_pending(webhook_id: int) -> None:
    Delivery.objects.filter(webhook_id=webhook_id, state=DeliveryState.PENDING).exclude(event_type=PING).update(
        state=DeliveryState.HELD, due_at=None
    )


# --- the sweep and the daily jobs -----------------------------------------------------------------------------


def deliveries_due(*, now: dt.datetime, limit: int = 5000) -> list[int]:
    """Deliveries whose try is due and that no live claim holds (a claim of a dead worker lapses); a series
    whose last try died with its worker is over."""
    Delivery.objects.filter(state=DeliveryState.SENDING, due_at__lte=now, attempts__gte=F("final_attempt")).update(
        state=DeliveryState.FAILED, due_at=None, finished_at=now
    )
    # A series whose 22 hours passed while no worker ran is over (the claim refuses such a try).
    Delivery.objects.filter(
        state__in=[DeliveryState.PENDING, DeliveryState.SENDING], due_at__lte=now, series_from__lt=now - LAST_TRY_AFTER
    ).update(state=DeliveryState.FAILED, due_at=None, finished_at=now)
    return list(
        Delivery.objects.filter(state__in=[DeliveryState.PENDING, DeliveryState.SENDING], due_at__lte=now - SWEEP_GRACE)
        .order_by("due_at")
        .values_list("pk", flat=True)[:limit]
    )


def deliveries_sweep() -> int:
    ids = deliveries_due(now=clock.now())
    deliveries_enqueue(ids)
    return len(ids)


@transaction.atomic
def webhook_ping(*, webhook: Webhook, queue: bool = True) -> Delivery:
    """Record a `webhook.ping` (one try, also while the webhook is paused), handed to Celery on commit; with
    `queue=False` the caller makes the try itself (support's "send ping", which shows the answer)."""
    now = clock.now()
    delivery = _new_delivery(webhook=webhook, event_type=PING, data={}, now=now, final_attempt=1)
    delivery.save()
    Webhook.objects.filter(pk=webhook.pk).update(last_ping_at=now)
    if queue:
        _send_on_commit([delivery])
    return delivery


def paused_webhooks_ping() -> int:
    """The daily ping of every paused webhook (run hourly; each webhook at most once in 24 hours)."""
    now = clock.now()
    due = Webhook.objects.filter(state=WebhookState.PAUSED).filter(
        Q(last_ping_at__isnull=True) | Q(last_ping_at__lte=now - PING_EVERY)
    )
    count = 0
    for webhook in due:
        webhook_ping(webhook=webhook)
        count += 1
    return count


@transaction.atomic
def webhook_pause(*, webhook: Webhook) -> None:
    """Pause (support): new events are held, waiting tries stop; a daily ping checks the address."""
    now = clock.now()
    if Webhook.objects.filter(pk=webhook.pk, state=WebhookState.ACTIVE).update(
        state=WebhookState.PAUSED, paused_at=now
    ):
        _hold_pending(webhook.pk)


@transaction.atomic
def webhook_resume(*, webhook: Webhook) -> int:
    """Resume (support, or a ping answered 2xx): held events younger than 22 hours are sent, in the tries
    left of their series; older ones stay held for support to redeliver. Returns how many are sent."""
    now = clock.now()
    Webhook.objects.filter(pk=webhook.pk).update(state=WebhookState.ACTIVE, paused_at=None, failing_since=None)
    held = list(
        Delivery.objects.select_for_update().filter(
            webhook_id=webhook.pk, state=DeliveryState.HELD, occurred_at__gt=now - HELD_RESENT_WITHIN
        )
    )
    resent = []
    for delivery in held:
        due = _next_due(delivery, attempts=delivery.attempts, now=now)
        if due is not None:
            delivery.state, delivery.due_at = DeliveryState.PENDING, due
            resent.append(delivery)
    Delivery.objects.bulk_update(resent, ["state", "due_at"])
    _send_on_commit([delivery for delivery in resent if delivery.due_at <= now])
    return len(resent)


@transaction.atomic
def delivery_redeliver(*, delivery: Delivery) -> Delivery:
    """Send an event again (support): one try now, numbered 1, under the same event id (a receiver that has it
    drops it). A delivery that is still being tried is left as it is."""
    now = clock.now()
    Delivery.objects.filter(
        pk=delivery.pk, state__in=[DeliveryState.DELIVERED, DeliveryState.FAILED, DeliveryState.HELD]
    ).update(state=DeliveryState.PENDING, attempts=0, final_attempt=1, series_from=now, due_at=now, finished_at=None)
    delivery.refresh_from_db()
    _send_on_commit([delivery])
    return delivery


def delivery_log_purge() -> int:
    """The delivery log keeps 30 days: older tries go, and deliveries that ended more than 30 days ago."""
    cutoff = clock.now() - LOG_KEPT
    tries, _ = Try.objects.filter(sent_at__lt=cutoff).delete()
    Delivery.objects.filter(state=DeliveryState.DELIVERED, finished_at__lt=cutoff).delete()
    return tries
