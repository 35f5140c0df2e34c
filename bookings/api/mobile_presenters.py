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
from functools import lru_cache, partial

from apicore import clock
from apicore.database import utc_sortable_text
from apicore.presenters import (
    BOOLEAN,
    DATETIME,
    INTEGER,
    NUMBER,
    REF,
    STRING,
    Field,
    GeneratedItems,
    KeyedRows,
    Presenter,
    PresenterContext,
    Related,
    local_from_utc_text,
    nullable,
    obj,
    sortable_utc_text,
    text_or_none,
    utc_text,
)
from objects_app.api.presenters import category_ref

from .. import rules
from ..selectors import people_from_rows, people_rows
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


# The people's statement with their member numbers, compiled once per process.
PEOPLE = KeyedRows(partial(people_rows, member_numbers=True))


def _people(_model, user_ids, _context):
    """(login id, person with `numbers`) of the page's people (bookers, students and creators, whose Relateds
    share this load): one query, bookings.selectors.people_of's with every membership's number."""
    return people_from_rows(PEOPLE.rows(list(user_ids)), member_numbers=True)


def _number_for(numbers: dict, object_organization_id, member_organization_id) -> str | None:
    """The member number in the object's organization, else in the member's, else the person's first."""
    for organization_id in (object_organization_id, member_organization_id):
        if organization_id in numbers:
            return numbers[organization_id] or None
    return (next(iter(numbers.values())) or None) if numbers else None


# Booker, student and creator share their load: one query for the page's people (GeneratedItems).
USER_PEOPLE = Related("user_id", load=_people)
STUDENT_PEOPLE = Related("student_id", load=_people)
CREATOR_PEOPLE = Related("created_by_id", load=_people)

# The columns that decide whether a booking's people are hidden from the member (details_hidden).
WHO = ("user_id", "student_id", "object__organization__booking_hide_booker_details")
# Start and end as sortable UTC text: compared with now's text, no datetime is made for a row.
START, END = sortable_utc_text("start_at"), sortable_utc_text("end_at")


@dataclass(frozen=True)
class BookingContext(PresenterContext):
    """The presenter context with one "now" for the whole reply (is_active_now, is_passed, permissions), and
    what every row asks of the member, read once: their login, their organization and whether it hides who
    booked."""

    now: dt.datetime | None = None

    def __post_init__(self):
        now = self.now or clock.now()
        member = self.caller.member if self.caller is not None else None
        facts = {
            "now": now,
            "now_text": utc_sortable_text(now),
            "member": member,
            "user_id": None if member is None else member.user_id,
            "member_organization_id": None if member is None else member.organization_id,
            "member_hides": bool(member is not None and member.organization.booking_hide_booker_details),
        }
        for name, value in facts.items():
            object.__setattr__(self, name, value)  # a frozen dataclass: set once, here


def _own(context, user_id, student_id) -> bool:
    return context.user_id in (user_id, student_id)


def _hidden(context, user_id, student_id, owner_hides) -> bool:
    return bool(owner_hides or context.member_hides) and context.user_id not in (user_id, student_id)


def _person(context, people, user_id, student_id, owner_hides, object_organization_id):
    if not people:
        return None
    person = people[0]
    if _hidden(context, user_id, student_id, owner_hides):
        return {"id": person["id"], "name": None, "member_number": None, "email": None, "mobile": None}
    return {
        "id": person["id"],
        "name": person["name"],
        "member_number": _number_for(person["numbers"], object_organization_id, context.member_organization_id),
        "email": person["email"],
        "mobile": person["mobile"],
    }


def _creator(context, people, user_id, student_id, owner_hides):
    if not people:
        return None
    person = people[0]
    return {"id": person["id"], "name": None if _hidden(context, user_id, student_id, owner_hides) else person["name"]}


def _object(id_, registration, category, organization_id, organization_name):
    return {
        "id": id_,
        "registration": registration,
        "category": category_ref(category),
        "organization": {"id": organization_id, "name": organization_name},
    }


def _utc(text: str) -> str:
    """utc_text's text of a sortable text: whole seconds."""
    return f"{text[:19]}Z"


@lru_cache(maxsize=4096)
def _local(text: str, zone_name: str) -> str:
    """The local time of a sortable text, remembered as bookings.api.presenters.local_time is."""
    return local_from_utc_text(_utc(text), zone_name)


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


class _Booking:
    """What the rules read of a booking (bookings.rules.may_cancel, may_cut); its start and end become
    datetimes only when a rule reads them (the member's own bookings)."""

    __slots__ = ("_end", "_start", "created_by_id", "user_id")

    def __init__(self, start, end, user_id, created_by_id):
        self._start, self._end, self.user_id, self.created_by_id = start, end, user_id, created_by_id

    @property
    def start_at(self) -> dt.datetime:
        return _moment(self._start)

    @property
    def end_at(self) -> dt.datetime:
        return _moment(self._end)


def _permissions(context, start, end, user_id, created_by_id, queue_allowed):
    member, now = context.member, context.now
    booking = _Booking(start, end, user_id, created_by_id)
    can_cancel = rules.may_cancel(member, booking, now=now)
    return {
        "can_edit": can_cancel,
        "can_cancel": can_cancel,
        "can_cut": rules.may_cut(member, booking, now=now),
        "queue_allowed": queue_allowed,
    }


class MobileBookingPresenter(GeneratedItems, Presenter):
    rows_by_keys = True  # the page's keys come from the scoped queryset; its rows are read by them alone

    fields = {
        "id": Field(INTEGER, "id"),
        "start_at": Field(DATETIME, START, compute=_utc),
        "end_at": Field(DATETIME, END, compute=_utc),
        "start_local": Field(DATETIME, START, TIMEZONE, compute=_local),
        "end_local": Field(DATETIME, END, TIMEZONE, compute=_local),
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
            related=USER_PEOPLE,
            compute=_person,
            uses_context=True,
        ),
        "student": Field(
            nullable(PERSON),
            *WHO,
            "object__organization_id",
            related=STUDENT_PEOPLE,
            compute=_person,
            uses_context=True,
        ),
        "type": Field(STRING, "type"),
        "is_primary": Field(BOOLEAN, "is_primary"),
        "is_queue": Field(BOOLEAN, "is_primary", compute=lambda primary: not primary),
        "is_own": Field(BOOLEAN, "user_id", "student_id", compute=_own, uses_context=True),
        "is_student": Field(BOOLEAN, "student_id", compute=lambda c, s: c.user_id == s, uses_context=True),
        "is_active_now": Field(BOOLEAN, START, END, compute=lambda c, s, e: s <= c.now_text < e, uses_context=True),
        "is_passed": Field(BOOLEAN, END, compute=lambda c, e: e <= c.now_text, uses_context=True),
        "details_hidden": Field(BOOLEAN, *WHO, compute=_hidden, uses_context=True),
        "permissions": Field(
            PERMISSIONS,
            START,
            END,
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
