"""The Mobile API's URL root (/mobile/v5/): its sign-in and GET /client, then each app's Mobile v5 routes."""

from django.urls import include, path

from mobile_api.api_v5 import ClientView

mobile_v5 = [
    path("oauth/", include("mobile_api.urls_oauth")),
    path("client", ClientView.as_view(), name="client"),
    path("", include("accounts.api.urls_mobile_v5")),
    path("", include("objects_app.api.urls_mobile_v5")),
    path("", include("bookings.api.urls_mobile_v5")),
    path("", include("flightlog.api.urls_mobile_v5")),
    path("", include("economy.api.urls_mobile_v5")),
]
