from django.apps import AppConfig


class ApicoreConfig(AppConfig):
    name = "apicore"
    verbose_name = "API conventions"

    def ready(self):
        from django.urls import register_converter

        from . import database
        from .converters import IdConverter

        database.install()
        register_converter(IdConverter, "id")
