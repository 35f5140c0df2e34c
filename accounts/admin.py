"""The organization website's pages for organizations, members, expiry date types and API tokens.

Registered on admin.site, which is the organization-scoped site (adminkit.site). Writes with business
rules go through accounts.services; a service's refusal (ServiceError) becomes errors on the page and nothing is
saved (ServiceSavedAdmin).
"""

import posixpath

from django import forms
from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.db import models, transaction
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.urls import path
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin_forms import MEMBER_PLAIN_COLUMNS, ExpiryDateTypeForm, MemberForm, UserExpiryDateForm
from accounts.api.mobile_org_presenters import NotAValue, parse_setting_value
from accounts.models import AppSetting, ExpiryDateType, Member, Membership, Organization, UserExpiryDate, UserGroup
from accounts.services import (
    expiry_date_type_create,
    expiry_date_type_delete,
    expiry_date_type_update,
    member_set_roles,
    organization_delete,
    user_create,
    user_delete,
    user_expiry_date_delete,
    user_expiry_date_set,
    user_expiry_date_set_image,
    user_update,
)
from adminkit.inlines import ParentPermissionInline
from adminkit.service_admin import ServiceSavedAdmin
from adminkit.site import OrganizationScopedAdmin
from apicore import tenancy
from apicore.errors import ServiceError
from economy.selectors import member_balance


@admin.register(Organization)
class OrganizationAdmin(OrganizationScopedAdmin):
    """An administrator sees and changes their own organization's settings; only support adds or deletes."""

    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
    list_display = ["name", "reference_icao", "country", "timezone", "is_trial"]
    search_fields = ["name"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "name",
                    "homepage",
                    ("reference_icao", "latitude", "longitude"),
                    "country",
                    "timezone",
                    "locale",
                    "date_format",
                    ("currency_code", "currency_symbol"),
                    "is_trial",
                    "uses_flight_log",
                    "hide_crew_in_log",
                    "transaction_lock_date",
                ]
            },
        ),
        (
            _("Booking"),
            {
                "fields": [
                    "booking_enabled",
                    "booking_cancel_reason_required",
                    "booking_standard_length_hours",
                    "booking_use_expected_airborne",
                    "booking_hide_booker_details",
                    "booking_minimum_balance",
                ]
            },
        ),
    ]

    def get_inlines(self, request, obj):
        return [AppSettingInline]  # defined below, with the site's other inlines

    def has_add_permission(self, request):
        return request.user.is_superuser and super().has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    def delete_model(self, request, obj):
        # The clubs its objects are shared with hear of the bookings that go with them (webhooks).
        organization_delete(organization=obj)

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            for organization in queryset:
                self.delete_model(request, organization)

    def get_readonly_fields(self, request, obj=None):
        # The trial is the service's own business with the club.
        return [] if request.user.is_superuser else ["is_trial"]


class AppSettingForm(forms.ModelForm):
    """An app setting whose value is of its kind (GET /mobile/v5/organization/settings types it): a yes or no
    and a whole number must be given; a text may be empty."""

    class Meta:
        model = AppSetting
        fields = ["setting_id", "name", "value", "value_type", "show_in_app"]

    def clean(self):
        cleaned = super().clean()
        value, value_type = cleaned.get("value", ""), cleaned.get("value_type")
        if value_type in (AppSetting.ValueType.BOOLEAN, AppSetting.ValueType.INTEGER):
            try:
                parsed = parse_setting_value(value, value_type)
            except NotAValue:
                parsed = None
            if parsed is None:
                if value_type == AppSetting.ValueType.BOOLEAN:
                    self.add_error("value", _("Enter true or false (or 1 or 0)."))
                else:
                    self.add_error("value", _("Enter a whole number."))
        return cleaned


class AppSettingInline(ParentPermissionInline):
    """The organization's settings for the members' app, on its page (its administrators and support)."""

    model = AppSetting
    form = AppSettingForm
    extra = 1


@admin.register(Membership)
class MembershipAdmin(OrganizationScopedAdmin):
    list_display = ["name", "member_count", "organization"]
    list_filter = ["organization"]
    search_fields = ["name"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(member_total=models.Count("members"))

    @admin.display(description=_("Members"), ordering="member_total")
    def member_count(self, group):
        return group.member_total


@admin.register(UserGroup)
class UserGroupAdmin(MembershipAdmin):
    pass


# --- members ---------------------------------------------------------------------------------------------


class UserExpiryDateInline(ParentPermissionInline):
    """The member's expiry dates with their images, saved by MemberAdmin.save_formset through the services."""

    model = UserExpiryDate
    form = UserExpiryDateForm
    extra = 1

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)  # types of the current organization
        if obj is not None and request.user.is_superuser:
            # Support, who sees every organization, is offered the member's organization's types.
            types = formset.form.base_fields["type"]
            types.queryset = tenancy.owned(types.queryset, obj.organization)
        formset.form.refusal = getattr(request, "admin_refusal", None)
        return formset


@admin.register(Member)
class MemberAdmin(ServiceSavedAdmin):
    """Members with their login's data; added, changed and deleted through user_create, user_update and
    user_delete, roles through member_set_roles, expiry dates through the expiry date services."""

    form = MemberForm
    inlines = [UserExpiryDateInline]
    list_display = ["member_number", "name", "membership", "active", "organization"]
    list_display_links = ["member_number", "name"]
    list_filter = ["membership", "active", "locked", "organization"]
    list_select_related = ["user", "membership", "organization"]
    search_fields = ["member_number", "user__name", "user__username", "user__emails__address"]
    ordering = ["member_number"]
    filter_horizontal = ["user_groups"]

    @admin.display(description=_("Name"), ordering="user__name")
    def name(self, member):
        return member.user.full_name

    @admin.display(description=_("Username"))
    def login(self, member):
        if member.user.created_by(member.organization_id):
            return member.user.username
        return gettext("%(username)s (made by another organization)") % {"username": member.user.username}

    @admin.display(description=_("Balance"))
    def balance(self, member):
        return f"{member_balance(member):.2f} {member.organization.currency_symbol}"

    @admin.display(description=_("Invalid email addresses"))
    def email_marks(self, member):
        marks = [
            f"{email.address}: {email.invalid_reason or gettext('marked invalid')}"
            for email in member.user.emails.all()
            if email.invalid
        ]
        return "; ".join(marks) or gettext("none")

    def get_fieldsets(self, request, obj=None):
        foreign = obj is not None and not obj.user.created_by(obj.organization_id)
        login_note = (
            gettext(
                "This login was made by another organization: only that organization can change the name, "
                "contact data, identification number and emergency contact."
            )
            if foreign
            else None
        )
        first = ["organization", "username", "member_number", "membership", "user_groups", "locked"]
        if obj is not None:
            first = ["organization", "login", "member_number", "membership", "user_groups", ("active", "locked")]
        emails = ["email_1", "email_2"] + ([] if obj is None else ["email_marks"])
        account = (
            ["annual_fee", "external_customer_number"]
            if obj is None
            else ["balance", "annual_fee", "external_customer_number"]
        )
        fieldsets = [
            (None, {"fields": first}),
            (_("Roles"), {"fields": ["roles"]}),
            (
                _("Name"),
                {"fields": ["first_name", "last_name_particle", "last_name"], "description": login_note},
            ),
            (
                _("Contact"),
                {
                    "fields": [
                        *emails,
                        "street_address_1",
                        "street_address_2",
                        ("postal_code", "city"),
                        "country",
                        "phone_home",
                        "phone_work",
                        ("mobile_country_code", "mobile_initial_number", "mobile_number"),
                    ]
                },
            ),
            (
                _("Identification and emergency contact"),
                {
                    "fields": [
                        "personal_identification_number",
                        "emergency_contact_name",
                        "emergency_contact_phone",
                        "emergency_contact_relation",
                    ]
                },
            ),
            (_("Account"), {"fields": account}),
            (
                _("Other"),
                {
                    "fields": [
                        "misc_info",
                        "internal_notes",
                        ("access_card_number", "access_card_code", "access_card_expiry_date"),
                    ]
                },
            ),
        ]
        return self.without_organization_field(request, fieldsets)

    def get_readonly_fields(self, request, obj=None):
        return ["organization", "login", "balance", "email_marks"] if obj is not None else []

    def get_inline_instances(self, request, obj=None):
        if obj is None and self.current_organization(request) is None:
            return []  # support adding a member: the types depend on the organization chosen
        return super().get_inline_instances(request, obj)

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        organization = self.current_organization(request)
        if organization is not None:
            initial.setdefault("username", f"{organization.pk}-")
        return initial

    # --- saving ----------------------------------------------------------------------------------------------

    create_service = user_create
    update_service = user_update

    def create_arguments(self, request, form, obj) -> dict:
        return {"organization": obj.organization, **form.create_arguments()}

    def update_arguments(self, request, form, stored) -> dict:
        # The service sees the stored member (not the form's copy) and decides.
        return {"member": stored, **form.update_changes()}

    def after_service_save(self, request, obj, form, change):
        if change:
            obj.save(update_fields=MEMBER_PLAIN_COLUMNS)  # the member record's columns without a rule
            return
        changes = form.after_create_changes()
        if changes:
            member = Member.objects.select_related("user", "organization").get(pk=obj.pk)
            self.call_service(user_update, form=form, member=member, **changes)
        obj.save(update_fields=["locked", "annual_fee"])

    def save_related(self, request, form, formsets, change):
        form.save_m2m()
        member_set_roles(member=form.instance, roles=form.cleaned_data["roles"])
        for formset in formsets:
            self.save_formset(request, form, formset, change)

    def save_formset(self, request, form, formset, change):
        """The expiry dates: deleted, then set (a changed date removes the image), then the images."""
        member = form.instance
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

        def call(service, row, **kwargs):
            self.call_service(service, form=form, row=row, member=member, **kwargs)

        images = []
        for row in formset.forms:
            if row in formset.deleted_forms:
                if row.instance.pk is not None:
                    call(user_expiry_date_delete, row, expiry_type=row.instance.type)
                    formset.deleted_objects.append(row.instance)
                continue
            if not row.has_changed():
                continue
            expiry_type = row.cleaned_data["type"]
            if row.instance.pk is None or "expiry_date" in row.changed_data:
                call(user_expiry_date_set, row, expiry_type=expiry_type, expiry_date=row.cleaned_data["expiry_date"])
            if "image" in row.changed_data:
                images.append((row, expiry_type))
            if row.instance.pk is None:
                formset.new_objects.append(row.instance)
            else:
                formset.changed_objects.append((row.instance, row.changed_data))
        # Files last, so that no refusal can come after one is stored.
        for row, expiry_type in images:
            call(user_expiry_date_set_image, row, expiry_type=expiry_type, image=row.cleaned_data["image"])

    # --- deleting --------------------------------------------------------------------------------------------

    def delete_model(self, request, obj):
        user_delete(member=obj)

    # --- an expiry date's image, for the organization's administrators only -----------------------------------

    def get_urls(self):
        return [
            path(
                "<path:object_id>/expiry-dates/<int:date_id>/image/",
                self.admin_site.admin_view(self.expiry_image_view),
                name="accounts_member_expiry_image",
            ),
            *super().get_urls(),
        ]

    def expiry_image_view(self, request, object_id, date_id):
        member = self.get_object(request, unquote(object_id))
        if member is None or not self.has_view_permission(request, member):
            raise Http404
        row = member.expiry_dates.filter(pk=date_id).exclude(image="").first()
        if row is None or not row.image.storage.exists(row.image.name):
            raise Http404
        return FileResponse(row.image.open("rb"), filename=posixpath.basename(row.image.name))


# --- expiry date types -----------------------------------------------------------------------------------


@admin.register(ExpiryDateType)
class ExpiryDateTypeAdmin(ServiceSavedAdmin):
    """Expiry date types, made, changed and deleted through expiry_date_type_create, _update and _delete."""

    form = ExpiryDateTypeForm
    # The objects the organization books: its own and those shared with it (§3.12).
    shared_choices = ("booking_excluded_object_ids",)
    list_display = [
        "name",
        "may_never_expire",
        "image_required",
        "booking_required",
        "reminders_at_login",
        "date_count",
        "organization",
    ]
    list_filter = ["organization"]
    search_fields = ["name"]
    delete_confirmation_template = "admin/accounts/expirydatetype/delete_confirmation.html"
    fieldsets = [
        (None, {"fields": ["organization", "name", "may_never_expire", "members_can_change", "image_required"]}),
        (
            _("Booking"),
            {
                "fields": [
                    "booking_required",
                    "booking_warning_only",
                    "booking_also_for_students",
                    "booking_excluded_object_ids",
                ]
            },
        ),
        (_("Reminders"), {"fields": ["reminders_at_login", "reminders_days_before"]}),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(date_total=models.Count("user_expiry_dates"))

    @admin.display(description=_("Members with a date"), ordering="date_total")
    def date_count(self, expiry_type):
        return expiry_type.date_total

    def get_readonly_fields(self, request, obj=None):
        return ["organization", "name"] if obj is not None else []  # the name cannot be changed

    create_service = expiry_date_type_create
    update_service = expiry_date_type_update

    def create_arguments(self, request, form, obj) -> dict:
        return {
            "organization": obj.organization,
            "name": form.cleaned_data["name"],
            **form.settings(only_changed=False),
        }

    def update_arguments(self, request, form, stored) -> dict:
        return {"expiry_type": stored, **form.settings(only_changed=True)}

    def delete_view(self, request, object_id, extra_context=None):
        expiry_type = self.get_object(request, unquote(object_id))
        if expiry_type is not None:
            dependents = UserExpiryDate.objects.filter(type=expiry_type).count()
            extra_context = {**(extra_context or {}), "dependents": dependents}
        return super().delete_view(request, object_id, extra_context)

    def refused_delete_redirect(self, request, object_id):
        return HttpResponseRedirect(request.path)  # back to the confirmation, to tick "delete the dates too"

    def refused_delete_reason(self, error: ServiceError) -> str:
        count = sum(dependent["count"] for dependent in error.dependents or [])
        if not count:
            return super().refused_delete_reason(error)
        return gettext(
            "Members with a date of this type: %(count)s. To delete the type with the dates and their images, "
            "tick “Also delete” on its delete page."
        ) % {"count": count}

    def delete_model(self, request, obj):
        expiry_date_type_delete(expiry_type=obj, delete_dependents=request.POST.get("delete_dependents") == "yes")
