from django.apps import AppConfig


class MobileApiConfig(AppConfig):
    """The Mobile API: app clients, the OAuth 2.1 sign-in with its login and consent pages, members' app
    logins, blocked addresses, its limits, its flavours and its URL root."""

    name = "mobile_api"
    verbose_name = "Mobile API"

    def ready(self):
        from mobile_api import signals  # noqa: F401  (new stamps for the cached callers)
        from mobile_api.services import logins  # noqa: F401  (ends app logins when a password changes)
