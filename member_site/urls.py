"""Addresses of the member website (../shared/DECISIONS.md "Addresses"): /login, /logout, /password-reset/...,
/account/, /account/apps (the app logins), /account/password.

The names are Django's own where its views and mail templates reverse them (login, password_reset_*).
"""

from django.urls import path

from member_site import account, views

urlpatterns = [
    path("login", views.LoginView.as_view(), name="login"),
    path("logout", views.LogoutView.as_view(), name="logout"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("password-reset/done", views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>",
        views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("password-reset/complete", views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("account/", views.AccountView.as_view(), name="account"),
    path("account/apps", account.AccountAppsView.as_view(), name="account-apps"),
    path("account/apps/<int:login_id>/end", account.AccountAppEndView.as_view(), name="account-app-end"),
    path("account/password", account.AccountPasswordChangeView.as_view(), name="account-password"),
]
