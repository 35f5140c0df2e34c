"""Mobile API v5 routes of the objects_app app (document 2)."""

urlpatterns: list = []
