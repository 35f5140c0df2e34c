from django.apps import AppConfig


class MainApiConfig(AppConfig):
    """The Main API: API tokens, client credentials, its limits, its flavours and its URL root."""

    name = "main_api"
    verbose_name = "Main API"

    def ready(self):
        from main_api import signals  # noqa: F401  (the token cache's revision stamps)
