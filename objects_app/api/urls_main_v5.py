"""Main API v5 routes of this app."""

from django.urls import path

from .objects_main_v5 import ObjectItem, ObjectList, RemarkItem, RemarkList

urlpatterns = [
    path("objects", ObjectList.as_view(), name="objects"),
    path("objects/<id:pk>", ObjectItem.as_view(), name="object"),
    path("remarks", RemarkList.as_view(), name="remarks"),
    path("remarks/<id:pk>", RemarkItem.as_view(), name="remark"),
]
