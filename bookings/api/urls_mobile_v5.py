"""Mobile API v5 routes of the bookings app (document 2)."""

urlpatterns: list = []
