"""The member website's part of the Mobile API sign-in: the consent page after the login page."""

from django.urls import path

from mobile_api import consent as website_oauth

urlpatterns = [
    path("login/allow", website_oauth.ConsentView.as_view(), name="login-allow"),
]
