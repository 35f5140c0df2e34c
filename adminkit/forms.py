"""Form pieces that every app's admin pages share: rights per module, address lists, a service's refusal."""

import ipaddress

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from apicore.errors import ServiceError

RIGHT_CHOICES = [("", _("none")), ("r", _("r: read")), ("w", _("w: write")), ("rw", _("rw: read and write"))]


def rights_field(module: str) -> str:
    return f"rights_{module}"


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


class LineListField(forms.CharField):
    """A list of strings, one a line in a text box; the box shows a stored list one entry a line."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 40})

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return "\n".join(str(entry) for entry in value)
        return value

    def to_python(self, value) -> list[str]:
        return self.lines(super().to_python(value))

    def lines(self, text: str) -> list[str]:
        return [line.strip() for line in text.splitlines() if line.strip()]


class AddressListField(LineListField):
    """Addresses or CIDR ranges, one a line in a text box; the value is the list that ApiToken.allowed_ips keeps.

    The box shows a stored list one entry a line, whether the list comes from the token or the form's initial
    data (a ModelForm puts the model field's list there), and an unchanged box is not a change.
    """

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
