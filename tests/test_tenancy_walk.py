"""Every page of the organization website and every address of the v5 APIs, walked with another organization's
ids (issue 17; docs/decisions.md §1.30 "Tenancy declared once").

Organization website: for every model admin registered on the site (`admin.site._registry`), an administrator
of organization A meets organization B's row nowhere: each address of the row's pages (change, history, delete
and the page's own buttons) is "not found" (404, or Django's redirect to the index) or refused (403, 405) to GET
and POST and leaves the row as it was; the row is not in A's list; no relation field of A's add page or of A's
own row's page, inline rows included, offers any row of B; autocomplete offers none of B's rows in any relation
field of the model.

APIs: every address of Main v5 and Mobile v5 with an id in its path (the URL resolver's routes, as
tests/test_routes_covered.py walks them) answers 404 in the API's error form (Problem Details) to each of its
methods when called with B's ids: all of them, and each placeholder alone. The rows come from the route's
contract class (tests/contract/), so a new route without a class fails here as it fails there.

A model registered without a way to make its row here (ROWS) fails by name; so does a model whose tenancy
declaration does not lead to an organization.
"""

import re
from unittest import mock

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.exceptions import FieldDoesNotExist
from django.forms import ModelChoiceField
from django.urls import URLPattern, reverse

from accounts.models import Organization
from apicore import tenancy
from main_api.services import api_token_create
from tests.admin_fixtures import web
from tests.contract import CONTRACTS
from tests.contract.base import PLACEHOLDER
from tests.contract.routes import EXCLUDED, api_routes
from tests.factories import (
    ExpiryDateTypeFactory,
    MemberFactory,
    MembershipFactory,
    UserExpiryDateFactory,
    UserGroupFactory,
    make_admin,
)
from tests.factories_operations import (
    AccountFactory,
    BookingFactory,
    CostCenterFactory,
    FlightApprovalFactory,
    FlightFactory,
    FlightTypeFactory,
    ObjectFactory,
    ProjectFactory,
    RemarkFactory,
    TransactionFactory,
)
from tests.test_routes_covered import load_contract_classes
from webhooks import services as webhook_services

OUR_APPS = ("accounts", "objects_app", "bookings", "flightlog", "economy", "webhooks", "main_api", "mobile_api")


def _webhook(organization):
    with mock.patch("webhooks.services.url_check"):  # no name lookup: the address is never called
        webhook, _, _ = webhook_services.webhook_create(organization=organization, url="https://hooks.example.net/a")
    return webhook


def _api_token(organization):
    token, _ = api_token_create(
        organization=organization, owner=make_admin(organization), description="Walked", rights={"users": "r"}
    )
    return token


def _expiry_date_type(organization):
    expiry_type = ExpiryDateTypeFactory(organization=organization)
    UserExpiryDateFactory(member__organization=organization, type=expiry_type)  # the member page's inline row
    return expiry_type


def _object(organization):
    obj = ObjectFactory(organization=organization)
    obj.maintenance_items.create(name="Annual")
    return obj


# How to make one row of an organization for each model registered on the site whose rows are organizations'.
ROWS = {
    Organization: lambda organization: organization,
    **{
        model: make
        for model, make in {
            "accounts.Membership": lambda o: MembershipFactory(organization=o),
            "accounts.UserGroup": lambda o: UserGroupFactory(organization=o),
            "accounts.Member": lambda o: MemberFactory(organization=o),
            "accounts.ExpiryDateType": _expiry_date_type,
            "main_api.ApiToken": _api_token,
            "objects_app.BookableObject": _object,
            "objects_app.Remark": lambda o: RemarkFactory(organization=o),
            "bookings.Booking": lambda o: BookingFactory(organization=o),
            "flightlog.FlightLogEntry": lambda o: FlightFactory(organization=o, remark=RemarkFactory(organization=o)),
            "flightlog.FlightType": lambda o: FlightTypeFactory(organization=o),
            "flightlog.FlightApproval": lambda o: FlightApprovalFactory(organization=o),
            "economy.Account": lambda o: AccountFactory(organization=o),
            "economy.CostCenter": lambda o: CostCenterFactory(organization=o),
            "economy.Project": lambda o: ProjectFactory(organization=o),
            "economy.Transaction": lambda o: TransactionFactory(organization=o),
            "webhooks.Webhook": _webhook,
            "webhooks.Delivery": lambda o: webhook_services.webhook_ping(webhook=_webhook(o), queue=False),
        }.items()
        for model in [apps.get_model(model)]
    },
}
# Registered models that are no organization's, and why administrators do not reach them as theirs.
NOT_ORGANIZATIONS = {Group: "django.contrib.auth's groups, registered by Django and unused (§11.4): 403"}

REGISTERED = sorted(admin.site._registry.items(), key=lambda entry: entry[0]._meta.label)
SCOPED = [(model, model_admin) for model, model_admin in REGISTERED if model in ROWS]


def model_id(entry) -> str:
    return entry[0]._meta.label


# --- the declarations ---------------------------------------------------------------------------------------


def _target(model, path):
    for name in path.split("__"):
        model = model if name == "pk" else model._meta.get_field(name).related_model
    return model


def test_every_models_tenancy_leads_to_an_organization():
    wrong = []
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS:
            continue
        for path in tenancy.tenant_paths(model):
            try:
                if _target(model, path) is not Organization:
                    wrong.append(f"{model._meta.label}.tenant_path {path}: not an organization")
            except (AttributeError, LookupError, FieldDoesNotExist) as error:
                wrong.append(f"{model._meta.label}.tenant_path {path}: {error}")
        shared = getattr(model, "shared_through", None)
        if shared is not None and not callable(getattr(_target(model, shared).objects.all(), "visible_to", None)):
            wrong.append(f"{model._meta.label}.shared_through {shared}: no visible_to")
    assert wrong == []


def test_every_registered_model_is_walked_or_is_the_services():
    unwalked = [
        model._meta.label
        for model, _ in REGISTERED
        if model not in ROWS and model not in NOT_ORGANIZATIONS and not tenancy.is_service_wide(model)
    ]
    assert unwalked == [], "add a row maker to ROWS for each (or declare the model's tenant_path None)"
    assert len(SCOPED) >= 18


# --- the organization website -------------------------------------------------------------------------------


def _rows_by_model() -> dict:
    return {model: set(model._default_manager.values_list("pk", flat=True)) for model in apps.get_models()}


@pytest.fixture
def world(org, other_org):
    """A's administrator and a row of A for every walked model; then B's rows, recorded by model."""
    administrator = make_admin(org)
    own = {model: make(org) for model, make in ROWS.items()}
    before = _rows_by_model()
    foreign = {model: make(other_org) for model, make in ROWS.items()}
    after = _rows_by_model()
    of_b = {model: after[model] - before[model] for model in after if not tenancy.is_service_wide(model)}
    return web(administrator), own, foreign, of_b


def _object_addresses(model_admin, row) -> list[str]:
    """Every address of the model admin's pages of one row, with the row's id in each id placeholder."""
    addresses = []
    prefix = reverse(f"admin:{model_admin.opts.app_label}_{model_admin.opts.model_name}_changelist")
    for pattern in model_admin.get_urls():
        route = str(pattern.pattern) if isinstance(pattern, URLPattern) else ""
        if "<path:object_id>" in route:
            addresses.append(prefix + re.sub(r"<\w+:\w+>", str(row.pk), route))
    return addresses


def _offered(form, of_b) -> list[str]:
    """The fields of a form that offer a row of B, as `field: model ids`."""
    found = []
    for name, field in form.fields.items():
        if isinstance(field, ModelChoiceField):
            model = field.queryset.model
            leaked = set(field.queryset.values_list("pk", flat=True)) & of_b.get(model, set())
            if leaked:
                found.append(f"{name}: {model._meta.label} {sorted(leaked)}")
    return found


def _page_forms(response) -> list:
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [*inline.formset.forms, inline.formset.empty_form]
    return forms


@pytest.mark.parametrize(("model", "model_admin"), SCOPED, ids=[model_id(entry) for entry in SCOPED])
# Autocomplete of memberships and user groups, which no page orders (no page uses it either).
@pytest.mark.filterwarnings("ignore::django.core.paginator.UnorderedObjectListWarning")
def test_another_organizations_row_is_out_of_reach_on_the_website(model, model_admin, world):
    browser, own, foreign, of_b = world
    theirs, ours = foreign[model], own[model]
    stored = list(model._default_manager.filter(pk=theirs.pk).values())
    index = reverse("admin:index")
    opts = model._meta
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")

    # Our own row's page answers, so the walk shows something.
    mine = browser.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[ours.pk]))
    assert mine.status_code == 200, mine.status_code

    # Their row's pages: not found (or the index), refused, never shown or changed.
    for address in _object_addresses(model_admin, theirs):
        for method in ("get", "post"):
            response = getattr(browser, method)(address, follow=True)
            hops = [url for url, _ in response.redirect_chain]
            if response.status_code == 200:  # only Django's "does not exist" redirect to the index answers
                assert hops and hops[-1] == index, (method, address, hops)
            else:
                assert response.status_code in (403, 404, 405), (method, address, response.status_code)
    assert list(model._default_manager.filter(pk=theirs.pk).values()) == stored

    # Not in the list, whatever its search.
    response = browser.get(changelist)
    assert response.status_code == 200
    assert theirs.pk not in [row.pk for row in response.context["cl"].result_list]
    assert ours.pk in [row.pk for row in response.context["cl"].result_list]

    # No choice of B in any relation field of the add page or of our own row's page (inline rows too).
    pages = [reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[ours.pk])]
    if model_admin.has_add_permission(response.wsgi_request):
        pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
    for page in pages:
        response = browser.get(page)
        assert response.status_code == 200, (page, response.status_code)
        offered = [entry for form in _page_forms(response) for entry in _offered(form, of_b)]
        assert offered == [], page

    # Nor in autocomplete, in any relation field of the model.
    for field in opts.get_fields():
        if not (field.is_relation and (field.many_to_one or field.many_to_many) and not field.auto_created):
            continue
        target = admin.site._registry.get(field.related_model)
        if target is None or not target.search_fields:
            continue
        query = {"app_label": opts.app_label, "model_name": opts.model_name, "field_name": field.name, "term": ""}
        response = browser.get(reverse("admin:autocomplete"), query)
        if response.status_code in (403, 404):
            continue
        assert response.status_code == 200, (field.name, response.status_code)
        ids = {int(result["id"]) for result in response.json()["results"]}
        assert ids & of_b.get(field.related_model, set()) == set(), field.name


@pytest.mark.parametrize("model", list(NOT_ORGANIZATIONS), ids=[model._meta.label for model in NOT_ORGANIZATIONS])
def test_a_registered_model_of_no_organization_is_refused_to_administrators(model, org):
    browser = web(make_admin(org))
    opts = model._meta
    for name in ("changelist", "add"):
        assert browser.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_{name}")).status_code == 403


# --- the APIs -------------------------------------------------------------------------------------------------


def _contract_of() -> dict:
    load_contract_classes()
    return {(contract.route_pattern(), method): contract for contract in CONTRACTS for method in contract.methods}


ROUTES_WITH_IDS = [
    (address, method)
    for address, methods in api_routes().items()
    if address not in EXCLUDED and "<" in address
    for method in methods
]


def test_the_walk_covers_every_route_with_an_id_in_its_path():
    assert len(ROUTES_WITH_IDS) >= 20
    assert [pair for pair in ROUTES_WITH_IDS if pair not in _contract_of()] == []


@pytest.mark.parametrize(("address", "method"), ROUTES_WITH_IDS, ids=[f"{m} {a}" for a, m in ROUTES_WITH_IDS])
def test_another_organizations_ids_are_404_on_every_api_route(address, method, org, other_org):
    contract_class = _contract_of().get((address, method))
    assert contract_class is not None, f"{method} {address}: no contract class declares how to make its rows"
    contract = contract_class()
    api = contract.caller(org)
    theirs, ours = contract.make(other_org), contract.make(org)
    foreign, own = contract.placeholders(theirs), contract.placeholders(ours)
    names = PLACEHOLDER.findall(contract.path)
    # B's ids in every placeholder, then in each one alone (the others A's own).
    mixes = [dict(foreign)] + ([{**own, name: foreign[name]} for name in names] if len(names) > 1 else [])
    for placeholders in mixes:
        before = contract.rows(theirs)
        response = api.call(method, contract.path.format(**placeholders), json=contract.body(method, ours))
        contract.flavour.assert_error(response, 404, contract.flavour.not_found)
        assert contract.rows(theirs) == before, placeholders
