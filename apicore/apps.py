from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApicoreConfig(AppConfig):
    name = "apicore"
    verbose_name = _("API conventions")

    def ready(self):
        from django.urls import register_converter

        from apicore import database
        from apicore.converters import IdConverter

        database.install()
        from django.core import checks

        from apicore.openapi import documents_check

        checks.register(documents_check, checks.Tags.urls, deploy=True)
        register_converter(IdConverter, "id")
