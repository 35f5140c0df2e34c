"""The member website's part of the Mobile API sign-in (document 2, Authentication).

GET /mobile/v5/oauth/authorize sends the browser to /login with the same query; after the login the member
comes here, to /login/allow with that query, and allows the app (a form as django-oauth-toolkit's: the submit
named `allow` allows it) for one of the organizations where the login is a member and the app may be used.
The choice is remembered per app and member: the next sign-in skips this page. Then the browser goes to the
app's redirect address with `code` and `state`, or with `error=access_denied`.
"""

from urllib.parse import urlencode

from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.generic import View
from oauthlib.oauth2.rfc6749 import errors as oauth_errors

from accounts.models import Member, Organization
from apicore.language import ClLanguageMixin
from apicore.schema import unsafe_text
from mobile_api.models import AppClient
from mobile_api.oauth import oauth_server
from mobile_api.oauth_v5 import app_redirect, authorize_error_page, fatal_error_text, redirect_with_error
from mobile_api.services.logins import app_consent_given, app_consent_record, members_for_app


def is_oauth_query(request) -> bool:
    return bool(request.GET.get("client_id")) and bool(request.GET.get("response_type"))


def consent_url(request) -> str:
    return f"/login/allow?{request.META.get('QUERY_STRING', '')}"


def oauth_login_brand(request) -> dict | None:
    """What the login page shows when it is the first step of an app's sign-in: the app and the organization
    (the `organization` in the query, else the app's only organization), or None for a plain login."""
    if not is_oauth_query(request) or unsafe_text(request.GET["client_id"]):
        return None
    client = (
        AppClient.objects.filter(application__client_id=request.GET["client_id"][:100], revoked_at=None)
        .prefetch_related("organizations")
        .first()
    )
    if client is None:
        return None
    allowed = list(client.organizations.all())
    organization = None
    wanted = request.GET.get("organization", "")
    if wanted.isdigit() and len(wanted) < 19:
        organization = next((o for o in allowed if o.pk == int(wanted)), None)
        if organization is None and not allowed:
            organization = Organization.objects.filter(pk=int(wanted)).first()
    elif len(allowed) == 1:
        organization = allowed[0]
    return {"app_name": client.app_name, "developer": client.name, "organization": organization}


def _rights_in_words(client: AppClient) -> list[str]:
    see = {
        "organization": _("See your club's details"),
        "objects": _("See the aircraft and other objects"),
        "bookings": _("See the bookings"),
        "flightlogs": _("See the flight log"),
        "transactions": _("See your balance and transactions"),
    }
    change = {
        "organization": _("Change your club's details"),
        "objects": _("Change the aircraft and other objects"),
        "bookings": _("Make, cut and cancel your bookings"),
        "flightlogs": _("Change the flight log"),
        "transactions": _("Change your transactions"),
    }
    words = []
    for module in see:
        right = client.rights.get(module, "")
        if "r" in right:
            words.append(see[module])
        if "w" in right:
            words.append(change[module])
    return words


class ConsentView(ClLanguageMixin, LoginRequiredMixin, View):
    http_method_names = ["get", "post"]

    def get_login_url(self):
        return f"/login?{self.request.META.get('QUERY_STRING', '')}"

    def handle_no_permission(self):
        return redirect(self.get_login_url())

    def _validate(self, request):
        """(server, scopes, uri, client) of the sign-in request in the query; raises oauthlib's errors."""
        server = oauth_server()
        uri = request.build_absolute_uri()
        scopes, credentials = server.validate_authorization_request(uri, http_method="GET")
        return server, scopes, uri, credentials["request"].client.app_client

    def _members(self, request, client: AppClient) -> list[Member]:
        members = members_for_app(user=request.user, app_client=client)
        wanted = request.GET.get("organization", "")
        if wanted.isdigit() and len(wanted) < 19:
            members = [m for m in members if m.organization_id == int(wanted)]
        return members

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return super().dispatch(request, *args, **kwargs)
        try:
            self.server, self.scopes, self.uri, self.client = self._validate(request)
        except oauth_errors.FatalClientError as error:
            return authorize_error_page(request, fatal_error_text(error))
        except oauth_errors.OAuth2Error as error:
            return app_redirect(request, redirect_with_error(error))
        self.members = self._members(request, self.client)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, *args, **kwargs):
        if len(self.members) == 1 and app_consent_given(app_client=self.client, member=self.members[0]):
            # Remembered, for these rights or fewer (more rights ask again).
            return self._allow(self.members[0])
        return self._page(request)

    def post(self, request, *args, **kwargs):
        if "allow" not in request.POST or not self.members:
            return self._deny()
        member = self._chosen(request)
        if member is None:
            return self._page(request, error=_("Choose the organization the app is for."), status=400)
        app_consent_record(app_client=self.client, member=member)
        return self._allow(member)

    def _chosen(self, request) -> Member | None:
        if len(self.members) == 1:
            return self.members[0]
        wanted = request.POST.get("organization", "")
        return next((m for m in self.members if str(m.organization_id) == wanted), None)

    def _allow(self, member: Member):
        credentials = {"user": self.request.user, "claims": {"member": member.pk}}
        headers, _body, _status = self.server.create_authorization_response(
            uri=self.uri, http_method="GET", scopes=self.scopes, credentials=credentials
        )
        return app_redirect(self.request, headers["Location"])

    def _deny(self):
        description = (
            _("The member did not allow the app.")
            if self.members
            else _("The login is not an active member of an organization where the app may be used.")
        )
        params = {"error": "access_denied", "error_description": description}
        state = self.request.GET.get("state")
        if state is not None:
            params["state"] = state
        redirect_uri = self.request.GET["redirect_uri"]
        separator = "&" if "?" in redirect_uri else "?"
        return app_redirect(self.request, f"{redirect_uri}{separator}{urlencode(params)}")

    def _page(self, request, *, error: str | None = None, status: int = 200):
        context = {
            "client": self.client,
            "rights": _rights_in_words(self.client),
            "members": self.members,
            "error": error,
            "action": request.get_full_path(),
        }
        response = render(request, "registration/oauth_consent.html", context, status=status)
        response["Cache-Control"] = "no-store"
        return response
