from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FlightlogConfig(AppConfig):
    name = "flightlog"
    verbose_name = _("Flight log")
