from django.conf import settings
from django.db import models


class Transaction(models.Model):
    """A change of a member's account in one organization: negative charges, positive payments."""

    organization = models.ForeignKey("accounts.Organization", on_delete=models.CASCADE, related_name="transactions")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="transactions")
    date = models.DateField()
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    comment = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]
        indexes = [models.Index(fields=["organization", "user", "date"])]

    def __str__(self) -> str:
        return f"{self.date} {self.amount} {self.comment}"
