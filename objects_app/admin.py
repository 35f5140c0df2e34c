"""The organization website's pages for objects (with their sharing and maintenance items) and remarks.

Registered on admin.site, the organization-scoped site (adminkit.site): an administrator sees and changes
only the organization's own objects and the remarks on them. Remarks are written, acknowledged, commented and
closed through objects_app.services, so that the history is recorded as the API shows it and webhooks hear of
it; objects are deleted through it too (the webhooks' booking.delete of their bookings).
"""

import contextlib

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from django.db.models.functions import Lower
from django.http import HttpResponseRedirect
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts.models import Organization
from adminkit.forms import RefusalErrors
from adminkit.inlines import ParentPermissionInline
from adminkit.service_admin import ServiceSavedAdmin
from apicore import clock
from apicore.errors import ServiceError

from . import selectors, services
from .models import BookableObject, MaintenanceItem, ObjectShare, Remark, RemarkState, StatusLevel
from .status import Limits, object_status

TOTALS = ["airborne_minutes", "block_minutes", "tach_hours", "landings"]


# --- objects -------------------------------------------------------------------------------------------------


class ObjectShareForm(RefusalErrors, forms.ModelForm):
    """One organization the object is shared with; saved through objects_app.services.object_share and
    object_unshare (BookableObjectAdmin.save_formset), which refuse the object's own organization."""

    class Meta:
        model = ObjectShare
        fields = ["organization"]


class ObjectShareInline(ParentPermissionInline):
    """The organizations the object is shared with: any other organization, chosen by name."""

    model = ObjectShare
    form = ObjectShareForm
    extra = 0
    verbose_name = _("organization shared with")
    verbose_name_plural = _("shared with organizations")
    unscoped_choices = {"organization": "an object is shared with other organizations: any but its owner"}

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        current = self._parent().current_organization(request)
        owner = obj.organization if obj is not None else current
        others = Organization.objects.order_by(Lower("name"), "id")
        if owner is not None:
            others = others.exclude(pk=owner.pk)
        formset.form.base_fields["organization"].queryset = others
        formset.form.refusal = getattr(request, "admin_refusal", None)
        return formset


class MaintenanceItemForm(forms.ModelForm):
    class Meta:
        model = MaintenanceItem
        fields = ["name", "due_date", "due_airborne", "hard_airborne", "warning_days", "warning_hours"]

    def clean(self):
        cleaned_data = super().clean()
        if self.errors or cleaned_data.get("DELETE"):
            return cleaned_data
        try:
            services.maintenance_limits_check(
                due_date=cleaned_data.get("due_date"),
                due_airborne=cleaned_data.get("due_airborne"),
                hard_airborne=cleaned_data.get("hard_airborne"),
            )
        except ServiceError as error:
            field = error.errors[0].field if error.errors else None
            message = (
                gettext("Give a due date or airborne hours at which the item is due.")
                if field == "due_date"
                else gettext("The grounding limit must not be below the hours at which the item is due.")
            )
            raise ValidationError({field: message}) from error
        return cleaned_data


class MaintenanceItemInline(ParentPermissionInline):
    model = MaintenanceItem
    form = MaintenanceItemForm
    extra = 1


class BookableObjectForm(RefusalErrors, forms.ModelForm):
    """The totals carry the values the page was opened with (hidden initial inputs), so that saving applies
    the administrator's difference to the stored totals, not the page's old values over them
    (objects_app.services.object_update's `seen_totals`)."""

    class Meta:
        model = BookableObject
        fields = ["organization", *services.OBJECT_FIELDS, *TOTALS]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in TOTALS:
            if name in self.fields:
                self.fields[name].show_hidden_initial = True

    def seen_totals(self) -> dict:
        """{total: the value the page showed} for each changed total."""
        seen = {}
        for name in TOTALS:
            if name not in self.changed_data:
                continue
            field = self.fields[name]
            shown = self.initial.get(name)
            raw = self.data.get(self.add_initial_prefix(name))
            if raw not in (None, ""):
                with contextlib.suppress(ValidationError):
                    shown = field.to_python(raw)
            seen[name] = shown or 0
        return seen

    def object_values(self, *, only_changed: bool) -> dict:
        """The object's fields and totals as the services take them (files as the form set them on its object)."""
        names = [name for name in ("organization", *services.OBJECT_FIELDS, *TOTALS) if name in self.fields]
        if only_changed:
            names = [name for name in names if name in self.changed_data]
        return {name: getattr(self.instance, name) for name in names}


def status_text(status: dict) -> str:
    if status["total_id"] is None:
        return gettext("No status")
    return str(StatusLevel(status["total_id"]).label)


@admin.register(BookableObject)
class BookableObjectAdmin(ServiceSavedAdmin):
    """The organization's own objects. Sharing and maintenance items are rows of the object's page; the time
    summary's totals may be set (the totals before the first logged flight): a change is applied as the
    difference, so that flights logged meanwhile are kept. Deleted through objects_app.services.object_delete,
    which tells webhooks of the bookings that go with the object (a refusal is a message; nothing goes)."""

    form = BookableObjectForm
    inlines = [ObjectShareInline, MaintenanceItemInline]
    list_display = ["registration", "category", "type_column", "active", "status_column", "organization"]
    list_filter = ["category", "active", "organization"]
    search_fields = ["registration", "type_designator", "type_name"]
    ordering = ["category", "registration"]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "organization",
                    "registration",
                    "category",
                    ("type_designator", "type_name"),
                    "comment",
                    ("active", "has_status"),
                    "thumbnail",
                ]
            },
        ),
        (
            _("Booking"),
            {"fields": ["use_expected_airborne", "force_expected_time", "max_booking_length", "queue_allowed"]},
        ),
        (_("Disclaimer"), {"fields": ["disclaimer_headline", "disclaimer_text"]}),
        (
            _("Time summary"),
            {
                "fields": [("airborne_minutes", "block_minutes"), ("tach_hours", "landings")],
                "description": _(
                    "The totals including every logged flight. Set them once to the totals before the first "
                    "flight logged here; each logged flight then adds to them."
                ),
            },
        ),
    ]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("organization")
            .annotate(open_remarks_category=selectors.open_remarks_category())
            .prefetch_related(Prefetch("maintenance_items", queryset=MaintenanceItem.objects.order_by()))
        )

    @admin.display(description=_("Type"), ordering="type_designator")
    def type_column(self, obj):
        return obj.type_designator or self.get_empty_value_display()

    @admin.display(description=_("Status"))
    def status_column(self, obj):
        items = [
            Limits.of(item.due_date, item.due_airborne, item.hard_airborne, item.warning_days, item.warning_hours)
            for item in obj.maintenance_items.all()
        ]
        status = object_status(
            has_status=obj.has_status,
            airborne_minutes=obj.airborne_minutes,
            items=items,
            open_remarks_category=obj.open_remarks_category,
            today=clock.today_in(obj.organization.timezone),
        )
        return status_text(status)

    # --- saving through the services ---------------------------------------------------------------------

    create_service = services.object_create
    update_service = services.object_update

    def create_arguments(self, request, form, obj) -> dict:
        values = form.object_values(only_changed=False)
        return {"organization": values.pop("organization", None) or obj.organization, **values}

    def update_arguments(self, request, form, stored) -> dict:
        # The totals move by the administrator's difference, atomically: a flight logged since the page was
        # opened stays counted.
        return {"object": stored, "seen_totals": form.seen_totals(), **form.object_values(only_changed=True)}

    def save_formset(self, request, form, formset, change):
        if formset.model is not ObjectShare:
            return super().save_formset(request, form, formset, change)
        # Sharing through the services: stopped, then started (a row changed to another organization is both).
        obj = form.instance
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        for row in formset.forms:
            if row.instance.pk is None or not (row in formset.deleted_forms or "organization" in row.changed_data):
                continue
            stored = ObjectShare.objects.select_related("organization").filter(pk=row.instance.pk).first()
            if stored is not None:
                self.call_service(
                    services.object_unshare, form=form, row=row, object=obj, organization=stored.organization
                )
                formset.deleted_objects.append(row.instance)
        for row in formset.forms:
            if row in formset.deleted_forms or not row.has_changed():
                continue
            organization = row.cleaned_data["organization"]
            share = self.call_service(services.object_share, form=form, row=row, object=obj, organization=organization)
            if row.instance.pk is None:
                formset.new_objects.append(share)
            else:
                formset.changed_objects.append((share, row.changed_data))
        return None

    def delete_model(self, request, obj):
        services.object_delete(object=obj)


# --- remarks -------------------------------------------------------------------------------------------------

STEPS = {
    "_acknowledge": (services.remark_acknowledge, pgettext_lazy("remark step", "Acknowledge")),
    "_comment": (services.remark_comment, pgettext_lazy("remark step", "Comment")),
    "_close": (services.remark_close, pgettext_lazy("remark step", "Close")),
}


STEP_DONE = {
    "_acknowledge": lambda: gettext("The remark was acknowledged."),
    "_comment": lambda: gettext("The comment was added."),
    "_close": lambda: gettext("The remark was closed."),
}


class RemarkForm(RefusalErrors, forms.ModelForm):
    """Add: object, description and category. Change: a comment's text and the step pressed (STEPS)."""

    comment = forms.CharField(
        label=_("Comment"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Write a comment and press “Comment”."),
    )
    step: str | None = None

    class Meta:
        model = Remark
        fields = ["object", "description", "category"]

    def clean(self):
        cleaned_data = super().clean()
        if self.instance.pk is not None and self.step is None and (cleaned_data.get("comment") or "").strip():
            self.step = "_comment"  # "Save" with a comment written: the comment is not lost
        if self.instance.pk is None or self.step is None:
            return cleaned_data
        if self.instance.state == RemarkState.CLOSED:
            raise ValidationError(gettext("This remark is closed; nothing more can be done with it."))
        if self.step == "_acknowledge" and self.instance.state == RemarkState.ACKNOWLEDGED:
            raise ValidationError(gettext("This remark is already acknowledged."))
        if self.step == "_comment" and not (cleaned_data.get("comment") or "").strip():
            self.add_error("comment", gettext("Write the comment's text."))
        return cleaned_data


EMPTY = "-"


def _person(user) -> str:
    return user.full_name if user is not None else EMPTY


def _local(value) -> str:
    return date_format(timezone.localtime(value), "DATETIME_FORMAT")


@admin.register(Remark)
class RemarkAdmin(ServiceSavedAdmin):
    """Remarks on the organization's objects, newest first. Written through remark_create; acknowledged,
    commented and closed with the buttons of the remark's page (or the list's actions) through the services."""

    form = RemarkForm
    list_display = ["created_at", "object", "category", "state", "written_by", "short_description"]
    list_display_links = ["created_at", "short_description"]
    list_filter = ["state", "category"]
    list_select_related = ["object", "created_by"]
    search_fields = ["description", "object__registration"]
    ordering = ["-created_at", "-id"]
    actions = ["acknowledge_selected", "close_selected"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("object", "created_by")

    @admin.display(description=_("written by"), ordering="created_by__name")
    def written_by(self, remark):
        return _person(remark.created_by)

    @admin.display(description=_("description"))
    def short_description(self, remark):
        return remark.description if len(remark.description) <= 80 else f"{remark.description[:79]}…"

    @admin.display(description=_("History"))
    def history(self, remark):
        events = remark.history.select_related("by").order_by("at", "id")
        if not events:
            return gettext("Nothing has happened to this remark yet.")
        rows = (
            (_local(event.at), event.get_action_display(), _person(event.by), f": {event.text}" if event.text else "")
            for event in events
        )
        return format_html("<ul>{}</ul>", format_html_join("", "<li>{} · {} · {}{}</li>", rows))

    @admin.display(description=_("Steps"))
    def steps(self, remark):
        if remark.state == RemarkState.CLOSED:
            return gettext("The remark is closed.")
        offered = [name for name in STEPS if not (name == "_acknowledge" and remark.state != RemarkState.OPEN)]
        return format_html_join(
            " ",
            '<input type="submit" class="button" name="{}" value="{}">',
            ((name, STEPS[name][1]) for name in offered),
        )

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [(None, {"fields": ["object", "description", "category"]})]
        about = ["object", "description", "category", "state", "created_at", "written_by"]
        fieldsets = [(None, {"fields": about}), (_("History"), {"fields": ["history"]})]
        if obj.state != RemarkState.CLOSED:
            fieldsets.append((_("Next step"), {"fields": ["comment", "steps"]}))
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["object", "description", "category", "state", "created_at", "written_by", "history", "steps"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.step = next((name for name in STEPS if name in request.POST), None) if request.method == "POST" else None
        return form

    # --- saving through the services: written by remark_create, changed by the step pressed ----------------

    create_service = services.remark_create

    def create_arguments(self, request, form, obj) -> dict:
        return {
            "object": form.cleaned_data["object"],
            "description": form.cleaned_data["description"],
            "category": form.cleaned_data["category"],
            "by": request.user,
        }

    def update_service_for(self, request, form):
        return None if form.step is None else STEPS[form.step][0]  # "Save" alone changes nothing

    def update_arguments(self, request, form, stored) -> dict:
        arguments = {"text": form.cleaned_data["comment"]} if form.step == "_comment" else {}
        return {"remark": stored, "by": request.user, **arguments}

    def after_service_save(self, request, obj, form, change):
        if change:
            request.remark_step_done = form.step

    def response_change(self, request, obj):
        step = getattr(request, "remark_step_done", None)
        if step is None:
            return super().response_change(request, obj)
        self.message_user(request, STEP_DONE[step](), messages.SUCCESS)
        return HttpResponseRedirect(request.path)  # back to the remark, its history now longer

    def has_delete_permission(self, request, obj=None):
        # A remark is closed, not deleted: its history is what the API and webhooks refer to.
        return request.user.is_superuser and super().has_delete_permission(request, obj)

    # --- list actions ----------------------------------------------------------------------------------------

    def _each(self, request, queryset, service, done_message):
        done, refused = 0, []
        for remark in queryset:
            try:
                service(remark=remark, by=request.user)
                done += 1
            except ServiceError:
                refused.append(f"{remark.object.registration}: {remark}")
        if done:
            self.message_user(request, done_message % {"count": done}, messages.SUCCESS)
        if refused:
            self.message_user(
                request,
                gettext("Not possible for these remarks (already done or closed): %(remarks)s")
                % {"remarks": "; ".join(refused)},
                messages.WARNING,
            )

    @admin.action(description=_("Acknowledge the selected remarks"))
    def acknowledge_selected(self, request, queryset):
        self._each(request, queryset, services.remark_acknowledge, gettext("Remarks acknowledged: %(count)s"))

    @admin.action(description=_("Close the selected remarks"))
    def close_selected(self, request, queryset):
        self._each(request, queryset, services.remark_close, gettext("Remarks closed: %(count)s"))
