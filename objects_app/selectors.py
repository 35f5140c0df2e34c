"""Reads of objects, maintenance items and remarks shared by the APIs and the website.

Each function that loads rows for several objects (or remarks) does it in one query, so that a page of items
costs the same number of queries whatever its length.
"""

import datetime as dt
from collections.abc import Iterable, Iterator

from django.db.models import Case, F, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Coalesce, Lower

from accounts.models.user import full_name_of
from apicore import clock
from apicore.database import Hundredths, UtcText, among

from .models import BookableObject, MaintenanceItem, Remark, RemarkEvent, RemarkState

# The columns of a person reference {id, name} read from the login at `path`.
PERSON_COLUMNS = ("id", "name", "first_name", "last_name_particle", "last_name", "username")


def person_columns(path: str) -> list[str]:
    return [f"{path}__{column}" for column in PERSON_COLUMNS]


def person_ref(id_, name, first_name, particle, last_name, username) -> dict | None:
    """{id (the login's id), name (full name)} or None."""
    if id_ is None:
        return None
    return {"id": id_, "name": full_name_of(name or "", first_name or "", particle or "", last_name or "", username)}


# --- objects -------------------------------------------------------------------------------------------------


def calendar_order(organization_id: int) -> tuple:
    """The booking calendar's order of objects as one member's organization sees them: its own objects first,
    then those shared with it; within each, by category (aircraft, equipment, premises), registration (any
    case), id. The Mobile API's GET /objects and the member website's booking calendar both use it."""
    shared_last = Case(When(organization_id=organization_id, then=Value(0)), default=Value(1))
    return (shared_last, "category", Lower("registration"), "id")


def calendar_objects_for(member) -> QuerySet:
    """The objects a member sees in the booking calendar, in its order: the active objects of the member's
    organization and the active objects shared with it (../shared/DECISIONS.md "Booking rules", rule 1; the order:
    docs/decisions.md §9.29 "GET /objects: order and visibility")."""
    organization_id = member.organization_id
    return (
        BookableObject.objects.visible_to(organization_id)
        .filter(active=True)
        .order_by(*calendar_order(organization_id))
    )


# The states of a remark that is not closed, named rather than "not closed": an index on (object, state) then
# reads an object's open remarks alone, not the closed ones of every year before (docs/decisions.md §12.23).
NOT_CLOSED = (RemarkState.OPEN, RemarkState.ACKNOWLEDGED)


def open_remarks_category():
    """A sub-select: the highest category of the object's remarks that are not closed, 0 when none."""
    highest = (
        Remark.objects.filter(object_id=OuterRef("pk"), state__in=NOT_CLOSED)
        .order_by("-category")
        .values("category")[:1]
    )
    return Coalesce(Subquery(highest), Value(0))


def maintenance_item_rows(object_ids) -> QuerySet:
    """(object id, item id, name, due date, due_airborne, hard_airborne, warning days, warning_hours) of the
    objects' maintenance items, by due date (nulls last), name (any case), id; hours as whole hundredths
    (objects_app.status). `object_ids`: a list, or a sub-select of a page's keys (apicore.database.among)."""
    return (
        MaintenanceItem.objects.filter(among("object_id", object_ids))
        .order_by("object_id", F("due_date").asc(nulls_last=True), Lower("name"), "id")
        .values_list(
            "object_id",
            "id",
            "name",
            "due_date",
            Hundredths("due_airborne"),
            Hundredths("hard_airborne"),
            "warning_days",
            Hundredths("warning_hours"),
        )
    )


def maintenance_item(values) -> list:
    """[item id, name, due date, due_airborne, hard_airborne, warning days, warning_hours, None] of a row of
    maintenance_item_rows (without its object id). The last place is for the item's status, which needs its
    object's totals and today (objects_app.api.presenters fills it once for the status and maintenance_items
    blocks alike)."""
    return [*values, None]


def active_remark_rows(object_ids) -> QuerySet:
    """(object id, remark id, created_at as UTC text, description, category, *the writer's person columns) of the
    objects' remarks that are not closed, newest first. The time as text (no datetime parsed by the driver):
    `active_remark` makes its local date. `object_ids`: a list, or a sub-select of a page's keys."""
    return (
        Remark.objects.filter(among("object_id", object_ids), state__in=NOT_CLOSED)
        .order_by("object_id", "-created_at", "-id")
        .values_list("object_id", "id", UtcText("created_at"), "description", "category", *person_columns("created_by"))
    )


def active_remark(remark, zone_name: str) -> dict:
    """The API's item of a remark not closed (a row of active_remark_rows without its object id); `created_date` is
    the local date in the IANA zone `zone_name` (the object's organization's)."""
    remark_id, created_at, description, category, *person = remark
    return {
        "id": remark_id,
        "created_date": clock.local_date_of_utc_text(created_at, zone_name),
        "created_by": person_ref(*person),
        "description": description,
        "category_id": category,
    }


# --- remarks -------------------------------------------------------------------------------------------------


def remark_history_of(remark_ids: Iterable[int], *, at: callable) -> Iterator[tuple[int, dict]]:
    """(remark id, event) of the remarks' history, oldest first; one query. `at` writes the event's time."""
    rows = (
        RemarkEvent.objects.filter(remark_id__in=list(remark_ids))
        .order_by("remark_id", "at", "id")
        .values_list("remark_id", "action", "text", "at", *person_columns("by"))
    )
    for remark_id, action, text, when, *person in rows:
        yield remark_id, {"action": action, "text": text or None, "at": at(when), "by": person_ref(*person)}


def visible_zones(organization) -> list[str]:
    """The time zones of the organizations whose objects the organization sees (its own and sharers')."""
    objects = BookableObject.objects.visible_to(organization)
    zones = set(objects.order_by().values_list("organization__timezone", flat=True).distinct())
    zones.add(organization.timezone)
    return sorted(zones)


def created_local_condition(organization, day: dt.date, *, on_or_after: bool) -> Q:
    """Remarks whose `created_at`, as a local date in their object's organization's zone, is on or after
    (or on or before) `day`: one condition per zone the organization's visible objects are in."""
    condition = Q(pk__in=[])
    for zone in visible_zones(organization):
        if on_or_after:
            start = clock.local_midnight(day, zone)
            bound = Q() if start is None else Q(created_at__gte=start)
        else:
            end = None if day == dt.date.max else clock.local_midnight(day + dt.timedelta(days=1), zone)
            bound = Q() if end is None else Q(created_at__lt=end)
        condition |= Q(object__organization__timezone=zone) & bound
    return condition
