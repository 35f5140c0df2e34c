"""Main API v5 routes of this app."""

from django.urls import path

from .flightlogs_main_v5 import ApprovedFlightTypeList, FlightItem, FlightList, FlightTypeList

urlpatterns = [
    path("flightlogs", FlightList.as_view(), name="flightlogs"),
    path("flightlogs/<id:pk>", FlightItem.as_view(), name="flightlog"),
    path("flight-types", FlightTypeList.as_view(), name="flight-types"),
    path("users/<id:pk>/approved-flight-types", ApprovedFlightTypeList.as_view(), name="user-approved-flight-types"),
]
