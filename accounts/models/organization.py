import zoneinfo

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext_lazy as _


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(_("%(value)s is not an IANA time zone."), params={"value": value}, code="invalid")


class Organization(models.Model):
    """A club. Every piece of club data hangs off one."""

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

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("organization")
        verbose_name_plural = _("organizations")

    def __str__(self) -> str:
        return self.name
