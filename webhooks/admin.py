"""The organization website's webhook pages (document 3): support sets webhooks up, administrators read the log.

- Webhooks: only superusers (the service's support) add, change and delete them, and send from them (ping,
  pause, resume, new secrets). Organization administrators see their own organization's webhooks read-only.
- The token and signing key are made by the services and shown once, on the page that answers the add form or
  the renewal (rendered in answer to the POST, never put in a message, the session or the log); afterwards
  they exist only encrypted and no page shows them.
- The address is checked with webhooks.addresses.url_check on every save; a refusal is an error on its field.
- State changes on the form go through webhook_pause / webhook_resume, which hold or send the held events.
- Deliveries: the log, in webhooks/admin_deliveries.py.
Times are local times of the webhook's organization (for support too, who otherwise sees UTC).
"""

import time

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_noop, ngettext
from django.utils.translation import gettext_lazy as _

from adminkit.display import local_time
from adminkit.site import OrganizationScopedAdmin
from webhooks import services, transport
from webhooks.addresses import AddressRefused, url_check
from webhooks.models import Delivery, DeliveryState, Try, Webhook, WebhookState

SUBSCRIPTIONS = ["subscribes_bookings", "subscribes_flightlog", "subscribes_remarks"]
# A ping's one try lasts at most the transport's timeout; the result page waits that long (and a little)
# for a try that a Celery worker took before this request's own try could.
PING_WAIT_SECONDS = transport.TIMEOUT_SECONDS + 2
PING_POLL_SECONDS = 0.2


class ShownOnce:
    """A new token and signing key, for the one page that shows them. Its repr hides them: Django's template
    engine logs the whole context at DEBUG when a page looks up a variable it lacks (the admin's base template
    does, `subtitle`), and the log redaction knows the name `token` but not `signing_key`."""

    __slots__ = ("signing_key", "token")

    def __init__(self, token: str, signing_key: str):
        self.token, self.signing_key = token, signing_key

    def __repr__(self) -> str:
        return "<ShownOnce: hidden>"


# --- webhooks -------------------------------------------------------------------------------------------------


class WebhookForm(forms.ModelForm):
    url = forms.URLField(label=_("Address"), max_length=2000, assume_scheme="https")

    class Meta:
        model = Webhook
        fields = ["organization", "url", *SUBSCRIPTIONS, "state"]

    # The reason the service refused the address while saving (a DNS answer changed since the check); set by
    # WebhookAdmin on the page it shows again.
    address_refused: str | None = None

    def clean_url(self):
        url = self.cleaned_data["url"]
        if self.address_refused:
            raise ValidationError(self.address_refused, code="address_refused")
        try:
            url_check(url)
        except AddressRefused as refused:
            raise ValidationError(str(refused), code="address_refused") from refused
        return url

    def clean(self):
        cleaned_data = super().clean()
        if not any(cleaned_data.get(name) for name in SUBSCRIPTIONS):
            raise ValidationError(gettext("Choose at least one subscription."), code="no_subscription")
        return cleaned_data


@admin.register(Webhook)
class WebhookAdmin(OrganizationScopedAdmin):
    form = WebhookForm
    list_display = ["url", "organization", "subscriptions", "state", "failing_since_local", "last_ping_local"]
    list_filter = ["state", "organization"]
    list_select_related = ["organization"]
    search_fields = ["url"]
    actions = ["pause_selected", "resume_selected"]
    change_form_template = "admin/webhooks/webhook/change_form.html"
    secrets_template = "admin/webhooks/webhook/secrets.html"
    renew_template = "admin/webhooks/webhook/renew_confirmation.html"
    save_as = False

    # --- who may do what: support sets up and sends, administrators read ---------------------------------

    def _support(self, request) -> bool:
        return request.user.is_superuser and self.admin_site.has_permission(request)

    def has_add_permission(self, request):
        return self._support(request) and super().has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return self._support(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self._support(request) and super().has_delete_permission(request, obj)

    def has_send_permission(self, request, obj=None):
        """Ping, pause, resume and new secrets: support only."""
        return self._support(request)

    # --- columns and fields -------------------------------------------------------------------------------

    @admin.display(description=_("Subscriptions"))
    def subscriptions(self, webhook):
        labels = [str(Webhook._meta.get_field(name).verbose_name) for name in SUBSCRIPTIONS if getattr(webhook, name)]
        return ", ".join(labels) or "-"

    @admin.display(description=_("Failing since"), ordering="failing_since")
    def failing_since_local(self, webhook):
        return local_time(webhook.failing_since, webhook.organization)

    @admin.display(description=_("Last ping"), ordering="last_ping_at")
    def last_ping_local(self, webhook):
        return local_time(webhook.last_ping_at, webhook.organization)

    @admin.display(description=_("Paused at"))
    def paused_local(self, webhook):
        return local_time(webhook.paused_at, webhook.organization)

    @admin.display(description=_("Created"))
    def created_local(self, webhook):
        return local_time(webhook.created_at, webhook.organization)

    @admin.display(description=_("Delivery log"))
    def delivery_log(self, webhook):
        count = webhook.deliveries.count()
        address = reverse("admin:webhooks_delivery_changelist") + f"?webhook__id__exact={webhook.pk}"
        text = ngettext("%(count)s delivery", "%(count)s deliveries", count) % {"count": count}
        return format_html('<a href="{}">{}</a>', address, text)

    TIMES = ["paused_local", "failing_since_local", "last_ping_local", "created_local"]

    def get_fieldsets(self, request, obj=None):
        state = ["state"] + ([] if obj is None else self.TIMES)
        fieldsets = [
            (None, {"fields": ["organization", "url"]}),
            (_("Subscriptions"), {"fields": SUBSCRIPTIONS}),
            (_("State"), {"fields": state}),
        ]
        if obj is not None:
            fieldsets.append((_("Delivery log"), {"fields": ["delivery_log"]}))
        return self.without_organization_field(request, fieldsets)

    def get_readonly_fields(self, request, obj=None):
        # A webhook stays with its organization: its secrets and its log are that club's.
        return [] if obj is None else ["organization", *self.TIMES, "delivery_log"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.address_refused = getattr(request, "webhook_address_refused", None)
        return form

    # --- saving through the services ----------------------------------------------------------------------

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "can_send": object_id is not None and self.has_send_permission(request),
        }
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # atomic
        except AddressRefused as refused:
            request.webhook_address_refused = str(refused)
        # The same POST again, with the service's refusal on the address field: nothing is saved.
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_form(self, request, form, change):
        if change:
            return form.save(commit=False)
        values = {name: form.cleaned_data[name] for name in ["organization", "url", *SUBSCRIPTIONS, "state"]}
        webhook, token, signing_key = services.webhook_create(**values)
        webhook.new_secrets = ShownOnce(token, signing_key)  # for response_add only; never saved or stored
        return webhook

    def save_model(self, request, obj, form, change):
        if not change:
            return  # webhook_create saved it
        # The state only through the services: pausing holds waiting events, resuming sends the held ones.
        values = {name: form.cleaned_data[name] for name in ["url", *SUBSCRIPTIONS, "state"]}
        obj.refresh_from_db()
        services.webhook_update(webhook=obj, **values)
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        pass  # no many-to-many fields, no inlines

    def get_deleted_objects(self, objs, request):
        """A webhook goes with its log: its deliveries and tries are deleted with it though no page deletes a
        delivery alone, and they are counted (there may be thousands) instead of listed one by one."""
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        perms_needed -= {Delivery._meta.verbose_name, Try._meta.verbose_name}
        return [item for item in deleted if not isinstance(item, list)], counts, perms_needed, protected

    def response_add(self, request, obj, post_url_continue=None):
        """The one page that shows the new token and signing key."""
        secrets = obj.new_secrets
        del obj.new_secrets
        return self.secrets_page(request, obj, secrets, title=gettext("Webhook set up"))

    def secrets_page(self, request, webhook, secrets: "ShownOnce", *, title):
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "webhook": webhook,
            "secrets": secrets,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.secrets_template, context)

    # --- the buttons of a webhook's page --------------------------------------------------------------------

    def get_urls(self):
        view = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path("<path:object_id>/ping/", view(self.ping_view), name=f"{name}_ping"),
            path("<path:object_id>/ping/<int:delivery_id>/", view(self.ping_result_view), name=f"{name}_ping_result"),
            path("<path:object_id>/pause/", view(self.pause_view), name=f"{name}_pause"),
            path("<path:object_id>/resume/", view(self.resume_view), name=f"{name}_resume"),
            path("<path:object_id>/renew/", view(self.renew_view), name=f"{name}_renew"),
            *super().get_urls(),
        ]

    def _sendable(self, request, object_id) -> Webhook:
        """The webhook of the address, for support; another organization's is not found."""
        webhook = self.get_object(request, unquote(object_id))
        if webhook is None:
            raise Http404(gettext("No such webhook."))
        if not self.has_send_permission(request, webhook):
            raise PermissionDenied
        return webhook

    def _change_page(self, webhook) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:webhooks_webhook_change", args=[webhook.pk]))

    def ping_view(self, request, object_id):
        """Send a `webhook.ping` now: recorded, then tried in this request once the recording has committed."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        webhook = self._sendable(request, object_id)
        with transaction.atomic():
            delivery = services.webhook_ping(webhook=webhook, queue=False)
            transaction.on_commit(lambda: services.delivery_try(delivery_id=delivery.pk))
        return HttpResponseRedirect(reverse("admin:webhooks_webhook_ping_result", args=[webhook.pk, delivery.pk]))

    def ping_result_view(self, request, object_id, delivery_id):
        """The ping's outcome as a message on the webhook's page (its try may be a Celery worker's)."""
        webhook = self._sendable(request, object_id)
        delivery = Delivery.objects.filter(pk=delivery_id, webhook=webhook, event_type=services.PING).first()
        if delivery is None:
            raise Http404(gettext("No such ping."))
        tried = _wait_for_try(delivery)
        if tried is None:
            self.message_user(
                request,
                gettext("The ping is sent, but no answer has come yet; see the delivery log."),
                messages.WARNING,
            )
        elif tried.succeeded:
            self.message_user(
                request,
                gettext("Ping answered with status %(status)s in %(ms)s ms.")
                % {"status": tried.status_code, "ms": tried.duration_ms},
                messages.SUCCESS,
            )
        elif tried.status_code is not None:
            self.message_user(
                request, gettext("Ping refused with status %(status)s.") % {"status": tried.status_code}, messages.ERROR
            )
        else:
            self.message_user(
                request, gettext("Ping not delivered: %(error)s") % {"error": tried.error or "-"}, messages.ERROR
            )
        return self._change_page(webhook)

    def pause_view(self, request, object_id):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        webhook = self._sendable(request, object_id)
        self._pause(request, webhook)
        self.message_user(request, gettext("The webhook is paused; new events are held."), messages.SUCCESS)
        return self._change_page(webhook)

    def resume_view(self, request, object_id):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        webhook = self._sendable(request, object_id)
        sent = self._resume(request, webhook)
        self.message_user(request, resumed_message(sent), messages.SUCCESS)
        return self._change_page(webhook)

    def renew_view(self, request, object_id):
        """New token and signing key, after a confirmation (the old ones stop working at once)."""
        webhook = self._sendable(request, object_id)
        if request.method == "POST":
            secrets = ShownOnce(*services.webhook_secrets_renew(webhook=webhook))
            self.log_change(request, webhook, [{"changed": {"fields": [gettext_noop("token and signing key")]}}])
            return self.secrets_page(request, webhook, secrets, title=gettext("New token and signing key"))
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Renew token and signing key"),
            "opts": self.opts,
            "webhook": webhook,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.renew_template, context)

    def _pause(self, request, webhook):
        if webhook.state != WebhookState.PAUSED:
            services.webhook_pause(webhook=webhook)
            self.log_change(request, webhook, [{"changed": {"fields": [gettext_noop("state")]}}])

    def _resume(self, request, webhook) -> int:
        sent = services.webhook_resume(webhook=webhook)
        self.log_change(request, webhook, [{"changed": {"fields": [gettext_noop("state")]}}])
        return sent

    # --- the list's actions --------------------------------------------------------------------------------

    @admin.action(description=_("Pause selected webhooks"), permissions=["send"])
    def pause_selected(self, request, queryset):
        for webhook in queryset:
            self._pause(request, webhook)
        self.message_user(request, gettext("The selected webhooks are paused."), messages.SUCCESS)

    @admin.action(description=_("Resume selected webhooks"), permissions=["send"])
    def resume_selected(self, request, queryset):
        sent = sum(self._resume(request, webhook) for webhook in queryset)
        self.message_user(request, resumed_message(sent), messages.SUCCESS)


def resumed_message(sent: int) -> str:
    return ngettext(
        "The webhook is active; %(count)s held event is sent.",
        "The webhook is active; %(count)s held events are sent.",
        sent,
    ) % {"count": sent}


def _wait_for_try(delivery: Delivery) -> Try | None:
    """The ping's try, waiting while it is under way (at most the transport's timeout and a little)."""
    deadline = time.monotonic() + PING_WAIT_SECONDS
    while True:
        tried = Try.objects.filter(delivery_id=delivery.pk).order_by("-attempt", "-id").first()
        if tried is not None:
            return tried
        state = Delivery.objects.values_list("state", flat=True).get(pk=delivery.pk)
        if state not in (DeliveryState.PENDING, DeliveryState.SENDING) or time.monotonic() >= deadline:
            return None
        time.sleep(PING_POLL_SECONDS)


# The delivery log's pages register themselves.
from webhooks import admin_deliveries  # noqa: E402, F401
