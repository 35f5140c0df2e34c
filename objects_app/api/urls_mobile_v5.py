"""Mobile API v5 routes of the objects_app app (document 2)."""

from django.urls import path

from .objects_mobile_v5 import ObjectItem, ObjectList, ObjectThumbnail

urlpatterns = [
    path("objects", ObjectList.as_view(), name="objects"),
    path("objects/<id:pk>", ObjectItem.as_view(), name="object"),
    path("objects/<id:pk>/thumbnail", ObjectThumbnail.as_view(), name="object-thumbnail"),
]
