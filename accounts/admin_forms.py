"""Forms of the organization website (accounts.admin): they read input; the services decide."""

import ipaddress

from django import forms
from django.contrib.admin.widgets import AdminDateWidget
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.text import capfirst
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from apicore.exceptions import ServiceError
from objects_app.models import BookableObject

from .admin_site import administered_organizations
from .expiry import NEVER_EXPIRES
from .models import MODULES, ApiToken, ExpiryDateType, Member, Role, User, UserExpiryDate
from .services import EXPIRY_TYPE_SETTINGS, InvalidRights, api_token_check_rights

RIGHT_CHOICES = [("", _("none")), ("r", _("r: read")), ("w", _("w: write")), ("rw", _("rw: read and write"))]


def rights_field(module: str) -> str:
    return f"rights_{module}"


RIGHTS_FIELDS = [rights_field(module) for module in MODULES]


class _Rights:
    """The `rights` dict of a token or client (module to r, w or rw) as one choice field per module."""

    rights_modules: tuple[str, ...] = ()

    def rights(self) -> dict[str, str]:
        return {module: self.cleaned_data.get(rights_field(module)) or "" for module in self.rights_modules}

    def show_stored_rights(self, asked: dict) -> None:
        """The stored rights on the change page, unless the page was opened with others (?rights_users=r)."""
        for module in self.rights_modules:
            if rights_field(module) not in asked:
                self.initial[rights_field(module)] = self.instance.rights.get(module, "")


def rights_fields(modules) -> type[forms.Form]:
    """A form base with one r/w/rw/none choice per module, in the order given."""
    fields = {
        rights_field(module): forms.ChoiceField(label=module, choices=RIGHT_CHOICES, required=False)
        for module in modules
    }
    return type("RightsFields", (_Rights, forms.Form), {**fields, "rights_modules": tuple(modules)})


_RightsFields = rights_fields(MODULES)


class AddressListField(forms.CharField):
    """Addresses or CIDR ranges, one a line in a text box; the value is the list that ApiToken.allowed_ips keeps.

    The box shows a stored list one entry a line, whether the list comes from the token or the form's initial
    data (a ModelForm puts the model field's list there), and an unchanged box is not a change.
    """

    widget = forms.Textarea(attrs={"rows": 4, "cols": 40})

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return "\n".join(str(entry) for entry in value)
        return value

    def to_python(self, value) -> list[str]:
        text = super().to_python(value)
        return [line.strip() for line in text.splitlines() if line.strip()]

    def validate(self, value):
        super().validate(value)
        wrong = []
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                wrong.append(entry)
        if wrong:
            raise ValidationError(
                _("Not an IP address or CIDR range: %(entries)s"), params={"entries": ", ".join(wrong)}, code="invalid"
            )

    def has_changed(self, initial, data) -> bool:
        if self.disabled:
            return False
        initial_entries = initial if isinstance(initial, list | tuple) else self.to_python(initial or "")
        return list(initial_entries) != self.to_python(data or "")


class ApiTokenForm(_RightsFields, forms.ModelForm):
    allowed_ips = AddressListField(
        label=_("Allowed IP addresses"),
        required=False,
        help_text=_("One address or CIDR range (such as 192.0.2.0/24) per line. Empty allows every address."),
    )

    # The login that saves the form, who will own a new token; set by ApiTokenAdmin.get_form.
    acting_user = None

    class Meta:
        model = ApiToken
        fields = ["description"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.instance._state.adding:
            # The token's own values, unless the page was opened with others (?rights_users=r): the ModelForm
            # has already put the stored allowed_ips list there, which AddressListField shows one a line.
            asked = kwargs.get("initial") or {}
            self.show_stored_rights(asked)
            if "allowed_ips" not in asked:
                self.initial["allowed_ips"] = list(self.instance.allowed_ips)

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
            self.add_error(
                None, gettext("You own the tokens you create: only an administrator of the organization can.")
            )
        return cleaned_data

    def token_values(self) -> dict:
        """The keyword arguments of api_token_create and api_token_update."""
        return {
            "description": self.cleaned_data["description"],
            "rights": self.rights(),
            "allowed_ips": self.cleaned_data["allowed_ips"],
        }


# --- a service's refusal, shown on the form -------------------------------------------------------------


class RefusalErrors:
    """Form mixin for pages saved through services (accounts.admin.ServiceSavedAdmin).

    When a service refuses (ServiceError), the admin undoes everything and validates the same POST again with
    `refusal` set: {form prefix (None for the page's main form): [(field or None, message)]}; `clean` puts
    those errors on the form, so that the page is shown again with them and nothing is saved.
    """

    refusal: dict | None = None
    # A problem's field in the service's terms ("address", "phone.mobile.country_code") to this form's fields.
    problem_field_map: dict[str, list[str]] = {}

    def clean(self):
        cleaned_data = super().clean()
        for field, message in (self.refusal or {}).get(self.prefix, []):
            self.add_error(field if field in self.fields else None, message)
        return cleaned_data

    def fields_of_problem(self, name: str) -> list[str]:
        """The form fields a service's FieldProblem names: the changed ones of a group, else its first."""
        group = self.problem_field_map.get(name) or next(
            (fields for prefix, fields in self.problem_field_map.items() if name.startswith(f"{prefix}[")), None
        )
        if group is None:
            return [name] if name in self.fields else []
        group = [field for field in group if field in self.fields]
        return [field for field in group if field in self.changed_data] or group[:1]

    def instance_label(self) -> str:
        return str(self.instance)

    def refusal_errors(self, error: ServiceError, *, with_detail: bool = True) -> list[tuple[str | None, str]]:
        """The refusal as errors of this form: the problems on their fields, the detail above the form."""
        errors = []
        for problem in error.errors:
            fields = self.fields_of_problem(problem.field) if problem.field else []
            errors += [(field, problem.message) for field in fields or [None]]
        detail = (None, error.detail or str(error))
        if (with_detail or not errors) and detail not in errors:  # a rule's text is its detail and its problem
            errors.insert(0, detail)
        return errors


# --- members ---------------------------------------------------------------------------------------------


def _user_field(column: str, **kwargs) -> forms.Field:
    """A form field like the login's column (its label and maximum length)."""
    return User._meta.get_field(column).formfield(**kwargs)


EMAIL_FIELDS = ["email_1", "email_2"]
ADDRESS_FIELDS = ["street_address_1", "street_address_2", "postal_code", "city", "country"]
PHONE_FIELDS = ["phone_home", "phone_work", "mobile_country_code", "mobile_initial_number", "mobile_number"]
EMERGENCY_FIELDS = ["emergency_contact_name", "emergency_contact_phone", "emergency_contact_relation"]
ACCESS_CARD_FIELDS = ["access_card_number", "access_card_code", "access_card_expiry_date"]
NAME_FIELDS = ["first_name", "last_name_particle", "last_name"]
# The services' nested keys to the form's fields.
_MOBILE = {"country_code": "mobile_country_code", "initial_number": "mobile_initial_number", "number": "mobile_number"}
_EMERGENCY = dict(zip(["name", "phone", "relation"], EMERGENCY_FIELDS, strict=True))
_ACCESS_CARD = dict(zip(["number", "code", "expiry_date"], ACCESS_CARD_FIELDS, strict=True))
# The login's columns shown one to one.
USER_COLUMNS = [*NAME_FIELDS, *ADDRESS_FIELDS, *PHONE_FIELDS, "personal_identification_number", *EMERGENCY_FIELDS]
# The member record's columns that user_update writes (with its rules: the trial limit for `active`).
MEMBER_SERVICE_COLUMNS = ["active", "misc_info", "internal_notes", *ACCESS_CARD_FIELDS]
# The member record's columns without a rule, saved as they are.
MEMBER_PLAIN_COLUMNS = ["member_number", "membership", "locked", "annual_fee", "external_customer_number"]

_ContactFields = type(
    "_ContactFields",
    (forms.Form,),
    {
        "username": _user_field(
            "username",
            help_text=_(
                "Must start with the organization id and a dash; the member sets a password with 'Reset my password'."
            ),
        ),
        **{column: _user_field(column, required=column in ("first_name", "last_name")) for column in USER_COLUMNS},
        "email_1": forms.EmailField(label=_("Email"), required=False),
        "email_2": forms.EmailField(label=_("Second email"), required=False),
        "active": forms.BooleanField(
            label=capfirst(Member._meta.get_field("active").verbose_name), required=False, initial=True
        ),
        **{column: Member._meta.get_field(column).formfield() for column in MEMBER_SERVICE_COLUMNS[1:]},
    },
)


class MemberForm(RefusalErrors, _ContactFields, forms.ModelForm):
    """A member with the login's data. It only reads input; MemberAdmin saves through user_create and
    user_update, which decide (duplicates, the trial limit, who may change a login's name and contact data).

    On a change, a field of the login or a service-written member field that the POST leaves out keeps its
    value (as Django does for model fields with a default), so only what is sent is changed.
    """

    roles = forms.MultipleChoiceField(
        label=_("Roles"), choices=Role.choices, widget=forms.CheckboxSelectMultiple, required=False
    )

    problem_field_map = {
        "membership_id": ["membership"],
        "user_groups": ["user_groups"],
        "phone.mobile.country_code": ["mobile_country_code"],
        "email": EMAIL_FIELDS,
        "address": ADDRESS_FIELDS,
        "phone": PHONE_FIELDS,
        "emergency_contact": EMERGENCY_FIELDS,
        "access_card": ACCESS_CARD_FIELDS,
    }

    class Meta:
        model = Member
        fields = [*MEMBER_PLAIN_COLUMNS, "user_groups"]  # MemberAdmin's fieldsets add the declared fields

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.adding = self.instance._state.adding
        if self.adding:
            del self.fields["active"]  # a new member is active (within the trial limit)
            self.fields["member_number"].required = False
            self.fields["member_number"].help_text = _("Empty: the highest member number plus one.")
            self.fields["membership"].required = True
            return
        del self.fields["username"]
        user = self.instance.user
        for column in USER_COLUMNS:
            self.initial.setdefault(column, getattr(user, column))
        for name, email in zip(EMAIL_FIELDS, user.emails.all(), strict=False):
            self.initial.setdefault(name, email.address)
        for column in MEMBER_SERVICE_COLUMNS:
            self.initial.setdefault(column, getattr(self.instance, column))
        self.initial.setdefault("roles", list(self.instance.roles.values_list("role", flat=True)))
        if self.is_bound:
            for name in [*USER_COLUMNS, *EMAIL_FIELDS, *MEMBER_SERVICE_COLUMNS]:
                field = self.fields[name]
                if field.widget.value_omitted_from_data(self.data, self.files, self.add_prefix(name)):
                    field.disabled = True  # not sent: keeps its value

    def _get_validation_exclusions(self):
        exclusions = super()._get_validation_exclusions()
        # Member numbers stay unique in the member's organization (also for support, who sees no organization
        # field on a change); a new member's number is user_create's to check, with the username.
        exclusions.discard("organization")
        if self.adding:
            exclusions.add("member_number")
        return exclusions

    # --- the services' arguments ---------------------------------------------------------------------------

    def _value(self, name: str):
        value = self.cleaned_data[name]
        return value if value not in ("", None) else None

    def _emails(self) -> list[str]:
        return [address for address in (self.cleaned_data[name] for name in EMAIL_FIELDS) if address]

    def _nested(self, fields: dict[str, str], only_changed: bool) -> dict:
        return {key: self._value(name) for key, name in fields.items() if not only_changed or name in self.changed_data}

    def _address(self, only_changed: bool) -> dict:
        address = self._nested({"postal_code": "postal_code", "city": "city", "country": "country"}, only_changed)
        if not only_changed or {"street_address_1", "street_address_2"} & set(self.changed_data):
            rows = (self.cleaned_data["street_address_1"], self.cleaned_data["street_address_2"])
            address["street_address"] = [row for row in rows if row]
        return address

    def _phone(self, only_changed: bool) -> dict:
        phone = self._nested({"home": "phone_home", "work": "phone_work"}, only_changed)
        mobile = self._nested(_MOBILE, only_changed)
        if mobile:
            phone["mobile"] = mobile
        return phone

    def _emergency_contact(self, only_changed: bool) -> dict:
        return self._nested(_EMERGENCY, only_changed)

    def _access_card(self, only_changed: bool) -> dict:
        return self._nested(_ACCESS_CARD, only_changed)

    def create_arguments(self) -> dict:
        """user_create's keyword arguments (without the organization)."""
        data = self.cleaned_data
        return {
            "username": data["username"],
            "first_name": data["first_name"],
            "last_name": data["last_name"],
            "last_name_particle": data["last_name_particle"],
            "membership_id": data["membership"].pk,
            "member_number": data["member_number"] or None,
            "external_customer_number": data["external_customer_number"],
            "personal_identification_number": data["personal_identification_number"],
            "user_groups": [group.pk for group in data["user_groups"]],
            "email": self._emails(),
            "address": self._address(only_changed=False),
            "phone": self._phone(only_changed=False),
            "emergency_contact": self._emergency_contact(only_changed=False),
        }

    def after_create_changes(self) -> dict:
        """user_update's keyword arguments for what user_create does not take."""
        changes = {name: self.cleaned_data[name] for name in ("misc_info", "internal_notes") if self.cleaned_data[name]}
        access_card = {key: value for key, value in self._access_card(only_changed=False).items() if value}
        if access_card:
            changes["access_card"] = access_card
        return changes

    def update_changes(self) -> dict:
        """user_update's keyword arguments: only what the administrator changed."""
        changed = set(self.changed_data)
        changes = {
            name: self.cleaned_data[name]
            for name in ("first_name", "last_name", "last_name_particle", "active", "misc_info", "internal_notes")
            if name in changed
        }
        if "personal_identification_number" in changed:
            changes["personal_identification_number"] = self.cleaned_data["personal_identification_number"]
        if changed & set(EMAIL_FIELDS):
            changes["email"] = self._emails()
        for name, values in (
            ("address", self._address(only_changed=True)),
            ("phone", self._phone(only_changed=True)),
            ("emergency_contact", self._emergency_contact(only_changed=True)),
            ("access_card", self._access_card(only_changed=True)),
        ):
            if values:
                changes[name] = values
        return changes


# --- members' expiry dates ------------------------------------------------------------------------------


class _Link:
    """A stored file as ClearableFileInput shows it, linked to the admin's own (scoped) address."""

    def __init__(self, name: str, url: str):
        self.name, self.url = name, url

    def __str__(self) -> str:
        return self.name.rsplit("/", 1)[-1]


class ExpiryImageInput(forms.ClearableFileInput):
    download_url: str | None = None

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        if context["widget"]["is_initial"] and self.download_url:
            context["widget"]["value"] = _Link(str(value), self.download_url)
        return context


def _never_words() -> set[str]:
    """What may be written for the never-expiring date: "Never" in the page's language and in English."""
    return {str(_("Never")).casefold(), "never"}


class ExpiryDateInput(AdminDateWidget):
    """The admin's date box, showing the never-expiring date (2999-12-31) as "Never"."""

    def format_value(self, value):
        if value == NEVER_EXPIRES:
            return str(_("Never"))
        return super().format_value(value)


class ExpiryDateField(forms.DateField):
    """A date, or "Never" (in the page's language or English) for the never-expiring date."""

    widget = ExpiryDateInput

    def to_python(self, value):
        if isinstance(value, str) and value.strip().casefold() in _never_words():
            return NEVER_EXPIRES
        return super().to_python(value)


class UserExpiryDateForm(RefusalErrors, forms.ModelForm):
    """One row of the member's expiry dates. MemberAdmin saves it through user_expiry_date_set (which removes
    the image when the date changes), user_expiry_date_set_image and user_expiry_date_delete."""

    expiry_date = ExpiryDateField(
        label=capfirst(UserExpiryDate._meta.get_field("expiry_date").verbose_name),
        help_text=_("“Never” for a date that does not expire, where the type allows it."),
    )

    class Meta:
        model = UserExpiryDate
        fields = ["type", "expiry_date", "image"]
        widgets = {"image": ExpiryImageInput}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields["type"].disabled = True  # another type is another row
            if self.instance.image:
                self.fields["image"].widget.download_url = reverse(
                    "admin:accounts_member_expiry_image", args=[self.instance.member_id, self.instance.pk]
                )

    def instance_label(self) -> str:
        expiry_type = self.cleaned_data.get("type") if hasattr(self, "cleaned_data") else None
        name = expiry_type or self.instance.type_id
        if not name:
            return gettext("Expiry date")
        return gettext("Expiry date %(type)s") % {"type": name}


# --- expiry date types ----------------------------------------------------------------------------------


class ExpiryDateTypeForm(RefusalErrors, forms.ModelForm):
    """Reads an expiry date type; ExpiryDateTypeAdmin saves it through expiry_date_type_create and _update."""

    booking_excluded_object_ids = forms.ModelMultipleChoiceField(
        label=_("Objects not checked when booking"),
        queryset=BookableObject.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: the date is checked for every object."),
    )
    reminders_days_before = forms.IntegerField(label=_("Reminders start days before"), min_value=0, max_value=365)
    # The service names an excluded object by its place in the list; the page has one field for them all.
    problem_field_map = {"booking.excluded_object_ids": ["booking_excluded_object_ids"]}

    class Meta:
        model = ExpiryDateType
        fields = ["name", *EXPIRY_TYPE_SETTINGS]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The objects the organization books (its own and those shared with it); a superuser adding a type
        # chooses the organization on the page, so is offered every object with its owner's name.
        organization = getattr(self.instance, "organization", None) if self.instance.organization_id else None
        organization = organization or getattr(self, "scoped", None)
        objects = BookableObject.objects.select_related("organization")
        field = self.fields["booking_excluded_object_ids"]
        field.queryset = objects.visible_to(organization) if organization is not None else objects
        # Another organization's object (shared, or any for a superuser) shows its owner.
        own_id = organization.pk if organization is not None else None
        field.label_from_instance = lambda obj: (
            str(obj) if obj.organization_id == own_id else f"{obj} · {obj.organization}"
        )
        if not self.instance._state.adding:
            self.initial["booking_excluded_object_ids"] = list(self.instance.booking_excluded_object_ids)

    def clean_booking_excluded_object_ids(self) -> list[int]:
        return [obj.pk for obj in self.cleaned_data["booking_excluded_object_ids"]]

    def _get_validation_exclusions(self):
        # A name in use (any letter case) is expiry_date_type_create's to report (10030), not the form's.
        return {*super()._get_validation_exclusions(), "name"}

    def settings(self, *, only_changed: bool) -> dict:
        """The keyword arguments of expiry_date_type_create and _update (without name and organization)."""
        return {
            name: self.cleaned_data[name]
            for name in EXPIRY_TYPE_SETTINGS
            if name in self.cleaned_data and (not only_changed or name in self.changed_data)
        }
