"""Mobile API v5 routes of the flightlog app (document 2)."""

from django.urls import path

from .flightlogs_mobile_v5 import MobileFlightItem, MobileFlightList

urlpatterns = [
    path("flightlogs", MobileFlightList.as_view(), name="flightlogs"),
    path("flightlogs/<id:pk>", MobileFlightItem.as_view(), name="flightlog"),
]
