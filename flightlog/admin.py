"""The organization website's flight log pages: flights, flight types, flight approvals and airports.

Flights are those on the organization's own objects (scoped by the object's organization); another
organization's flights are neither listed nor reachable by address. A flight is entered as its local date and
the local clock times of block off, takeoff, landing and block on in the object's organization's zone; the
midnight rule (flightlog.clock_times) makes them UTC points in time, and the flight is saved through
flightlog.services so that the object's time summary moves with it. People are offered and shown by name.
An administrator endorses flights (the list's action, or the button on a flight's page); an endorsed flight is
locked, so its page is read-only and it cannot be deleted.

Airports are one table for the whole service: support (superusers) adds and changes them; administrators
may look them up.
"""

import datetime as dt

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminTimeWidget
from django.db.models.functions import Lower
from django.http import HttpResponseRedirect
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Member
from adminkit.forms import RefusalErrors
from adminkit.service_admin import ServiceSavedAdmin
from adminkit.site import OrganizationScopedAdmin
from apicore import clock
from apicore.errors import ServiceError

from .clock_times import ClockTimeError, LocalFlightTimes, local_clock_times, utc_times
from .models import Airport, FlightApproval, FlightLogEntry, FlightType
from .services import (
    CREW,
    FLIGHT_FIELDS,
    flight_approval_create,
    flight_approval_update,
    flight_create,
    flight_delete,
    flight_endorse,
    flight_update,
)

# The entry form's clock time fields and the columns they become.
CLOCK_FIELDS = {"blockoff": "blockoff_at", "takeoff": "takeoff_at", "landing": "landing_at", "blockon": "blockon_at"}
# The form's fields: the object and what a flight is logged with, its clock times as local times (above).
EDITABLE = ["object", *(name for name in FLIGHT_FIELDS if name not in CLOCK_FIELDS.values())]
# An endorsed flight's page is read-only: its clock times are shown as the list shows them.
CLOCK_SHOWN = {
    "blockoff": "blockoff_local",
    "takeoff": "takeoff_local",
    "landing": "landing_local",
    "blockon": "blockon_local",
}
ENDORSE = "_endorse"  # the name of the flight page's endorse button
CLOCK_HELP = _("Local time at the object's organization. A time earlier than the one before it is on the next day.")


class MemberChoiceField(forms.ModelChoiceField):
    """A member offered by name (with the member number, which tells two of one name apart)."""

    def label_from_instance(self, obj):
        return str(obj)


def members_by_name():
    """Members in the order an administrator looks for them: by name, then member number."""
    return Member.objects.select_related("user").order_by(Lower("user__name"), "member_number", "id")


def _clock_field(label):
    return forms.TimeField(label=label, required=False, widget=AdminTimeWidget, help_text=CLOCK_HELP)


class FlightForm(RefusalErrors, forms.ModelForm):
    blockoff = _clock_field(_("Block off"))
    takeoff = _clock_field(_("Takeoff"))
    landing = _clock_field(_("Landing"))
    blockon = _clock_field(_("Block on"))

    # A service's problem with a point in time is shown on the clock time it came from.
    problem_field_map = {column: [field] for field, column in CLOCK_FIELDS.items()}

    class Meta:
        model = FlightLogEntry
        fields = EDITABLE
        field_classes = dict.fromkeys(CREW, MemberChoiceField)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times: dict[str, dt.datetime | None] = {}
        instance = self.instance
        if not instance._state.adding:
            local = local_clock_times(instance, instance.object.organization.timezone)
            for field, column in CLOCK_FIELDS.items():
                self.initial.setdefault(field, local[column])

    def clean(self):
        cleaned_data = super().clean()
        obj, date = cleaned_data.get("object"), cleaned_data.get("date")
        if obj is None or date is None:
            return cleaned_data
        times = LocalFlightTimes(date, *(cleaned_data.get(field) for field in CLOCK_FIELDS))
        try:
            self.times = utc_times(times, obj.organization.timezone)
        except ClockTimeError as error:
            field = next(name for name, column in CLOCK_FIELDS.items() if column == error.field)
            self.add_error(
                field,
                gettext("%(time)s does not exist on %(date)s: the clocks skip it.")
                % {"time": cleaned_data[field].strftime("%H:%M"), "date": date.isoformat()},
            )
        return cleaned_data

    def service_arguments(self) -> dict:
        """Every field of the flight, as flight_create and flight_update take them."""
        return {**{name: self.cleaned_data[name] for name in EDITABLE}, **self.times}


def _local(flight, column: str) -> str:
    """A point in time of the flight as the local clock time, marked (+1) when on the day after its date."""
    value = getattr(flight, column)
    if value is None:
        return None
    local = value.astimezone(clock.zone(flight.object.organization.timezone))
    text = local.strftime("%H:%M")
    days = (local.date() - flight.date).days
    return f"{text} ({days:+d})" if days else text


class EndorsedFilter(admin.SimpleListFilter):
    title = _("endorsed")
    parameter_name = "endorsed"

    def lookups(self, request, model_admin):
        return [("yes", _("Endorsed")), ("no", _("Not endorsed"))]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(endorsed_at__isnull=self.value() == "no")
        return queryset


def _endorsement(flight) -> str:
    """When (the object's organization's local time) and by whom (by name) a flight was endorsed."""
    when = flight.endorsed_at.astimezone(clock.zone(flight.object.organization.timezone)).strftime("%Y-%m-%d %H:%M")
    if flight.endorsed_by_id is None:
        return when
    return gettext("%(when)s by %(name)s") % {"when": when, "name": flight.endorsed_by.full_name}


@admin.register(FlightLogEntry)
class FlightLogEntryAdmin(ServiceSavedAdmin):
    """The flight log of the organization's own objects, logged, changed, endorsed and deleted through the
    services. An endorsed flight is locked: its page is read-only, and deleting it is refused."""

    form = FlightForm
    # A member of an organization the object is shared with may have flown it: the flight's crew stays a choice.
    current_choice_kept = CREW
    list_display = [
        "date",
        "object",
        "pilot_name",
        "departure_icao",
        "arrival_icao",
        "blockoff_local",
        "blockon_local",
        "endorsed_by_name",
    ]
    list_display_links = ["date", "object"]
    list_filter = ["object", "date", EndorsedFilter]
    list_select_related = ["object__organization", "pilot__user", "departure_airport", "arrival_airport", "endorsed_by"]
    actions = ["endorse_selected"]
    search_fields = ["object__registration", "pilot__user__name", "departure_airport__icao", "arrival_airport__icao"]
    date_hierarchy = "date"
    ordering = ["-date", "-blockoff_at", "-id"]
    fieldsets = [
        (None, {"fields": ["object", "date", "flight_type"]}),
        (
            _("Departure"),
            {"fields": ["departure_airport", "blockoff", "takeoff", "departure_tachometer", "departure_hobbs"]},
        ),
        (
            _("Arrival"),
            {"fields": ["via_route", "arrival_airport", "landing", "blockon", "arrival_tachometer", "arrival_hobbs"]},
        ),
        (_("Crew"), {"fields": ["pilot", "instructor", "scout", "is_solo_instruction"]}),
        (
            _("Other"),
            {"fields": ["number_of_flights", "uplift_fuel", "uplift_oil", "daily_check", "comment", "remark"]},
        ),
    ]

    @admin.display(description=_("Pilot"), ordering="pilot__user__name")
    def pilot_name(self, flight):
        return flight.pilot.user.full_name if flight.pilot_id else None

    @admin.display(description=_("From"), ordering="departure_airport__icao")
    def departure_icao(self, flight):
        return flight.departure_airport.icao if flight.departure_airport_id else None

    @admin.display(description=_("To"), ordering="arrival_airport__icao")
    def arrival_icao(self, flight):
        return flight.arrival_airport.icao if flight.arrival_airport_id else None

    @admin.display(description=_("Block off"), ordering="blockoff_at")
    def blockoff_local(self, flight):
        return _local(flight, "blockoff_at")

    @admin.display(description=_("Block on"), ordering="blockon_at")
    def blockon_local(self, flight):
        return _local(flight, "blockon_at")

    @admin.display(description=_("Takeoff"))
    def takeoff_local(self, flight):
        return _local(flight, "takeoff_at")

    @admin.display(description=_("Landing"))
    def landing_local(self, flight):
        return _local(flight, "landing_at")

    @admin.display(description=_("Endorsed by"), ordering="endorsed_at")
    def endorsed_by_name(self, flight):
        if flight.endorsed_at is None:
            return None
        return flight.endorsed_by.full_name if flight.endorsed_by_id else gettext("Endorsed")

    @admin.display(description=_("Endorsed"))
    def endorsement(self, flight):
        if flight.endorsed_at is not None:
            return _endorsement(flight)
        return format_html(
            '<input type="submit" class="button" name="{}" value="{}"><div class="help">{}</div>',
            ENDORSE,
            gettext("Endorse"),
            gettext(
                "Saves the page, then endorses the flight: an endorsed flight can no longer be changed or deleted."
            ),
        )

    def get_fieldsets(self, request, obj=None):
        fieldsets = list(super().get_fieldsets(request, obj))
        if obj is None:
            return fieldsets
        if obj.endorsed_at is not None:
            # Read-only: the local clock times come from the flight (the form's own fields are not shown).
            fieldsets = [
                (title, {**options, "fields": [CLOCK_SHOWN.get(name, name) for name in options["fields"]]})
                for title, options in fieldsets
            ]
        fieldsets.append((_("Logged"), {"fields": ["created_at", "endorsement"]}))
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        return ["created_at", "endorsement"] if obj is not None else []

    # An endorsed flight is locked (flightlog.services refuses it too): shown, never changed or deleted here.

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and not _endorsed(obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and not _endorsed(obj)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if self.current_organization(request) is None:
            return form
        for name in CREW:  # by name (the site scopes them to the organization's members)
            if name in form.base_fields:
                form.base_fields[name].queryset = members_by_name()
        return form

    # --- saving through the services ---------------------------------------------------------------------

    create_service = flight_create
    update_service = flight_update

    def create_arguments(self, request, form, obj) -> dict:
        return form.service_arguments()

    def update_arguments(self, request, form, stored) -> dict:
        return {"flight": stored, **form.service_arguments()}

    def after_service_save(self, request, obj, form, change):
        if change and ENDORSE in request.POST:
            self.call_service(flight_endorse, form=form, flight=obj, by=request.user)
            request.flight_endorsed = True

    def response_change(self, request, obj):
        if not getattr(request, "flight_endorsed", False):
            return super().response_change(request, obj)
        self.message_user(request, gettext("The flight was endorsed."), messages.SUCCESS)
        return HttpResponseRedirect(request.path)  # back to the flight, now read-only

    def delete_model(self, request, obj):
        flight_delete(flight=obj)

    @admin.action(description=_("Endorse the selected flights"), permissions=["change"])
    def endorse_selected(self, request, queryset):
        done, refused = 0, []
        for flight in queryset:
            try:
                flight_endorse(flight=flight, by=request.user)
                done += 1
            except ServiceError:
                refused.append(str(flight))
        if done:
            self.message_user(request, gettext("Flights endorsed: %(count)s") % {"count": done}, messages.SUCCESS)
        if refused:
            self.message_user(
                request,
                gettext("Already endorsed, so not endorsed again: %(flights)s") % {"flights": "; ".join(refused)},
                messages.WARNING,
            )


def _endorsed(flight) -> bool:
    return flight is not None and flight.endorsed_at is not None


@admin.register(FlightType)
class FlightTypeAdmin(OrganizationScopedAdmin):
    list_display = ["name", "organization"]
    list_filter = ["organization"]
    search_fields = ["name"]
    ordering = [Lower("name"), "id"]


class FlightApprovalForm(RefusalErrors, forms.ModelForm):
    """Reads an approval; FlightApprovalAdmin saves it through flight_approval_create and _update, which check
    that the member's organization owns or shares the object and the flight types are the object's owner's."""

    class Meta:
        model = FlightApproval
        fields = ["member", "object", "flight_types"]
        field_classes = {"member": MemberChoiceField}

    def values(self, *, only_changed: bool) -> dict:
        return {
            name: self.cleaned_data[name]
            for name in self.Meta.fields
            if name in self.cleaned_data and (not only_changed or name in self.changed_data)
        }


@admin.register(FlightApproval)
class FlightApprovalAdmin(ServiceSavedAdmin):
    """Which members may log flights on which of the organization's objects, of which flight types; saved
    through flight_approval_create and flight_approval_update."""

    form = FlightApprovalForm
    list_display = ["member_name", "object", "flight_type_names"]
    list_display_links = ["member_name", "object"]
    list_filter = ["object"]
    list_select_related = ["member__user", "object"]
    search_fields = ["member__user__name", "member__member_number", "object__registration"]
    ordering = [Lower("member__user__name"), "object__registration", "id"]
    filter_horizontal = ["flight_types"]

    @admin.display(description=_("Member"), ordering="member__user__name")
    def member_name(self, approval):
        return approval.member.user.full_name

    @admin.display(description=_("Flight types"))
    def flight_type_names(self, approval):
        names = sorted((flight_type.name for flight_type in approval.flight_types.all()), key=str.lower)
        return ", ".join(names) or None

    create_service = flight_approval_create
    update_service = flight_approval_update

    def create_arguments(self, request, form, obj) -> dict:
        return form.values(only_changed=False)

    def update_arguments(self, request, form, stored) -> dict:
        return {"approval": stored, **form.values(only_changed=True)}

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("flight_types")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        if self.current_organization(request) is not None and "member" in form.base_fields:
            form.base_fields["member"].queryset = members_by_name()  # the site scopes them
        return form


@admin.register(Airport)
class AirportAdmin(OrganizationScopedAdmin):
    """The airports of every organization's flight log: support keeps the table; administrators look it up."""

    list_display = ["icao", "name", "latitude", "longitude"]
    search_fields = ["icao", "name"]
    ordering = ["icao"]

    def has_view_permission(self, request, obj=None):
        return self.admin_site.has_permission(request)

    def has_module_permission(self, request):
        return self.admin_site.has_permission(request)

    def has_add_permission(self, request):
        return request.user.is_superuser and self.admin_site.has_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.has_add_permission(request)

    def has_delete_permission(self, request, obj=None):
        return self.has_add_permission(request)
