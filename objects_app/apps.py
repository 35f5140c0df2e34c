from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ObjectsAppConfig(AppConfig):
    name = "objects_app"
    verbose_name = _("Objects")
