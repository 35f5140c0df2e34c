"""Mobile API v5: the flight log (document 2, module `flightlogs`; docs/decisions.md §9.32 "GET /flightlogs").

GET /flightlogs and /flightlogs/{id}: flights on the member's organization's objects and on objects shared
with it (../shared/DECISIONS.md "Shared objects"). While the organization does not use the flight log the list
is empty and every item 404 (as ../shared/DECISIONS.md "Readings of the contract" reads it for Main). The crew
of a flight whose object's organization hides it is null, also on the member's own flights (document 2: "all
null when crew_hidden"); `mine` still finds them, since they are the member's own.
"""

from django.db.models import F, Q

from apicore import params
from apicore.views import ItemEndpoint, ListEndpoint, OrderParameter
from mobile_api.flavour_v5 import MobileV5Api

from ..models import FlightLogEntry
from ..selectors import flown_by
from .mobile_presenters import MobileFlightPresenter

# Oldest first as Main v5's flight log (a flight without block off time last on its date), or its mirror.
OLDEST_FIRST = ("date", F("blockoff_at").asc(nulls_last=True), "id")
NEWEST_FIRST = ("-date", F("blockoff_at").desc(nulls_first=True), "-id")


class _MobileFlights(MobileV5Api):
    model = FlightLogEntry
    module = "flightlogs"
    presenter_class = MobileFlightPresenter

    def base_queryset(self):
        # Flights on active objects (as GET /objects/{id}); the scoping adds those the member may see: on the
        # organization's own objects and on objects shared with it (FlightLogEntry.shared_through).
        return FlightLogEntry.objects.filter(object__active=True)

    def get_queryset(self):
        if not self.organization.uses_flight_log:
            return FlightLogEntry.objects.none()
        return super().get_queryset()


def _mine(value: bool, context) -> Q:
    condition = flown_by(context.caller.member.user_id)
    return condition if value else ~condition


class MobileFlightList(_MobileFlights, ListEndpoint):
    """Flights on the organization's objects and on objects shared with it; oldest first unless `order=desc`."""

    # The page's statement is compiled once per organization and query (docs/decisions.md §1.34); whether the
    # organization uses the flight log decides it too, and `mine` the member's own.
    statement_cache = True

    def statement_key(self):
        key = super().statement_key()
        if key is None:
            return None
        mine = self.context.caller.member.user_id if "mine" in self.request.query_params else None
        return (*key, self.organization.uses_flight_log, mine)

    filters = {
        "object_id": params.Int("object_id", description="The object's id."),
        "mine": params.BoolCondition(
            "pilot",
            build=_mine,
            description="true: only the member's own flights (as pilot or instructor); false: only others'.",
        ),
        "date_from": params.Date("date__gte", description="The flight's local date is on or after this date."),
        "date_to": params.Date("date__lte", description="The flight's local date is on or before this date."),
    }
    order_parameter = (
        "order",
        OrderParameter(
            {"asc": OLDEST_FIRST, "desc": NEWEST_FIRST},
            default="asc",
            description="asc (default): oldest first by date, block off time and id; desc: newest first.",
        ),
    )


class MobileFlightItem(_MobileFlights, ItemEndpoint):
    """One flight on an object the member's organization owns or is shared."""
