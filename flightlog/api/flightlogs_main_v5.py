"""Main API v5: the flight log (module `flightlogs`).

GET /flightlogs and /flightlogs/{id}: flights on the organization's own objects only (objects shared with it
are not its flight log). GET /flight-types and GET /users/{id}/approved-flight-types: 409 10200 while the
organization does not use the flight log; GET /flightlogs then answers an empty list
(../shared/DECISIONS.md "Readings of the contract"; docs/decisions.md §6.4 "Flight log off").

When the object's organization hides the crew, pilot, instructor and scout are null, the crew filters never
match the flight and `has_instructor` counts it as a flight without instructor.
"""

from dataclasses import dataclass
from typing import Any

from django.db.models import F, Q
from django.db.models.functions import Lower

from accounts.models import Member
from apicore import params
from apicore.errors import ErrorCode, ServiceError
from apicore.views import ItemEndpoint, ListEndpoint
from main_api.flavour_v5 import MainV5Api
from objects_app.models import BookableObject

from ..models import FlightApproval, FlightLogEntry, FlightType
from ..selectors import crew_shown, with_instructor
from .presenters import ApprovedFlightTypesPresenter, FlightPresenter, FlightTypePresenter

MODULE = "flightlogs"


def _search(lookup: str, what: str) -> params.Search:
    return params.Search(lookup, description=f"{what}; * matches any characters.")


@dataclass(frozen=True)
class CrewSearch(params.Search):
    """A search on the crew: never matches a flight whose crew is hidden."""

    def condition(self, value: str, context: Any) -> Q:
        return super().condition(value, context) & crew_shown()


@dataclass(frozen=True)
class CrewId(params.Int):
    """A crew member's user id (the login's id): never matches a flight whose crew is hidden."""

    def condition(self, value: int, context: Any) -> Q:
        return super().condition(value, context) & crew_shown()


def _crew_filters(role: str) -> dict[str, params.Filter]:
    return {
        f"{role}_id": CrewId(f"{role}__user_id", description=f"The {role}'s user id (never matches a hidden crew)."),
        f"{role}_name": CrewSearch(
            f"{role}__user__name", description=f"The {role}'s name; * matches any characters (never a hidden crew)."
        ),
        f"{role}_member_number": CrewSearch(
            f"{role}__member_number",
            description=f"The {role}'s member number; * matches any characters (never a hidden crew).",
        ),
    }


class FlightLogOff:
    """Endpoints that answer 409 10200 while the organization does not use the flight log (after the
    checks of the call and its parameters, before the rows)."""

    errors = {"get": (ErrorCode.FLIGHT_LOG_OFF,)}

    def get_queryset(self):
        if not self.organization.uses_flight_log:
            raise ServiceError(ErrorCode.FLIGHT_LOG_OFF, "The organization does not use the flight log.")
        return super().get_queryset()


class _Flights(MainV5Api):
    model = FlightLogEntry
    module = MODULE
    presenter_class = FlightPresenter
    own_rows_only = True  # flights on the organization's own objects, not on objects shared with it

    def get_queryset(self):
        # With the flight log off there is none.
        queryset = super().get_queryset()
        return queryset if self.organization.uses_flight_log else queryset.none()


class FlightList(_Flights, ListEndpoint):
    """Flights on the organization's own objects, oldest first."""

    # The page's statement is compiled once per organization and query (docs/decisions.md §1.34); whether the
    # organization uses the flight log decides it too (none while it does not).
    statement_cache = True

    def statement_key(self):
        key = super().statement_key()
        return None if key is None else (*key, self.organization.uses_flight_log)

    filters = {
        "date_from": params.Date("date__gte", description="The flight's local date is on or after this date."),
        "date_to": params.Date("date__lte", description="The flight's local date is on or before this date."),
        "object_id": params.Int("object_id"),
        "object_organization_id": params.Int("object__organization_id"),
        "object_registration": _search("object__registration", "Registration"),
        "object_organization_name": _search("object__organization__name", "Name of the object's organization"),
        "departure_icao": _search("departure_airport__icao", "ICAO code of the departure airport"),
        "arrival_icao": _search("arrival_airport__icao", "ICAO code of the arrival airport"),
        **_crew_filters("pilot"),
        **_crew_filters("instructor"),
        **_crew_filters("scout"),
        "remark_id": params.Int("remark_id"),
        "has_instructor": params.BoolCondition(
            "instructor",
            build=lambda value, context: with_instructor(value),
            description="With an instructor shown (a hidden crew counts as without).",
        ),
        "has_remark": params.BoolCondition(
            "remark",
            build=lambda value, context: Q(remark__isnull=not value),
            description="With a remark.",
        ),
    }
    # Oldest first; a flight without block off time comes after those with one on its date (as PostgreSQL's
    # index on date, blockoff_at, id orders it), on every database.
    ordering = ("date", F("blockoff_at").asc(nulls_last=True), "id")


class FlightItem(_Flights, ItemEndpoint):
    """One flight on the organization's own objects."""


class FlightTypeList(MainV5Api, FlightLogOff, ListEndpoint):
    """The organization's flight types, sorted by name."""

    model = FlightType
    module = MODULE
    presenter_class = FlightTypePresenter
    ordering = (Lower("name"), "id")


class ApprovedFlightTypeList(MainV5Api, FlightLogOff, ListEndpoint):
    """The objects the user may log flights on, with the flight types allowed on each.

    Objects are sorted as GET /objects sorts them (category, registration); the user's approvals on objects
    the organization owns or is shared."""

    model = FlightApproval
    module = MODULE
    presenter_class = ApprovedFlightTypesPresenter
    parent_model = Member
    parent_lookup = "user_id"
    ordering = ("object__category", "object__registration", "object_id")

    def base_queryset(self):
        visible = BookableObject.objects.visible_to(self.organization)
        return FlightApproval.objects.filter(member=self.parent, object__in=visible)
