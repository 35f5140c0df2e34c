"""Every route of the Main API v5 held to the contract checks of tests/contract/.

Each class declares one route: its address, module, methods, and how to make an item of an organization.
"""

from tests.contract import EndpointContract
from tests.factories import (
    ExpiryDateTypeFactory,
    MemberFactory,
    MembershipFactory,
    UserExpiryDateFactory,
    UserGroupFactory,
)


class TestToken(EndpointContract):
    path = "/token"
    shaped = False  # no parameters at all
    queries = {"GET": 0}


class TestOrganization(EndpointContract):
    path = "/organization"
    shaped = False
    queries = {"GET": 0}


class TestMemberships(EndpointContract):
    path = "/memberships"
    module = "users"
    lists = True
    factory = MembershipFactory
    queries = {"GET": 2}
    queries_with_blocks = 3


class TestMembership(TestMemberships):
    path = "/memberships/{id}"
    lists = False
    queries = {"GET": 1}
    queries_with_blocks = 2


class TestUserGroups(TestMemberships):
    path = "/user-groups"
    factory = UserGroupFactory
    queries = {"GET": 2}
    queries_with_blocks = 3


class TestUserGroup(TestUserGroups):
    path = "/user-groups/{id}"
    lists = False
    queries = {"GET": 1}
    queries_with_blocks = 2


class TestExpiryDateTypes(EndpointContract):
    path = "/expiry-date-types"
    module = "organization_settings"
    methods = ("GET", "POST")
    lists = True
    factory = ExpiryDateTypeFactory
    queries = {"GET": 2, "POST": 9}

    def body(self, method, item):
        return {"name": f"New {item.pk}"} if method == "POST" else None


class TestExpiryDateType(TestExpiryDateTypes):
    path = "/expiry-date-types/{id}"
    methods = ("GET", "PATCH", "DELETE")
    lists = False
    queries = {"GET": 1, "PATCH": 7, "DELETE": 10}

    def body(self, method, item):
        return {"image_required": not item.image_required} if method == "PATCH" else None


class _ExpiryDates(EndpointContract):
    module = "users"

    def make(self, organization):
        return UserExpiryDateFactory(member__organization=organization)

    def placeholders(self, item):
        return {"id": item.member.user_id, "type_id": item.type_id}


class TestExpiryDates(_ExpiryDates):
    path = "/expiry-dates"
    lists = True
    queries = {"GET": 2}

    def key(self, item):
        return (item.member.user_id, item.type_id)

    def reply_key(self, data):
        return (data["user"]["id"], data["type"]["id"])


class TestUserExpiryDates(_ExpiryDates):
    """One item per expiry date type of the organization, with the user's date of it."""

    path = "/users/{id}/expiry-dates"
    lists = True
    queries = {"GET": 3}

    def key(self, item):
        return item.type_id


class TestUserExpiryDate(_ExpiryDates):
    path = "/users/{id}/expiry-dates/{type_id}"
    methods = ("PUT", "DELETE")
    queries = {"PUT": 10, "DELETE": 8}

    def body(self, method, item):
        return {"expiry_date": "2028-01-31"} if method == "PUT" else None


class TestUsers(EndpointContract):
    path = "/users"
    module = "users"
    methods = ("GET", "POST")
    lists = True
    factory = MemberFactory
    queries = {"GET": 1, "POST": 15}  # the page in one statement
    queries_with_blocks = 5  # and one query each for emails, user groups, roles, expiry dates

    def placeholders(self, item):
        return {"id": item.user_id}  # the API's user id is the login's, not the member record's

    def key(self, item):
        return item.user_id

    def body(self, method, item):
        if method != "POST":
            return None
        organization = item.organization
        return {
            "username": f"{organization.pk}-contract{item.pk}",
            "first_name": "Nils",
            "last_name": "Holm",
            "membership_id": MembershipFactory(organization=organization).pk,
        }


class TestUser(TestUsers):
    path = "/users/{id}"
    methods = ("GET", "PATCH", "DELETE")
    lists = False
    queries = {"GET": 1, "PATCH": 7, "DELETE": 44}
    queries_with_blocks = 5

    def body(self, method, item):
        return {"misc_info": f"Changed {item.pk}"} if method == "PATCH" else None


class TestLoginChecks(EndpointContract):
    path = "/login-checks"
    module = "login_checks"
    methods = ("POST",)
    rights = {"POST": "r"}  # document 1 names the right: login_checks read
    success = {"POST": 200}  # a check creates nothing
    shaped = False
    factory = MemberFactory
    queries = {"POST": 5}  # the token's membership check of the username comes first (§3.19)

    def body(self, method, item):
        return {"username": item.user.username, "password": "secret-pass-1"}
