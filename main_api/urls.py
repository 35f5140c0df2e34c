"""The Main API's URL root (/main/v5/): its own token endpoints, then each app's Main v5 routes."""

from django.urls import include, path

from main_api.api_v5 import TokenView
from main_api.oauth_v5 import MainTokenView

main_v5 = [
    path("oauth/token", MainTokenView.as_view(), name="oauth-token"),
    path("token", TokenView.as_view(), name="token"),
    path("", include("accounts.api.urls_main_v5")),
    path("", include("objects_app.api.urls_main_v5")),
    path("", include("bookings.api.urls_main_v5")),
    path("", include("flightlog.api.urls_main_v5")),
    path("", include("economy.api.urls_main_v5")),
]
