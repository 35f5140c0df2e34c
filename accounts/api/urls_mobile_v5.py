"""Mobile API v5 member endpoints of the accounts app: GET /me, GET /organization,
GET /organization/settings, GET /sun-times."""

from django.urls import path

from accounts.api import mobile_org_v5, mobile_v5

urlpatterns = [
    path("me", mobile_v5.MeView.as_view(), name="me"),
    path("organization", mobile_org_v5.OrganizationView.as_view(), name="organization"),
    path("organization/settings", mobile_org_v5.SettingList.as_view(), name="organization-settings"),
    path("sun-times", mobile_org_v5.SunTimesView.as_view(), name="sun-times"),
]
