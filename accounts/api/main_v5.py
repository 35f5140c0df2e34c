"""Main API v5: the token, the organization, memberships and user groups."""

from django.db.models.functions import Lower
from django.urls import reverse
from rest_framework.response import Response

from apicore import params
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.params import parse_bool
from apicore.schema import has_changes
from apicore.views import ItemEndpoint, ListEndpoint, SingletonEndpoint

from .. import services
from ..models import ExpiryDateType, Membership, UserGroup
from . import schemas
from .presenters import ExpiryDateTypePresenter, GroupPresenter, OrganizationPresenter, TokenPresenter


class TokenView(SingletonEndpoint):
    presenter_class = TokenPresenter

    def get_object(self):
        return self.request.auth


class OrganizationView(SingletonEndpoint):
    presenter_class = OrganizationPresenter

    def get_object(self):
        return self.request.organization


class MembershipList(ListEndpoint):
    model = Membership
    module = "users"
    presenter_class = GroupPresenter
    filters = {"name": params.Search("name")}
    ordering = (Lower("name"), "id")


class MembershipItem(ItemEndpoint):
    model = Membership
    module = "users"
    presenter_class = GroupPresenter


class UserGroupList(MembershipList):
    model = UserGroup


class UserGroupItem(MembershipItem):
    model = UserGroup


class ExpiryDateTypeList(ListEndpoint):
    model = ExpiryDateType
    module = "organization_settings"
    presenter_class = ExpiryDateTypePresenter
    filters = {"name": params.Search("name")}
    ordering = (Lower("name"), "id")

    def post(self, request):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        body = schemas.ExpiryDateTypeCreate.validate(self.json_object())
        created = services.expiry_date_type_create(
            organization=request.organization, name=body["name"], **schemas.expiry_type_settings(body)
        )
        return self.item_response(
            presenter, created, status=201, location=reverse("main_v5:expiry-date-type", args=[created.pk])
        )


class ExpiryDateTypeItem(ItemEndpoint):
    model = ExpiryDateType
    module = "organization_settings"
    presenter_class = ExpiryDateTypePresenter

    def patch(self, request, pk: int):
        presenter = self.make_presenter(self.parse_query(self.shape_parsers()))
        expiry_type = self.get_item(None, pk)
        data = self.json_object()
        if not data:
            raise ApiError(ErrorCode.NOTHING_TO_CHANGE, "Send at least one field to change.")
        body = schemas.ExpiryDateTypeUpdate.validate(data, partial=True)
        if not has_changes(body):
            raise ApiError(ErrorCode.NOTHING_TO_CHANGE, "Send at least one setting to change.")
        updated = services.expiry_date_type_update(expiry_type=expiry_type, **schemas.expiry_type_settings(body))
        return self.item_response(presenter, updated)

    def delete(self, request, pk: int):
        query = self.parse_query({"delete_dependents": parse_bool})
        expiry_type = self.get_item(None, pk)
        services.expiry_date_type_delete(
            expiry_type=expiry_type, delete_dependents=query.get("delete_dependents", False)
        )
        return Response(status=204)
