"""The Mobile API v5's OAuth 2.1 endpoints (document 2): /oauth/authorize, /oauth/token, /oauth/revoke."""

from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from mobile_api.oauth_v5 import MobileAuthorizeView, MobileRevokeView, MobileTokenView

urlpatterns = [
    path("authorize", MobileAuthorizeView.as_view(), name="oauth-authorize"),
    path("token", csrf_exempt(MobileTokenView.as_view()), name="oauth-token"),
    path("revoke", csrf_exempt(MobileRevokeView.as_view()), name="oauth-revoke"),
]
