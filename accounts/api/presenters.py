"""Presenters of the token, the organization, memberships, user groups and expiry date types (Main API v5)."""

from django.db.models import F
from django.db.models.functions import Lower

from accounts.models.user import full_name_of as full_name
from accounts.models.user import name_columns
from apicore.presenters import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    STRING,
    Block,
    Field,
    Presenter,
    Related,
    array,
    nullable,
    obj,
)


def _coordinate(value) -> float | None:
    return None if value is None else float(value)


class OrganizationPresenter(Presenter):
    fields = {
        "id": Field(INTEGER, "id"),
        "name": Field(STRING, "name"),
        "location": Field(
            obj(
                reference_icao=nullable(STRING),
                latitude=nullable(NUMBER),
                longitude=nullable(NUMBER),
                country=nullable(STRING),
                timezone=STRING,
            ),
            "reference_icao",
            "latitude",
            "longitude",
            "country",
            "timezone",
            compute=lambda icao, latitude, longitude, country, timezone: {
                "reference_icao": icao or None,
                "latitude": _coordinate(latitude),
                "longitude": _coordinate(longitude),
                "country": country or None,
                "timezone": timezone,
            },
        ),
    }


GROUP_MEMBER = obj(id=INTEGER, name=STRING, member_number=STRING, active=BOOLEAN)


def _members_of_groups(model, keys, _context):
    """The members of memberships or user groups (both reach them as `members`), sorted by name. Only member
    records of the group's own organization: a stray record of another organization never shows."""
    rows = (
        model.objects.filter(pk__in=keys, members__organization_id=F("organization_id"))
        .order_by("pk", Lower("members__user__name"), "members__user_id")
        .values_list(
            "pk", "members__user_id", *name_columns("members__user"), "members__member_number", "members__active"
        )
    )
    for key, user_id, *rest in rows:
        *name, member_number, active = rest
        yield key, {"id": user_id, "name": full_name(*name), "member_number": member_number, "active": active}


class GroupPresenter(Presenter):
    """Memberships and user groups: `{id, name}`, block `users` sorted by name."""

    fields = {"id": Field(INTEGER, "id"), "name": Field(STRING, "name")}
    blocks = {"users": Block(array(GROUP_MEMBER), related=Related("id", load=_members_of_groups))}


class ExpiryDateTypePresenter(Presenter):
    fields = {
        "id": Field(INTEGER, "id"),
        "name": Field(STRING, "name"),
        "may_never_expire": Field(BOOLEAN, "may_never_expire"),
        "members_can_change": Field(BOOLEAN, "members_can_change"),
        "image_required": Field(BOOLEAN, "image_required"),
        "booking": Field(
            obj(required=BOOLEAN, warning_only=BOOLEAN, also_for_students=BOOLEAN, excluded_object_ids=array(INTEGER)),
            "booking_required",
            "booking_warning_only",
            "booking_also_for_students",
            "booking_excluded_object_ids",
            compute=lambda required, warning_only, students, excluded: {
                "required": required,
                "warning_only": warning_only,
                "also_for_students": students,
                "excluded_object_ids": list(excluded),
            },
        ),
        "reminders": Field(
            obj(at_login=BOOLEAN, days_before=INTEGER),
            "reminders_at_login",
            "reminders_days_before",
            compute=lambda at_login, days_before: {"at_login": at_login, "days_before": days_before},
        ),
    }
