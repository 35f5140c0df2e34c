"""Presenters turn model instances into the reply's items.

A presenter declares the fields every item has and the optional blocks; each block says which rights it
needs and how to prepare the queryset (select_related / prefetch), so a list costs a fixed number of
queries whatever its length.
"""

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet


@dataclass(frozen=True)
class Block:
    render: Callable[[Any], Any]
    prepare: Callable[[QuerySet], QuerySet] | None = None
    # Modules whose read right the block needs beyond the endpoint's own.
    extra_modules: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class PresenterContext:
    """What a presenter may need besides the rows: the caller's organization, today in its zone, the caller
    (an API token for the Main API, a member for the Mobile API)."""

    organization: Any = None
    today: dt.date | None = None
    caller: Any = None


class Presenter:
    """The interface the endpoints use: `page(queryset, offset=, limit=)` and `one(queryset)` for rows of a
    filtered, ordered queryset; `render(obj)` for an object already in memory."""

    fields: dict[str, Callable[[Any], Any]] = {}
    blocks: dict[str, Block] = {}

    def __init__(
        self,
        *,
        context: PresenterContext | None = None,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
    ):
        self.context = context or PresenterContext()
        self.include = [name for name in self.blocks if name in set(include or ())]
        excluded = set(exclude or ())
        self.field_items = [(name, render) for name, render in self.fields.items() if name not in excluded]

    def page(self, queryset: QuerySet, *, offset: int, limit: int) -> list[dict]:
        """Items offset .. offset + limit of an ordered queryset."""
        return [self.render(row) for row in self.prepare(queryset)[offset : offset + limit]]

    def one(self, queryset: QuerySet) -> dict | None:
        """The item of a queryset filtered to one row, or None."""
        row = self.prepare(queryset).first()
        return None if row is None else self.render(row)

    def prepare(self, queryset: QuerySet) -> QuerySet:
        queryset = self.prepare_base(queryset)
        for name in self.include:
            prepare = self.blocks[name].prepare
            if prepare is not None:
                queryset = prepare(queryset)
        return queryset

    def prepare_base(self, queryset: QuerySet) -> QuerySet:
        """What the always-present fields need (override to add select_related)."""
        return queryset

    def render(self, obj: Any) -> dict:
        item = {name: render(obj) for name, render in self.field_items}
        for name in self.include:
            item[name] = self.blocks[name].render(obj)
        return item


def attr(name: str) -> Callable[[Any], Any]:
    """Read a (dotted) attribute; None along the way gives None."""
    parts = name.split(".")

    def read(obj):
        for part in parts:
            if obj is None:
                return None
            obj = getattr(obj, part)
        return obj

    return read


def ref(name: str, label: str = "name") -> Callable[[Any], dict | None]:
    """A reference `{id, name}` to a related record, or None."""
    read = attr(name)

    def render(obj):
        related = read(obj)
        if related is None:
            return None
        return {"id": related.id, "name": getattr(related, label)}

    return render
