"""Another API declared as a flavour in a few lines, served by the same endpoint classes as Main v5.

The flavour below has its own authentication (a header key, chained before Main v5's Bearer token), its
own envelopes (`{memberships: [...], meta_information}`, errors `{errors: [{id, message}]}` with v4's
statuses: 10100 is 400), its own paging (default 2, at most 3) and an `order` parameter. Its OpenAPI document
(LegacyDocument) states the same envelopes and errors, an API key scheme and the operation of a view that does
not describe itself, with apicore's generator as it is; Main v5's user groups are offered in it in one line.
"""

import pytest
from django.db.models.functions import Lower
from django.http import JsonResponse
from django.urls import include, path
from django.views import View
from openapi_spec_validator import validate as validate_spec
from rest_framework.authentication import BaseAuthentication

from accounts.api.expiry_presenters import ExpiryDateListPresenter
from accounts.api.main_v5 import UserGroupList
from accounts.api.presenters import GroupPresenter
from accounts.models import Membership, UserExpiryDate
from apicore import params
from apicore.errors import ErrorCode
from apicore.exceptions import ApiError
from apicore.flavours import Flavour, offered_in
from apicore.openapi import FlavourSchema, document_routes
from apicore.openapi_document import JSON, FlavourDocument, component
from apicore.views import ItemEndpoint, ListEndpoint, OrderParameter, Paging
from main_api.auth import MainApiTokenAuthentication
from main_api.urls import main_v5
from tests.factories import ExpiryDateTypeFactory, MemberFactory, MembershipFactory, UserGroupFactory

pytestmark = pytest.mark.urls("tests.test_flavours")


class ReadOnlyCaller:
    def __init__(self, organization):
        self.organization = organization

    def allows(self, module: str, right: str) -> bool:
        return right == "r"


class KeyAuthentication(BaseAuthentication):
    """`X-Club-Key: <organization id>`; any other request is left to the next authentication."""

    def authenticate(self, request):
        key = request.headers.get("X-Club-Key")
        if key is None:
            return None
        from accounts.models import Organization

        organization = Organization.objects.filter(pk=int(key)).first() if key.isdecimal() else None
        if organization is None:
            raise ApiError(ErrorCode.UNAUTHORIZED)
        request.organization = organization
        return (None, ReadOnlyCaller(organization))


class Status(View):
    """A plain Django view on the API's routes: the document names the schema that documents it."""

    def get(self, request):
        return JsonResponse({"status": "ok"})


class KeyPage(View):
    """A page outside the document, named by the security scheme."""


class StatusSchema(FlavourSchema):
    methods = ("GET",)

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        return {
            "operationId": "status",
            "summary": "Whether the API is up.",
            "security": [],
            "responses": {
                "200": {
                    "description": "Up.",
                    "headers": self.document.header_refs(registry, self.document.success_headers),
                    "content": {JSON: {"schema": {"type": "object", "properties": {"status": {"const": "ok"}}}}},
                }
            },
        }


LEGACY_ERRORS = {
    "type": "object",
    "properties": {
        "errors": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "message": {"type": "string"}},
                "required": ["id", "message"],
            },
        }
    },
    "required": ["errors"],
}


class LegacyDocument(FlavourDocument):
    success_headers = ("Request-Id",)
    error_schema_name = "LegacyErrors"
    error_schema = LEGACY_ERRORS
    other_views = {Status: StatusSchema, KeyPage: None}

    def security(self, operation):
        return [{"clubKey": []}]

    def security_schemes(self, address):
        key = {"type": "apiKey", "in": "header", "name": "X-Club-Key", "description": f"See {address(KeyPage)}."}
        return {"clubKey": key}

    def item_envelope(self, item, operation):
        return {"type": "object", "properties": {"membership": item}, "required": ["membership"]}

    def list_envelope(self, item, operation):
        listing = {"memberships": {"type": "array", "items": item}, "meta_information": {"type": "object"}}
        return {"type": "object", "properties": listing, "required": list(listing)}

    def error_body_schema(self, registry, status, errors):
        codes = {"id": {"enum": sorted({error.code for error in errors})}}
        return {
            "allOf": [component(registry, self.error_schema_name, self.error_schema)],
            "properties": {"errors": {"items": {"properties": codes}}},
        }


class LegacyFlavour(Flavour):
    authentication_classes = (KeyAuthentication, MainApiTokenAuthentication)
    document_class = LegacyDocument
    status_of_code = {ErrorCode.NOT_FOUND.code: 400}
    error_content_type = "application/json"

    def list_body(self, view, items, meta, next_url):
        return {"memberships": items, "meta_information": meta}

    def item_body(self, view, item):
        return {"membership": item}

    def error_body(self, request, error, status):
        return {"errors": [{"id": error.code, "message": error.detail or error.error.title}]}


LEGACY = LegacyFlavour()


class Legacy:
    flavour = LEGACY


class Memberships(Legacy, ListEndpoint):
    model = Membership
    module = "users"
    presenter_class = GroupPresenter
    paging = Paging(default_limit=2, max_limit=3)
    order_parameter = (
        "order",
        OrderParameter({"asc": (Lower("name"), "id"), "desc": (Lower("name").desc(), "-id")}, default="asc"),
    )


class ComingDates(Legacy, ListEndpoint):
    """Members' dates from today on unless `from` is sent (a filter default from the presenter context), with
    the number of expired dates in `meta` (a flavour's extra meta)."""

    model = UserExpiryDate
    module = "users"
    presenter_class = ExpiryDateListPresenter
    ordering = ("expiry_date", "id")
    filters = {"from": params.Date("expiry_date__gte", default=lambda context: context.today)}

    def extra_meta(self, queryset, params_):
        return {"expired": self.get_queryset().filter(expiry_date__lt=self.today).count()}


class MembershipOne(Legacy, ItemEndpoint):
    model = Membership
    module = "users"
    presenter_class = GroupPresenter


legacy = [
    path("memberships", Memberships.as_view()),
    path("memberships/<int:pk>", MembershipOne.as_view()),
    path("dates", ComingDates.as_view()),
    path("user-groups", offered_in(Legacy, UserGroupList).as_view()),  # Main v5's user groups, in this flavour
    path("status", Status.as_view()),
    path("key", KeyPage.as_view()),
]
urlpatterns = [
    path("main/v5/", include((main_v5, "main_v5"))),
    path("legacy/", include((legacy, "legacy"))),
    *document_routes("legacy/", namespace="legacy", flavour=LEGACY, title="Legacy", version="4"),
]


@pytest.fixture
def memberships(org):
    return [MembershipFactory(organization=org, name=name) for name in ("Alfa", "Bravo", "Charlie", "Delta")]


def key(organization) -> dict:
    return {"HTTP_X_CLUB_KEY": str(organization.pk)}


def test_the_flavours_envelope_paging_and_order(client, org, memberships):
    reply = client.get("/legacy/memberships", secure=True, **key(org)).json()
    assert [item["name"] for item in reply["memberships"]] == ["Alfa", "Bravo"]
    assert reply["meta_information"] == {"count": 2, "limit": 2, "offset": 0, "has_more": True}

    reply = client.get("/legacy/memberships", {"order": "desc", "limit": 3}, secure=True, **key(org)).json()
    assert [item["name"] for item in reply["memberships"]] == ["Delta", "Charlie", "Bravo"]


def test_the_flavours_errors_and_statuses(client, org, other_org, memberships):
    too_many = client.get("/legacy/memberships", {"limit": 4}, secure=True, **key(org))
    assert too_many.status_code == 400
    assert too_many["Content-Type"] == "application/json"
    assert too_many.json() == {"errors": [{"id": 10005, "message": "Check limit."}]}

    # Not found is 400 in this flavour; another organization's item is not found.
    elsewhere = MembershipFactory(organization=other_org, name="Echo")
    missing = client.get(f"/legacy/memberships/{elsewhere.pk}", secure=True, **key(org))
    assert missing.status_code == 400
    assert missing.json() == {"errors": [{"id": 10100, "message": "Not found"}]}
    found = client.get(f"/legacy/memberships/{memberships[0].pk}", secure=True, **key(org))
    assert found.json() == {"membership": {"id": memberships[0].pk, "name": "Alfa"}}


def test_authentications_chain(client, org, api, memberships):
    assert client.get("/legacy/memberships", secure=True).status_code == 401
    assert client.get("/legacy/memberships", secure=True, HTTP_X_CLUB_KEY="999999").status_code == 401
    # Main v5's Bearer token is the second authentication of the chain.
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {api.access_token}"}
    names = [item["name"] for item in client.get("/legacy/memberships", secure=True, **bearer).json()["memberships"]]
    assert names == ["Alfa", "Bravo"]
    # A method the address does not offer: 405 with Allow, in the flavour's error form.
    refused = client.post("/legacy/memberships", secure=True, **key(org))
    assert refused.status_code == 405
    assert refused["Allow"] == "GET, HEAD"
    assert refused.json()["errors"][0]["id"] == 10050


def test_a_filter_default_and_extra_meta(client, org, frozen_time):
    medical = ExpiryDateTypeFactory(organization=org, name="Medical")
    for day in ("2026-11-24", "2026-11-25", "2026-12-01"):  # the frozen today is 2026-11-25 in Stockholm
        UserExpiryDate.objects.create(member=MemberFactory(organization=org), type=medical, expiry_date=day)

    reply = client.get("/legacy/dates", secure=True, **key(org)).json()
    assert [item["expiry_date"] for item in reply["memberships"]] == ["2026-11-25", "2026-12-01"]
    assert reply["meta_information"]["expired"] == 1

    reply = client.get("/legacy/dates", {"from": "2026-01-01"}, secure=True, **key(org)).json()
    assert [item["expiry_date"] for item in reply["memberships"]] == ["2026-11-24", "2026-11-25", "2026-12-01"]


def test_the_flavours_document(client, org, memberships):
    """The generator as it is writes the flavour's document: its envelopes, errors, scheme and other views."""
    from tests.test_openapi import Conformance

    document = client.get("/legacy/openapi.json", secure=True).json()
    validate_spec(document)
    assert set(document["paths"]) == {"/memberships", "/memberships/{id}", "/dates", "/user-groups", "/status"}
    assert document["components"]["securitySchemes"] == {
        "clubKey": {"type": "apiKey", "in": "header", "name": "X-Club-Key", "description": "See /legacy/key."}
    }
    groups = document["paths"]["/user-groups"]["get"]
    assert groups["security"] == [{"clubKey": []}]
    assert list(groups["responses"]["400"]["content"]) == ["application/json"]  # the flavour's error media type
    assert list(groups["responses"]["200"]["headers"]) == ["Request-Id"]

    conformance = Conformance(document)
    group = UserGroupFactory(organization=org, name="Pilots")
    listing = client.get("/legacy/user-groups", secure=True, **key(org))
    assert listing.json()["memberships"] == [{"id": group.pk, "name": "Pilots"}]  # Main v5's, in this envelope
    conformance.check("get", "/user-groups", listing, 200)
    conformance.check("get", "/memberships", client.get("/legacy/memberships", secure=True, **key(org)), 200)
    one = client.get(f"/legacy/memberships/{memberships[0].pk}", secure=True, **key(org))
    conformance.check("get", "/memberships/{id}", one, 200)
    conformance.check("get", "/memberships/{id}", client.get("/legacy/memberships/0", secure=True, **key(org)), 400)
    conformance.check("get", "/status", client.get("/legacy/status", secure=True), 200)
