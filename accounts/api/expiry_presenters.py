"""Presenters of users' expiry dates (Main API v5)."""

import datetime as dt

from django.db.models import F, FilteredRelation, Q, QuerySet

from apicore.presenters import Presenter, attr, ref

from ..expiry import date_expired
from ..models import ExpiryDateType, Member


def _computed_later(obj) -> None:
    """Placeholder of a field that the presenter computes against the organization's today."""
    return None


class _TodayPresenter(Presenter):
    """`expired` needs the organization's today; the view sets `today` when it makes the presenter."""

    today: dt.date | None = None

    def render(self, obj) -> dict:
        item = super().render(obj)
        if "expired" in item:
            item["expired"] = date_expired(obj.expiry_date, today=self.today)
        return item


class ExpiryDateListPresenter(_TodayPresenter):
    """An item of GET /expiry-dates: one existing date (a UserExpiryDate)."""

    fields = {
        "user": lambda row: {"id": row.member.user_id, "name": row.member.user.full_name},
        "type": ref("type"),
        "expiry_date": attr("expiry_date"),
        "expired": _computed_later,
        "image_required": attr("type.image_required"),
        "has_image": lambda row: bool(row.image),
    }

    def prepare_base(self, queryset: QuerySet) -> QuerySet:
        return queryset.select_related("member__user", "type")


class UserExpiryDatePresenter(_TodayPresenter):
    """An item of GET /users/{id}/expiry-dates and the PUT reply: one expiry date type with the user's date
    of it (an ExpiryDateType annotated by `types_with_dates_of`)."""

    fields = {
        "id": attr("id"),
        "name": attr("name"),
        "expiry_date": attr("expiry_date"),
        "expired": _computed_later,
        "image_required": attr("image_required"),
        "has_image": lambda row: bool(row.date_image),
    }


def types_with_dates_of(member: Member) -> QuerySet:
    """The member's organization's types, each with the member's date and image (None without a date), in
    one query."""
    return (
        ExpiryDateType.objects.filter(organization_id=member.organization_id)
        .annotate(own_date=FilteredRelation("user_expiry_dates", condition=Q(user_expiry_dates__member=member)))
        .annotate(expiry_date=F("own_date__expiry_date"), date_image=F("own_date__image"))
    )
