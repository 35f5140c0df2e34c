"""Inlines of the organization website: allowed what their parent page is, or only seen."""

from django.contrib import admin


class ParentPermissionInline(admin.TabularInline):
    """An inline that may do what its parent page may (the site's rule, not Django's model permissions)."""

    def _parent(self):
        return self.admin_site._registry[self.parent_model]

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
