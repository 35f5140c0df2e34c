"""Main API v5 routes of this app."""

urlpatterns: list = []
