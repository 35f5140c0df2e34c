from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [models.Index(fields=["organization", "user", "date"])]
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")

    def __str__(self) -> str:
        return f"{self.date} {self.amount} {self.comment}"
