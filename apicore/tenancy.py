"""Tenancy, declared once on each model and read by every interface: the APIs' endpoints (apicore.views) and
the organization website (adminkit.site) scope their rows and their choices here (docs/decisions.md §1.30).

A model declares, as class attributes:

- `tenant_path`: the lookup from its rows to the organization that owns them (default `organization`; `pk`
  for Organization itself; `member__organization` ...). Several paths that must all lead to the organization
  are a tuple (a member's date of a type: the member's and the type's). `None`: a table of the whole service
  (airports, blocked addresses, app clients), owned by no organization.
- `shared_through`, where other organizations see the rows through the sharing of objects: the lookup from
  the rows to their object (`object`). The object's own queryset decides which objects an organization sees
  (objects_app's one visibility helper, `BookableObject.objects.visible_to(organization)`: its own and those
  shared with it); a model whose queryset has such a `visible_to` is shared itself.

`owned` gives an organization's own rows (what its administrators manage), `visible` what it sees (its own
and what is shared with it: the APIs' default).
"""

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model, QuerySet

DEFAULT_PATH = "organization"


def tenant_paths(model: type[Model]) -> tuple[str, ...]:
    """The lookups from the model's rows to their organization; () for a table of the whole service."""
    paths = getattr(model, "tenant_path", DEFAULT_PATH)
    if paths is None:
        return ()
    return (paths,) if isinstance(paths, str) else tuple(paths)


def is_service_wide(model: type[Model]) -> bool:
    """True for a table of the whole service (`tenant_path = None`): no organization owns its rows."""
    return not tenant_paths(model)


def spans_many(model: type[Model], path: str) -> bool:
    """True when the lookup passes a relation to many rows (a login's memberships): a row may come twice."""
    for name in path.split("__"):
        if name == "pk":
            return False
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:
            return False
        if field.many_to_many or field.one_to_many:
            return True
        if not field.is_relation:
            return False
        model = field.related_model
    return False


def owned(queryset: QuerySet, organization) -> QuerySet:
    """The organization's own rows (all rows of a table of the whole service); an organization or its id."""
    paths = tenant_paths(queryset.model)
    if not paths:
        return queryset
    organization_id = getattr(organization, "pk", organization)  # an organization or its id
    return queryset.filter(**{path: organization_id for path in paths})


def visible(queryset: QuerySet, organization) -> QuerySet:
    """The rows the organization sees: its own, and where the model is shared, those shared with it."""
    model = queryset.model
    path = getattr(model, "shared_through", None)
    if path is not None:
        shared = _related_model(model, path)
        return queryset.filter(**{f"{path}__in": shared._default_manager.visible_to(organization)})
    if callable(getattr(queryset, "visible_to", None)):
        return queryset.visible_to(organization)
    return owned(queryset, organization)


def is_shared(model: type[Model]) -> bool:
    """True when other organizations may see some of the model's rows (through the sharing of objects)."""
    return getattr(model, "shared_through", None) is not None or callable(
        getattr(model._default_manager.all(), "visible_to", None)
    )


def scope(queryset: QuerySet, organization, *, own_only: bool = False) -> QuerySet:
    """The APIs' scoping point: what the organization sees, or with `own_only` its own rows alone."""
    return owned(queryset, organization) if own_only else visible(queryset, organization)


def organization_ids(obj) -> set[int]:
    """The ids of the organizations a row belongs to, by following its tenant paths over the row's attributes
    (each path must lead to one organization; a many-valued path gives no answer here: set())."""
    found = set()
    for path in tenant_paths(type(obj)):
        if spans_many(type(obj), path):
            return set()
        *steps, last = path.split("__")
        target = obj
        for step in steps:
            target = getattr(target, step)
            if target is None:
                return set()
        found.add(target.pk if last == "pk" else getattr(target, f"{last}_id"))
    return found


def _related_model(model: type[Model], path: str) -> type[Model]:
    for name in path.split("__"):
        model = model._meta.get_field(name).related_model
    return model
