from django.apps import AppConfig


class ObjectsAppConfig(AppConfig):
    name = "objects_app"
