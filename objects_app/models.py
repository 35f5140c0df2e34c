"""Bookable objects (aircraft, equipment, premises), their sharing, maintenance and remarks.

An object belongs to one organization and may be shared with others. Its time summary (airborne, block,
tachometer totals and landings) is kept on the row and moved by the flight log's services in the same
transaction as the flight, so a read never sums flights.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Category(models.IntegerChoices):
    AIRCRAFT = 0, _("Aircraft")
    EQUIPMENT = 1, _("Equipment")
    PREMISES = 2, _("Premises")


class StatusLevel(models.IntegerChoices):
    OK = 0, _("OK")
    YELLOW = 1, _("Yellow")
    RED = 2, _("Red")


class ObjectQuerySet(models.QuerySet):
    def visible_to(self, organization) -> "ObjectQuerySet":
        """The one visibility rule of objects: the organization's own and those shared with it (an organization
        or its id). Every caller uses it: selectors, rules, services, the website, and the APIs' scoping point
        (apicore.tenancy.visible), which also gives the rows of a model `shared_through` an object (bookings,
        remarks, flights) by their object's visibility."""
        shared = ObjectShare.objects.filter(organization=organization).values("object_id")
        return self.filter(Q(organization=organization) | Q(pk__in=shared))


class BookableObject(models.Model):
    """An aircraft, a piece of equipment or a room that members book."""

    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="bookable_objects",
        verbose_name=_("organization"),
    )
    category = models.PositiveSmallIntegerField(_("category"), choices=Category.choices, default=Category.AIRCRAFT)
    registration = models.CharField(_("registration"), max_length=30)
    type_designator = models.CharField(
        _("type designator"), max_length=10, blank=True, help_text=_("ICAO aircraft type designator, such as C172.")
    )
    type_name = models.CharField(_("type name"), max_length=100, blank=True)
    comment = models.TextField(_("comment"), blank=True)
    active = models.BooleanField(_("active"), default=True)
    # Objects without status (a briefing room) show null status fields.
    has_status = models.BooleanField(_("shows status"), default=True)
    # Booking settings (the settings block; aircraft only).
    use_expected_airborne = models.BooleanField(_("asks for expected airborne time"), default=False)
    force_expected_time = models.BooleanField(_("expected time required"), default=False)
    max_booking_length = models.PositiveIntegerField(
        _("longest booking (minutes)"), null=True, blank=True, help_text=_("Empty: no limit.")
    )
    queue_allowed = models.BooleanField(_("queue bookings allowed"), default=True)
    disclaimer_headline = models.CharField(_("disclaimer headline"), max_length=200, blank=True)
    disclaimer_text = models.TextField(_("disclaimer"), blank=True)
    thumbnail = models.ImageField(_("picture"), upload_to="objects/", blank=True)
    # The picture made small (150x100 JPEG) for the apps, when first asked for (objects_app.thumbnails): the
    # file, the picture's name it was made from (a new picture has a new name) and the SHA-256 of its bytes
    # (the ETag). The picture's name with no small file means the picture could not be read as an image.
    thumbnail_small = models.FileField(_("small picture"), upload_to="objects/thumbnails/", blank=True, editable=False)
    thumbnail_small_source = models.CharField(_("small picture made from"), max_length=100, blank=True, editable=False)
    thumbnail_small_etag = models.CharField(_("small picture digest"), max_length=64, blank=True, editable=False)
    # The time summary: the totals before the first logged flight plus every logged flight since.
    airborne_minutes = models.BigIntegerField(_("airborne time (minutes)"), default=0)
    block_minutes = models.BigIntegerField(_("block time (minutes)"), default=0)
    tach_hours = models.DecimalField(_("tachometer time (hours)"), max_digits=12, decimal_places=2, default=0)
    landings = models.BigIntegerField(_("landings"), default=0)

    objects = ObjectQuerySet.as_manager()

    class Meta:
        ordering = ["category", "registration", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "registration"], name="object_registration_unique_in_org")
        ]
        verbose_name = _("object")
        verbose_name_plural = _("objects")

    def __str__(self) -> str:
        if self.type_designator:
            return f"{self.registration} ({self.type_designator})"
        return self.registration

    @property
    def is_aircraft(self) -> bool:
        return self.category == Category.AIRCRAFT


class ObjectShare(models.Model):
    """An object that its organization lets another organization see and book."""

    # The sharing is the object's organization's (the one it is shared with is `organization`).
    tenant_path = "object__organization"

    object = models.ForeignKey(
        BookableObject, on_delete=models.CASCADE, related_name="shares", verbose_name=_("object")
    )
    organization = models.ForeignKey(
        "accounts.Organization",
        on_delete=models.CASCADE,
        related_name="shared_objects",
        verbose_name=_("shared with"),
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["object", "organization"], name="object_shared_once")]
        verbose_name = _("sharing")
        verbose_name_plural = _("sharings")

    def __str__(self) -> str:
        return _("%(object)s shared with %(organization)s") % {
            "object": self.object,
            "organization": self.organization,
        }


class MaintenanceItem(models.Model):
    """Something due on an object: by a date, by airborne hours (soft: maintenance due; hard: grounded), or both."""

    tenant_path = "object__organization"

    object = models.ForeignKey(
        BookableObject, on_delete=models.CASCADE, related_name="maintenance_items", verbose_name=_("object")
    )
    name = models.CharField(_("name"), max_length=200)
    due_date = models.DateField(_("due date"), null=True, blank=True)
    due_airborne = models.DecimalField(
        _("due at airborne hours"), max_digits=10, decimal_places=2, null=True, blank=True
    )
    hard_airborne = models.DecimalField(
        _("grounded at airborne hours"), max_digits=10, decimal_places=2, null=True, blank=True
    )
    warning_days = models.PositiveIntegerField(_("warning days before"), default=0)
    warning_hours = models.DecimalField(_("warning hours before"), max_digits=8, decimal_places=2, default=0)

    class Meta:
        ordering = ["due_date", "name", "id"]
        verbose_name = _("maintenance item")
        verbose_name_plural = _("maintenance items")

    def __str__(self) -> str:
        return self.name


class RemarkState(models.TextChoices):
    OPEN = "open", _("Open")
    ACKNOWLEDGED = "acknowledged", _("Acknowledged")
    CLOSED = "closed", _("Closed")


class Remark(models.Model):
    """A remark written on an object (a squawk): info, yellow or red, until it is closed."""

    tenant_path = "object__organization"
    # Sharing organizations receive remark events (webhooks) and fetch the remark: shared objects' remarks too.
    shared_through = "object"

    object = models.ForeignKey(
        BookableObject, on_delete=models.CASCADE, related_name="remarks", verbose_name=_("object")
    )
    description = models.TextField(_("description"))
    category = models.PositiveSmallIntegerField(_("category"), choices=StatusLevel.choices, default=StatusLevel.OK)
    state = models.CharField(_("state"), max_length=20, choices=RemarkState.choices, default=RemarkState.OPEN)
    created_at = models.DateTimeField(_("written"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("written by"),
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["object", "state"]),
            # The remarks list, newest first: a page is read from the index's end, not by sorting every year's
            # remarks (docs/decisions.md §12.23 "Indexes for a club's years").
            models.Index(fields=["created_at", "id"], name="remark_created_idx"),
        ]
        verbose_name = _("remark")
        verbose_name_plural = _("remarks")

    def __str__(self) -> str:
        return self.description[:60]


class RemarkAction(models.TextChoices):
    ACKNOWLEDGED = "acknowledged", _("Acknowledged")
    COMMENTED = "commented", _("Commented")
    CLOSED = "closed", _("Closed")


class RemarkEvent(models.Model):
    """One step of a remark's history: acknowledged, commented (with text) or closed; who and when."""

    tenant_path = "remark__object__organization"

    remark = models.ForeignKey(Remark, on_delete=models.CASCADE, related_name="history", verbose_name=_("remark"))
    action = models.CharField(_("action"), max_length=20, choices=RemarkAction.choices)
    text = models.TextField(_("text"), blank=True)
    at = models.DateTimeField(_("when"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("remark event")
        verbose_name_plural = _("remark events")

    def __str__(self) -> str:
        return str(self.get_action_display())
