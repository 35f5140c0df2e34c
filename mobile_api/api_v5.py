"""Mobile API v5: GET /client, the calling app itself."""

from apicore.bearer import RIGHT_VALUES
from apicore.presenters import (
    INTEGER,
    STRING,
    Field,
    Presenter,
    Related,
    array,
    enum,
    nullable,
)
from apicore.views import SingletonEndpoint
from mobile_api.flavour_v5 import MobileV5Api
from mobile_api.models import MOBILE_MODULES, AppClient


def _allowed_organizations(_model, client_ids, _context):
    rows = AppClient.organizations.through.objects.filter(appclient_id__in=client_ids).order_by("organization_id")
    yield from rows.values_list("appclient_id", "organization_id")


class ClientPresenter(Presenter):
    """An app client, rendered from the row in memory (the caller's): one query for its organizations."""

    fields = {
        "id": Field(INTEGER, "id"),
        "name": Field(STRING, "name"),
        "app_name": Field(STRING, "app_name"),
        "rights": Field(
            {
                "type": "object",
                "description": "The app's right per module; a module without a right is left out.",
                "properties": {module: enum(RIGHT_VALUES) for module in MOBILE_MODULES},
                "additionalProperties": False,
            },
            "rights",
            compute=lambda rights: {module: rights[module] for module in MOBILE_MODULES if rights.get(module)},
        ),
        "organizations": Field(
            nullable(array(INTEGER)),
            related=Related("id", load=_allowed_organizations),
            compute=lambda ids: list(ids) or None,
        ),
        "rate_limit_per_minute": Field(INTEGER, "calls_per_minute"),
    }


class ClientView(MobileV5Api, SingletonEndpoint):
    """The calling app: developer, app name, rights, allowed organizations and call limit."""

    presenter_class = ClientPresenter
    accepts_app_token = True

    def get_object(self):
        return self.request.auth.client
