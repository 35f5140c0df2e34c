from django.urls import path

from accounts.api import main_v5, users_main_v5
from accounts.api.expiry_dates_main_v5 import ExpiryDateList, UserExpiryDateItem, UserExpiryDateList
from accounts.api.login_checks_main_v5 import LoginCheckView

urlpatterns = [
    path("organization", main_v5.OrganizationView.as_view(), name="organization"),
    path("memberships", main_v5.MembershipList.as_view(), name="memberships"),
    path("memberships/<id:pk>", main_v5.MembershipItem.as_view(), name="membership"),
    path("user-groups", main_v5.UserGroupList.as_view(), name="user-groups"),
    path("user-groups/<id:pk>", main_v5.UserGroupItem.as_view(), name="user-group"),
    path("expiry-date-types", main_v5.ExpiryDateTypeList.as_view(), name="expiry-date-types"),
    path("expiry-date-types/<id:pk>", main_v5.ExpiryDateTypeItem.as_view(), name="expiry-date-type"),
    path("expiry-dates", ExpiryDateList.as_view(), name="expiry-dates"),
    path("users/<id:pk>/expiry-dates", UserExpiryDateList.as_view(), name="user-expiry-dates"),
    path("users/<id:pk>/expiry-dates/<id:type_id>", UserExpiryDateItem.as_view(), name="user-expiry-date"),
    path("users", users_main_v5.UserList.as_view(), name="users"),
    path("users/<id:pk>", users_main_v5.UserItem.as_view(), name="user"),
    path("login-checks", LoginCheckView.as_view(), name="login-checks"),
]
