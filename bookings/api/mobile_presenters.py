"""The Booking resource of the Mobile API v5 (document 2), as one member sees it.

Shared with Main's presenter (bookings/api/presenters.py): the UTC and local times written from the database's
text, the zone of the object's organization, the booker's and student's names and contact details (each
person's own visibility settings, bookings.selectors.people_of). The Mobile shape adds the member number (of
the person's membership in the object's organization, else in the member's, else their first), what the
booking is to the member (`is_own`, `is_student`, `permissions` by the rules of bookings.rules) and
`details_hidden`: the member's or the object's organization hides who booked from members; the member's own
bookings are never hidden. A fixed number of queries per page, whatever its length.
"""

import datetime as dt
from dataclasses import dataclass

from accounts.models import Member
from apicore import clock
from apicore.presenters import (
    BOOLEAN,
    DATETIME,
    INTEGER,
    NUMBER,
    REF,
    STRING,
    Field,
    Presenter,
    PresenterContext,
    Related,
    local_text,
    nullable,
    obj,
    text_or_none,
    utc_text,
)
from objects_app.api.presenters import category_ref

from .. import rules
from ..selectors import people_of
from .presenters import TIMEZONE, _hours

NULLABLE_TEXT = nullable(STRING)
PERSON = obj(
    id=INTEGER,
    name=NULLABLE_TEXT,
    member_number=NULLABLE_TEXT,
    email=NULLABLE_TEXT,
    mobile=NULLABLE_TEXT,
)
OBJECT = obj(id=INTEGER, registration=STRING, category=REF, organization=REF)
PERMISSIONS = obj(can_edit=BOOLEAN, can_cancel=BOOLEAN, can_cut=BOOLEAN, queue_allowed=BOOLEAN)
CREATOR = obj(id=INTEGER, name=NULLABLE_TEXT)


def _people(_model, user_ids, _context):
    return people_of(user_ids)


def _member_numbers(_model, user_ids, _context):
    """(login id, (organization id, member number)) of every membership of the page's people: one query."""
    rows = Member.objects.filter(user_id__in_keys=list(user_ids)).order_by("user_id", "organization_id")
    return [
        (user_id, (organization_id, number))
        for user_id, organization_id, number in rows.values_list("user_id", "organization_id", "member_number")
    ]


def _number_for(numbers, object_organization_id, member_organization_id) -> str | None:
    by_organization = dict(numbers)
    for organization_id in (object_organization_id, member_organization_id):
        if organization_id in by_organization:
            return by_organization[organization_id] or None
    return (numbers[0][1] or None) if numbers else None


USER_PEOPLE = Related("user_id", load=_people)
USER_NUMBERS = Related("user_id", load=_member_numbers)
STUDENT_PEOPLE = Related("student_id", load=_people)
STUDENT_NUMBERS = Related("student_id", load=_member_numbers)
CREATOR_PEOPLE = Related("created_by_id", load=_people)

# The columns that decide what a booking is to the member (is_own, details_hidden, permissions).
WHO = ("user_id", "student_id", "created_by_id", "object__organization__booking_hide_booker_details")
WHEN = ("start_at", "end_at")


def _member(context):
    return context.caller.member


def _own(member, user_id, student_id) -> bool:
    return member.user_id in (user_id, student_id)


def _hidden(context, user_id, student_id, created_by_id, owner_hides) -> bool:
    member = _member(context)
    hides = owner_hides or member.organization.booking_hide_booker_details
    return bool(hides) and not _own(member, user_id, student_id)


def _person(context, people, numbers, user_id, student_id, created_by_id, owner_hides, object_organization_id):
    if not people:
        return None
    person = people[0]
    if _hidden(context, user_id, student_id, created_by_id, owner_hides):
        return {"id": person["id"], "name": None, "member_number": None, "email": None, "mobile": None}
    number = _number_for(numbers, object_organization_id, _member(context).organization_id)
    return {
        "id": person["id"],
        "name": person["name"],
        "member_number": number,
        "email": person["email"],
        "mobile": person["mobile"],
    }


def _creator(context, people, user_id, student_id, created_by_id, owner_hides):
    if not people:
        return None
    person = people[0]
    hidden = _hidden(context, user_id, student_id, created_by_id, owner_hides)
    return {"id": person["id"], "name": None if hidden else person["name"]}


def _object(id_, registration, category, organization_id, organization_name):
    return {
        "id": id_,
        "registration": registration,
        "category": category_ref(category),
        "organization": {"id": organization_id, "name": organization_name},
    }


@dataclass(frozen=True)
class BookingContext(PresenterContext):
    """The presenter context with one "now" for the whole reply (is_active_now, is_passed, permissions)."""

    now: dt.datetime | None = None


def _now(context) -> dt.datetime:
    return getattr(context, "now", None) or clock.now()


class _Times:
    """start_at and end_at of a row, for the rules' permission checks."""

    __slots__ = ("created_by_id", "end_at", "start_at", "user_id")

    def __init__(self, start_at, end_at, user_id, created_by_id):
        self.start_at, self.end_at, self.user_id, self.created_by_id = start_at, end_at, user_id, created_by_id


def _permissions(context, start_at, end_at, user_id, created_by_id, queue_allowed):
    member, now = _member(context), _now(context)
    booking = _Times(start_at, end_at, user_id, created_by_id)
    can_cancel = rules.may_cancel(member, booking, now=now)
    return {
        "can_edit": can_cancel,
        "can_cancel": can_cancel,
        "can_cut": rules.may_cut(member, booking, now=now),
        "queue_allowed": queue_allowed,
    }


class MobileBookingPresenter(Presenter):
    fields = {
        "id": Field(INTEGER, "id"),
        "start_at": Field(DATETIME, utc_text("start_at")),
        "end_at": Field(DATETIME, utc_text("end_at")),
        "start_local": local_text("start_at", TIMEZONE),
        "end_local": local_text("end_at", TIMEZONE),
        "timezone": Field(STRING, TIMEZONE),
        "object": Field(
            OBJECT,
            "object_id",
            "object__registration",
            "object__category",
            "object__organization_id",
            "object__organization__name",
            compute=_object,
        ),
        "user": Field(
            nullable(PERSON),
            *WHO,
            "object__organization_id",
            related=(USER_PEOPLE, USER_NUMBERS),
            compute=_person,
            uses_context=True,
        ),
        "student": Field(
            nullable(PERSON),
            *WHO,
            "object__organization_id",
            related=(STUDENT_PEOPLE, STUDENT_NUMBERS),
            compute=_person,
            uses_context=True,
        ),
        "type": Field(STRING, "type"),
        "is_primary": Field(BOOLEAN, "is_primary"),
        "is_queue": Field(BOOLEAN, "is_primary", compute=lambda primary: not primary),
        "is_own": Field(
            BOOLEAN, "user_id", "student_id", compute=lambda c, u, s: _own(_member(c), u, s), uses_context=True
        ),
        "is_student": Field(BOOLEAN, "student_id", compute=lambda c, s: _member(c).user_id == s, uses_context=True),
        "is_active_now": Field(BOOLEAN, *WHEN, compute=lambda c, s, e: s <= _now(c) < e, uses_context=True),
        "is_passed": Field(BOOLEAN, "end_at", compute=lambda c, e: e <= _now(c), uses_context=True),
        "details_hidden": Field(BOOLEAN, *WHO, compute=_hidden, uses_context=True),
        "permissions": Field(
            PERMISSIONS,
            *WHEN,
            "user_id",
            "created_by_id",
            "object__queue_allowed",
            compute=_permissions,
            uses_context=True,
        ),
        "expected_airborne": Field(nullable(NUMBER), "expected_airborne", compute=_hours),
        "seats_left": Field(nullable(INTEGER), "seats_left"),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
        "created_at": Field(DATETIME, utc_text("created_at")),
        "created_by": Field(nullable(CREATOR), *WHO, related=CREATOR_PEOPLE, compute=_creator, uses_context=True),
    }
