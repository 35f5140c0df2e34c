"""Inlines of the organization website: allowed what their parent page is, or only seen."""

from django.contrib import admin
from django.forms import ModelChoiceField

from adminkit.site import organization_form, scoped_choices


class ParentPermissionInline(admin.TabularInline):
    """An inline that may do what its parent page may (the site's rule, not Django's model permissions). Its
    rows' relation choices are scoped as the page's are (adminkit.site.OrganizationScopedAdmin), with the
    inline's own `shared_choices`, `current_choice_kept` and `unscoped_choices`."""

    shared_choices: tuple[str, ...] = ()
    current_choice_kept: tuple[str, ...] = ()
    unscoped_choices: dict[str, str] = {}

    def _parent(self):
        return self.admin_site._registry[self.parent_model]

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        organization = self.admin_site.current_organization(request)
        if organization is None:
            return formset
        formset.form = organization_form(formset.form, self, organization)
        return type(formset.__name__, (_OrganizationRowsFormSet, formset), {"scoped": organization})

    def has_view_permission(self, request, obj=None):
        return self._parent().has_view_permission(request, obj)

    def has_add_permission(self, request, obj=None):
        parent = self._parent()
        return parent.has_change_permission(request, obj) if obj else parent.has_add_permission(request)

    def has_change_permission(self, request, obj=None):
        return self.has_add_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        return self.has_add_permission(request, obj)


class ReadOnlyInline(ParentPermissionInline):
    """Seen where its parent page is seen; never added to, changed or deleted on the page."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class _OrganizationRowsFormSet:
    """The hidden id of each inline row names one of the organization's rows only (Django's formset adds that
    field after the row's form is made, with every row of the table as its choices)."""

    scoped = None

    def add_fields(self, form, index):
        super().add_fields(form, index)
        field = form.fields.get(self.model._meta.pk.name)
        if isinstance(field, ModelChoiceField):
            field.queryset = scoped_choices(field.queryset, self.scoped)
