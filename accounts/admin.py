"""The organization website's pages for organizations, members and API tokens.

Registered on admin.site, which is the organization-scoped site (accounts.admin_site). Writes with business
rules go through accounts.services.
"""

from django.contrib import admin
from django.db import models
from django.template.response import TemplateResponse

from .admin_forms import RIGHTS_FIELDS, ApiTokenForm, MemberForm
from .admin_site import OrganizationScopedAdmin
from .models import ApiToken, Member, Membership, Organization, UserGroup
from .services import api_token_create, api_token_delete, api_token_update, member_set_roles


@admin.register(Organization)
class OrganizationAdmin(OrganizationScopedAdmin):
    """An administrator sees and changes their own organization's settings; only support adds or deletes."""

    organization_field = "pk"
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["name", "reference_icao", "country", "timezone", "is_trial"]
    search_fields = ["name"]

    def has_add_permission(self, request):
        return request.user.is_superuser and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        # The trial is the service's own business with the club.
        return [] if request.user.is_superuser else ["is_trial"]


@admin.register(Membership)
class MembershipAdmin(OrganizationScopedAdmin):
    list_display = ["name", "organization"]
    list_filter = ["organization"]
    search_fields = ["name"]


@admin.register(UserGroup)
class UserGroupAdmin(OrganizationScopedAdmin):
    list_display = ["name", "organization"]
    list_filter = ["organization"]
    search_fields = ["name"]


@admin.register(Member)
class MemberAdmin(OrganizationScopedAdmin):
    form = MemberForm
    list_display = ["member_number", "name", "membership", "active", "organization"]
    list_display_links = ["member_number", "name"]
    list_filter = ["active", "membership", "organization"]
    list_select_related = ["user", "membership", "organization"]
    search_fields = ["member_number", "user__name", "user__username"]
    ordering = ["member_number"]
    filter_horizontal = ["user_groups"]
    fieldsets = [
        (None, {"fields": ["organization", "user", "member_number", "membership", "user_groups", "active", "locked"]}),
        ("Roles", {"fields": ["roles"]}),
        (
            "Account",
            {"fields": ["annual_fee", "external_customer_number"], "classes": ["collapse"]},
        ),
        (
            "Other",
            {
                "fields": [
                    "misc_info",
                    "internal_notes",
                    "access_card_number",
                    "access_card_code",
                    "access_card_expiry_date",
                ],
                "classes": ["collapse"],
            },
        ),
    ]

    @admin.display(description="Name", ordering="user__name")
    def name(self, member):
        return member.user.full_name

    def has_add_permission(self, request):
        # A new member needs a new login (`<org id>-...`), made by the member service, not by this page.
        return request.user.is_superuser and super().has_add_permission(request)

    def get_readonly_fields(self, request, obj=None):
        return ["user"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        member_set_roles(member=obj, roles=form.cleaned_data["roles"])


@admin.register(ApiToken)
class ApiTokenAdmin(OrganizationScopedAdmin):
    """System settings → Authorization: the organization's Main API tokens.

    The services create, change and delete tokens; the secret is shown once, on the page that answers the
    add form, and is kept nowhere.
    """

    section = ("System settings", "Authorization")
    form = ApiTokenForm
    list_display = ["description", "client_id_column", "owner_name", "rights_summary", "created_at", "organization"]
    list_filter = ["organization"]
    list_select_related = ["owner", "organization"]
    search_fields = ["description"]
    secret_template = "admin/accounts/apitoken/secret.html"

    @admin.display(description="Client ID", ordering="client_id")
    def client_id_column(self, token):
        return token.client_id

    @admin.display(description="Owner", ordering="owner__name")
    def owner_name(self, token):
        return token.owner.full_name

    @admin.display(description="Rights")
    def rights_summary(self, token):
        return token.scope or "none"

    def get_fieldsets(self, request, obj=None):
        about = ["organization", "description"] + ([] if obj is None else ["client_id", "owner", "created_at"])
        fieldsets = [
            (None, {"fields": about}),
            ("Rights", {"fields": RIGHTS_FIELDS, "description": "Per module: none, read, write, or both."}),
            ("Allowed IP addresses", {"fields": ["allowed_ips"]}),
        ]
        return self.without_organization_field(request, fieldsets)

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else ["organization", "client_id", "owner", "created_at"]

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
            "title": "API token created",
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
