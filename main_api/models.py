from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# The nine modules of a token's rights, in the order document 1 lists them.
MODULES = (
    "users",
    "users_sensitive",
    "organization_settings",
    "objects",
    "bookings",
    "transactions",
    "flightlogs",
    "login_checks",
    "organization",
)


class ApiToken(models.Model):
    """An organization's Main API key. Only a SHA-256 hash of the secret is kept.

    The secret is 256 random bits, so a fast hash is enough: nobody can guess their way back to it, and
    each call can look it up by its hash without a slow password hasher.
    """

    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("organization")
    )
    description = models.CharField(_("description"), max_length=200)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_api_tokens", verbose_name=_("owner")
    )
    rights = models.JSONField(_("rights"), default=dict, blank=True, help_text=_("module name to r, w or rw"))
    allowed_ips = models.JSONField(
        _("allowed IP addresses"),
        default=list,
        blank=True,
        help_text=_("addresses or CIDR ranges; empty allows all"),
    )
    client_id = models.PositiveBigIntegerField(_("client ID"), unique=True, editable=False)
    secret_hash = models.CharField(_("hash of the secret"), max_length=64, unique=True, editable=False)
    # The OAuth client that access tokens are issued to; deleted with the token.
    application = models.OneToOneField(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.CASCADE,
        related_name="api_token",
        editable=False,
        verbose_name=_("OAuth application"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        db_table = "accounts_apitoken"  # the table from before the model left accounts
        ordering = ["organization", "description", "id"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.description} ({self.client_id})"

    def allows(self, module: str, right: str) -> bool:
        return right in self.rights.get(module, "")

    @property
    def scope(self) -> str:
        return " ".join(f"{module}:{self.rights[module]}" for module in MODULES if self.rights.get(module))
