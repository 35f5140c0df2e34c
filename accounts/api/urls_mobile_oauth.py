"""The Mobile API v5's OAuth 2.1 endpoints (document 2): /oauth/authorize, /oauth/token, /oauth/revoke."""

urlpatterns: list = []
