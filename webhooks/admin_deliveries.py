"""The organization website's delivery log of webhooks: each event for one webhook, with its tries, scoped by the
webhook's organization; administrators read it, support redelivers selected deliveries. Times are the webhook's
organization's local times."""

import json

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from adminkit.display import local_time
from adminkit.inlines import ReadOnlyInline
from adminkit.site import OrganizationScopedAdmin
from webhooks import services
from webhooks.models import Delivery, DeliveryState, Try


class TryInline(ReadOnlyInline):
    """The tries of a delivery, read-only, newest first."""

    model = Try
    fields = ["sent_local", "attempt", "status_code", "duration_ms", "reply", "error", "request_id"]
    readonly_fields = fields
    show_change_link = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("delivery__webhook__organization")

    @admin.display(description=_("Sent"))
    def sent_local(self, tried):
        return local_time(tried.sent_at, tried.delivery.webhook.organization)


@admin.register(Delivery)
class DeliveryAdmin(OrganizationScopedAdmin):
    """The log: read by administrators and support; only support redelivers. Nobody edits or deletes a
    delivery here (the log keeps itself 30 days)."""

    list_display = [
        "event_type",
        "entity",
        "occurred_local",
        "state",
        "attempts",
        "due_local",
        "last_status_code",
        "webhook_address",
    ]
    list_filter = ["state", "event_type", "webhook"]
    list_select_related = ["webhook__organization"]
    search_fields = ["event_id"]
    actions = ["redeliver_selected"]
    inlines = [TryInline]
    fields = [
        "webhook_address",
        "event_id",
        "event_type",
        "entity",
        "object_id",
        "occurred_local",
        "series_from_local",
        "state",
        "attempts",
        "due_local",
        "last_status_code",
        "finished_local",
        "body_json",
    ]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("webhook__organization")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_redeliver_permission(self, request):
        return request.user.is_superuser and self.admin_site.has_permission(request)

    def get_list_display(self, request):
        shown = super().get_list_display(request)
        # Support sees every organization's log: whose each delivery is.
        return [*shown, "organization_name"] if request.user.is_superuser else shown

    @admin.display(description=_("Organization"), ordering="webhook__organization__name")
    def organization_name(self, delivery):
        return delivery.webhook.organization.name

    @admin.display(description=_("Entity id"), ordering="entity_id")
    def entity(self, delivery):
        return "-" if delivery.entity_id is None else delivery.entity_id

    @admin.display(description=_("Webhook"), ordering="webhook__url")
    def webhook_address(self, delivery):
        return delivery.webhook.url

    @admin.display(description=_("Occurred"), ordering="occurred_at")
    def occurred_local(self, delivery):
        return local_time(delivery.occurred_at, delivery.webhook.organization)

    @admin.display(description=_("Tries counted from"))
    def series_from_local(self, delivery):
        return local_time(delivery.series_from, delivery.webhook.organization)

    @admin.display(description=_("Next try"), ordering="due_at")
    def due_local(self, delivery):
        # While a try is under way `due_at` is when its claim lapses, not a next try.
        if delivery.state != DeliveryState.PENDING:
            return "-"
        return local_time(delivery.due_at, delivery.webhook.organization)

    @admin.display(description=_("Finished"))
    def finished_local(self, delivery):
        return local_time(delivery.finished_at, delivery.webhook.organization)

    @admin.display(description=_("Body"))
    def body_json(self, delivery):
        raw = bytes(delivery.body)
        try:
            text = json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
        except ValueError:
            text = raw.decode("utf-8", "replace")
        return format_html("<pre>{}</pre>", text)

    @admin.action(description=_("Redeliver selected deliveries"), permissions=["redeliver"])
    def redeliver_selected(self, request, queryset):
        again, busy = 0, 0
        for delivery in queryset:
            if delivery.state in (DeliveryState.PENDING, DeliveryState.SENDING):
                busy += 1  # still being tried: the service leaves it as it is
                continue
            services.delivery_redeliver(delivery=delivery)
            again += 1
        if again:
            self.message_user(
                request,
                ngettext("%(count)s delivery is sent again.", "%(count)s deliveries are sent again.", again)
                % {"count": again},
                messages.SUCCESS,
            )
        if busy:
            self.message_user(
                request,
                ngettext(
                    "%(count)s delivery is still being tried and was left as it is.",
                    "%(count)s deliveries are still being tried and were left as they are.",
                    busy,
                )
                % {"count": busy},
                messages.WARNING,
            )
