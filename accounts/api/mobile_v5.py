"""Mobile API v5 endpoints of the accounts app (document 2): GET /me."""

from accounts.api.mobile_presenters import MemberPresenter
from apicore.database import prepared_statements
from apicore.views import SingletonEndpoint
from economy.selectors import member_balance
from mobile_api.flavour_v5 import MobileV5Api


class MeView(MobileV5Api, SingletonEndpoint):
    """The logged-in member in the login's organization, with the balance there."""

    presenter_class = MemberPresenter

    def get_object(self):
        # The caller's member with its login and organization, as current as the database: the rows come from
        # the authentication (mobile_api.caller_cache), whose stamps any change renews. The balance: one query.
        member = self.request.auth.member
        with prepared_statements():
            member.balance = member_balance(member)
        return member
