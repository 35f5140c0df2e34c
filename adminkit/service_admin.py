"""Organization website pages that save and delete through services: a refusal is shown on the page, and
nothing is saved."""

from collections import defaultdict

from django.contrib import messages
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext

from adminkit.site import OrganizationScopedAdmin
from apicore.errors import ServiceError


def nothing_deleted(reason: str) -> str:
    """The message of a refused delete, in the page's language; the reason is the service's."""
    return gettext("Nothing was deleted. %(reason)s") % {"reason": reason}


class Refused(Exception):
    """A service's ServiceError as errors of the page's forms: {form prefix (None: main form): [(field, message)]}."""

    def __init__(self, errors: dict):
        super().__init__(errors)
        self.errors = errors


class RefusedInSelection(Exception):
    """A service refused to delete one object of an admin action's selection."""


class ServiceSavedAdmin(OrganizationScopedAdmin):
    """A model admin whose saves and deletes go through services.

    Saving: each page declares the services that write its model: `create_service` is called with
    `create_arguments()`, `update_service` (or `update_service_for()`) with `update_arguments()`. A service
    returns the row as stored (a new row when it replaced the old one, as a booking moved into the queue), or an
    outcome that `saved_row()` turns into the row. `after_service_save()` does what else the page saves (with more
    service calls). Inline rows go through `save_formset` (many-to-many fields are the services' arguments). A
    page that declares no service for an action saves it as Django does.
    When a service refuses, everything the page did is undone (the admin's transaction) and the same POST is
    validated once more with the refusal put on its forms (admin_forms.RefusalErrors): the page comes back with
    the errors and nothing is saved. Notices (`notify()`: a rule an administrator overrode, a warning) are shown
    on the next page only once the save has succeeded.
    Deleting: a refusal is an error message and nothing is deleted, for one object or a selection.
    """

    save_as = False
    create_service = None
    update_service = None

    # --- saving through the services --------------------------------------------------------------------------

    @property
    def saves_through_services(self) -> bool:
        return type(self).create_service is not None or type(self).update_service is not None

    def create_arguments(self, request, form, obj) -> dict:
        """create_service's keyword arguments."""
        return form.create_arguments()

    def update_arguments(self, request, form, stored) -> dict:
        """update_service's keyword arguments; `stored` is the row as it is in the database."""
        return form.update_arguments(stored)

    def update_service_for(self, request, form):
        """The service that saves this change (None: the page changes nothing by saving)."""
        return type(self).update_service

    def saved_row(self, request, result):
        """The row a service's result names."""
        return result

    def after_service_save(self, request, obj, form, change) -> None:
        """What the page saves besides the service's row (`obj` is the saved row's page object)."""

    def notify(self, request, text, level=messages.WARNING) -> None:
        """A notice for the page that follows a successful save."""
        request.admin_notices.append((level, text))

    def save_model(self, request, obj, form, change):
        request.admin_notices = []
        if not self.saves_through_services:
            return super().save_model(request, obj, form, change)
        if change:
            service = self.update_service_for(request, form)
            if service is None:
                return None  # nothing on the page is changed by saving it
            stored = self.model._default_manager.get(pk=obj.pk)
            result = self.call_service(service, form=form, **self.update_arguments(request, form, stored))
        else:
            result = self.call_service(
                type(self).create_service, form=form, **self.create_arguments(request, form, obj)
            )
        saved = self.saved_row(request, result)
        # A change may have made a new row (document 3: a booking moved into the queue is a new booking): the
        # page's object, its history entry and the page that follows are the new row's.
        request.admin_row_replaced = change and saved.pk != obj.pk
        obj.pk = saved.pk
        obj._state.adding = False
        self.after_service_save(request, obj, form, change)
        obj.refresh_from_db()
        return None

    def save_related(self, request, form, formsets, change):
        if not self.saves_through_services:
            return super().save_related(request, form, formsets, change)
        for formset in formsets:  # the many-to-many fields were the services' arguments
            self.save_formset(request, form, formset, change=change)
        return None

    def _show_notices(self, request) -> None:
        for level, text in getattr(request, "admin_notices", []):
            self.message_user(request, text, level)

    def response_add(self, request, obj, post_url_continue=None):
        response = super().response_add(request, obj, post_url_continue)
        self._show_notices(request)
        return response

    def response_change(self, request, obj):
        response = super().response_change(request, obj)
        self._show_notices(request)
        return response

    def call_service(self, service, /, *, form, row=None, **kwargs):
        """service(**kwargs); a ServiceError becomes Refused, with errors on `row` (an inline form) or `form`."""
        try:
            return service(**kwargs)
        except ServiceError as error:
            errors = defaultdict(list)
            if row is None:
                errors[form.prefix] += form.refusal_errors(error)
            else:
                errors[row.prefix] += row.refusal_errors(error, with_detail=False)
                problems = "; ".join(problem.message for problem in error.errors) or error.detail or str(error)
                errors[form.prefix].append((None, f"{row.instance_label()}: {problems}"))
            raise Refused(dict(errors)) from error

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)  # atomic
        except Refused as refused:
            request.admin_refusal = refused.errors
        # The same POST again: the forms now carry the refusal, so they are not valid and nothing is saved.
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.refusal = getattr(request, "admin_refusal", None)
        return form

    def refused_delete_redirect(self, request, object_id) -> HttpResponseRedirect:
        opts = self.opts
        return HttpResponseRedirect(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[object_id]))

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)  # atomic: a refusal undoes the log too
        except ServiceError as error:
            self.message_user(request, nothing_deleted(self.refused_delete_reason(error)), messages.ERROR)
            return self.refused_delete_redirect(request, object_id)

    def refused_delete_reason(self, error: ServiceError) -> str:
        return error.detail or str(error)

    def response_action(self, request, queryset):
        try:
            with transaction.atomic():
                return super().response_action(request, queryset)
        except RefusedInSelection as refused:
            self.message_user(request, nothing_deleted(str(refused)), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            try:
                self.delete_model(request, obj)
            except ServiceError as error:
                raise RefusedInSelection(f"{obj}: {self.refused_delete_reason(error)}") from error
