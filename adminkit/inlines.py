"""Inlines of the organization website: allowed what their parent page is, or only seen."""

from django.contrib import admin

from adminkit.site import organization_form


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
        formset.form = organization_form(formset.form, self, self.admin_site.current_organization(request))
        return formset

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
