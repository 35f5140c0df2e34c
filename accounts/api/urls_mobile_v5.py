"""Mobile API v5 member endpoints of the accounts app: GET /client, GET /me."""

urlpatterns: list = []
