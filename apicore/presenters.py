"""Presenters turn rows into the reply's items: one mechanism for every endpoint.

A presenter declares its fields (always present) and blocks (present when included). Each value declares
its JSON Schema type, the columns it needs and how to compute the value from them:

    class GroupPresenter(Presenter):
        fields = {"id": Field(INTEGER, "id"), "name": Field(STRING, "name")}
        blocks = {"users": Block(array(MEMBER), related=Related("id", load=_members_of_groups))}

A column is an ORM path of the queryset's model ("user__username") or an `Expr` (an annotation built per
query). A page is read as tuples of exactly the needed columns (one `values_list` query, no model
instances), and each `Related` block adds one query for the whole page, whatever its length. `render(obj)`
reads the same columns as attributes of an object already in memory (the token, the organization, a row
just written), so the declarations are the only description of an item, and `json_schema()` documents it.
"""

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import ValuesListIterable

from apicore import clock
from apicore.clock import utc_iso, zone
from apicore.database import (
    STATEMENTS,
    Compiled,
    MinutesBetween,
    NotComposable,
    RowsForKeys,
    SortableUtcText,
    UtcText,
    WithBlockRows,
    utc_sortable_text,
)

# --- JSON Schema types (OpenAPI 3.1 dialect) --------------------------------------------------------------

INTEGER = {"type": "integer"}
STRING = {"type": "string"}
BOOLEAN = {"type": "boolean"}
NUMBER = {"type": "number"}
DATE = {"type": "string", "format": "date"}
DATETIME = {"type": "string", "format": "date-time"}


def nullable(schema: dict) -> dict:
    """The type, or null: `"type": [<type>, "null"]`."""
    kind = schema["type"]
    kinds = [*kind] if isinstance(kind, list) else [kind]
    return {**schema, "type": [*kinds, "null"] if "null" not in kinds else kinds}


def obj(**properties: dict) -> dict:
    """An object with exactly these properties, all of them always present."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def array(items: dict) -> dict:
    return {"type": "array", "items": items}


def enum(values: Iterable[str]) -> dict:
    return {"type": "string", "enum": list(values)}


REF = obj(id=INTEGER, name=STRING)

# --- declarations -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PresenterContext:
    """What a presenter may need besides the rows: the caller's organization, today in its zone, the caller
    (an API token for the Main API, a member for the Mobile API)."""

    organization: Any = None
    today: dt.date | None = None
    caller: Any = None
    # today_in's answers of this reply, by zone.
    _days: dict = field(default_factory=dict, compare=False, repr=False)

    def today_in(self, zone_name: str) -> dt.date:
        """Today in an IANA zone (an item's organization's), once per reply and zone: a page of 60 objects asks
        120 times."""
        day = self._days.get(zone_name)
        if day is None:
            day = self._days[zone_name] = clock.today_in(zone_name)
        return day


@dataclass(frozen=True)
class Expr:
    """A computed column: `build()` gives a fresh query expression (a sub-select, EXISTS...), annotated
    under `name`. On an object in memory, the attribute of that name is read, or `read(obj)` computes the
    same value in Python when the object has no such attribute (a row just written)."""

    name: str
    build: Callable[[], Any]
    read: Callable[[Any], Any] | None = field(default=None, compare=False)


Column = str | Expr


# Compared and hashed by identity (eq=False): the values that share one load name the same object, and a page
# looks each one up once a row.
@dataclass(frozen=True, eq=False)
class Related:
    """A block made of rows of another table, loaded for the whole page in one query.

    `key` is the item's column that selects them; `load(model, keys, context)` returns `(key, element)`
    pairs in the order the block lists them (model: the queryset's model, for presenters shared by several).
    Values of one presenter that name the same Related share its one query.
    """

    key: Column
    load: Callable[[type, list, PresenterContext], Iterable[tuple[Any, Any]]] | None = None
    # Or the block's rows as a queryset: `rows(keys)` is a `values_list` of the key, then the element's values,
    # in the block's order, filtered by `keys` with apicore.database.among (a list, or a sub-select of a page's
    # keys); `element(values)` makes an element of one row's values (a sequence; without `element`, the element is
    # that sequence). A page whose statement is compiled once (Presenter.keyed_page) then reads these rows in the
    # same statement (apicore.database.WithBlockRows); elsewhere they are one query (compiled once,
    # apicore.database.RowsForKeys).
    rows: Callable[[Any], QuerySet] | None = None
    element: Callable[[Any], Any] | None = None

    def __post_init__(self):
        if (self.load is None) == (self.rows is None):
            raise TypeError("a Related has either load or rows")
        if self.rows is not None:
            reader, element = RowsForKeys(self.rows), self.element or _same
            load = lambda _model, keys, _context: ((row[0], element(row[1:])) for row in reader(keys))  # noqa: E731
            object.__setattr__(self, "load", load)


def _same(value: Any) -> Any:
    return value


class Value:
    """One value of an item: its JSON Schema, the columns it reads, and `compute(*column_values)` (or
    `compute(context, *column_values)` with `uses_context`). Without `compute`, the only column's value.

    A `related` value is the list of its loaded elements; with columns too, it is
    `compute(elements, *column_values)` (or `compute(context, elements, *column_values)`): a value made of
    the item's own columns and rows of another table (an object's status from its maintenance items).
    `related` may be a tuple of several: `compute(elements_1, elements_2, ..., *column_values)`."""

    def __init__(
        self,
        schema: dict,
        *columns: Column,
        compute: Callable[..., Any] | None = None,
        uses_context: bool = False,
        related: "Related | tuple[Related, ...] | None" = None,
    ):
        relateds = () if related is None else related if isinstance(related, tuple) else (related,)
        if not relateds and not columns:
            raise TypeError("a value reads at least one column, or is a Related block")
        if compute is None and (len(columns) > 1 or (relateds and columns) or len(relateds) > 1):
            raise TypeError("a value of several columns needs compute")
        self.schema = schema
        self.columns = columns
        self.compute = compute or _same
        self.uses_context = uses_context
        self.relateds: tuple[Related, ...] = relateds


class Field(Value):
    """A value every item has (unless excluded by name)."""


class Block(Value):
    """A value present when included. `extra_modules`: modules whose read right the block needs beyond the
    endpoint's own."""

    def __init__(self, schema: dict, *columns: Column, extra_modules: tuple[str, ...] = (), **options):
        super().__init__(schema, *columns, **options)
        self.extra_modules = extra_modules


def _column_name(column: Column) -> str:
    return column.name if isinstance(column, Expr) else column


def read_path(obj: Any, column: Column) -> Any:
    """A column of an object in memory: `user__username` is `obj.user.username`; None along the way gives None."""
    if isinstance(column, Expr) and column.read is not None and not hasattr(obj, column.name):
        return column.read(obj)
    for part in _column_name(column).split("__"):
        if obj is None:
            return None
        obj = getattr(obj, part)
    return obj


# --- the presenter ----------------------------------------------------------------------------------------


class Presenter:
    """The interface the endpoints use: `page(queryset, offset=, limit=)` and `one(queryset)` for rows of a
    filtered, ordered queryset; `render(obj)` for an object already in memory."""

    fields: dict[str, Field] = {}
    blocks: dict[str, Block] = {}
    # Pages in two statements (keys, then rows: see page). False for tables an organization has few rows of
    # (its objects), where one statement is cheaper.
    keys_first = True

    def __init__(
        self,
        *,
        context: PresenterContext | None = None,
        include: Iterable[str] | None = None,
        exclude: Iterable[str] | None = None,
    ):
        self.context = context or PresenterContext()
        included, excluded = set(include or ()), set(exclude or ())
        self.include = [name for name in self.blocks if name in included]
        # The item's values in the reply's order: fields as declared, then the included blocks as declared.
        self.values: list[tuple[str, Value]] = [
            *((name, value) for name, value in self.fields.items() if name not in excluded),
            *((name, self.blocks[name]) for name in self.include),
        ]
        columns: dict[str, Column] = {}
        for _, value in self.values:
            for column in (*value.columns, *(related.key for related in value.relateds)):
                columns.setdefault(_column_name(column), column)
        self.columns = list(columns.values())
        self._positions = {name: index for index, name in enumerate(columns)}
        self._readers = [(name, self._row_reader(name, value)) for name, value in self.values]
        # The blocks' rows can come with the item's own statement: every Related included is a queryset.
        relateds = self._relateds()
        self._reads_block_rows = bool(relateds) and all(related.rows is not None for related in relateds)

    # --- the interface --------------------------------------------------------------------------------

    def page(self, queryset: QuerySet, *, offset: int, limit: int) -> list[dict]:
        """Items offset .. offset + limit of an ordered queryset, in two SQL statements whatever the limit.

        The page's keys come first, from the narrow ordered query (LIMIT/OFFSET over the sort's index); then
        only those rows are read wide, by their keys. Given a list of literal keys, PostgreSQL drives the
        joins of the wide read from the page's rows (primary key lookups); with the keys as a sub-select it
        plans a semi join after joining every row of the organization (docs/decisions.md §1.2 "Pages in two
        statements"). The
        wide rows are put in the keys' order here, so that read needs no sort of its own.

        A presenter of short lists (keys_first False) reads a page in one statement, with the rows of its blocks
        where they are declared as querysets (Related.rows; apicore.database.WithBlockRows)."""
        if limit <= 0:
            return []
        if not self.keys_first:
            window = (offset, offset + limit)
            if not self._reads_block_rows:
                return self._present(queryset.model, self._rows(queryset, window=window))
            connection = connections[queryset.db]
            return self._present_statement(
                self._statement(self._values(queryset, window=window), connection), connection
            )
        keys = list(queryset.values_list("pk", flat=True)[offset : offset + limit])
        if not keys:
            return []
        # The queryset itself, filtered to the keys: its annotations may be columns of the presenter.
        rows = self._rows(queryset.filter(pk__in_keys=keys).order_by(), with_key=True)
        position = {key: index for index, key in enumerate(keys)}
        rows.sort(key=lambda row: position[row[0]])
        return self._present(queryset.model, [row[1:] for row in rows])

    def keyed_page(self, key: tuple, build: Callable[[], QuerySet], *, offset: int, limit: int) -> list[dict]:
        """`page` of the queryset `build()` makes, where `key` determines that queryset (its text and parameters:
        apicore.views.ListEndpoint.statement_key). A page in one statement (keys_first False) is then compiled
        once per key, window and the presenter's shape in each process (apicore.database.STATEMENTS), the
        queryset built that once. A page in two statements is read as `page` reads it."""
        if self.keys_first or limit <= 0:
            return self.page(build(), offset=offset, limit=limit)
        window = (offset, offset + limit)
        statement, connection = STATEMENTS.get(
            (*key, type(self), tuple(self._positions), window),
            lambda connection: self._statement(self._values(build(), window=window), connection),
        )
        return self._present_statement(statement, connection)

    def one(self, queryset: QuerySet) -> dict | None:
        """The item of a queryset filtered to one row, or None: one statement with the rows of its blocks where
        they are declared as querysets (as a page of short lists)."""
        if not self._reads_block_rows:
            rows = self._rows(queryset.order_by()[:1])
            return self._present(queryset.model, rows)[0] if rows else None
        connection = connections[queryset.db]
        items = self._present_statement(self._statement(self._values(queryset.order_by()[:1]), connection), connection)
        return items[0] if items else None

    def render(self, obj: Any) -> dict:
        """An object already in memory: its columns are read as attributes (a Related block: one query)."""
        row = tuple(read_path(obj, column) for column in self.columns)
        return self._present(type(obj), [row])[0]

    @classmethod
    def json_schema(cls, blocks: Iterable[str] | None = None) -> dict:
        """The JSON Schema of an item: every field (required), and the named blocks (default: all) as
        optional properties."""
        names = list(cls.blocks) if blocks is None else list(blocks)
        unknown = [name for name in names if name not in cls.blocks]
        if unknown:
            raise KeyError(f"not blocks of {cls.__name__}: {', '.join(unknown)}")
        properties = {name: value.schema for name, value in cls.fields.items()}
        properties.update({name: cls.blocks[name].schema for name in names})
        return {
            "type": "object",
            "properties": properties,
            "required": list(cls.fields),
            "additionalProperties": False,
        }

    # --- reading rows ---------------------------------------------------------------------------------

    def _rows(self, queryset: QuerySet, *, with_key: bool = False, window: tuple[int, int] | None = None) -> list:
        """Tuples of the presenter's columns (with the row's key first when `with_key`), rows start .. end of
        the ordered queryset when a `window` is given."""
        return list(self._values(queryset, with_key=with_key, window=window))

    def _values(self, queryset: QuerySet, *, with_key: bool = False, window: tuple[int, int] | None = None):
        """The `values_list` queryset of `_rows`."""
        expressions = {column.name: column.build() for column in self.columns if isinstance(column, Expr)}
        if expressions:
            queryset = queryset.annotate(**expressions)
        names = [_column_name(column) for column in self.columns]
        rows = queryset.values_list(*(["pk", *names] if with_key else names))
        return rows if window is None else rows[window[0] : window[1]]

    def _relateds(self) -> list[Related]:
        """The Related loads of the values included, each once, in their order."""
        return list(dict.fromkeys(related for _name, value in self.values for related in value.relateds))

    def _statement(self, values: QuerySet, connection) -> Compiled:
        """The compiled statement of a `_values` queryset: with its blocks' rows where all are declared as
        querysets (Related.rows) and can come with it, else alone (the blocks are then read apart)."""
        if self._reads_block_rows:
            blocks = [(self._positions[_column_name(related.key)], related.rows) for related in self._relateds()]
            try:
                return WithBlockRows(values, blocks, connection)
            except NotComposable:
                pass
        return Compiled(values, connection)

    def _present_statement(self, statement: Compiled, connection) -> list[dict]:
        """The items of a statement's rows (`_statement`), with its blocks' rows when it read them."""
        if not isinstance(statement, WithBlockRows):
            return self._present(statement.model, statement.rows(connection))
        rows, blocks = statement.rows(connection)
        if not rows:
            return []
        loaded: dict[Related, dict] = {}
        for related, per_row in zip(self._relateds(), blocks, strict=True):
            position, element = self._positions[_column_name(related.key)], related.element
            if element is None:
                loaded[related] = {
                    row[position]: elements for row, elements in zip(rows, per_row, strict=True) if elements
                }
            else:
                loaded[related] = {
                    row[position]: [element(values) for values in elements]
                    for row, elements in zip(rows, per_row, strict=True)
                    if elements
                }
        return self._present(statement.model, rows, loaded)

    def _present(self, model: type, rows: list[tuple], related: dict | None = None) -> list[dict]:
        if related is None:
            related = self._load_related(model, rows)
        items = []
        for row in rows:
            items.append({name: read(row, related) for name, read in self._readers})
        return items

    def _load_related(self, model: type, rows: list[tuple]) -> dict[Related, dict]:
        """Per Related: key -> its list of elements, one query for all the rows. Values that name the same
        Related (an object's status and its maintenance items) share its one query."""
        loaded: dict[Related, dict] = {}
        if not rows:
            return loaded
        for _name, value in self.values:
            for related in value.relateds:
                if related in loaded:
                    continue
                position = self._positions[_column_name(related.key)]
                keys = list(dict.fromkeys(row[position] for row in rows if row[position] is not None))
                groups: dict[Any, list] = {}
                if keys:
                    for key, element in related.load(model, keys, self.context):
                        groups.setdefault(key, []).append(element)
                loaded[related] = groups
        return loaded

    def _row_reader(self, name: str, value: Value) -> Callable[[tuple, dict], Any]:
        """A function of (row, loaded related elements) giving the value, made once per presenter."""
        positions, compute = self._positions, value.compute
        if value.uses_context:
            compute = partial(compute, self.context)
        indexes = [positions[_column_name(column)] for column in value.columns]
        if value.relateds:
            sources = [(related, positions[_column_name(related.key)]) for related in value.relateds]
            if not indexes and len(sources) == 1:
                ((related_, position),) = sources
                if compute is _same:
                    return lambda row, loaded: loaded[related_].get(row[position], [])
                return lambda row, loaded: compute(loaded[related_].get(row[position], ()))
            columns_of = _tuple_getter(indexes)
            if len(sources) == 1:
                # The common cases (a person and their email addresses; an object's status from its maintenance
                # items and remarks), without the general loop below.
                ((related_, position),) = sources
                return lambda row, loaded: compute(loaded[related_].get(row[position], ()), *columns_of(row))
            if len(sources) == 2:
                (first, first_position), (second, second_position) = sources
                return lambda row, loaded: compute(
                    loaded[first].get(row[first_position], ()),
                    loaded[second].get(row[second_position], ()),
                    *columns_of(row),
                )
            return lambda row, loaded: compute(
                *(loaded[related_].get(row[position], ()) for related_, position in sources), *columns_of(row)
            )
        if len(indexes) == 1:
            (index,) = indexes
            if compute is _same:
                return lambda row, _related: row[index]
            return lambda row, _related: compute(row[index])
        getter = itemgetter(*indexes)
        return lambda row, _related: compute(*getter(row))


def _tuple_getter(indexes: list[int]) -> Callable[[tuple], tuple]:
    """The values at `indexes` of a row, as a tuple (also of one or none)."""
    if not indexes:
        return lambda row: ()
    if len(indexes) == 1:
        (index,) = indexes
        return lambda row: (row[index],)
    return itemgetter(*indexes)


# --- helpers for declarations -----------------------------------------------------------------------------


def text_or_none(value: str | None) -> str | None:
    """A text column; empty is null (a missing value)."""
    return value or None


def iso_date(value: dt.date | None) -> str | None:
    """A date as the API writes it (YYYY-MM-DD), or None."""
    return None if value is None else value.isoformat()


def _annotation(path: str, suffix: str) -> str:
    return f"{path.replace('__', '_')}_{suffix}"


def utc_text(path: str) -> Expr:
    """The point in time at `path` as `*_at` text, written by the database (apicore.database.UtcText)."""
    return Expr(_annotation(path, "utc"), lambda: UtcText(path), read=lambda obj: utc_iso(read_path(obj, path)))


def sortable_utc_text(path: str) -> Expr:
    """The point in time at `path` as fixed-width UTC text with microseconds (apicore.database.SortableUtcText):
    compared with another such text as the points in time are; `text[:19] + "Z"` is utc_text's."""
    return Expr(
        _annotation(path, "sortable"),
        lambda: SortableUtcText(path),
        read=lambda obj: utc_sortable_text(read_path(obj, path)),
    )


def local_from_utc_text(text: str | None, zone_name: str) -> str | None:
    """`*_local` text from `*_at` text (UtcText), in the IANA zone."""
    if text is None:
        return None
    return dt.datetime.fromisoformat(text).astimezone(zone(zone_name)).isoformat()


def local_text(path: str, zone_path: str) -> Field:
    """A field: the point in time at `path` as `*_local` text in the zone named at `zone_path` (made from the
    database's UTC text, the same column as `utc_text(path)`'s)."""
    return Field(DATETIME, utc_text(path), zone_path, compute=local_from_utc_text)


def minutes_between_column(start: str, end: str) -> Expr:
    """Whole minutes from the point in time at `start` to the one at `end`, computed by the database."""

    def read(obj):
        first, last = read_path(obj, start), read_path(obj, end)
        return None if first is None or last is None else round((last - first).total_seconds() / 60)

    return Expr(_annotation(f"{start}_{end}", "minutes"), lambda: MinutesBetween(start, end), read=read)


def ref_or_none(id_: int | None, name: str | None) -> dict | None:
    """A reference `{id, name}` to a related record, or None."""
    return None if id_ is None else {"id": id_, "name": name}


def ref(path: str, label: str = "name") -> Field:
    """A field `{id, name}` of the record at `path` (a foreign key), null without one."""
    return Field(nullable(REF), f"{path}__id", f"{path}__{label}", compute=ref_or_none)


# --- items built by one generated function (opt-in) -------------------------------------------------------


class GeneratedItems:
    """A mixin for a Presenter whose pages are long (`class UserPresenter(GeneratedItems, Presenter)`): its items
    are built by one function generated from the declarations, a list comprehension of dict displays, instead
    of one reader call per value and item. The same items (the declarations are read the same way); per
    value of a 500-item page this saves the reader's call and its closure's lookups (docs/decisions.md §1.34
    "Long pages"). The function is made once per presenter class and shape (the values included) and kept for
    the process (the first SHAPES_KEPT shapes: include and exclude make many more possible)."""

    _builders: dict[tuple, Callable] = {}
    # True: a page's wide rows are read by their keys alone, not through the endpoint's queryset (so none of
    # its annotations may be a column), by a statement compiled once per shape (KeyedRows).
    rows_by_keys = False
    _wide_rows: dict[tuple, "KeyedRows"] = {}
    _pages: dict[tuple, tuple] = {}

    def page(self, queryset: QuerySet, *, offset: int, limit: int) -> list[dict]:
        """With `rows_by_keys`, a page in one statement: the wide read by a statement compiled once per shape and
        order, with the keys' query (the narrow ordered LIMIT/OFFSET of the endpoint's queryset) in place of the
        keys (KeyedRows.rows_in), in the same order. An order the wide read cannot repeat reads the keys first."""
        if not (self.rows_by_keys and self.keys_first) or limit <= 0:
            return super().page(queryset, offset=offset, limit=limit)
        model, keys_query = queryset.model, queryset.values_list("pk", flat=True)
        reader = self._wide_reader(model, _repeatable_order(queryset))
        if reader is not None:
            rows = reader.rows_in(keys_query, offset=offset, limit=limit, using=queryset.db)
        else:
            keys = list(keys_query[offset : offset + limit])
            if not keys:
                return []
            rows = self._wide_reader(model).rows(keys, using=queryset.db)
            position = {key: index for index, key in enumerate(keys)}
            rows.sort(key=lambda row: position[row[0]])
        return self._present(model, [row[1:] for row in rows])

    def keyed_page(self, key: tuple, build: Callable[[], QuerySet], *, offset: int, limit: int) -> list[dict]:
        """With `rows_by_keys`, `page` of the queryset `build()` makes, where `key` determines it
        (apicore.views.ListEndpoint.statement_key): its keys query is compiled once per key and shape in each
        process (the first PAGES_KEPT), and the queryset built that once; every call runs the page's statement
        with that query spliced in (`rows_in`), its window as parameters."""
        if not (self.rows_by_keys and self.keys_first) or limit <= 0:
            return super().keyed_page(key, build, offset=offset, limit=limit)
        cache_key = (*key, type(self), tuple(name for name, _ in self.values))
        found = GeneratedItems._pages.get(cache_key)
        if found is None:
            queryset = build()
            model, order = queryset.model, _repeatable_order(queryset)
            if order is None:
                return self.page(queryset, offset=offset, limit=limit)
            keys = keys_statement(queryset.values_list("pk", flat=True), queryset.db)
            found = (model, queryset.db, order, keys)
            if len(GeneratedItems._pages) < PAGES_KEPT:
                GeneratedItems._pages[cache_key] = found
        model, using, order, keys = found
        if keys is None:
            return []
        rows = self._wide_reader(model, order).rows_in_statement(keys, offset=offset, limit=limit, using=using)
        return self._present(model, [row[1:] for row in rows])

    def _wide_reader(self, model: type, order: tuple | None = ()) -> "KeyedRows | None":
        """The page's wide rows by their keys, in `order` (the arguments of order_by; () for none). None for
        None: an order it cannot repeat."""
        if order is None:
            return None
        key = (type(self), model, tuple(name for name, _ in self.values), order)
        columns = list(self.columns)

        def build(keys: list) -> QuerySet:
            rows = model._base_manager.filter(pk__in_keys=keys).order_by(*order)
            expressions = {column.name: column.build() for column in columns if isinstance(column, Expr)}
            if expressions:
                rows = rows.annotate(**expressions)
            return rows.values_list("pk", *(_column_name(column) for column in columns))

        return _kept(GeneratedItems._wide_rows, key, lambda: KeyedRows(build))

    def _present(self, model: type, rows: list[tuple], related: dict | None = None) -> list[dict]:
        if not rows:
            return []
        if related is None:
            related = self._load_related(model, rows)
        return self._item_builder()(rows, related, self.context)

    def _row_reader(self, name: str, value: Value) -> None:
        """Not used: the generated function reads the rows (Presenter.__init__ would make one per value)."""
        return None

    def _load_related(self, model: type, rows: list[tuple]) -> dict[Related, dict]:
        """As Presenter's, and Relateds with the same `load` (a flight's pilot, instructor and scout) share one
        call with the keys of all of them: a load gives each key's elements whatever keys come with it."""
        loaded: dict[Related, dict] = {}
        if not rows:
            return loaded
        by_load: dict[Callable, list[Related]] = {}
        for related in dict.fromkeys(related for _name, value in self.values for related in value.relateds):
            by_load.setdefault(related.load, []).append(related)
        for load, relateds in by_load.items():
            keys: dict[Any, None] = {}
            for related in relateds:
                position = self._positions[_column_name(related.key)]
                keys.update(dict.fromkeys(row[position] for row in rows if row[position] is not None))
            groups: dict[Any, list] = {}
            if keys:
                for key, element in load(model, list(keys), self.context):
                    groups.setdefault(key, []).append(element)
            for related in relateds:
                loaded[related] = groups
        return loaded

    def _item_builder(self) -> Callable[[list, dict, PresenterContext], list[dict]]:
        key = (type(self), tuple(name for name, _ in self.values))
        return _kept(GeneratedItems._builders, key, lambda: _generate_builder(self.values, self._positions))


# Shapes of a presenter whose generated function and wide statement a process keeps (beyond them, both are made
# for the call and dropped): the lists' usual few, not every combination of include and exclude.
SHAPES_KEPT = 256
# Keys queries (GeneratedItems.keyed_page: an organization's query of a list, a page each) a process keeps.
PAGES_KEPT = 1024


def _kept(cache: dict, key: tuple, make: Callable[[], Any]) -> Any:
    found = cache.get(key)
    if found is None:
        found = make()
        if len(cache) < SHAPES_KEPT:
            cache[key] = found
    return found


def _repeatable_order(queryset: QuerySet) -> tuple | None:
    """The arguments of order_by that give the queryset's order on the model's rows again, as a key of compiled
    statements; None when there are none (no order of its own, the model's default, extra(), DISTINCT, a
    reversed queryset) or they cannot be a key."""
    query = queryset.query
    if not query.order_by or query.extra_order_by or not query.standard_ordering or query.distinct:
        return None
    order = tuple(query.order_by)
    try:
        hash(order)
    except TypeError:
        return None
    return order


def _generate_builder(values: list[tuple[str, Value]], positions: dict[str, int]) -> Callable:
    """`build(rows, loaded, context)`: the items of rows, as Presenter._row_reader's readers give them (a compute
    of several Relateds gets () for a key without elements, as they give it)."""
    namespace: dict[str, Any] = {}
    relateds: dict[Related, str] = {}

    def bind(prefix: str, thing: Any) -> str:
        name = f"{prefix}{len(namespace)}"
        namespace[name] = thing
        return name

    def related_name(related: Related) -> str:
        if related not in relateds:
            relateds[related] = f"_loaded{len(relateds)}"
            namespace[f"_key{len(relateds) - 1}"] = related
        return relateds[related]

    def column(column_: Column) -> str:
        return f"row[{positions[_column_name(column_)]}]"

    entries = []
    for name, value in values:
        columns = [column(column_) for column_ in value.columns]
        compute = value.compute
        # As _row_reader: a value that uses the context gets it first (and is never the plain column).
        context = ["context"] if value.uses_context else []
        plain = compute is _same and not value.uses_context
        if value.relateds:
            sources = [(related_name(related), column(related.key)) for related in value.relateds]
            if not columns and len(sources) == 1 and plain:
                ((loaded, key),) = sources
                expression = f"{loaded}.get({key}, [])"
            else:
                elements = [f"{loaded}.get({key}, ())" for loaded, key in sources]
                expression = f"{bind('_compute', compute)}({', '.join([*context, *elements, *columns])})"
        elif plain:
            (expression,) = columns
        elif compute is text_or_none and not value.uses_context:
            expression = f"({columns[0]} or None)"
        else:
            expression = f"{bind('_compute', compute)}({', '.join([*context, *columns])})"
        entries.append(f"{name!r}: {expression}")
    loads = "".join(f"    {loaded} = loaded[_key{index}]\n" for index, loaded in enumerate(relateds.values()))
    source = f"def build(rows, loaded, context):\n{loads}    return [{{{', '.join(entries)}}} for row in rows]\n"
    exec(compile(source, "<generated items>", "exec"), namespace)  # noqa: S102 (our own declarations only)
    return namespace["build"]


# --- statements compiled once (opt-in) --------------------------------------------------------------------

# A key no table has: it marks where a compiled statement takes its keys.
_KEYS_MARK = -7_294_117_118
# A parameter's placeholder in Django's SQL, or an escaped percent sign.
_PLACEHOLDER = re.compile("%[s%]")


class KeyedRows:
    """Rows of one `values_list` query (of several columns) by a list of keys: `build(keys)` gives the queryset
    and must depend on nothing but the keys (it filters with `<key>__in_keys=keys`, once). The ORM compiles it
    once per process and database; building and compiling it cost ~0.6 ms a call, as much as reading 1,500 rows.

    - `rows(keys)`: on PostgreSQL every call runs that text with its own keys as the one array parameter
      (prepared within apicore.database.prepared_statements); elsewhere (SQLite, whose IN has a placeholder per
      key) the queryset runs as it is.
    - `rows_in(keys_query)`: the rows of the keys a query selects, that query in the compiled text in place of
      the keys, on every database.

    The same rows as the queryset's, through Django's cursor (counted and logged as any query), with Django's
    conversions of the columns."""

    def __init__(self, build: Callable[[list], QuerySet]):
        self.build = build
        self._statements: dict[str, tuple | None] = {}
        self._splices: dict[str, tuple] = {}

    def rows(self, keys: list, using: str = "default") -> list[tuple]:
        connection = connections[using]
        if connection.vendor != "postgresql":
            return list(self.build(keys).using(using))
        if using not in self._statements:
            self._statements[using] = self._compile(using)
        statement = self._statements[using]
        if statement is None:
            return list(self.build(keys).using(using))
        sql, params, key_indexes, converters, width = statement
        params = list(params)
        array = _array_text(keys)
        for index in key_indexes:
            params[index] = array
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if width is not None:
            rows = [row[:width] for row in rows]
        if converters:
            return [_converted(row, converters, connection) for row in rows]
        return rows

    def rows_in(self, keys_query: QuerySet, *, offset: int, limit: int, using: str = "default") -> list[tuple]:
        """The rows whose keys `keys_query` selects in the window offset .. offset + limit (a `values_list` of the
        key, ordered, not sliced: a page's), in one statement: the compiled text with that query in place of the
        keys, as `= ANY(ARRAY(<query>))` on PostgreSQL (an array made once, before the rows are read by their
        primary key: no join of every row with the page) and `IN (<query>)` elsewhere. In the order `build`
        gives them (order_by).

        The window is two parameters (`LIMIT %s OFFSET %s`), not numbers in the text as Django writes a slice:
        one text for every page, which PostgreSQL plans once per connection (a prepared statement's first
        executions are planned each; with a text per offset, nearly every page was: ~1 ms each)."""
        compiled = keys_statement(keys_query, using)
        if compiled is None:
            return []
        return self.rows_in_statement(compiled, offset=offset, limit=limit, using=using)

    def rows_in_statement(self, keys: tuple, *, offset: int, limit: int, using: str = "default") -> list[tuple]:
        """`rows_in` of a keys query compiled already (`keys_statement`: its text and parameters)."""
        connection = connections[using]
        if using not in self._splices:
            self._splices[using] = self._splice(using)
        before, after, params_before, params_after, converters, width = self._splices[using]
        query_sql, query_params = keys
        query_sql, query_params = f"{query_sql} LIMIT %s OFFSET %s", (*query_params, limit, offset)
        if connection.vendor == "postgresql":
            query_sql = f"ARRAY({query_sql})"
        with connection.cursor() as cursor:
            cursor.execute(before + query_sql + after, [*params_before, *query_params, *params_after])
            rows = cursor.fetchall()
        if width is not None:
            rows = [row[:width] for row in rows]
        if converters:
            return [_converted(row, converters, connection) for row in rows]
        return rows

    def _splice(self, using: str) -> tuple:
        """The compiled text around its keys' placeholder, and the parameters before and after it."""
        queryset = self.build([_KEYS_MARK])
        compiler = queryset.query.get_compiler(using)
        sql, params = compiler.as_sql()
        # The keys are one parameter: an array on PostgreSQL (in_keys), the one value of IN (%s) elsewhere.
        marked = [index for index, param in enumerate(params) if param in ([_KEYS_MARK], _KEYS_MARK)]
        placeholders = [found for found in _PLACEHOLDER.finditer(sql) if found.group() == "%s"]
        if queryset._iterable_class is not ValuesListIterable or len(marked) != 1 or len(placeholders) != len(params):
            raise ValueError("KeyedRows: a values_list of several columns, filtered by the keys once with in_keys")
        (index,) = marked
        at = placeholders[index]
        fields = [select[0] for select in compiler.select[: compiler.col_count]]
        converters = list(compiler.get_converters(fields).items())
        width = compiler.col_count if compiler.has_extra_select else None
        return sql[: at.start()], sql[at.end() :], params[:index], params[index + 1 :], converters, width

    def _compile(self, using: str) -> tuple | None:
        """(SQL, parameters, where the keys go, converters, columns), or None when the keys are not one
        parameter of their own."""
        queryset = self.build([_KEYS_MARK])
        if queryset._iterable_class is not ValuesListIterable:  # tuples of several columns only
            return None
        compiler = queryset.query.get_compiler(using)
        sql, params = compiler.as_sql()
        key_indexes = [index for index, param in enumerate(params) if param == [_KEYS_MARK]]
        if not key_indexes:
            return None
        fields = [select[0] for select in compiler.select[: compiler.col_count]]
        converters = list(compiler.get_converters(fields).items())
        # Columns the ORM adds for the order (a DISTINCT query's) are not the rows' own.
        width = compiler.col_count if compiler.has_extra_select else None
        return sql, tuple(params), key_indexes, converters, width


def keys_statement(keys_query: QuerySet, using: str = "default") -> tuple | None:
    """(text, parameters) of an ordered query of keys, not sliced (KeyedRows.rows_in gives the window); None for
    a query no row can meet (EmptyResultSet: a list that is off, an id beyond its column's range)."""
    query = keys_query.query
    if query.is_sliced or query.combinator or query.select_for_update:
        raise ValueError("KeyedRows.rows_in: an ordered query of keys, not sliced (the window is given)")
    try:
        sql, params = query.get_compiler(using=using).as_sql()
    except EmptyResultSet:
        return None
    return sql, tuple(params)


def _array_text(keys: list) -> list | str:
    """Whole-number keys as the text of a PostgreSQL array (`{1,2,3}`, typed by the statement): psycopg
    dumps a list element by element, with a regular expression each (~0.3 ms for 500 keys)."""
    if all(type(key) is int for key in keys):
        return "{" + ",".join(map(str, keys)) + "}"
    return keys


def _converted(row: tuple, converters: list, connection) -> tuple:
    values = list(row)
    for index, (functions, expression) in converters:
        for function in functions:
            values[index] = function(values[index], expression, connection)
    return tuple(values)
