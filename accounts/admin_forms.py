"""Forms of the organization website (accounts.admin): they read input; the services decide."""

import ipaddress

from django import forms
from django.core.exceptions import ValidationError

from .admin_site import administered_organizations
from .models import MODULES, ApiToken, Member, Role
from .services import InvalidRights, api_token_check_rights

RIGHT_CHOICES = [("", "none"), ("r", "r: read"), ("w", "w: write"), ("rw", "rw: read and write")]


def rights_field(module: str) -> str:
    return f"rights_{module}"


RIGHTS_FIELDS = [rights_field(module) for module in MODULES]

# One r/w/rw/none choice per module, in MODULES order.
_RightsFields = type(
    "_RightsFields",
    (forms.Form,),
    {
        rights_field(module): forms.ChoiceField(label=module, choices=RIGHT_CHOICES, required=False)
        for module in MODULES
    },
)


class ApiTokenForm(_RightsFields, forms.ModelForm):
    allowed_ips = forms.CharField(
        label="Allowed IP addresses",
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 40}),
        help_text="One address or CIDR range (such as 192.0.2.0/24) per line. Empty allows every address.",
    )

    # The login that saves the form, who will own a new token; set by ApiTokenAdmin.get_form.
    acting_user = None

    class Meta:
        model = ApiToken
        fields = ["description"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance._state.adding:
            for module in MODULES:
                self.initial.setdefault(rights_field(module), self.instance.rights.get(module, ""))
            self.initial.setdefault("allowed_ips", "\n".join(self.instance.allowed_ips))

    def clean_allowed_ips(self) -> list[str]:
        entries = [line.strip() for line in self.cleaned_data["allowed_ips"].splitlines() if line.strip()]
        wrong = []
        for entry in entries:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                wrong.append(entry)
        if wrong:
            raise ValidationError(
                "Not an IP address or CIDR range: %(entries)s", params={"entries": ", ".join(wrong)}, code="invalid"
            )
        return entries

    def rights(self) -> dict[str, str]:
        return {module: self.cleaned_data.get(rights_field(module)) or "" for module in MODULES}

    def clean(self):
        cleaned_data = super().clean()
        adding = self.instance._state.adding
        try:
            api_token_check_rights(rights=self.rights(), token=None if adding else self.instance)
        except InvalidRights as error:
            self.add_error(None, str(error))
        organization = cleaned_data.get("organization") or getattr(self.instance, "organization", None)
        if adding and organization is not None and organization not in administered_organizations(self.acting_user):
            # The API refuses a token whose owner is not an administrator of its organization.
            self.add_error(None, "You own the tokens you create: only an administrator of the organization can.")
        return cleaned_data

    def token_values(self) -> dict:
        """The keyword arguments of api_token_create and api_token_update."""
        return {
            "description": self.cleaned_data["description"],
            "rights": self.rights(),
            "allowed_ips": self.cleaned_data["allowed_ips"],
        }


class MemberForm(forms.ModelForm):
    roles = forms.MultipleChoiceField(choices=Role.choices, widget=forms.CheckboxSelectMultiple, required=False)

    class Meta:
        model = Member
        fields = ["member_number", "membership", "user_groups", "active", "locked"]  # MemberAdmin.fieldsets add more

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial.setdefault("roles", list(self.instance.roles.values_list("role", flat=True)))
