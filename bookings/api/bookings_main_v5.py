"""Main API v5: bookings of the organization's own objects and of objects shared with it.

GET /bookings (filters, sorted by start time then id) and GET /bookings/{id}. The date window is in local
dates of the caller's organization: a booking is listed when it ends after `date_from` has begun and starts
before `date_to` is over (bookings/selectors.py).
"""

from apicore import params
from apicore.views import ItemEndpoint, ListEndpoint
from main_api.flavour_v5 import MainV5Api

from .. import selectors
from ..models import Booking
from .presenters import BookingPresenter


def _search(lookup: str, what: str) -> params.Search:
    return params.Search(lookup, description=f"{what}; * matches any characters.")


def _date_from(day, context):
    return selectors.ends_on_or_after(day, context.organization.timezone)


def _date_to(day, context):
    return selectors.starts_on_or_before(day, context.organization.timezone)


class _Bookings(MainV5Api):
    model = Booking
    module = "bookings"
    presenter_class = BookingPresenter


class BookingList(_Bookings, ListEndpoint):
    """Bookings of the organization's objects and of objects shared with it, sorted by start time."""

    filters = {
        "date_from": params.DateCondition(
            "end_at",
            build=_date_from,
            description="Local date (the organization's zone): bookings that end after this day has begun.",
        ),
        "date_to": params.DateCondition(
            "start_at",
            build=_date_to,
            description="Local date (the organization's zone): bookings that start before this day is over.",
        ),
        "object_id": params.Int("object_id"),
        "object_organization_id": params.Int("object__organization_id"),
        "object_category_id": params.Int("object__category"),
        "user_id": params.Int("user_id", description="The booker's user id."),
        "student_id": params.Int("student_id"),
        "object_registration": _search("object__registration", "Object registration"),
        "user_name": _search("user__name", "The booker's name"),
        "student_name": _search("student__name", "The student's name"),
        "is_primary": params.Bool("is_primary", description="false: queue bookings."),
    }
    ordering = ("start_at", "id")


class BookingItem(_Bookings, ItemEndpoint):
    """One booking of the organization's objects or of an object shared with it."""
