"""The organization website's bookings page: bookings of the organization's own objects.

Scoped by the object's organization (another organization's bookings are neither listed nor reachable by
address); bookings of objects that others share with the organization are those organizations' to manage.
Saved and deleted through bookings.services, so that every write of a booking goes one way and is told to the
organization's webhooks.
People are shown by name; times are the organization's local times (the site activates its zone).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.db.models import Q
from django.db.models.functions import Lower
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import ServiceSavedAdmin
from accounts.models import User
from adminkit.forms import RefusalErrors

from .models import Booking
from .services import booking_create, booking_delete, booking_update

EDITABLE = ["object", "user", "student", "start_at", "end_at", "type", "is_primary", "expected_airborne", "comment"]


def local_minute(value) -> str:
    """A point in time as the organization's local date and time, 24-hour clock: 2026-11-20 10:00."""
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M")


class PersonChoiceField(forms.ModelChoiceField):
    """A login offered by its name (never by its id or username, unless it has no name)."""

    def label_from_instance(self, obj):
        return obj.full_name


class BookingForm(RefusalErrors, forms.ModelForm):
    class Meta:
        model = Booking
        fields = EDITABLE
        field_classes = {"user": PersonChoiceField, "student": PersonChoiceField}

    def clean(self):
        cleaned_data = super().clean()
        start_at, end_at = cleaned_data.get("start_at"), cleaned_data.get("end_at")
        if start_at is not None and end_at is not None and start_at >= end_at:
            self.add_error("end_at", gettext("The end must be after the start."))
        return cleaned_data

    def changes(self) -> dict:
        """The changed fields, as booking_update takes them."""
        return {name: self.cleaned_data[name] for name in self.changed_data if name in EDITABLE}

    def create_arguments(self) -> dict:
        return {name: self.cleaned_data[name] for name in EDITABLE}


@admin.register(Booking)
class BookingAdmin(ServiceSavedAdmin):
    form = BookingForm
    organization_field = "object__organization"
    list_display = ["object", "booker", "student_name", "type", "primary_or_queue", "start", "end"]
    list_display_links = ["object", "booker"]
    list_filter = ["object", "start_at", "is_primary", "type"]
    list_select_related = ["object", "user", "student"]
    search_fields = ["object__registration", "user__name", "student__name"]
    date_hierarchy = "start_at"
    ordering = ["start_at", "id"]
    fieldsets = [
        (None, {"fields": ["object", "user", "student"]}),
        (_("Time"), {"fields": ["start_at", "end_at", "expected_airborne"]}),
        (_("Kind"), {"fields": ["type", "is_primary", "comment"]}),
    ]

    @admin.display(description=_("Booked by"), ordering="user__name")
    def booker(self, booking):
        return booking.user.full_name

    @admin.display(description=_("Student"), ordering="student__name")
    def student_name(self, booking):
        return booking.student.full_name if booking.student_id else "-"

    @admin.display(description=_("Start"), ordering="start_at")
    def start(self, booking):
        return local_minute(booking.start_at)

    @admin.display(description=_("End"), ordering="end_at")
    def end(self, booking):
        return local_minute(booking.end_at)

    @admin.display(description=_("Primary or queue"), ordering="is_primary")
    def primary_or_queue(self, booking):
        return gettext("Primary") if booking.is_primary else gettext("Queue")

    def get_fieldsets(self, request, obj=None):
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is not None:
            fieldsets.append((_("Made"), {"fields": ["created_at", "creator"]}))
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        return ["created_at", "creator"] if obj is not None else []

    @admin.display(description=_("Made by"))
    def creator(self, booking):
        return booking.created_by.full_name if booking.created_by_id else "-"

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        organization = self.current_organization(request)
        for name in ("user", "student"):
            field = form.base_fields.get(name)
            if field is None:
                continue
            people = Q() if organization is None else Q(members__organization=organization)
            current = getattr(obj, f"{name}_id", None) if obj is not None else None
            if current is not None and organization is not None:
                # The booker of a shared object may be a member of the organization it is shared with.
                people |= Q(pk=current)
            field.queryset = User.objects.filter(people).distinct().order_by(Lower("name"), "username", "id")
        return form

    # --- saving through the services ---------------------------------------------------------------------

    def save_model(self, request, obj, form, change):
        if change:
            stored = Booking.objects.get(pk=obj.pk)
            updated = self.call_service(booking_update, form=form, booking=stored, **form.changes())
            if updated.pk != stored.pk:
                # A move into the queue makes a new booking (bookings.services): the history entry and the
                # page that follows are the new booking's.
                obj.pk = updated.pk
                request.booking_moved = True
            return
        created = self.call_service(booking_create, form=form, created_by=request.user, **form.create_arguments())
        obj.pk = created.pk
        obj._state.adding = False
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        pass  # no many-to-many fields, no inlines

    def response_change(self, request, obj):
        if not getattr(request, "booking_moved", False):
            return super().response_change(request, obj)
        # Django's answer would name the page's address, which is the old booking's and gone now.
        url = reverse("admin:bookings_booking_change", args=[obj.pk])
        link = format_html('<a href="{}">{}</a>', url, obj)
        self.message_user(
            request,
            format_html(
                gettext("The booking was moved into the queue and is a new booking now: {booking}."), booking=link
            ),
            messages.SUCCESS,
        )
        preserved = {"preserved_filters": self.get_preserved_filters(request), "opts": self.opts}
        if "_continue" in request.POST:
            return HttpResponseRedirect(add_preserved_filters(preserved, url))
        if "_addanother" in request.POST:
            return HttpResponseRedirect(add_preserved_filters(preserved, reverse("admin:bookings_booking_add")))
        return self.response_post_save_change(request, obj)

    def delete_model(self, request, obj):
        booking_delete(booking=obj)
