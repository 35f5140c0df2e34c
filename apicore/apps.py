from django.apps import AppConfig


class ApicoreConfig(AppConfig):
    name = "apicore"
    verbose_name = "API conventions"
