"""The flight log: airports, flight types, which flight types a member may log on which object, and the
logged flights. Clock times are stored as full UTC points in time; `date` is the flight's local date (the
object's organization's zone)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Airport(models.Model):
    # One table for the whole service: no organization owns an airport (apicore.tenancy).
    tenant_path = None

    icao = models.CharField(_("ICAO code"), max_length=4, unique=True)
    name = models.CharField(_("name"), max_length=200)
    latitude = models.DecimalField(_("latitude"), max_digits=9, decimal_places=6, null=True, blank=True)
    longitude = models.DecimalField(_("longitude"), max_digits=9, decimal_places=6, null=True, blank=True)

    class Meta:
        ordering = ["icao"]
        verbose_name = _("airport")
        verbose_name_plural = _("airports")

    def __str__(self) -> str:
        return f"{self.icao} {self.name}"


class FlightType(models.Model):
    organization = models.ForeignKey(
        "accounts.Organization", on_delete=models.CASCADE, related_name="flight_types", verbose_name=_("organization")
    )
    name = models.CharField(_("name"), max_length=100)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("flight type")
        verbose_name_plural = _("flight types")

    def __str__(self) -> str:
        return self.name


class FlightApproval(models.Model):
    """A member may log flights on an object, of these flight types (none: the object without a type)."""

    tenant_path = "member__organization"

    member = models.ForeignKey(
        "accounts.Member", on_delete=models.CASCADE, related_name="flight_approvals", verbose_name=_("member")
    )
    object = models.ForeignKey(
        "objects_app.BookableObject",
        on_delete=models.CASCADE,
        related_name="flight_approvals",
        verbose_name=_("object"),
    )
    flight_types = models.ManyToManyField(
        FlightType, blank=True, related_name="approvals", verbose_name=_("flight types")
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "object"], name="flight_approval_once")]
        verbose_name = _("flight approval")
        verbose_name_plural = _("flight approvals")

    def __str__(self) -> str:
        return _("%(member)s on %(object)s") % {"member": self.member, "object": self.object}


def _crew(related_name: str, verbose_name) -> models.ForeignKey:
    # A crew member is a member record: of the object's organization, or of one the object is shared with.
    return models.ForeignKey(
        "accounts.Member",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name=related_name,
        verbose_name=verbose_name,
    )


def _reading(verbose_name) -> models.DecimalField:
    return models.DecimalField(verbose_name, max_digits=10, decimal_places=2, null=True, blank=True)


class FlightLogEntry(models.Model):
    tenant_path = "object__organization"
    # Organizations the object is shared with see its flights (the Mobile API); Main v5 shows own objects only.
    shared_through = "object"

    object = models.ForeignKey(
        "objects_app.BookableObject", on_delete=models.PROTECT, related_name="flights", verbose_name=_("object")
    )
    date = models.DateField(_("date"))
    flight_type = models.ForeignKey(
        FlightType, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("flight type")
    )
    departure_airport = models.ForeignKey(
        Airport, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("departure")
    )
    arrival_airport = models.ForeignKey(
        Airport, null=True, blank=True, on_delete=models.PROTECT, related_name="+", verbose_name=_("arrival")
    )
    blockoff_at = models.DateTimeField(_("block off"), null=True, blank=True)
    takeoff_at = models.DateTimeField(_("takeoff"), null=True, blank=True)
    landing_at = models.DateTimeField(_("landing"), null=True, blank=True)
    blockon_at = models.DateTimeField(_("block on"), null=True, blank=True)
    departure_tachometer = _reading(_("tachometer at departure"))
    arrival_tachometer = _reading(_("tachometer at arrival"))
    departure_hobbs = _reading(_("hobbs at departure"))
    arrival_hobbs = _reading(_("hobbs at arrival"))
    via_route = models.CharField(_("via"), max_length=200, blank=True)
    pilot = _crew("flights_as_pilot", _("pilot"))
    instructor = _crew("flights_as_instructor", _("instructor"))
    scout = _crew("flights_as_scout", _("scout"))
    is_solo_instruction = models.BooleanField(_("solo instruction"), null=True, blank=True)
    uplift_fuel = models.DecimalField(_("fuel uplift (litres)"), max_digits=8, decimal_places=2, null=True, blank=True)
    uplift_oil = models.DecimalField(_("oil uplift (litres)"), max_digits=6, decimal_places=2, null=True, blank=True)
    number_of_flights = models.PositiveIntegerField(_("number of flights"), default=1)
    daily_check = models.BooleanField(_("daily check done"), null=True, blank=True)
    comment = models.TextField(_("comment"), blank=True)
    remark = models.ForeignKey(
        "objects_app.Remark",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="flights",
        verbose_name=_("remark"),
    )
    created_at = models.DateTimeField(_("logged"))
    # Endorsed (signed) in the object's logbook: the flight is locked from then on (flightlog.services).
    endorsed_at = models.DateTimeField(_("endorsed"), null=True, blank=True)
    endorsed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("endorsed by"),
    )

    class Meta:
        ordering = ["date", "blockoff_at", "id"]
        indexes = [
            models.Index(fields=["object", "date"]),
            models.Index(fields=["date", "blockoff_at", "id"]),
        ]
        verbose_name = _("flight")
        verbose_name_plural = _("flight log")

    def __str__(self) -> str:
        return f"{self.date} {self.object}"
