from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# The five modules of a Mobile API client's rights (document 4, "What the service does"), in that order.
MOBILE_MODULES = ("organization", "objects", "bookings", "flightlogs", "transactions")


class AppClient(models.Model):
    """A Mobile API v5 app: an OAuth 2.1 client that support sets up for a developer.

    Its OAuth side is django-oauth-toolkit's Application (made with it, see accounts.services.app_clients): the
    client id, the key (client secret, kept only as a password hash) and the redirect addresses, mirrored from
    `redirect_uris`. A revoked client stays for the record; nothing of it works any more.
    """

    name = models.CharField(_("developer"), max_length=200)
    app_name = models.CharField(_("app name"), max_length=200)
    developer_contact = models.EmailField(_("developer's email address"), blank=True)
    rights = models.JSONField(_("rights"), default=dict, blank=True, help_text=_("module name to r, w or rw"))
    organizations = models.ManyToManyField(
        "accounts.Organization",
        blank=True,
        related_name="app_clients",
        verbose_name=_("allowed organizations"),
        help_text=_("None chosen: every organization."),
    )
    redirect_uris = models.JSONField(_("redirect addresses"), default=list, blank=True)
    confidential = models.BooleanField(
        _("confidential (has a key)"),
        default=False,
        help_text=_("An app with a server of its own gets a key; a native app without one gets none."),
    )
    rate_limit_per_minute = models.PositiveIntegerField(
        _("calls per minute"), null=True, blank=True, help_text=_("Empty: the default limit.")
    )
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    application = models.OneToOneField(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.PROTECT,
        related_name="app_client",
        editable=False,
        verbose_name=_("OAuth application"),
    )

    class Meta:
        ordering = ["name", "app_name", "id"]
        verbose_name = _("app client")
        verbose_name_plural = _("app clients")

    def __str__(self) -> str:
        return f"{self.app_name} ({self.name})"

    @property
    def client_id(self) -> str:
        return self.application.client_id

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def calls_per_minute(self) -> int:
        """The client's own limit, else the default (document 4, Limits)."""
        return self.rate_limit_per_minute or settings.MOBILE_CLIENT_CALLS_PER_MINUTE

    def allows(self, module: str, right: str) -> bool:
        return right in self.rights.get(module, "")

    @property
    def scope(self) -> str:
        return " ".join(f"{module}:{self.rights[module]}" for module in MOBILE_MODULES if self.rights.get(module))
