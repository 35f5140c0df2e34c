"""Main API v5: users' expiry dates.

GET /expiry-dates, GET /users/{id}/expiry-dates, PUT and DELETE /users/{id}/expiry-dates/{type_id}.
`expired` is the date alone (before the organization's today, in its timezone), without the image rule.
"""

from django.db.models import Q
from django.db.models.functions import Lower

from accounts import selectors, services
from accounts.api.expiry_presenters import ExpiryDateListPresenter, UserExpiryDatePresenter
from accounts.models import Member, UserExpiryDate
from apicore import params
from apicore import schema as s
from apicore.views import DeleteMixin, ItemEndpoint, ListEndpoint, ReplaceMixin
from main_api.flavour_v5 import MainV5Api


def _expired(value: bool, context) -> Q:
    return Q(expiry_date__lt=context.today) if value else Q(expiry_date__gte=context.today)


class ExpiryDateList(MainV5Api, ListEndpoint):
    """Every existing date of the organization's members, by date."""

    model = UserExpiryDate
    module = "users"
    presenter_class = ExpiryDateListPresenter
    ordering = ("expiry_date", Lower("member__user__name"), "id")
    filters = {
        "type_id": params.Int("type_id"),
        "user_id": params.Int("member__user_id"),
        "active": params.Bool("member__active", description="The member's active flag."),
        "expired": params.BoolCondition("expiry_date", build=_expired, description="Before today (organization's)."),
        "expiry_date_from": params.Date("expiry_date__gte"),
        "expiry_date_to": params.Date("expiry_date__lte"),
    }


class _MemberDates(MainV5Api):
    """Rows: the organization's expiry date types, each with the date of the member in the path."""

    module = "users"
    presenter_class = UserExpiryDatePresenter
    parent_model = Member
    parent_lookup = "user_id"

    def base_queryset(self):
        return selectors.types_with_dates_of(self.parent)


class UserExpiryDateList(_MemberDates, ListEndpoint):
    """One item per expiry date type of the organization, with the user's date (or null)."""

    ordering = (Lower("name"), "id")


class UserExpiryDateBody(s.Schema):
    fields = {
        "expiry_date": s.Date(
            required=True,
            until_2999=True,
            description="2999-12-31 means never expires, and only a type with may_never_expire takes it.",
        )
    }


class UserExpiryDateItem(_MemberDates, ReplaceMixin, DeleteMixin, ItemEndpoint):
    """The user's date of one expiry date type."""

    http_method_names = ["put", "delete"]
    lookup_kwarg = "type_id"
    replace_body = UserExpiryDateBody

    def replace(self, item, body):
        services.user_expiry_date_set(member=self.parent, expiry_type=item, expiry_date=body["expiry_date"])

    def destroy(self, item, params_):
        services.user_expiry_date_delete(member=self.parent, expiry_type=item)
