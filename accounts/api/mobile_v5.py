"""Mobile API v5 endpoints of the accounts app (document 2): GET /client and GET /me."""

from accounts.api.flavour_mobile_v5 import MobileV5Api
from accounts.api.mobile_presenters import ClientPresenter, MemberPresenter
from accounts.models import Member
from apicore.views import SingletonEndpoint


class ClientView(MobileV5Api, SingletonEndpoint):
    """The calling app: developer, app name, rights, allowed organizations and call limit."""

    presenter_class = ClientPresenter
    accepts_app_token = True

    def get_object(self):
        return self.request.auth.client


class MeView(MobileV5Api, SingletonEndpoint):
    """The logged-in member in the login's organization, with the balance there."""

    presenter_class = MemberPresenter

    def get(self, request, *args, **kwargs):
        """Fetch the resource."""
        self.query()
        # The login's own member record (of the login's organization), in one query with its balance.
        rows = Member.objects.filter(pk=request.auth.member.pk)
        return self.reply_item(self.make_presenter({}).one(rows))
