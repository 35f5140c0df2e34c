"""Bookings of objects. A booking is of an object, made by a member (the booker) of the object's organization
or of an organization the object is shared with, optionally for a student."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Booking(models.Model):
    # The object's organization's; organizations the object is shared with see its bookings too.
    tenant_path = "object__organization"
    shared_through = "object"

    object = models.ForeignKey(
        "objects_app.BookableObject", on_delete=models.CASCADE, related_name="bookings", verbose_name=_("object")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bookings", verbose_name=_("booked by")
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="student_bookings",
        verbose_name=_("student"),
    )
    start_at = models.DateTimeField(_("start"))
    end_at = models.DateTimeField(_("end"))
    type = models.CharField(_("booking type"), max_length=10, default="PRIV", help_text=_("Such as PRIV or SKOL."))
    is_primary = models.BooleanField(_("primary"), default=True, help_text=_("Not primary: a queue booking."))
    expected_airborne = models.DecimalField(
        _("expected airborne (hours)"), max_digits=5, decimal_places=2, null=True, blank=True
    )
    seats_left = models.PositiveSmallIntegerField(_("free seats"), null=True, blank=True)
    comment = models.TextField(_("comment"), blank=True)
    created_at = models.DateTimeField(_("created"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )

    class Meta:
        ordering = ["start_at", "id"]
        indexes = [
            models.Index(fields=["object", "start_at"]),
            models.Index(fields=["start_at", "end_at"]),
            # Lists from a day on (the Mobile calendar's date_from, default today): the bookings that end after it,
            # read from the index alone with what the page's order and the object's visibility need, so that ten
            # years behind the day cost nothing (docs/decisions.md §12.23 "Indexes for a club's years").
            models.Index(fields=["end_at", "object", "is_primary", "start_at", "id"], name="booking_ends_after_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start_at__lt=models.F("end_at")), name="booking_starts_before_end"
            )
        ]
        verbose_name = _("booking")
        verbose_name_plural = _("bookings")

    def __str__(self) -> str:
        # In the active time zone: the organization website activates the organization's.
        return f"{self.object} {timezone.localtime(self.start_at):%Y-%m-%d %H:%M}"
