"""Main API v5: users (a login as one organization's member). The API's user id is the login's id."""

from django.db.models.functions import Lower
from django.urls import reverse
from rest_framework.response import Response

from apicore import params
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.problems import raise_problems
from apicore.schema import clean_object, has_changes
from apicore.views import ItemEndpoint, ListEndpoint

from .. import services
from ..models import Member
from ..services.users import user_field_problems
from .user_presenters import UserPresenter, invalid_email_exists
from .user_schemas import UserCreate, UserUpdate


def _has_invalid_email(value: bool):
    return invalid_email_exists() if value else ~invalid_email_exists()


class _Users:
    module = "users"
    presenter_class = UserPresenter

    def get_queryset(self):
        return Member.objects.filter(organization=self.request.organization).select_related("user", "organization")

    def validated(self, schema, *, partial: bool = False) -> dict:
        """The body by its schema, with the checks that need the organization; all problems at once."""
        problems = []
        body = clean_object(schema.fields, self.json_object(), "", problems, partial=partial)
        problems += user_field_problems(organization=self.request.organization, fields=body)
        raise_problems(problems, source="body")
        return body


class UserList(_Users, ListEndpoint):
    filters = {
        "name": params.Search("user__name"),
        "username": params.Search("user__username"),
        "member_number": params.Search("member_number"),
        "membership_name": params.Search("membership__name"),
        "membership_id": params.Int("membership_id"),
        "active": params.Bool("active"),
        "locked": params.Bool("locked"),
        "locked_login": params.Bool("user__locked_login"),
        "has_invalid_email_address": params.Custom("", parser=params.parse_bool, builder=_has_invalid_email),
    }
    ordering = (Lower("user__name"), "user_id")

    def post(self, request):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        body = self.validated(UserCreate)
        member = services.user_create(organization=request.organization, **body)
        return self.item_response(
            presenter,
            presenter.prepare(self.get_queryset()).get(pk=member.pk),  # as GET gives it, blocks included
            status=201,
            location=reverse("main_v5:user", args=[member.user_id]),
        )


class UserItem(_Users, ItemEndpoint):
    lookup_field = "user_id"  # the API's user id is the login's; the row is the member record

    def patch(self, request, pk: int):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        member = self.get_item(None, pk)
        if not self.json_object():
            raise ApiError(ErrorCode.NOTHING_TO_CHANGE, "Send at least one field to change.")
        changes = self.validated(UserUpdate, partial=True)
        if not has_changes(changes):
            raise ApiError(ErrorCode.NOTHING_TO_CHANGE, "Send at least one field to change.")
        services.user_update(member=member, **changes)
        return self.item_response(presenter, self.get_item(presenter, pk))

    def delete(self, request, pk: int):
        self.parse_query({})
        services.user_delete(member=self.get_item(None, pk))
        return Response(status=204)
