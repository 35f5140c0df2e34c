"""Forms of the organization website's economy pages (economy.admin): they read input; the service decides.

The transaction form leaves every rule to economy.services.transaction_create (amount, date, lock date,
accounts, duplicates): its refusals come back on the form's fields, in the page's language."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Member
from adminkit.forms import RefusalErrors
from apicore import tenancy
from apicore.errors import ErrorCode, ServiceError

from .models import Account, CostCenter, Project, Transaction

# The service's field names to this form's fields.
PROBLEM_FIELDS = {
    "user_id": ["member"],
    "date": ["date"],
    "amount": ["amount"],
    "comment": ["comment"],
    "accounting.debit_account": ["debit_account"],
    "accounting.credit_account": ["credit_account"],
    "accounting.cost_center": ["cost_center"],
    "accounting.project": ["project"],
}
ACCOUNTING_FIELDS = ("debit_account", "credit_account", "cost_center", "project")


class MemberChoiceField(forms.ModelChoiceField):
    """A member offered by name (and member number), never by username or id."""

    def label_from_instance(self, member):
        return str(member)


def _problem_message(code: int, field: str) -> str:
    """A service's problem in the page's language."""
    if code == ErrorCode.INVALID_AMOUNT.code:
        return gettext("The amount must not be 0, must be from -100000 to 100000 and may have at most two decimals.")
    if code == ErrorCode.DATE_IN_FUTURE.code:
        return gettext("The date is in the future.")
    if code == ErrorCode.BEFORE_LOCK_DATE.code:
        return gettext("The organization's transactions are locked through this date.")
    if code in (ErrorCode.DEBIT_ACCOUNT_NOT_FOUND.code, ErrorCode.CREDIT_ACCOUNT_NOT_FOUND.code):
        return gettext("Not an account of the organization.")
    if code == ErrorCode.COST_CENTER_NOT_FOUND.code:
        return gettext("Not a cost center of the organization.")
    if code == ErrorCode.PROJECT_NOT_FOUND.code:
        return gettext("Not a project of the organization.")
    if code == ErrorCode.NOT_FOUND.code:
        return gettext("Not a member of the organization.")
    if field in ("accounting.debit_account", "accounting.credit_account"):
        return gettext("Choose both a debit and a credit account, or neither.")
    return gettext("This field is required.")


class TransactionForm(RefusalErrors, forms.ModelForm):
    """A new transaction: the member, date, amount (negative = charge), comment and, optionally, the accounts,
    cost center and project (without them the organization's default accounts are used)."""

    member = MemberChoiceField(queryset=Member.objects.none(), label=_("member"))
    # No bounds or decimal places here: the service decides (and says why on the field).
    amount = forms.DecimalField(
        label=_("amount"),
        help_text=_("The change of the member's account: negative for a charge, positive for a payment."),
    )
    debit_account = forms.ChoiceField(label=_("debit account"), required=False)
    credit_account = forms.ChoiceField(label=_("credit account"), required=False)
    cost_center = forms.ChoiceField(label=_("cost center"), required=False)
    project = forms.ChoiceField(label=_("project"), required=False)

    # Set by the admin on the form class of each request: the current organization (None: a superuser).
    scoped_organization = None

    class Meta:
        model = Transaction
        fields = ["organization", "date", "amount", "comment"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        organization = self.scoped_organization
        # Members by name; the site scopes them to the organization's (adminkit.site).
        self.fields["member"].queryset = Member.objects.select_related("user").order_by(
            "user__name", "member_number", "pk"
        )
        if "comment" in self.fields:
            self.fields["comment"].strip = True
        for name, model, column in (
            ("debit_account", Account, "number"),
            ("credit_account", Account, "number"),
            ("cost_center", CostCenter, "code"),
            ("project", Project, "code"),
        ):
            rows = model.objects.order_by(column)
            if organization is not None:
                rows = tenancy.owned(rows, organization)
            choices = dict.fromkeys((getattr(row, column), f"{getattr(row, column)} {row.name}") for row in rows)
            self.fields[name].choices = [("", "---------"), *choices]

    def _get_validation_exclusions(self):
        # The amount's rules are the service's (10121 on the field), not the column's decimal places.
        return {*super()._get_validation_exclusions(), "amount"}

    def clean(self):
        cleaned_data = super().clean()
        member = cleaned_data.get("member")
        organization = cleaned_data.get("organization") or self.scoped_organization
        if member is not None and organization is not None and member.organization_id != organization.pk:
            self.add_error("member", gettext("Not a member of the organization."))
        return cleaned_data

    def service_arguments(self) -> dict:
        """transaction_create's arguments from the cleaned form (without organization and by)."""
        data = self.cleaned_data
        accounting = {name: data[name] for name in ACCOUNTING_FIELDS if data.get(name)}
        return {
            "user_id": data["member"].user_id,
            "date": data["date"],
            "amount": data["amount"],
            "comment": data["comment"],
            "accounting": accounting or None,
        }

    def refusal_errors(self, error: ServiceError, *, with_detail: bool = True) -> list[tuple[str | None, str]]:
        errors = []
        for problem in error.errors:
            fields = PROBLEM_FIELDS.get(problem.field, [None])
            errors += [(field, _problem_message(problem.code, problem.field)) for field in fields]
        if error.error is ErrorCode.DUPLICATE_TRANSACTION:
            errors.append((None, gettext("The member already has a transaction with this date, amount and comment.")))
        elif error.error is ErrorCode.TRANSACTION_NOT_SAVED:
            errors.append((None, gettext("The transaction could not be saved; nothing was saved. Please try again.")))
        elif not errors:
            errors.append((None, error.detail or str(error)))
        return errors
