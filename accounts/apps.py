from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Members and organizations"

    def ready(self):
        from . import signals  # noqa: F401
