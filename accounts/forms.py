"""Forms of the member website: login under the shared limit of failed logins, and password reset."""

import math

from django import forms
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm, PasswordResetForm
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts import login_limits
from accounts.models import User
from accounts.services import logins
from apicore.client_ip import client_ip
from apicore.errors import ServiceError


class MemberLoginForm(AuthenticationForm):
    """Username (any letter case; NFKC, so full-width letters are the letters) and password, checked by the
    same code as POST /login-checks. A username with invisible characters or mixed scripts is refused on its
    field (accounts.usernames) and counts no failure.

    Before the password is looked at, the client address's and the username's failed logins are checked against
    their limits; when one is reached, the form carries `retry_after` (seconds) and one error asking to wait.
    Every wrong login counts, unknown usernames included.
    """

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _("Wrong username or password."),
        "too_many_failed_logins": _("Too many failed logins for this username."),
        "too_many_failed_logins_from_address": _("Too many failed logins from your address."),
        "invalid_username": _("A username has no invisible characters or spaces, and its letters are of one script."),
    }

    def __init__(self, request=None, *args, **kwargs):
        super().__init__(request, *args, **kwargs)
        self.retry_after: int | None = None

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is not None and password:
            try:
                address = client_ip(self.request) if self.request is not None else ""
                user = logins.verify_login(self.request, username=username, password=password, address=address)
            except ServiceError:  # a username no login can have (accounts.usernames)
                message = self.error_messages["invalid_username"]
                raise ValidationError({"username": message}, code="invalid_username") from None
            except login_limits.TooManyFailedLogins as blocked:
                self.retry_after = blocked.retry_after
                raise self.too_many_failed_logins_error(blocked.retry_after, of=blocked.of) from None
            if user is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(user)
            self.user_cache = user
        return self.cleaned_data

    def too_many_failed_logins_error(self, retry_after: int, of: str = "username") -> ValidationError:
        minutes = max(math.ceil(retry_after / 60), 1)
        wait = ngettext(
            "Wait %(minutes)d minute and try again.", "Wait %(minutes)d minutes and try again.", minutes
        ) % {"minutes": minutes}
        reason = self.error_messages[
            "too_many_failed_logins_from_address" if of == "address" else "too_many_failed_logins"
        ]
        return ValidationError(f"{reason} {wait}", code="too_many_failed_logins")


class MemberPasswordChangeForm(PasswordChangeForm):
    """Django's form, where a wrong old password counts as a failed login of the username (the shared limit):
    a session left open is no way to guess the password, nor to get past the login page's limit."""

    def __init__(self, user, *args, request=None, **kwargs):
        super().__init__(user, *args, **kwargs)
        self.request = request
        self.retry_after: int | None = None

    def clean_old_password(self):
        username = self.user.get_username()
        try:
            login_limits.ensure_not_blocked(self.request, username)
        except login_limits.TooManyFailedLogins as blocked:
            self.retry_after = blocked.retry_after
            raise MemberLoginForm.too_many_failed_logins_error(MemberLoginForm(), blocked.retry_after) from None
        try:
            return super().clean_old_password()
        except ValidationError:
            login_limits.count_failure(self.request, username)
            raise


class MemberPasswordResetForm(PasswordResetForm):
    """'Reset my password' for any login with the address among its emails.

    Unlike Django's form, logins without a usable password are included: a login created through the API has
    none until the person sets one here. Stopped logins (`locked_login`, inactive) get nothing. The mail goes
    to the address as stored on the login.
    """

    email = forms.EmailField(label=_("Email"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"}))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._addresses: dict[int, str] = {}

    def get_users(self, email):
        matching = (
            User.objects.filter(Q(emails__address__iexact=email) | Q(email__iexact=email))
            .filter(is_active=True, locked_login=False)
            .prefetch_related("emails")
            .distinct()
        )
        for user in matching:
            stored = [item.address for item in user.emails.all()] + [user.email]
            address = next((value for value in stored if value and value.casefold() == email.casefold()), None)
            if address is None:  # a match of the database's case folding only
                continue
            self._addresses[user.pk] = address
            yield user

    def send_mail(self, subject_template_name, email_template_name, context, from_email, to_email, **kwargs):
        to_email = self._addresses.get(context["user"].pk, to_email)
        context = {**context, "email": to_email}
        super().send_mail(subject_template_name, email_template_name, context, from_email, to_email, **kwargs)
