"""Reads on organizations, members and API tokens."""

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import (
    DecimalField,
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
)
from django.db.models.functions import Coalesce

from apicore import clock
from economy.models import Transaction

from . import sun
from .models import ApiToken, ExpiryDateType, Member, MemberRole, Organization, Role, UserEmail
from .token_lookup import TokenRow, find_token_row

CLIENT_ID_FORM = re.compile(r"[0-9]{1,18}")
MONEY = DecimalField(max_digits=14, decimal_places=2)


def _tokens_with_owner_admin_flag() -> QuerySet[ApiToken]:
    owner_is_admin = MemberRole.objects.filter(
        member__user_id=OuterRef("owner_id"),
        member__organization_id=OuterRef("organization_id"),
        role=Role.ADMIN,
    )
    return ApiToken.objects.select_related("organization", "owner").annotate(owner_is_admin=Exists(owner_is_admin))


def _one(queryset: QuerySet[ApiToken]) -> ApiToken | None:
    # The lookups hit unique columns: no ORDER BY (first() would sort by the model's ordering, with a join).
    return next(iter(queryset.order_by()[:1]), None)


def api_token_for_credential(*, credential_hash: str) -> TokenRow | None:
    """The token behind a Bearer credential (the SHA-256 of a live OAuth access token, or of the token's own
    secret), with its organization, its owner's name and `owner_is_admin`, in one query."""
    return find_token_row(credential_hash=credential_hash, now=clock.now())


def api_token_for_client_id(*, client_id: str) -> ApiToken | None:
    # ASCII digits only: str.isdigit() also takes full-width digits, and int() would read them.
    if not CLIENT_ID_FORM.fullmatch(client_id):
        return None
    return _one(_tokens_with_owner_admin_flag().select_related("application").filter(client_id=int(client_id)))


# --- Members: reads shared by the API, the website and the services ---------------------------------------


def _member_transactions(*, organization_id, user_id) -> QuerySet:
    """A member's account: the transactions of the login in that one organization."""
    return Transaction.objects.filter(organization_id=organization_id, user_id=user_id).order_by()


def balance_expression():
    """The balance of the member of the outer query's row (organization_id, user_id), 0 without
    transactions: a sub-select, for lists."""
    sums = (
        _member_transactions(organization_id=OuterRef("organization_id"), user_id=OuterRef("user_id"))
        .values("user_id")
        .annotate(total=Sum("amount"))
        .values("total")
    )
    return Coalesce(Subquery(sums, output_field=MONEY), Value(Decimal("0")), output_field=MONEY)


def member_balance(member: Member) -> Decimal:
    """The balance of one member, 0 without transactions."""
    rows = _member_transactions(organization_id=member.organization_id, user_id=member.user_id)
    return rows.aggregate(total=Sum("amount"))["total"] or Decimal("0")


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
