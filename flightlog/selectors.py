"""Reads of the flight log shared by the APIs and the website: query expressions and small loads."""

from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Lower

from economy.models import Transaction

from .models import FlightApproval

# The flag of the object's organization that hides the crew of its flights (the flight's own path to it).
CREW_HIDDEN = "object__organization__hide_crew_in_log"


def first_transaction_id() -> Subquery:
    """A flight's transaction_id: the smallest id of its transactions (economy), or null."""
    return Subquery(Transaction.objects.filter(flightlog=OuterRef("pk")).order_by("id").values("id")[:1])


def crew_shown() -> Q:
    """Flights whose crew the object's organization shows (the crew filters match only these)."""
    return Q(**{CREW_HIDDEN: False})


def with_instructor(value: bool) -> Q:
    """has_instructor: a hidden crew counts as a flight without instructor."""
    shown = crew_shown() & Q(instructor__isnull=False)
    return shown if value else ~shown


def approved_types(approval_ids: list[int]):
    """(approval id, flight type id, name) of the approvals' flight types, by name (any case), then id."""
    return (
        FlightApproval.flight_types.through.objects.filter(flightapproval_id__in=approval_ids)
        .order_by("flightapproval_id", Lower("flighttype__name"), "flighttype_id")
        .values_list("flightapproval_id", "flighttype_id", "flighttype__name")
    )


def flown_by(user_id: int) -> Q:
    """Flights with the login as pilot or instructor (any of its member records: a pilot from a sharing
    club flies a shared object as that club's member). The crew flag does not matter: these are the
    person's own flights (the Mobile API's `mine`)."""
    return Q(pilot__user_id=user_id) | Q(instructor__user_id=user_id)
