from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EconomyConfig(AppConfig):
    name = "economy"
    verbose_name = _("Economy")

    def ready(self):
        from economy import receivers  # noqa: F401
