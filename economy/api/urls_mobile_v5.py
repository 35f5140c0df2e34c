"""Mobile API v5 routes of the economy app (document 2)."""

urlpatterns: list = []
