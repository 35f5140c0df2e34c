"""Mobile API v5 endpoints of the accounts app (document 2): GET /me."""

from accounts.api.mobile_presenters import MemberPresenter
from accounts.models import Member
from apicore.views import SingletonEndpoint
from mobile_api.flavour_v5 import MobileV5Api


class MeView(MobileV5Api, SingletonEndpoint):
    """The logged-in member in the login's organization, with the balance there."""

    presenter_class = MemberPresenter

    def get(self, request, *args, **kwargs):
        """Fetch the resource."""
        self.query()
        # The login's own member record (of the login's organization), in one query with its balance.
        rows = Member.objects.filter(pk=request.auth.member.pk)
        return self.reply_item(self.make_presenter({}).one(rows))
