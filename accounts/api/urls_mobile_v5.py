"""Mobile API v5 member endpoints of the accounts app: GET /client, GET /me."""

from django.urls import path

from . import mobile_v5

urlpatterns = [
    path("client", mobile_v5.ClientView.as_view(), name="client"),
    path("me", mobile_v5.MeView.as_view(), name="me"),
]
