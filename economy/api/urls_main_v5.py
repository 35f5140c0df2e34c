"""Main API v5 routes of this app."""

from django.urls import path

from .transactions_main_v5 import TransactionItem, TransactionList

urlpatterns = [
    path("transactions", TransactionList.as_view(), name="transactions"),
    path("transactions/<id:pk>", TransactionItem.as_view(), name="transaction"),
]
