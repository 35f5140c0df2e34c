"""Reads on members: their addresses and expiry dates, shared by the APIs, the websites and the services."""

from django.db.models import (
    Exists,
    F,
    FilteredRelation,
    OuterRef,
    Q,
    QuerySet,
)

from accounts.models import ExpiryDateType, Member, UserEmail


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
