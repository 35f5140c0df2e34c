from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo world and the benchmark club: `manage.py demo`, `make run`, bench/."""

    name = "demo"
