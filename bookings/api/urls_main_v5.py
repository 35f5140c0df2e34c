"""Main API v5 routes of this app."""

from django.urls import path

from .bookings_main_v5 import BookingItem, BookingList

urlpatterns = [
    path("bookings", BookingList.as_view(), name="bookings"),
    path("bookings/<id:pk>", BookingItem.as_view(), name="booking"),
]
