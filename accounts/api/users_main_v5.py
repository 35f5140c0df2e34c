"""Main API v5: users (a login as one organization's member). The API's user id is the login's id."""

from dataclasses import dataclass

from django.db.models.functions import Lower

from accounts import selectors, services
from accounts.api.user_presenters import UserPresenter
from accounts.api.user_schemas import UserCreate, UserUpdate
from accounts.models import Member
from accounts.services.users import user_field_problems
from accounts.usernames import nfkc
from apicore import params
from apicore.errors import ErrorCode
from apicore.views import CreateMixin, DeleteMixin, ItemEndpoint, ListEndpoint, UpdateMixin
from main_api.flavour_v5 import MainV5Api


def _text(lookup: str, what: str) -> params.Search:
    return params.Search(lookup, description=f"{what}; * matches any characters.")


@dataclass(frozen=True)
class UsernameSearch(params.Search):
    """Usernames are searched as they are stored: NFKC first, so a full-width `1-erik` finds `1-erik`."""

    def parse(self, raw: str) -> str:
        return super().parse(nfkc(raw))


class _Users(MainV5Api):
    model = Member
    module = "users"
    presenter_class = UserPresenter

    def base_queryset(self):
        return Member.objects.select_related("user", "organization")

    def body_problems(self, body):
        return user_field_problems(organization=self.organization, fields=body)


class UserList(_Users, CreateMixin, ListEndpoint):
    """Users (members of the organization), sorted by name."""

    # The page's statement is compiled once per organization and query (docs/decisions.md §1.34).
    statement_cache = True

    filters = {
        "name": _text("user__name", "Name"),
        "username": UsernameSearch("user__username", description="Username; * matches any characters."),
        "member_number": _text("member_number", "Member number"),
        "membership_name": _text("membership__name", "Membership name"),
        "membership_id": params.Int("membership_id"),
        "active": params.Bool("active"),
        "locked": params.Bool("locked"),
        "locked_login": params.Bool("user__locked_login"),
        "has_invalid_email_address": params.BoolCondition(
            "user__emails__invalid",
            build=lambda value, context: (
                selectors.invalid_email_exists() if value else ~selectors.invalid_email_exists()
            ),
        ),
    }
    ordering = (Lower("user__name"), "user_id")
    create_body = UserCreate
    item_route = "user"
    location_field = "user_id"
    errors = {"post": (ErrorCode.DUPLICATE, ErrorCode.USER_LIMIT_REACHED)}

    def create(self, body):
        return services.user_create(organization=self.organization, **body)


class UserItem(_Users, UpdateMixin, DeleteMixin, ItemEndpoint):
    """One user."""

    lookup_field = "user_id"  # the API's user id is the login's; the row is the member record
    update_body = UserUpdate
    errors = {
        "patch": (ErrorCode.NOTHING_TO_CHANGE, ErrorCode.NOT_MODIFIED, ErrorCode.DUPLICATE),
        "delete": (ErrorCode.NOT_MODIFIED,),
    }

    def update(self, item, changes):
        return services.user_update(member=item, **changes)

    def destroy(self, item, params_):
        services.user_delete(member=item)
