"""The one scoping point: every endpoint's rows are limited to the caller's organization here.

A model names the path from its rows to their organization in `tenant_path` (default `organization`), or
several paths that must all lead to it (a member's date of a type: the member's and the type's). A model
whose rows an organization also sees through another's sharing (objects, their bookings and remarks)
defines `visible_to(queryset, organization)` instead.
"""

from django.db.models import QuerySet


def scope(queryset: QuerySet, organization) -> QuerySet:
    visible_to = getattr(queryset.model, "visible_to", None)
    if visible_to is not None:
        return visible_to(queryset, organization)
    paths = getattr(queryset.model, "tenant_path", "organization")
    if isinstance(paths, str):
        paths = (paths,)
    return queryset.filter(**{path: organization for path in paths})
