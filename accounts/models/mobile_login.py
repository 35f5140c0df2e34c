from django.db import models
from django.utils.translation import gettext_lazy as _


class MobileLogin(models.Model):
    """One member's sign-in to one app (Mobile API v5): what the member sees and ends on the member website.

    The login is django-oauth-toolkit's refresh-token family (`token_family`): every rotation keeps the family,
    and ending the login revokes the whole family and deletes its access tokens. `code_digest` is the SHA-256
    of the authorization code it was made from, so that a replayed code ends the login it made (RFC 9700).
    """

    class EndReason(models.TextChoices):
        MEMBER = "member", _("ended by the member")
        APP = "app", _("logged out in the app")
        PASSWORD = "password", _("password changed")
        CODE_REPLAY = "code-replay", _("authorization code used twice")
        REFRESH_REUSE = "refresh-reuse", _("old refresh token used again")
        CLIENT = "client", _("app client revoked")
        MEMBER_GONE = "member-gone", _("member can no longer log in")

    app_client = models.ForeignKey(
        "accounts.AppClient", on_delete=models.CASCADE, related_name="logins", verbose_name=_("app client")
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

    app_client = models.ForeignKey(
        "accounts.AppClient", on_delete=models.CASCADE, related_name="consents", verbose_name=_("app client")
    )
    member = models.ForeignKey(
        "accounts.Member", on_delete=models.CASCADE, related_name="app_consents", verbose_name=_("member")
    )
    allowed_at = models.DateTimeField(_("allowed"))
    rights = models.JSONField(_("rights allowed"), default=dict, blank=True)

    class Meta:
        verbose_name = _("app consent")
        verbose_name_plural = _("app consents")
        constraints = [models.UniqueConstraint(fields=["app_client", "member"], name="app_consent_once")]

    def __str__(self) -> str:
        return f"{self.app_client.app_name} · {self.member}"


class BlockedAddress(models.Model):
    """An IP address or network that the Mobile API refuses (403 10003), kept by support in the admin."""

    network = models.CharField(
        _("address or network"), max_length=50, unique=True, help_text=_("For example 203.0.113.7 or 198.51.100.0/24.")
    )
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["network"]
        verbose_name = _("blocked address")
        verbose_name_plural = _("blocked addresses")

    def __str__(self) -> str:
        return self.network
