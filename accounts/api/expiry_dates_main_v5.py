"""Main API v5: users' expiry dates.

GET /expiry-dates, GET /users/{id}/expiry-dates, PUT and DELETE /users/{id}/expiry-dates/{type_id}.
`expired` is the date alone (before the organization's today, in its timezone), without the image rule.
"""

import datetime as dt
from functools import cached_property

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower
from django.http import Http404
from rest_framework.response import Response

from apicore import clock, params
from apicore import schema as s
from apicore.params import parse_bool
from apicore.presenters import Presenter
from apicore.views import ListEndpoint, MainApiView

from .. import services
from ..models import ExpiryDateType, Member, UserExpiryDate
from .expiry_presenters import ExpiryDateListPresenter, UserExpiryDatePresenter, types_with_dates_of


class UserExpiryDateBody(s.Schema):
    fields = {"expiry_date": s.Date(required=True)}


# --- views --------------------------------------------------------------------------------------------


class _OrganizationToday:
    @cached_property
    def today(self) -> dt.date:
        return clock.today_in(self.request.organization.timezone)

    def make_presenter(self, params_: dict) -> Presenter:
        presenter = super().make_presenter(params_)
        presenter.today = self.today
        return presenter


def _member_or_404(request, user_id: int) -> Member:
    member = Member.objects.filter(organization=request.organization, user_id=user_id).first()
    if member is None:
        raise Http404
    return member


class ExpiryDateList(_OrganizationToday, ListEndpoint):
    """GET /expiry-dates: every existing date of the organization's members."""

    module = "users"
    presenter_class = ExpiryDateListPresenter
    ordering = ("expiry_date", Lower("member__user__name"), "id")

    @property
    def filters(self) -> dict[str, params.Filter]:
        today = self.today
        return {
            "type_id": params.Int("type_id"),
            "user_id": params.Int("member__user_id"),
            "active": params.Bool("member__active"),
            "expired": params.Custom(
                "expiry_date",
                parser=parse_bool,
                builder=lambda expired: Q(expiry_date__lt=today) if expired else Q(expiry_date__gte=today),
            ),
            "expiry_date_from": params.Date("expiry_date__gte"),
            "expiry_date_to": params.Date("expiry_date__lte"),
        }

    def get_queryset(self) -> QuerySet:
        organization = self.request.organization
        return UserExpiryDate.objects.filter(member__organization=organization, type__organization=organization)


class UserExpiryDateList(_OrganizationToday, ListEndpoint):
    """GET /users/{id}/expiry-dates: one item per expiry date type of the organization."""

    module = "users"
    presenter_class = UserExpiryDatePresenter
    ordering = (Lower("name"), "id")

    def get_queryset(self) -> QuerySet:
        return types_with_dates_of(_member_or_404(self.request, self.kwargs["pk"]))


class UserExpiryDateItem(_OrganizationToday, MainApiView):
    """PUT and DELETE /users/{id}/expiry-dates/{type_id}."""

    module = "users"
    presenter_class = UserExpiryDatePresenter

    def _member_and_type(self, pk: int, type_id: int) -> tuple[Member, ExpiryDateType]:
        member = _member_or_404(self.request, pk)
        expiry_type = ExpiryDateType.objects.filter(organization=self.request.organization, pk=type_id).first()
        if expiry_type is None:
            raise Http404
        return member, expiry_type

    def put(self, request, pk: int, type_id: int):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        member, expiry_type = self._member_and_type(pk, type_id)
        body = UserExpiryDateBody.validate(self.json_object())
        services.user_expiry_date_set(member=member, expiry_type=expiry_type, expiry_date=body["expiry_date"])
        return self.item_response(presenter, types_with_dates_of(member).get(pk=expiry_type.pk))

    def delete(self, request, pk: int, type_id: int):
        self.parse_query({})
        member, expiry_type = self._member_and_type(pk, type_id)
        services.user_expiry_date_delete(member=member, expiry_type=expiry_type)
        return Response(status=204)
