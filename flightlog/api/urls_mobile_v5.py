"""Mobile API v5 routes of the flightlog app (document 2)."""

urlpatterns: list = []
