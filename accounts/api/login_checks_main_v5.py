"""Main API v5: POST /login-checks, a member's username and password checked for an integration."""

from accounts import login_limits, usernames
from accounts.models import User
from accounts.services import logins
from apicore import schema as s
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.views import Endpoint
from main_api.flavour_v5 import MainV5Api


class Username(s.Text):
    """A username as it is typed: what no username can contain is left out of the document's pattern."""

    pattern = usernames.VISIBLE_PATTERN


class LoginCheckBody(s.Schema):
    fields = {
        "username": Username(required=True, description=usernames.VISIBLE_DESCRIPTION),
        "password": s.Text(required=True),
    }


def login_check_reply(user: User | None) -> dict:
    """The contract's Login check reply; `user` is null whenever `valid` is false."""
    if user is None:
        return {"valid": False, "user": None}
    return {
        "valid": True,
        "user": {
            "id": user.pk,
            "username": user.username,
            "name": user.full_name,
            "first_name": user.first_name,
            "last_name_particle": user.last_name_particle or None,
            "last_name": user.last_name,
        },
    }


class LoginCheckView(MainV5Api, Endpoint):
    """Reply 200 for a right and a wrong login alike; nothing is changed. Only members of the token's
    organization can be valid (../shared/DECISIONS.md "Readings of the contract"; docs/decisions.md §3.16 "Login
    checks"). A refusal of a member's username counts in the failed-login limit that the website's login page
    shares; of any other username, in the token's own limit of failed checks (../shared/DECISIONS.md "Limits
    that the contract leaves open"; docs/decisions.md §3.19). Past either, 429 (10012) with `Retry-After`,
    whatever the password."""

    module = "login_checks"
    right = "r"
    http_method_names = ["post"]
    errors = {"post": (ErrorCode.TOO_MANY_FAILED_LOGINS,)}
    item_schema = {
        "type": "object",
        "required": ["valid", "user"],
        "properties": {
            "valid": {"type": "boolean"},
            "user": {
                "type": ["object", "null"],
                "required": ["id", "username", "name", "first_name", "last_name_particle", "last_name"],
                "properties": {
                    "id": {"type": "integer"},
                    "username": {"type": "string"},
                    "name": {"type": "string"},
                    "first_name": {"type": "string"},
                    "last_name_particle": {"type": ["string", "null"]},
                    "last_name": {"type": "string"},
                },
            },
        },
    }

    @classmethod
    def body_for(cls, method):
        return LoginCheckBody

    def post(self, request):
        """Check a member's username and password."""
        self.query()
        body = self.validated_body(LoginCheckBody)
        try:
            user = logins.verify_login_check(
                request,
                username=body["username"],
                password=body["password"],
                organization=request.organization,
                checker=f"api-token:{request.api_token.pk}",
            )
        except login_limits.TooManyFailedLogins as blocked:
            raise ApiError(
                ErrorCode.TOO_MANY_FAILED_LOGINS,
                (
                    "Too many failed login checks of usernames that are no members of this organization with this "
                    "token."
                    if blocked.of == "checker"
                    else "Too many failed logins for this username."
                )
                + " Wait the seconds that Retry-After gives.",
                headers={"Retry-After": str(blocked.retry_after)},
            ) from None
        return self.reply_item(login_check_reply(user))
