import zoneinfo

from django.core.exceptions import ValidationError
from django.db import models


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"{value} is not an IANA time zone.")


class Organization(models.Model):
    """A club. Every piece of club data hangs off one."""

    name = models.CharField(max_length=200)
    homepage = models.URLField(blank=True)
    reference_icao = models.CharField(max_length=4, blank=True)
    latitude = models.DecimalField(max_digits=9, decimal_places=6, null=True, blank=True)
    longitude = models.DecimalField(max_digits=9, decimal_places=6, null=True, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2 code")
    timezone = models.CharField(max_length=64, default="Europe/Stockholm", validators=[validate_timezone])
    locale = models.CharField(max_length=10, default="sv")
    date_format = models.CharField(max_length=20, default="Y-m-d")
    currency_code = models.CharField(max_length=3, default="SEK")
    currency_symbol = models.CharField(max_length=5, default="kr")
    is_trial = models.BooleanField(default=False)
    uses_flight_log = models.BooleanField(default=True)
    hide_crew_in_log = models.BooleanField(default=False)
    transaction_lock_date = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name
