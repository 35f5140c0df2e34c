"""Main API v5: the token, the organization, memberships and user groups."""

from django.db.models.functions import Lower

from apicore import params
from apicore.views import ItemEndpoint, ListEndpoint, SingletonEndpoint

from ..models import Membership, UserGroup
from .presenters import GroupPresenter, OrganizationPresenter, TokenPresenter


class TokenView(SingletonEndpoint):
    presenter_class = TokenPresenter

    def get_object(self):
        return self.request.auth


class OrganizationView(SingletonEndpoint):
    presenter_class = OrganizationPresenter

    def get_object(self):
        return self.request.organization


class MembershipList(ListEndpoint):
    module = "users"
    presenter_class = GroupPresenter
    filters = {"name": params.Search("name")}
    ordering = (Lower("name"), "id")

    def get_queryset(self):
        return Membership.objects.filter(organization=self.request.organization)


class MembershipItem(ItemEndpoint):
    module = "users"
    presenter_class = GroupPresenter

    def get_queryset(self):
        return Membership.objects.filter(organization=self.request.organization)


class UserGroupList(MembershipList):
    def get_queryset(self):
        return UserGroup.objects.filter(organization=self.request.organization)


class UserGroupItem(MembershipItem):
    def get_queryset(self):
        return UserGroup.objects.filter(organization=self.request.organization)
