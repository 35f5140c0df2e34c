"""Addresses of the member website (../shared/DECISIONS.md "Addresses"): /login, /logout, /password-reset/...,
/account/, /account/apps (the app logins), /account/password.

The names are Django's own where its views and mail templates reverse them (login, password_reset_*). Every page
is the member's own: `Cache-Control: private, no-store` (docs/decisions.md §11.20).
"""

from django.urls import path
from django.views.decorators.cache import cache_control

from member_site import account, views

# The member's own pages: kept by no cache, shared or the browser's.
private_page = cache_control(private=True, no_store=True)

urlpatterns = [
    path("login", private_page(views.LoginView.as_view()), name="login"),
    path("logout", private_page(views.LogoutView.as_view()), name="logout"),
    path("password-reset/", private_page(views.PasswordResetView.as_view()), name="password_reset"),
    path("password-reset/done", private_page(views.PasswordResetDoneView.as_view()), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>",
        private_page(views.PasswordResetConfirmView.as_view()),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/complete",
        private_page(views.PasswordResetCompleteView.as_view()),
        name="password_reset_complete",
    ),
    path("account/", private_page(views.AccountView.as_view()), name="account"),
    path("account/apps", private_page(account.AccountAppsView.as_view()), name="account-apps"),
    path(
        "account/apps/<int:login_id>/end",
        private_page(account.AccountAppEndView.as_view()),
        name="account-app-end",
    ),
    path("account/password", private_page(account.AccountPasswordChangeView.as_view()), name="account-password"),
]
