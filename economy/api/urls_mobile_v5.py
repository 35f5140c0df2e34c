"""Mobile API v5 routes of the economy app (document 2)."""

from django.urls import path

from .transactions_mobile_v5 import MobileTransactionItem, MobileTransactionList

urlpatterns = [
    path("transactions", MobileTransactionList.as_view(), name="transactions"),
    path("transactions/<id:pk>", MobileTransactionItem.as_view(), name="transaction"),
]
