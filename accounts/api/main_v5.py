"""Main API v5: the token, the organization, memberships, user groups and expiry date types."""

from django.db.models.functions import Lower

from accounts import services
from accounts.api import schemas
from accounts.api.presenters import ExpiryDateTypePresenter, GroupPresenter, OrganizationPresenter
from accounts.models import ExpiryDateType, Membership, UserGroup
from apicore import params
from apicore.errors import ErrorCode
from apicore.views import CreateMixin, DeleteMixin, ItemEndpoint, ListEndpoint, SingletonEndpoint, UpdateMixin
from main_api.flavour_v5 import MainV5Api


class OrganizationView(MainV5Api, SingletonEndpoint):
    """The token's organization."""

    presenter_class = OrganizationPresenter

    def get_object(self):
        return self.organization


class MembershipList(MainV5Api, ListEndpoint):
    """Memberships, sorted by name."""

    model = Membership
    module = "users"
    presenter_class = GroupPresenter
    filters = {"name": params.Search("name", description="Name; * matches any characters.")}
    ordering = (Lower("name"), "id")


class MembershipItem(MainV5Api, ItemEndpoint):
    """One membership."""

    model = Membership
    module = "users"
    presenter_class = GroupPresenter


class UserGroupList(MembershipList):
    """User groups, sorted by name."""

    model = UserGroup


class UserGroupItem(MembershipItem):
    """One user group."""

    model = UserGroup


class ExpiryDateTypeList(MainV5Api, CreateMixin, ListEndpoint):
    """Expiry date types, sorted by name."""

    model = ExpiryDateType
    module = "organization_settings"
    presenter_class = ExpiryDateTypePresenter
    filters = {"name": params.Search("name", description="Name; * matches any characters.")}
    ordering = (Lower("name"), "id")
    create_body = schemas.ExpiryDateTypeCreate
    item_route = "expiry-date-type"
    errors = {"post": (ErrorCode.DUPLICATE,)}

    def create(self, body):
        return services.expiry_date_type_create(
            organization=self.organization, name=body["name"], **schemas.expiry_type_settings(body)
        )


class ExpiryDateTypeItem(MainV5Api, UpdateMixin, DeleteMixin, ItemEndpoint):
    """One expiry date type."""

    model = ExpiryDateType
    module = "organization_settings"
    presenter_class = ExpiryDateTypePresenter
    update_body = schemas.ExpiryDateTypeUpdate
    delete_parameters = {
        "delete_dependents": params.BoolParameter(description="Also delete the members' dates of the type.")
    }
    errors = {"patch": (ErrorCode.NOTHING_TO_CHANGE,), "delete": (ErrorCode.HAS_DEPENDENTS,)}

    def update(self, item, changes):
        return services.expiry_date_type_update(expiry_type=item, **schemas.expiry_type_settings(changes))

    def destroy(self, item, params_):
        services.expiry_date_type_delete(expiry_type=item, delete_dependents=params_.get("delete_dependents", False))
