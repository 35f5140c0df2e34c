"""Addresses of the member website (../shared/DECISIONS.md "Addresses"): /login, /logout, /password-reset/...,
/account/, /account/apps (the app logins), /account/password.

The names are Django's own where its views and mail templates reverse them (login, password_reset_*).
"""

from django.urls import path

from . import website, website_account

urlpatterns = [
    path("login", website.LoginView.as_view(), name="login"),
    path("logout", website.LogoutView.as_view(), name="logout"),
    path("password-reset/", website.PasswordResetView.as_view(), name="password_reset"),
    path("password-reset/done", website.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>",
        website.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("password-reset/complete", website.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("account/", website.AccountView.as_view(), name="account"),
    path("account/apps", website_account.AccountAppsView.as_view(), name="account-apps"),
    path("account/apps/<int:login_id>/end", website_account.AccountAppEndView.as_view(), name="account-app-end"),
    path("account/password", website_account.AccountPasswordChangeView.as_view(), name="account-password"),
]
