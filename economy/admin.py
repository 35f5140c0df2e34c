"""The organization website's economy pages: the chart of accounts, cost centers, projects and members'
transactions, each limited to the current organization (adminkit.site.OrganizationScopedAdmin).

A transaction is added through economy.services.transaction_create (the same rules as POST /transactions; a
refusal comes back on the form's fields and nothing is saved) and never changed or deleted afterwards: a
mistake is corrected by a new transaction the other way (docs/decisions.md §7.12 "Transactions are never changed
or deleted")."""

from django.contrib import admin
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from adminkit.inlines import ReadOnlyInline
from adminkit.service_admin import ServiceSavedAdmin
from adminkit.site import OrganizationScopedAdmin
from apicore import clock

from .forms import TransactionForm
from .models import Account, CostCenter, Project, Transaction, TransactionRow
from .services import transaction_create

# A saved transaction's page: what it shows, none of it editable (a correction is a new transaction).
SHOWN_FIELDS = [
    "organization",
    "member_name",
    "date",
    "amount_column",
    "comment",
    "flightlog",
    "created_at",
    "entered_by",
]


@admin.register(Account)
class AccountAdmin(OrganizationScopedAdmin):
    """The chart of accounts; the default accounts are used for member transactions without accounting."""

    list_display = ["number", "name", "is_default_debit", "is_default_credit", "organization"]
    list_display_links = ["number", "name"]
    list_filter = ["organization"]
    search_fields = ["number", "name"]
    ordering = ["number"]
    fields = ["organization", "number", "name", "is_default_debit", "is_default_credit"]


@admin.register(CostCenter)
class CostCenterAdmin(OrganizationScopedAdmin):
    list_display = ["code", "name", "organization"]
    list_display_links = ["code", "name"]
    list_filter = ["organization"]
    search_fields = ["code", "name"]
    ordering = ["code"]
    fields = ["organization", "code", "name"]


@admin.register(Project)
class ProjectAdmin(CostCenterAdmin):
    pass


class TransactionRowInline(ReadOnlyInline):
    """The transaction's account rows, as they were booked (read only)."""

    model = TransactionRow
    fields = ["account", "description", "debit", "credit", "cost_center", "project"]
    readonly_fields = fields
    ordering = ["position", "id"]


@admin.register(Transaction)
class TransactionAdmin(ServiceSavedAdmin):
    """Members' transactions, newest first. Added through transaction_create; shown read only afterwards."""

    form = TransactionForm
    list_display = ["date", "member_name", "amount_column", "comment", "organization"]
    list_display_links = ["date", "member_name"]
    list_filter = ["organization"]
    list_select_related = ["user", "organization"]
    search_fields = ["comment", "user__name"]
    ordering = ["-date", "-id"]
    date_hierarchy = "date"
    inlines = [TransactionRowInline]

    @admin.display(description=_("Member"), ordering="user__name")
    def member_name(self, transaction):
        return transaction.user.full_name

    @admin.display(description=_("Amount"), ordering="amount")
    def amount_column(self, transaction):
        return f"{number_format(transaction.amount, 2, force_grouping=True)} {transaction.organization.currency_symbol}"

    @admin.display(description=_("Entered by"))
    def entered_by(self, transaction):
        return transaction.created_by.full_name if transaction.created_by else "-"

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            fieldsets = [
                (None, {"fields": ["organization", "member", "date", "amount", "comment"]}),
                (
                    _("Accounting"),
                    {
                        "fields": [("debit_account", "credit_account"), ("cost_center", "project")],
                        "description": _(
                            "Optional. Without accounts the organization's default debit and credit accounts are used."
                        ),
                    },
                ),
            ]
        else:
            fieldsets = [
                (
                    None,
                    {"fields": SHOWN_FIELDS},
                )
            ]
        return self.without_organization_field(request, fieldsets)

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return SHOWN_FIELDS

    def get_inline_instances(self, request, obj=None):
        return [] if obj is None else super().get_inline_instances(request, obj)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.scoped_organization = self.current_organization(request)
        return form

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        organization = self.current_organization(request)
        if organization is not None:
            initial.setdefault("date", clock.today_in(organization.timezone))
        return initial

    # --- never changed or deleted after creation ----------------------------------------------------------

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    # --- saving ---------------------------------------------------------------------------------------------

    create_service = transaction_create  # the account rows are the service's

    def create_arguments(self, request, form, obj) -> dict:
        organization = form.cleaned_data.get("organization") or obj.organization
        return {"organization": organization, "by": request.user, **form.service_arguments()}
