"""Reads on members: their addresses and expiry dates, shared by the APIs, the websites and the services."""

import datetime as dt
from dataclasses import dataclass

from django.db.models import (
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
)

from accounts import sun
from accounts.models import ExpiryDateType, Member, Organization, UserEmail
from apicore import clock


def invalid_email_exists():
    """Whether the login of the outer query's row (user_id) has an address marked invalid."""
    return Exists(UserEmail.objects.filter(user_id=OuterRef("user_id"), invalid=True))


def types_with_dates_of(member: Member) -> QuerySet[ExpiryDateType]:
    """The member's organization's expiry date types, each annotated with the member's date and image (None
    without a date), in one query."""
    return (
        ExpiryDateType.objects.filter(organization_id=member.organization_id)
        .annotate(own_date=FilteredRelation("user_expiry_dates", condition=Q(user_expiry_dates__member=member)))
        .annotate(expiry_date=F("own_date__expiry_date"), date_image=F("own_date__image"))
    )


# --- sun times ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SunDay:
    """One local day's sun events at the organization's place (accounts.sun)."""

    date: dt.date
    utc_offset: dt.timedelta  # the organization's zone's offset from UTC at the day's local noon
    events: sun.SunEvents


def organization_sun_times(*, organization: Organization, date_from: dt.date, date_to: dt.date) -> list[SunDay]:
    """Civil dawn, sunrise, sunset and civil dusk of each local day from `date_from` to `date_to` (both included)
    at the organization's coordinates, in its zone; [] when a coordinate is missing."""
    latitude, longitude = organization.latitude, organization.longitude
    if latitude is None or longitude is None:
        return []
    zone = clock.zone(organization.timezone)
    days = []
    for offset in range((date_to - date_from).days + 1):
        day = date_from + dt.timedelta(days=offset)
        noon = dt.datetime.combine(day, dt.time(12), tzinfo=zone)
        days.append(SunDay(day, noon.utcoffset(), sun.sun_events(day, float(latitude), float(longitude), zone)))
    return days
