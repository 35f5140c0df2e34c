"""The member website's account pages beside /account/: the app logins (issue 10, point 3) and the password.

/account/apps lists the person's working Mobile API logins (app, developer, organization, device, when logged in
and last renewed, in that organization's local time) with a button that ends each one; /account/password
changes the password, which ends every app login (accounts.models.User.save, the one place for every way a
password changes).
"""

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse_lazy
from django.utils.translation import gettext
from django.views import View
from django.views.generic import TemplateView

from accounts.forms import MemberPasswordChangeForm
from apicore import clock
from apicore.language import ClLanguageMixin
from member_site.views import FailedLoginLimitMixin
from mobile_api.models import MobileLogin
from mobile_api.services.logins import mobile_login_end, mobile_logins_of_user

# 24-hour clock with the zone's abbreviation, 2026-11-25 13:00 CET: a person in several clubs may see logins
# in different zones.
LOGIN_TIME = "%Y-%m-%d %H:%M %Z"


class AccountAppsView(ClLanguageMixin, LoginRequiredMixin, TemplateView):
    """The logged-in person's app logins that still work, newest use first, each with 'End this login'."""

    template_name = "account/apps.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["logins"] = [
            {
                "id": login.pk,
                "app_name": login.app_client.app_name,
                "developer": login.app_client.name,
                "organization": login.member.organization.name,
                "device_name": login.device_name,
                "created": clock.local_text(login.created_at, login.member.organization.timezone, LOGIN_TIME),
                "last_used": clock.local_text(login.last_used_at, login.member.organization.timezone, LOGIN_TIME),
            }
            for login in mobile_logins_of_user(user=self.request.user)
        ]
        return context


class AccountAppEndView(ClLanguageMixin, LoginRequiredMixin, View):
    """POST only: ends one of the person's own app logins (another person's, or no such login: 404) and goes
    back to the list with a message. A login that has already ended stays as it is."""

    def post(self, request, login_id: int):
        login = get_object_or_404(
            MobileLogin.objects.select_related("app_client"), pk=login_id, member__user=request.user
        )
        if login.ended_at is None:
            mobile_login_end(login=login, reason=MobileLogin.EndReason.MEMBER)
        messages.success(
            request,
            gettext("The login of %(app)s on %(device)s has ended. The app has to log in again.")
            % {"app": login.app_client.app_name, "device": login.device_name or gettext("an unnamed device")},
        )
        return redirect("account-apps")


class AccountPasswordChangeView(ClLanguageMixin, FailedLoginLimitMixin, auth_views.PasswordChangeView):
    """Django's page (old password, new one twice, the validators; the session stays logged in), which goes
    back to the account page with a message. Saving the password ends every app login (User.save)."""

    template_name = "account/password_change.html"
    success_url = reverse_lazy("account")
    form_class = MemberPasswordChangeForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_valid(self, form):
        response = super().form_valid(form)
        messages.success(
            self.request,
            gettext("Your new password is saved. Every app you were logged in to has to log in again."),
        )
        return response
