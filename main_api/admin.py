"""The organization website's page for the Main API's tokens (System settings → Authorization)."""

from django import forms
from django.contrib import admin
from django.template.response import TemplateResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from adminkit.forms import AddressListField, rights_field, rights_fields
from adminkit.site import OrganizationScopedAdmin, administered_organizations
from main_api.models import MODULES, ApiToken
from main_api.services import (
    InvalidRights,
    api_token_check_rights,
    api_token_create,
    api_token_delete,
    api_token_update,
)

RIGHTS_FIELDS = [rights_field(module) for module in MODULES]


_RightsFields = rights_fields(MODULES)


class ApiTokenForm(_RightsFields, forms.ModelForm):
    allowed_ips = AddressListField(
        label=_("Allowed IP addresses"),
        required=False,
        help_text=_("One address or CIDR range (such as 192.0.2.0/24) per line. Empty allows every address."),
    )

    # The login that saves the form, who will own a new token; set by ApiTokenAdmin.get_form.
    acting_user = None

    class Meta:
        model = ApiToken
        fields = ["description"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance._state.adding:
            # The token's own values, unless the page was opened with others (?rights_users=r): the ModelForm
            # has already put the stored allowed_ips list there, which AddressListField shows one a line.
            asked = kwargs.get("initial") or {}
            self.show_stored_rights(asked)
            if "allowed_ips" not in asked:
                self.initial["allowed_ips"] = list(self.instance.allowed_ips)

    def clean(self):
        cleaned_data = super().clean()
        adding = self.instance._state.adding
        try:
            api_token_check_rights(rights=self.rights(), token=None if adding else self.instance)
        except InvalidRights as error:
            self.add_error(None, str(error))
        organization = cleaned_data.get("organization") or getattr(self.instance, "organization", None)
        if adding and organization is not None and organization not in administered_organizations(self.acting_user):
            # The API refuses a token whose owner is not an administrator of its organization.
            self.add_error(
                None, gettext("You own the tokens you create: only an administrator of the organization can.")
            )
        return cleaned_data

    def token_values(self) -> dict:
        """The keyword arguments of api_token_create and api_token_update."""
        return {
            "description": self.cleaned_data["description"],
            "rights": self.rights(),
            "allowed_ips": self.cleaned_data["allowed_ips"],
        }


@admin.register(ApiToken)
class ApiTokenAdmin(OrganizationScopedAdmin):
    """System settings → Authorization: the organization's Main API tokens.

    The services create, change and delete tokens; the secret is shown once, on the page that answers the
    add form, and is kept nowhere.
    """

    section = (_("System settings"), _("Authorization"))
    form = ApiTokenForm
    list_display = ["description", "client_id_column", "owner_name", "rights_summary", "created_at", "organization"]
    list_filter = ["organization"]
    list_select_related = ["owner", "organization"]
    search_fields = ["description"]
    secret_template = "admin/main_api/apitoken/secret.html"

    @admin.display(description=_("Client ID"), ordering="client_id")
    def client_id_column(self, token):
        return token.client_id

    @admin.display(description=_("Owner"), ordering="owner__name")
    def owner_name(self, token):
        return token.owner.full_name

    @admin.display(description=_("Rights"))
    def rights_summary(self, token):
        return token.scope or gettext("none")

    def get_fieldsets(self, request, obj=None):
        about = ["organization", "description"] + ([] if obj is None else ["client_id", "owner_name", "created_at"])
        fieldsets = [
            (None, {"fields": about}),
            (_("Rights"), {"fields": RIGHTS_FIELDS, "description": _("Per module: none, read, write, or both.")}),
            (_("Allowed IP addresses"), {"fields": ["allowed_ips"]}),
        ]
        return self.without_organization_field(request, fieldsets)

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else ["organization", "client_id", "owner_name", "created_at"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.acting_user = request.user
        return form

    def save_form(self, request, form, change):
        """Save through the services (instead of form.save); save_model then has nothing left to do."""
        if change:
            return api_token_update(token=form.instance, **form.token_values())
        token, secret = api_token_create(
            organization=form.instance.organization, owner=request.user, **form.token_values()
        )
        token.new_secret = secret  # for response_add only; never saved
        return token

    def save_model(self, request, obj, form, change):
        pass

    def save_related(self, request, form, formsets, change):
        pass  # no many-to-many fields, no inlines

    def response_add(self, request, obj, post_url_continue=None):
        """The one page that shows the secret, next to the Client ID."""
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("API token created"),
            "opts": self.opts,
            "token": obj,
            "secret": obj.new_secret,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.secret_template, context)

    def delete_model(self, request, obj):
        api_token_delete(token=obj)

    def delete_queryset(self, request, queryset):
        for token in queryset:
            api_token_delete(token=token)
