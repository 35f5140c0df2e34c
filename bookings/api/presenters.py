"""The Booking resource (Main API v5): a fixed number of queries per page, whatever its length.

The booker's and the student's details are columns of the page's rows; their email addresses are one query
each for the page's bookers and students (a sub-select per row ran twice for every booking). The local times
are in the zone of the object's organization (a shared object of a club in another zone shows that club's
zone and times).
"""

from decimal import Decimal
from functools import lru_cache, partial

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
    Related,
    local_from_utc_text,
    nullable,
    obj,
    text_or_none,
    utc_text,
)
from objects_app.api.presenters import aircraft_text, category_ref

from ..selectors import people_from_rows, people_rows

NULLABLE_TEXT = nullable(STRING)

PERSON = obj(id=INTEGER, name=STRING, email=NULLABLE_TEXT, mobile=NULLABLE_TEXT)
OBJECT = obj(
    id=INTEGER,
    registration=STRING,
    type_designator=NULLABLE_TEXT,
    category=REF,
    organization=REF,
)


# The people's statement, compiled once per process: every page runs the same text with its keys.
PEOPLE = KeyedRows(partial(people_rows, member_numbers=False))


def _people(_model, user_ids, _context):
    """(login id, {id, name, email, mobile}) of the page's bookers and students: one entry per person, however
    many bookings they have on the page, in one query for both roles (their Relateds share this load)."""
    return people_from_rows(PEOPLE.rows(list(user_ids)))


def _one(people):
    return people[0] if people else None


def _object(id_, registration, type_designator, category, organization_id, organization_name):
    return {
        "id": id_,
        "registration": registration,
        "type_designator": aircraft_text(type_designator, category),
        "category": category_ref(category),
        "organization": {"id": organization_id, "name": organization_name},
    }


@lru_cache(maxsize=4096)
def local_time(utc: str, zone_name: str) -> str:
    """apicore.presenters.local_from_utc_text, remembered: a page's bookings start and end at the same times
    again and again (the bench club's pages of 500 have ~310 distinct times of 1,000), and a zone conversion
    costs ~2 µs. Bounded, per process; the text depends on nothing else."""
    return local_from_utc_text(utc, zone_name)


def _hours(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


TIMEZONE = "object__organization__timezone"


class BookingPresenter(GeneratedItems, Presenter):
    rows_by_keys = True  # the page's keys come from the scoped queryset; its rows are read by them alone

    fields = {
        "id": Field(INTEGER, "id"),
        # Written as text by the database: no datetimes are made (apicore.database).
        "start_at": Field(DATETIME, utc_text("start_at")),
        "end_at": Field(DATETIME, utc_text("end_at")),
        "start_local": Field(DATETIME, utc_text("start_at"), TIMEZONE, compute=local_time),
        "end_local": Field(DATETIME, utc_text("end_at"), TIMEZONE, compute=local_time),
        "timezone": Field(STRING, TIMEZONE),
        "object": Field(
            OBJECT,
            "object_id",
            "object__registration",
            "object__type_designator",
            "object__category",
            "object__organization_id",
            "object__organization__name",
            compute=_object,
        ),
        # Booker and student share their load: one query for the page's people (GeneratedItems).
        "user": Field(PERSON, related=Related("user_id", load=_people), compute=_one),
        "student": Field(nullable(PERSON), related=Related("student_id", load=_people), compute=_one),
        "type": Field(STRING, "type"),
        "is_primary": Field(BOOLEAN, "is_primary"),
        "expected_airborne": Field(nullable(NUMBER), "expected_airborne", compute=_hours),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
    }
