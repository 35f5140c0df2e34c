"""The Mobile API's sign-in: app clients, members' app logins and consents, and the blocked addresses."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

# The five modules of a Mobile API client's rights (document 4, "What the service does"), in that order.
MOBILE_MODULES = ("organization", "objects", "bookings", "flightlogs", "transactions")


class AppClient(models.Model):
    """A Mobile API v5 app: an OAuth 2.1 client that support sets up for a developer.

    Its OAuth side is django-oauth-toolkit's Application (made with it, see mobile_api.services.app_clients): the
    client id, the key (client secret, kept only as a password hash) and the redirect addresses, mirrored from
    `redirect_uris`. A revoked client stays for the record; nothing of it works any more.
    """

    # The service's own: support sets clients up; `organizations` are those allowed, not owners (apicore.tenancy).
    tenant_path = None

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
        db_table = "accounts_appclient"  # the table from before the model left accounts
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


class MobileLogin(models.Model):
    """One member's sign-in to one app (Mobile API v5): what the member sees and ends on the member website.

    The login is django-oauth-toolkit's refresh-token family (`token_family`): every rotation keeps the family,
    and ending the login revokes the whole family and deletes its access tokens. `code_digest` is the SHA-256
    of the authorization code it was made from, so that a replayed code ends the login it made (RFC 9700).
    """

    tenant_path = "member__organization"

    class EndReason(models.TextChoices):
        MEMBER = "member", _("ended by the member")
        APP = "app", _("logged out in the app")
        PASSWORD = "password", _("password changed")
        CODE_REPLAY = "code-replay", _("authorization code used twice")
        REFRESH_REUSE = "refresh-reuse", _("old refresh token used again")
        CLIENT = "client", _("app client revoked")
        MEMBER_GONE = "member-gone", _("member can no longer log in")

    app_client = models.ForeignKey(
        "mobile_api.AppClient", on_delete=models.CASCADE, related_name="logins", verbose_name=_("app client")
    )
    member = models.ForeignKey(
        "accounts.Member", on_delete=models.CASCADE, related_name="app_logins", verbose_name=_("member")
    )
    token_family = models.UUIDField(_("token family"), unique=True)
    code_digest = models.CharField(_("authorization code digest"), max_length=64, unique=True)
    device_name = models.CharField(_("device name"), max_length=100, blank=True)
    created_at = models.DateTimeField(_("logged in"))
    last_used_at = models.DateTimeField(_("last renewed"))
    ended_at = models.DateTimeField(_("ended"), null=True, blank=True)
    end_reason = models.CharField(_("why it ended"), max_length=20, choices=EndReason.choices, blank=True)

    class Meta:
        db_table = "accounts_mobilelogin"  # the table from before the model left accounts
        ordering = ["-created_at", "-id"]
        verbose_name = _("app login")
        verbose_name_plural = _("app logins")
        indexes = [models.Index(fields=["member", "ended_at"], name="mobile_login_member_open")]

    def __str__(self) -> str:
        return f"{self.app_client.app_name} · {self.device_name or '-'}"

    @property
    def ended(self) -> bool:
        return self.ended_at is not None


class AppConsent(models.Model):
    """The member allowed this app for this organization: the consent page is not shown again."""

    tenant_path = "member__organization"

    app_client = models.ForeignKey(
        "mobile_api.AppClient", on_delete=models.CASCADE, related_name="consents", verbose_name=_("app client")
    )
    member = models.ForeignKey(
        "accounts.Member", on_delete=models.CASCADE, related_name="app_consents", verbose_name=_("member")
    )
    allowed_at = models.DateTimeField(_("allowed"))
    rights = models.JSONField(_("rights allowed"), default=dict, blank=True)

    class Meta:
        db_table = "accounts_appconsent"  # the table from before the model left accounts
        verbose_name = _("app consent")
        verbose_name_plural = _("app consents")
        constraints = [models.UniqueConstraint(fields=["app_client", "member"], name="app_consent_once")]

    def __str__(self) -> str:
        return f"{self.app_client.app_name} · {self.member}"


class BlockedAddress(models.Model):
    """An IP address or network that the Mobile API refuses (403 10003), kept by support in the admin."""

    tenant_path = None  # the service's own list (apicore.tenancy)

    network = models.CharField(
        _("address or network"), max_length=50, unique=True, help_text=_("For example 203.0.113.7 or 198.51.100.0/24.")
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        db_table = "accounts_blockedaddress"  # the table from before the model left accounts
        ordering = ["network"]
        verbose_name = _("blocked address")
        verbose_name_plural = _("blocked addresses")

    def __str__(self) -> str:
        return self.network
