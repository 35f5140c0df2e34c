from django.contrib.admin.apps import AdminConfig


class OrganizationAdminConfig(AdminConfig):
    """django.contrib.admin with the organization website as its default site: `admin.site` and
    `@admin.register` are adminkit.site.OrganizationAdminSite, served at /admin/ by config/urls.py."""

    default_site = "adminkit.site.OrganizationAdminSite"
