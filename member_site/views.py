"""The member website: login and logout, 'Reset my password' and the member's own account page.

Texts are in the member's language (../shared/DECISIONS.md "Languages"): Accept-Language through LocaleMiddleware,
or the login page's `cl` parameter (se, gb, no, dk), which picks the language for that request
(docs/decisions.md §11.12 "Member website: language").
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import redirect
from django.urls import reverse_lazy
from django.utils.translation import gettext
from django.views.generic import TemplateView

from accounts.forms import MemberLoginForm, MemberPasswordResetForm
from accounts.models import Member
from apicore.language import ClLanguageMixin
from member_site.forms import ContactVisibilityForm


class FailedLoginLimitMixin:
    """A form refused because the username used up its failed logins (the form's `retry_after`) comes back
    with status 429 and `Retry-After`."""

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(form.retry_after)
        return response


class LoginView(ClLanguageMixin, FailedLoginLimitMixin, auth_views.LoginView):
    """GET shows the form; POST logs in and goes to `next` or the account page. When the username's failed
    logins have reached the shared limit, the form comes back with status 429 and `Retry-After`.

    As the first step of an app's sign-in (the query of GET /mobile/v5/oauth/authorize), the page names the
    app and the organization, and the login goes on to the consent page with the same query.
    """

    form_class = MemberLoginForm
    template_name = "registration/login.html"
    redirect_authenticated_user = True
    next_page = reverse_lazy("account")

    def get_success_url(self):
        from mobile_api.consent import consent_url, is_oauth_query

        if is_oauth_query(self.request):
            return consent_url(self.request)
        return super().get_success_url()

    def get_context_data(self, **kwargs):
        from mobile_api.consent import oauth_login_brand

        context = super().get_context_data(**kwargs)
        context["oauth_brand"] = oauth_login_brand(self.request)
        return context

    def form_valid(self, form):
        user = form.get_user()
        if not hasattr(user, "backend"):
            # The form checked the password itself; the session records the backend that loads the user.
            user.backend = settings.AUTHENTICATION_BACKENDS[0]
        return super().form_valid(form)


class LogoutView(ClLanguageMixin, auth_views.LogoutView):
    """POST only (Django's rule): ends the session and shows the login page."""

    next_page = reverse_lazy("login")


class PasswordResetView(ClLanguageMixin, auth_views.PasswordResetView):
    form_class = MemberPasswordResetForm
    template_name = "registration/password_reset_form.html"


class PasswordResetDoneView(ClLanguageMixin, auth_views.PasswordResetDoneView):
    template_name = "registration/password_reset_done.html"


class PasswordResetConfirmView(ClLanguageMixin, auth_views.PasswordResetConfirmView):
    template_name = "registration/password_reset_confirm.html"


class PasswordResetCompleteView(ClLanguageMixin, auth_views.PasswordResetCompleteView):
    template_name = "registration/password_reset_complete.html"


class AccountView(ClLanguageMixin, LoginRequiredMixin, TemplateView):
    """The logged-in member's name, the organizations where the login is a member, and whether other members
    see the member's email address and mobile number (POST saves that choice and shows the page again)."""

    template_name = "account/index.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["members"] = (
            Member.objects.filter(user=self.request.user)
            .select_related("organization", "membership")
            .order_by("organization__name", "organization_id")
        )
        context.setdefault("visibility_form", ContactVisibilityForm(user=self.request.user))
        return context

    def post(self, request, *args, **kwargs):
        form = ContactVisibilityForm(request.POST, user=request.user)
        if not form.is_valid():
            return self.render_to_response(self.get_context_data(visibility_form=form))
        form.save()
        messages.success(request, gettext("Your choices are saved."))
        return redirect("account")
