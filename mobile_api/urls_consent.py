"""The member website's part of the Mobile API sign-in: the consent page after the login page, the member's own
(`Cache-Control: private, no-store`, docs/decisions.md §11.20)."""

from django.urls import path
from django.views.decorators.cache import cache_control

from mobile_api import consent as website_oauth

urlpatterns = [
    path(
        "login/allow",
        cache_control(private=True, no_store=True)(website_oauth.ConsentView.as_view()),
        name="login-allow",
    ),
]
