from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self):
        from webhooks import tasks  # noqa: F401  (the services hand deliveries to them by name)
