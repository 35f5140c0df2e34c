from django.apps import AppConfig


class FlightlogConfig(AppConfig):
    name = "flightlog"
