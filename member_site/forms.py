"""Forms of the member website's own pages (the login forms every site shares are accounts.forms)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class ContactVisibilityForm(forms.Form):
    """The member's own choice whether other members see their email address and mobile number (beside
    bookings, in the APIs: a hidden value is null). One choice per login, the same in every organization."""

    email_visible = forms.BooleanField(label=_("Show my email address to other members"), required=False)
    mobile_visible = forms.BooleanField(label=_("Show my mobile number to other members"), required=False)

    def __init__(self, *args, user, **kwargs):
        kwargs.setdefault("initial", {"email_visible": user.email_visible, "mobile_visible": user.mobile_visible})
        super().__init__(*args, **kwargs)
        self.user = user

    def save(self) -> None:
        """Store the two choices on the login (only these columns: nothing else of the login changes)."""
        self.user.email_visible = self.cleaned_data["email_visible"]
        self.user.mobile_visible = self.cleaned_data["mobile_visible"]
        # A save, not a queryset update: its signal renews the stamps of the APIs' cached callers.
        self.user.save(update_fields=["email_visible", "mobile_visible"])
