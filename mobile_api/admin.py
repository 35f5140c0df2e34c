"""Mobile API app clients on the organization website (issue 10): support only.

Support (superusers) sets a client up for an app developer: rights per mobile module, allowed organizations,
redirect addresses, public or confidential, its own call limit. A confidential client's key is shown once, on
the page that answers the add form or the renewal (rendered in answer to the POST, never put in a message,
the session or the log). Revoking stops the client at once and for good; a client is never deleted, so that
its record stays. Organization administrators do not see these pages at all.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from adminkit.forms import LineListField, rights_field, rights_fields
from adminkit.site import SupportOnlyAdmin
from apicore.errors import ServiceError
from mobile_api.models import MOBILE_MODULES, AppClient
from mobile_api.services.app_clients import (
    app_client_create,
    app_client_key_renew,
    app_client_revoke,
    app_client_rights_problems,
    app_client_update,
    redirect_uris_problems,
)

MOBILE_RIGHTS_FIELDS = [rights_field(module) for module in MOBILE_MODULES]


class ShownOnce:
    """A new key for the one page that shows it; its repr hides it (Django's template engine may log the
    whole context at DEBUG)."""

    __slots__ = ("key",)

    def __init__(self, key: str | None):
        self.key = key

    def __repr__(self) -> str:
        return "<ShownOnce: hidden>"


class RedirectAddressesField(LineListField):
    """Redirect addresses, one a line; the value is the list that AppClient.redirect_uris keeps. Lines are
    taken as written (only the line break and blank lines go): addresses are compared as exact strings."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 60})

    def lines(self, text: str) -> list[str]:
        return [line.rstrip("\r") for line in text.split("\n") if line.strip()]


# One r/w/rw/none choice per mobile module, in MOBILE_MODULES order (as the API token page has for its nine).
_MobileRightsFields = rights_fields(MOBILE_MODULES)


class AppClientForm(_MobileRightsFields, forms.ModelForm):
    redirect_uris = RedirectAddressesField(
        label=_("Redirect addresses"),
        required=False,
        # The cleaning keeps the lines as they are: strip nothing but the line breaks.
        strip=False,
        help_text=_(
            "One a line, at most 10, each compared exactly as written: an https address the app has claimed "
            "(https://app.example.com/callback) or the app's own scheme in reverse-domain form "
            "(com.example.app:/callback)."
        ),
    )
    rate_limit_per_minute = forms.IntegerField(
        label=_("Calls per minute"),
        required=False,
        min_value=1,
        help_text=_("Empty: the default limit."),
    )

    class Meta:
        model = AppClient
        fields = ["name", "app_name", "developer_contact", "confidential", "organizations", "rate_limit_per_minute"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance._state.adding:
            asked = kwargs.get("initial") or {}
            self.show_stored_rights(asked)
            if "redirect_uris" not in asked:
                self.initial["redirect_uris"] = list(self.instance.redirect_uris)

    def clean(self):
        cleaned_data = super().clean()
        # The services' own checks, so that each problem is shown on its field before anything is saved.
        for problem in app_client_rights_problems(self.rights()):
            self.add_error(None, problem.message)
        if "redirect_uris" in cleaned_data:
            for problem in redirect_uris_problems(cleaned_data["redirect_uris"]):
                self.add_error("redirect_uris", problem.message)
        return cleaned_data

    def values(self) -> dict:
        """The keyword arguments of app_client_create and app_client_update (without `confidential`)."""
        data = self.cleaned_data
        return {
            "name": data["name"],
            "app_name": data["app_name"],
            "developer_contact": data["developer_contact"],
            "rights": self.rights(),
            "organizations": list(data["organizations"]),
            "redirect_uris": data["redirect_uris"],
            "rate_limit_per_minute": data["rate_limit_per_minute"],
        }


@admin.register(AppClient)
class AppClientAdmin(SupportOnlyAdmin):
    """Support's pages; nobody else may even see them (has_*_permission). The rows belong to no one
    organization (AppClient.tenant_path is None): only superusers, who see everything, get here."""

    section = (_("System settings"), _("App clients"))
    form = AppClientForm
    filter_horizontal = ["organizations"]
    list_display = ["name", "app_name", "confidential", "organization_list", "revoked_state"]
    list_filter = ["confidential", ("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "app_name"]
    actions = None
    change_form_template = "admin/mobile_api/appclient/change_form.html"
    key_template = "admin/mobile_api/appclient/key.html"
    confirm_template = "admin/mobile_api/appclient/confirm.html"
    save_as = False

    # --- support only --------------------------------------------------------------------------------------

    def has_change_permission(self, request, obj=None):
        # A revoked client is a record: it can be read, not changed.
        return self.support(request) and (obj is None or not obj.revoked)

    def has_delete_permission(self, request, obj=None):
        return False  # revoked instead, so that the record stays

    # --- columns and fields -------------------------------------------------------------------------------

    @admin.display(description=_("Allowed organizations"))
    def organization_list(self, client):
        names = [organization.name for organization in client.organizations.all()]
        return ", ".join(names) or gettext("all")

    @admin.display(description=_("Revoked"), ordering="revoked_at")
    def revoked_state(self, client):
        if client.revoked_at is None:
            return gettext("no")
        return gettext("yes, %(when)s") % {"when": client.revoked_at.strftime("%Y-%m-%d %H:%M UTC")}

    @admin.display(description=_("Client ID"))
    def client_id(self, client):
        return client.client_id

    @admin.display(description=_("Rights"))
    def rights_summary(self, client):
        return client.scope or gettext("none")

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("organizations")

    def get_fieldsets(self, request, obj=None):
        about = ["name", "app_name", "developer_contact", "confidential"]
        if obj is not None:
            about = ["client_id", *about, "created_at", "revoked_state"]
        rights = MOBILE_RIGHTS_FIELDS if obj is None or not obj.revoked else ["rights_summary"]
        return [
            (None, {"fields": about}),
            (_("Rights"), {"fields": rights, "description": _("Per module: none, read, write, or both.")}),
            (_("Sign-in"), {"fields": ["organizations", "redirect_uris", "rate_limit_per_minute"]}),
        ]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        # The kind stays: a public client made confidential would need a key its app was never built for.
        return ["client_id", "confidential", "created_at", "revoked_state", "rights_summary"]

    # --- saving through the services ----------------------------------------------------------------------

    def save_form(self, request, form, change):
        if change:
            return app_client_update(client=form.instance, **form.values())
        client, key = app_client_create(confidential=form.cleaned_data["confidential"], **form.values())
        client.new_key = ShownOnce(key)  # for response_add only; never saved
        return client

    def save_model(self, request, obj, form, change):
        pass  # the service saved it

    def save_related(self, request, form, formsets, change):
        pass  # the service set the organizations; no inlines

    def response_add(self, request, obj, post_url_continue=None):
        """The one page that shows the key (a public client's shows its client id alone)."""
        shown = obj.new_key
        del obj.new_key
        return self.key_page(request, obj, shown, title=gettext("App client set up"))

    def key_page(self, request, client, shown: ShownOnce, *, title):
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "client": client,
            "shown": shown,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.key_template, context)

    # --- the buttons: new key, revoke ---------------------------------------------------------------------

    def get_urls(self):
        view = self.admin_site.admin_view
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        return [
            path("<path:object_id>/renew-key/", view(self.renew_key_view), name=f"{name}_renew_key"),
            path("<path:object_id>/revoke/", view(self.revoke_view), name=f"{name}_revoke"),
            *super().get_urls(),
        ]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = {**(extra_context or {}), "is_support": self.support(request)}
        return super().changeform_view(request, object_id, form_url, extra_context)

    def _changeable(self, request, object_id) -> AppClient:
        if not self.support(request):
            raise PermissionDenied
        client = self.get_object(request, unquote(object_id))
        if client is None:
            raise Http404(gettext("No such app client."))
        return client

    def _change_page(self, client) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:mobile_api_appclient_change", args=[client.pk]))

    def _confirm_page(self, request, client, *, title, text, button):
        context = {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "client": client,
            "text": text,
            "button": button,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.confirm_template, context)

    def renew_key_view(self, request, object_id):
        """A new key, after a confirmation (the old one stops at once)."""
        client = self._changeable(request, object_id)
        if request.method == "POST":
            try:
                key = app_client_key_renew(client=client)
            except ServiceError as error:
                self.message_user(request, error.detail or str(error), messages.ERROR)
                return self._change_page(client)
            self.log_change(request, client, [{"changed": {"fields": [gettext_noop("key")]}}])
            return self.key_page(request, client, ShownOnce(key), title=gettext("New key"))
        return self._confirm_page(
            request,
            client,
            title=gettext("Renew the key"),
            text=gettext(
                "The current key stops working at once: the app's server cannot sign members in or renew their "
                "logins until it has the new one. The new key is shown once, on the next page."
            ),
            button=gettext("Renew the key"),
        )

    def revoke_view(self, request, object_id):
        """Revoke, after a confirmation: every login and token of the client ends at once, for good."""
        client = self._changeable(request, object_id)
        if request.method == "POST":
            app_client_revoke(client=client)
            self.log_change(request, client, [{"changed": {"fields": [gettext_noop("revoked")]}}])
            self.message_user(request, gettext("The client is revoked."), messages.SUCCESS)
            return self._change_page(client)
        return self._confirm_page(
            request,
            client,
            title=gettext("Revoke the client"),
            text=gettext(
                "The app stops working at once for every member: all its logins and tokens end, and nobody can "
                "sign in with it again. This cannot be undone."
            ),
            button=gettext("Revoke the client"),
        )


from mobile_api import admin_blocked_addresses  # noqa: E402, F401  (support-only: the blocked addresses)
