"""Mobile API v5 routes of the bookings app (document 2)."""

from django.urls import path

from .bookings_mobile_v5 import BookingCancel, BookingCut, BookingItem, BookingList

urlpatterns = [
    path("bookings", BookingList.as_view(), name="bookings"),
    path("bookings/<id:pk>", BookingItem.as_view(), name="booking"),
    path("bookings/<id:pk>/cut", BookingCut.as_view(), name="booking-cut"),
    path("bookings/<id:pk>/cancel", BookingCancel.as_view(), name="booking-cancel"),
]
