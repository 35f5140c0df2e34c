"""The worker's two writes of every try: the claim, and the log of a try that succeeded.

On PostgreSQL each is one round trip: one query string whose first statement turns off waiting for the disk
for its own implicit transaction (`set_config(..., true)`), then the UPDATE ... RETURNING of the claim, or the
INSERT of the log with the UPDATE of the delivery. The ORM spent ten round trips a try on the same work (BEGIN,
SET LOCAL, the statements, COMMIT, twice), which was most of a try's time (docs/decisions.md §10.6 "Bookkeeping
without waiting for the disk"). On SQLite (the embedded default) the ORM does it in a transaction.

Committing without waiting for the disk: a database crash may lose the last fraction of a second of claims
and results; that only makes a try happen again under the same event id, which receivers drop. The event row
itself commits with the change that caused it, as every other write does.
"""

import datetime as dt
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import F, Q

from webhooks.models import Delivery, DeliveryState, Try, Webhook

ASYNC_COMMIT = "SELECT set_config('synchronous_commit', 'off', true);"


@dataclass(frozen=True)
class Claimed:
    """A claimed try: the delivery as it is now (its `attempts` counts this try) and its webhook."""

    id: int
    webhook_id: int
    event_id: str
    event_type: str
    body: bytes
    attempts: int
    final_attempt: int
    series_from: dt.datetime
    url: str
    token_encrypted: str
    signing_key_encrypted: str
    webhook_state: str
    failing_since: dt.datetime | None


_COLUMNS = (
    "d.id, d.webhook_id, d.event_id, d.event_type, d.body, d.attempts, d.final_attempt, d.series_from, "
    "w.url, w.token_encrypted, w.signing_key_encrypted, w.state, w.failing_since"
)


def claim(*, delivery_id: int, now: dt.datetime, lease: dt.timedelta, series_after: dt.datetime) -> Claimed | None:
    """Take the delivery's next try if it is due, its series began after `series_after` (no try past 22 hours)
    and no live claim holds it (one worker per try)."""
    if connection.vendor == "postgresql":
        return _claim_postgresql(delivery_id, now, lease, series_after)
    with transaction.atomic():
        claimed = Delivery.objects.filter(
            Q(state=DeliveryState.PENDING) | Q(state=DeliveryState.SENDING),
            pk=delivery_id,
            due_at__lte=now,
            series_from__gte=series_after,
            attempts__lt=F("final_attempt"),
        ).update(state=DeliveryState.SENDING, attempts=F("attempts") + 1, due_at=now + lease)
        if not claimed:
            return None
        delivery = Delivery.objects.select_related("webhook").get(pk=delivery_id)
    webhook = delivery.webhook
    return Claimed(
        delivery.pk,
        delivery.webhook_id,
        delivery.event_id,
        delivery.event_type,
        bytes(delivery.body),
        delivery.attempts,
        delivery.final_attempt,
        delivery.series_from,
        webhook.url,
        webhook.token_encrypted,
        webhook.signing_key_encrypted,
        webhook.state,
        webhook.failing_since,
    )


def _claim_postgresql(
    delivery_id: int, now: dt.datetime, lease: dt.timedelta, series_after: dt.datetime
) -> Claimed | None:
    # Only the models' own table names are formatted in; every value is a parameter.
    sql = f"""{ASYNC_COMMIT}
        UPDATE {Delivery._meta.db_table} AS d
           SET state = %(sending)s, attempts = d.attempts + 1, due_at = %(lapses)s
          FROM {Webhook._meta.db_table} AS w
         WHERE d.id = %(id)s AND w.id = d.webhook_id AND d.state IN (%(pending)s, %(sending)s)
           AND d.due_at <= %(now)s AND d.series_from >= %(series_after)s AND d.attempts < d.final_attempt
     RETURNING {_COLUMNS}"""  # noqa: S608
    params = {
        "id": delivery_id,
        "now": now,
        "lapses": now + lease,
        "series_after": series_after,
        "pending": DeliveryState.PENDING.value,
        "sending": DeliveryState.SENDING.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        cursor.nextset()  # past set_config's row
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    values[4] = bytes(values[4])
    return Claimed(*values)


def success_record(*, claimed: Claimed, log: dict, now: dt.datetime) -> None:
    """Log a try answered 2xx and finish the delivery, if the claim is still this try's (a worker whose claim
    lapsed and was taken over changes nothing); the webhook's run of failures, if any, ends."""
    if connection.vendor == "postgresql":
        _success_postgresql(claimed, log, now)
        return
    with transaction.atomic():
        Try.objects.create(delivery_id=claimed.id, attempt=claimed.attempts, **log)
        Delivery.objects.filter(pk=claimed.id, state=DeliveryState.SENDING, attempts=claimed.attempts).update(
            state=DeliveryState.DELIVERED, due_at=None, finished_at=now, last_status_code=log["status_code"]
        )
        # Another try of the webhook may have failed since this one was claimed: a 2xx ends the run.
        Webhook.objects.filter(pk=claimed.webhook_id, failing_since__isnull=False).update(failing_since=None)


def _success_postgresql(claimed: Claimed, log: dict, now: dt.datetime) -> None:
    sql = f"""{ASYNC_COMMIT}
        INSERT INTO {Try._meta.db_table}
               (delivery_id, attempt, request_id, sent_at, status_code, duration_ms, reply, error)
        VALUES (%(id)s, %(attempt)s, %(request_id)s, %(sent_at)s, %(status_code)s, %(duration_ms)s, %(reply)s,
                %(error)s);
        UPDATE {Delivery._meta.db_table}
           SET state = %(delivered)s, due_at = NULL, finished_at = %(now)s, last_status_code = %(status_code)s
         WHERE id = %(id)s AND state = %(sending)s AND attempts = %(attempt)s;
        UPDATE {Webhook._meta.db_table} SET failing_since = NULL
         WHERE id = %(webhook_id)s AND failing_since IS NOT NULL"""  # noqa: S608
    params = {
        **log,
        "id": claimed.id,
        "webhook_id": claimed.webhook_id,
        "attempt": claimed.attempts,
        "now": now,
        "delivered": DeliveryState.DELIVERED.value,
        "sending": DeliveryState.SENDING.value,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
