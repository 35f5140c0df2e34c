"""Members' accounts: the organization's chart of accounts, cost centers and projects, and transactions with
their account rows. A member's balance is the sum of the member's transactions in the organization."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

digits_only = RegexValidator(r"^[0-9]+$", _("Only digits."))


class Account(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="accounts", verbose_name=_("organization")
    )
    number = models.CharField(_("account number"), max_length=20, validators=[digits_only])
    name = models.CharField(_("name"), max_length=200)
    is_default_debit = models.BooleanField(
        _("default debit account"), default=False, help_text=_("Debited for member transactions without accounting.")
    )
    is_default_credit = models.BooleanField(
        _("default credit account"), default=False, help_text=_("Credited for member transactions without accounting.")
    )

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "number"], name="account_number_unique_in_org"),
            models.UniqueConstraint(
                fields=["organization"], condition=models.Q(is_default_debit=True), name="one_default_debit_account"
            ),
            models.UniqueConstraint(
                fields=["organization"], condition=models.Q(is_default_credit=True), name="one_default_credit_account"
            ),
        ]
        verbose_name = _("account")
        verbose_name_plural = _("chart of accounts")

    def __str__(self) -> str:
        return f"{self.number} {self.name}"


class CostCenter(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="cost_centers", verbose_name=_("organization")
    )
    code = models.CharField(_("code"), max_length=20)
    name = models.CharField(_("name"), max_length=200)

    class Meta:
        ordering = ["code"]
        constraints = [models.UniqueConstraint(fields=["organization", "code"], name="cost_center_unique_in_org")]
        verbose_name = _("cost center")
        verbose_name_plural = _("cost centers")

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class Project(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="projects", verbose_name=_("organization")
    )
    code = models.CharField(_("code"), max_length=20)
    name = models.CharField(_("name"), max_length=200)

    class Meta:
        ordering = ["code"]
        constraints = [models.UniqueConstraint(fields=["organization", "code"], name="project_unique_in_org")]
        verbose_name = _("project")
        verbose_name_plural = _("projects")

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class Transaction(models.Model):
    """A change of a member's account in one organization: negative charges, positive payments."""

    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="transactions", verbose_name=_("organization")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="transactions", verbose_name=_("user")
    )
    date = models.DateField(_("date"))
    amount = models.DecimalField(_("amount"), max_digits=12, decimal_places=2)
    comment = models.CharField(_("comment"), max_length=500)
    flightlog = models.ForeignKey(
        "flightlog.FlightLogEntry",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="transactions",
        verbose_name=_("flight"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("booked by"),
    )

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [
            # A member's account in (date, id) order with the amounts: balances and the balance after a transaction
            # are sums read from the index alone (economy.selectors; docs/decisions.md §12.23).
            models.Index(fields=["organization", "user", "date", "id", "amount"], name="transaction_account_idx"),
            models.Index(fields=["organization", "date"]),
        ]
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")

    def __str__(self) -> str:
        return f"{self.date} {self.amount} {self.comment}"


class TransactionRow(models.Model):
    """One part of a transaction in the books: an account debited or credited, with cost center and project.
    Codes are kept as text, as they were when the transaction was made."""

    tenant_path = "transaction__organization"

    transaction = models.ForeignKey(
        Transaction, on_delete=models.CASCADE, related_name="rows", verbose_name=_("transaction")
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    account = models.CharField(_("account"), max_length=20)
    description = models.CharField(_("description"), max_length=500, blank=True)
    debit = models.DecimalField(_("debit"), max_digits=12, decimal_places=2, default=0)
    credit = models.DecimalField(_("credit"), max_digits=12, decimal_places=2, default=0)
    cost_center = models.CharField(_("cost center"), max_length=20, blank=True)
    project = models.CharField(_("project"), max_length=20, blank=True)

    class Meta:
        ordering = ["transaction", "position", "id"]
        verbose_name = _("account row")
        verbose_name_plural = _("account rows")

    def __str__(self) -> str:
        return f"{self.account} {self.debit} {self.credit}"
