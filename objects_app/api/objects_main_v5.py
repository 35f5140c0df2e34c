"""Main API v5: objects (own and shared with the organization) and the remarks written on them.

GET /objects, GET /objects/{id}, GET /remarks, GET /remarks/{id}; module `objects`, read. The rows are scoped
by the models' `visible_to` (apicore.tenancy): the organization's own objects and those shared with it.
"""

from dataclasses import dataclass

from django.db.models import Q
from django.db.models.functions import Lower

from apicore import params
from apicore.views import ItemEndpoint, ListEndpoint
from main_api.flavour_v5 import MainV5Api

from .. import selectors
from ..models import BookableObject, Category, Remark, RemarkState
from .presenters import ObjectPresenter, RemarkPresenter


def _search(lookup: str, what: str) -> params.Search:
    return params.Search(lookup, description=f"{what}; * matches any characters.")


@dataclass(frozen=True)
class AircraftSearch(params.Search):
    """A search on a column that only aircraft show (type designator): other objects never match."""

    def condition(self, value, context) -> Q:
        return Q(category=Category.AIRCRAFT) & super().condition(value, context)


@dataclass(frozen=True)
class StateFilter(params.Filter):
    """A remark's state: open, acknowledged or closed (400 10005 otherwise)."""

    schema = {"type": "string", "enum": list(RemarkState.values)}

    def parse(self, raw: str) -> str:
        if raw not in RemarkState.values:
            raise params.ParamError(f"must be one of {', '.join(RemarkState.values)}")
        return raw


def _created_from(day, context) -> Q:
    return selectors.created_local_condition(context.organization, day, on_or_after=True)


def _created_to(day, context) -> Q:
    return selectors.created_local_condition(context.organization, day, on_or_after=False)


class _Objects(MainV5Api):
    model = BookableObject
    module = "objects"
    presenter_class = ObjectPresenter


class ObjectList(_Objects, ListEndpoint):
    """Own objects and objects shared with the organization, by category, then registration."""

    filters = {
        "registration": _search("registration", "Registration"),
        "type_designator": AircraftSearch(
            "type_designator", description="Type designator (aircraft only); * matches any characters."
        ),
        "organization_name": _search("organization__name", "Name of the owner organization"),
        "category_id": params.Int("category", description="0 Aircraft, 1 Equipment, 2 Premises."),
        "organization_id": params.Int("organization_id", description="The owner organization."),
        "active": params.Bool("active"),
    }
    ordering = ("category", Lower("registration"), "id")
    # The rows depend on the organization and the query alone (the filters are plain conditions of their values):
    # the page's statement is compiled once per organization and query.
    statement_cache = True


class ObjectItem(_Objects, ItemEndpoint):
    """One object, own or shared with the organization."""


class _Remarks(MainV5Api):
    model = Remark
    module = "objects"
    presenter_class = RemarkPresenter


class RemarkList(_Remarks, ListEndpoint):
    """Remarks on own and shared objects, newest first, each with its history."""

    filters = {
        "object_id": params.Int("object_id"),
        "category_id": params.Int("category", description="0 info, 1 yellow, 2 red."),
        "state": StateFilter("state", description="open, acknowledged or closed."),
        "object_registration": _search("object__registration", "Registration of the object"),
        "description": _search("description", "Description"),
        "created_from": params.DateCondition(
            "created_at",
            build=_created_from,
            description="Written on or after this local date (the object's organization's zone).",
        ),
        "created_to": params.DateCondition(
            "created_at",
            build=_created_to,
            description="Written on or before this local date (the object's organization's zone).",
        ),
    }
    ordering = ("-created_at", "-id")


class RemarkItem(_Remarks, ItemEndpoint):
    """One remark on an own or shared object, with its history."""
