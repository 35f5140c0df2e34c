"""The organization website's bookings page: bookings of the organization's own objects.

Scoped by the object's organization (another organization's bookings are neither listed nor reachable by
address); bookings of objects that others share with the organization are those organizations' to manage.
Added, changed and deleted by the booking rules (bookings.rules.booking_add, booking_change, booking_remove),
under the object's row lock: two primary bookings of one object never overlap (the later one is queued where
the object allows a queue, else the form is refused). What an administrator may override (a start in the
past, the length, the booker's balance and expiry dates, the expected airborne time) is overridden on purpose
(rules.ADMINISTRATOR) and said in a notice on the page that follows. Every write goes through
bookings.services, so it is told to the organization's webhooks.
People are shown by name; times are the organization's local times (the site activates its zone).
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.db.models.functions import Lower
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from adminkit.forms import RefusalErrors
from adminkit.service_admin import ServiceSavedAdmin

from . import rules
from .models import Booking

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
        """The changed fields, as booking_change takes them."""
        return {name: self.cleaned_data[name] for name in self.changed_data if name in EDITABLE}

    def create_arguments(self) -> dict:
        """booking_add's keyword arguments (without who makes it and what is overridden)."""
        return {name: self.cleaned_data[name] for name in EDITABLE}


@admin.register(Booking)
class BookingAdmin(ServiceSavedAdmin):
    form = BookingForm
    # The booker of a shared object may be a member of the organization it is shared with: they stay a choice.
    current_choice_kept = ("user", "student")
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
        for name in ("user", "student"):
            field = form.base_fields.get(name)
            if field is not None:  # people by name (the site scopes them to the organization's members)
                field.queryset = User.objects.order_by(Lower("name"), "username", "id")
        return form

    # --- saving by the booking rules ---------------------------------------------------------------------

    create_service = rules.booking_add
    update_service = rules.booking_change

    def create_arguments(self, request, form, obj) -> dict:
        return {**form.create_arguments(), "created_by": request.user, "override": rules.ADMINISTRATOR}

    def update_arguments(self, request, form, stored) -> dict:
        return {"booking": stored, "override": rules.ADMINISTRATOR, **form.changes()}

    def saved_row(self, request, result):
        """The booking made or changed; what the rules say (queued, a warning, what was overridden) is a notice."""
        for message in result.messages:
            self.notify(request, message.text, messages.INFO)
        for text in result.overridden:
            self.notify(request, text, messages.WARNING)
        return result.booking

    def response_change(self, request, obj):
        if not getattr(request, "admin_row_replaced", False):
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
        self._show_notices(request)
        if "_continue" in request.POST:
            return HttpResponseRedirect(add_preserved_filters(preserved, url))
        if "_addanother" in request.POST:
            return HttpResponseRedirect(add_preserved_filters(preserved, reverse("admin:bookings_booking_add")))
        return self.response_post_save_change(request, obj)

    def delete_model(self, request, obj):
        rules.booking_remove(booking=obj)
