import zoneinfo
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not an IANA time zone."), params={"value": value}, code="invalid")


class Organization(models.Model):
    """A club. Every piece of club data hangs off one."""

    tenant_path = "pk"  # an organization is its own (apicore.tenancy)

    name = models.CharField(_("name"), max_length=200)
    homepage = models.URLField(_("homepage"), blank=True)
    reference_icao = models.CharField(_("reference airport (ICAO)"), max_length=4, blank=True)
    latitude = models.DecimalField(_("latitude"), max_digits=9, decimal_places=6, null=True, blank=True)
    longitude = models.DecimalField(_("longitude"), max_digits=9, decimal_places=6, null=True, blank=True)
    country = models.CharField(_("country"), max_length=2, blank=True, help_text=_("ISO 3166-1 alpha-2 code"))
    timezone = models.CharField(
        _("time zone"), max_length=64, default="Europe/Stockholm", validators=[validate_timezone]
    )
    locale = models.CharField(_("language"), max_length=10, default="sv")
    date_format = models.CharField(_("date format"), max_length=20, default="Y-m-d")
    currency_code = models.CharField(_("currency code"), max_length=3, default="SEK")
    currency_symbol = models.CharField(_("currency symbol"), max_length=5, default="kr")
    is_trial = models.BooleanField(_("trial"), default=False)
    uses_flight_log = models.BooleanField(_("uses the flight log"), default=True)
    hide_crew_in_log = models.BooleanField(_("hide the crew in the flight log"), default=False)
    transaction_lock_date = models.DateField(_("transactions locked through"), null=True, blank=True)
    # Booking settings (../shared/DECISIONS.md "Organization"; document 2's `booking` block and booking rules).
    booking_enabled = models.BooleanField(_("booking on"), default=True)
    booking_cancel_reason_required = models.BooleanField(_("a reason is required to cancel a booking"), default=False)
    booking_standard_length_hours = models.DecimalField(
        _("standard booking length (hours)"), max_digits=4, decimal_places=2, default=Decimal("2")
    )
    booking_use_expected_airborne = models.BooleanField(_("bookings ask for expected airborne time"), default=False)
    booking_hide_booker_details = models.BooleanField(_("hide who booked from other members"), default=False)
    booking_minimum_balance = models.DecimalField(
        _("minimum balance to book"),
        max_digits=12,
        decimal_places=2,
        null=True,
        blank=True,
        help_text=_("Empty: no minimum."),
    )

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("organization")
        verbose_name_plural = _("organizations")

    def __str__(self) -> str:
        return self.name


class AppSetting(models.Model):
    """One of an organization's settings for the members' app (document 2, GET /organization/settings): a
    setting type (`setting_id`, e.g. 1000 hide the balance in the app's lobby, 1001 hide the transactions)
    with its value; only those marked 'show in the app' are listed."""

    class ValueType(models.TextChoices):
        BOOLEAN = "bool", _("yes or no")
        INTEGER = "int", _("whole number")
        TEXT = "text", _("text")

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="app_settings", verbose_name=_("organization")
    )
    setting_id = models.PositiveIntegerField(_("setting"))
    name = models.CharField(_("name"), max_length=100)
    value = models.CharField(_("value"), max_length=500, blank=True)
    value_type = models.CharField(_("kind of value"), max_length=10, choices=ValueType.choices)
    show_in_app = models.BooleanField(_("show in the app"), default=True)

    class Meta:
        ordering = ["setting_id", "id"]
        verbose_name = _("app setting")
        verbose_name_plural = _("app settings")
        constraints = [
            models.UniqueConstraint(fields=["organization", "setting_id"], name="app_setting_once_per_organization")
        ]

    def __str__(self) -> str:
        return f"{self.setting_id} {self.name}"
