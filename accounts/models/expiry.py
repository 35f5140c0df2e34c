from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from accounts.expiry import NEVER_EXPIRES


class ExpiryDateType(models.Model):
    """A kind of date an organization tracks for its members (medical, licence, check...)."""

    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="expiry_date_types",
        verbose_name=_("organization"),
    )
    name = models.CharField(_("name"), max_length=30)
    may_never_expire = models.BooleanField(_("may never expire"), default=False)
    members_can_change = models.BooleanField(_("members can change it"), default=False)
    image_required = models.BooleanField(_("image required"), default=False)
    booking_required = models.BooleanField(_("required for booking"), default=False)
    booking_warning_only = models.BooleanField(_("only a warning when booking"), default=False)
    booking_also_for_students = models.BooleanField(_("checked for students too"), default=False)
    # Object ids (GET /objects) the date is not checked for when booking.
    booking_excluded_object_ids = models.JSONField(_("objects not checked when booking"), default=list, blank=True)
    reminders_at_login = models.BooleanField(_("reminders at login"), default=False)
    reminders_days_before = models.PositiveSmallIntegerField(_("reminders from days before"), default=30)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint("organization", Lower("name"), name="expiry_type_name_unique_any_case"),
        ]
        verbose_name = _("expiry date type")
        verbose_name_plural = _("expiry date types")

    def __str__(self) -> str:
        return self.name


class UserExpiryDate(models.Model):
    """One member's date of one type, with an optional image (a scan of the certificate)."""

    # Whose rows these are, for the APIs' one scoping point (apicore.tenancy).
    tenant_path = ("member__organization", "type__organization")

    member = models.ForeignKey(
        "accounts.Member", on_delete=models.CASCADE, related_name="expiry_dates", verbose_name=_("member")
    )
    type = models.ForeignKey(
        ExpiryDateType, on_delete=models.CASCADE, related_name="user_expiry_dates", verbose_name=_("type")
    )
    expiry_date = models.DateField(_("expiry date"))
    image = models.FileField(_("image"), upload_to="expiry-dates/", blank=True)
    # When reminder mails were last sent; cleared when the date changes so that they start again.
    reminded_at = models.DateTimeField(_("reminded at"), null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "type"], name="one_expiry_date_per_member_and_type")]
        verbose_name = _("expiry date")
        verbose_name_plural = _("expiry dates")

    def __str__(self) -> str:
        when = _("Never") if self.expiry_date == NEVER_EXPIRES else str(self.expiry_date or "")
        return f"{self.type}: {when}"
