"""Webhooks (document 3): the webhook that support sets up, its outbox of deliveries and the log of tries.

A Delivery is one event for one webhook: written in the same transaction as the change (the outbox), with its
body fixed then (so every try signs the same bytes under the same event id), and the time of its next try in
`due_at`, in the database rather than in a broker's countdown. A Try is one request, kept 30 days.
"""

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Subscription(models.TextChoices):
    BOOKINGS = "booking", _("bookings")
    FLIGHTLOG = "flightlog", _("flight log")
    REMARKS = "remark", _("remarks")


class WebhookState(models.TextChoices):
    ACTIVE = "active", _("active")
    PAUSED = "paused", _("paused")


class Webhook(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="webhooks", verbose_name=_("organization")
    )
    url = models.URLField(_("address"), max_length=2000)
    subscribes_bookings = models.BooleanField(_("bookings"), default=True)
    subscribes_flightlog = models.BooleanField(_("flight log"), default=True)
    subscribes_remarks = models.BooleanField(_("remarks"), default=True)
    # Both secrets are needed at every try (the token in Authorization, the key for the HMAC), so they are
    # kept encrypted (webhooks.secrets), never in clear, and shown once when they are made.
    token_encrypted = models.TextField(_("token (encrypted)"), editable=False)
    signing_key_encrypted = models.TextField(_("signing key (encrypted)"), editable=False)
    state = models.CharField(_("state"), max_length=10, choices=WebhookState.choices, default=WebhookState.ACTIVE)
    paused_at = models.DateTimeField(_("paused at"), null=True, blank=True, editable=False)
    # The first failed try of the current unbroken run of failures; 72 hours of it pause the webhook.
    failing_since = models.DateTimeField(_("failing since"), null=True, blank=True, editable=False)
    last_ping_at = models.DateTimeField(_("last ping"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created"), editable=False)

    class Meta:
        ordering = ["organization__name", "id"]
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")

    def __str__(self) -> str:
        return f"{self.organization}: {self.url}"

    def subscribes_to(self, event_type: str) -> bool:
        category = event_type.split(".", 1)[0]
        return {
            Subscription.BOOKINGS: self.subscribes_bookings,
            Subscription.FLIGHTLOG: self.subscribes_flightlog,
            Subscription.REMARKS: self.subscribes_remarks,
        }.get(category, category == "webhook")


class DeliveryState(models.TextChoices):
    PENDING = "pending", _("waiting for its next try")
    SENDING = "sending", _("being sent")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("failed")
    HELD = "held", _("held while paused")


class Delivery(models.Model):
    tenant_path = "webhook__organization"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries", verbose_name=_("webhook"))
    event_id = models.CharField(_("event id"), max_length=32, unique=True)
    event_type = models.CharField(_("event"), max_length=32)
    # The entity the event names (booking, flight or remark; none for a ping) and its object, for the log.
    entity_id = models.BigIntegerField(_("id"), null=True, blank=True)
    object_id = models.BigIntegerField(_("object id"), null=True, blank=True)
    body = models.BinaryField(_("body"))
    occurred_at = models.DateTimeField(_("occurred"))
    # Tries are scheduled from this point: the occurrence, or the moment support asked for a redelivery.
    series_from = models.DateTimeField(_("tries counted from"))
    state = models.CharField(_("state"), max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveSmallIntegerField(_("tries"), default=0)
    # The last attempt number of the series: 8, or 1 for a ping.
    final_attempt = models.PositiveSmallIntegerField(_("last try"), default=8, editable=False)
    # Pending: when the next try is due. Sending: when the claim lapses (a worker that died mid-try).
    due_at = models.DateTimeField(_("next try"), null=True, blank=True)
    last_status_code = models.PositiveSmallIntegerField(_("last status"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-occurred_at", "-id"]
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        indexes = [
            # The sweep's question: what is due that no worker is handling?
            models.Index(fields=["due_at"], name="delivery_due", condition=Q(state__in=["pending", "sending"])),
            models.Index(fields=["webhook", "-occurred_at"], name="delivery_webhook_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id}"


class Try(models.Model):
    tenant_path = "delivery__webhook__organization"

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="tries", verbose_name=_("delivery"))
    attempt = models.PositiveSmallIntegerField(_("attempt"))
    request_id = models.CharField(_("request id"), max_length=32)
    sent_at = models.DateTimeField(_("sent"), db_index=True)
    status_code = models.PositiveSmallIntegerField(_("status"), null=True, blank=True)
    duration_ms = models.PositiveIntegerField(_("duration (ms)"))
    # The first 1 kB of the reply, or what went wrong when there was no reply.
    reply = models.TextField(_("reply"), blank=True)
    error = models.CharField(_("error"), max_length=200, blank=True)

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = _("try")
        verbose_name_plural = _("tries")

    def __str__(self) -> str:
        return f"{self.delivery.event_id} #{self.attempt}"

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
