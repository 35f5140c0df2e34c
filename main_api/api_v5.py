"""Main API v5: GET /token, the calling token itself."""

from accounts.models.user import full_name_of as full_name
from accounts.models.user import name_columns
from apicore.bearer import RIGHT_VALUES
from apicore.presenters import (
    REF,
    STRING,
    Field,
    Presenter,
    enum,
)
from apicore.views import SingletonEndpoint
from main_api.flavour_v5 import MainV5Api
from main_api.models import MODULES


class TokenPresenter(Presenter):
    fields = {
        "description": Field(STRING, "description"),
        "owner": Field(
            REF, "owner_id", *name_columns("owner"), compute=lambda id_, *name: {"id": id_, "name": full_name(*name)}
        ),
        "organization": Field(
            REF, "organization_id", "organization__name", compute=lambda id_, name: {"id": id_, "name": name}
        ),
        "rights": Field(
            {"type": "object", "properties": {m: enum(RIGHT_VALUES) for m in MODULES}, "additionalProperties": False},
            "rights",
            compute=lambda rights: {module: rights[module] for module in MODULES if rights.get(module)},
        ),
    }


class TokenView(MainV5Api, SingletonEndpoint):
    """The calling token: description, owner, organization and rights."""

    presenter_class = TokenPresenter

    def get_object(self):
        return self.request.auth
