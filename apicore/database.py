"""Database behaviour that must be the same on PostgreSQL and the embedded SQLite default."""

import datetime as dt
from collections.abc import Callable
from contextlib import contextmanager
from typing import Any

import orjson
from django.conf import settings
from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.backends.signals import connection_created
from django.db.models import CharField, Field, ForeignKey, Func, IntegerField, Lookup, Q, QuerySet, TextField
from django.db.models.expressions import RawSQL
from django.db.models.functions import Lower
from django.db.models.lookups import In


def _unicode_lower(value):
    return value.lower() if isinstance(value, str) else value


def _unicode_upper(value):
    return value.upper() if isinstance(value, str) else value


def use_unicode_case_on_sqlite(sender, connection, **kwargs):
    """SQLite's LOWER and UPPER fold ASCII letters only; PostgreSQL folds Å, Ä, Ö too. Without this, "Örjan"
    and "örjan" would be two usernames and sort apart on the demo database."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("LOWER", 1, _unicode_lower, deterministic=True)
        connection.connection.create_function("UPPER", 1, _unicode_upper, deterministic=True)


class Like(Lookup):
    """`field__like=pattern`: SQL LIKE with `\\` escaping `%`, `_` and itself, the same on every database
    (PostgreSQL's default escape is `\\`, SQLite has none unless told). Matching takes time bounded by the
    lengths of value and pattern on both. Case: compose with Lower on both sides (`name__lower__like=
    Lower(Value(pattern))`); SQLite's own LIKE folds ASCII letters only, LOWER (below) folds all."""

    lookup_name = "like"
    prepare_rhs = False

    def as_sql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} LIKE {rhs} ESCAPE '\\'", [*lhs_params, *rhs_params]


class InKeys(In):
    """`pk__in_keys=[...]`: a list of keys as ONE parameter on PostgreSQL (`= ANY(%s)`, an array), where
    `IN (%s, %s, ...)` makes the driver split and quote a query of 500 placeholders on every page; the
    plain IN elsewhere."""

    lookup_name = "in_keys"

    def get_prep_lookup(self):
        # Keys read from the database a moment ago: no per-value preparation (500 calls a page).
        return list(self.rhs)

    def as_postgresql(self, compiler, connection):
        lhs, lhs_params = self.process_lhs(compiler, connection)
        return f"{lhs} = ANY(%s)", [*lhs_params, list(self.rhs)]


def plan_for_data_in_memory(sender, connection, **kwargs):
    """PostgreSQL's default random_page_cost (4) prices a page read out of order as a spinning disk's. The
    service's tables are read from memory, where an index probe costs about what a page read in order does: with
    the default, a list's join from a page's 300 members to their logins read all 20,000 logins of the service
    (a hash join over a sequential scan, ~4 ms) instead of 300 index probes (~0.4 ms), and the cost of the page
    grew with the service's other organizations (docs/decisions.md §12.24 "The planner's page cost"). Set per
    connection (settings.POSTGRES_RANDOM_PAGE_COST; None keeps the server's), on the raw connection so that no
    query log counts it."""
    if connection.vendor != "postgresql":
        return
    cost = getattr(settings, "POSTGRES_RANDOM_PAGE_COST", None)
    if cost:
        connection.connection.execute(f"SET random_page_cost = {float(cost)}", prepare=False)


def install() -> None:
    connection_created.connect(use_unicode_case_on_sqlite, dispatch_uid="apicore-unicode-case")
    connection_created.connect(plan_for_data_in_memory, dispatch_uid="apicore-random-page-cost")
    # `name__lower="x"` compares LOWER(name) with a lower-cased value: one rule for "without regard to
    # letter case" that uses the Lower() unique indexes on PostgreSQL.
    CharField.register_lookup(Lower)
    TextField.register_lookup(Lower)
    CharField.register_lookup(Like)
    TextField.register_lookup(Like)
    Field.register_lookup(InKeys)
    ForeignKey.register_lookup(InKeys)


# --- points in time written by the database --------------------------------------------------------------
# A page of flights has 2,500 points in time. Read as datetimes, each is parsed by the driver, converted by
# Django and formatted again in Python; written as text by the database, none of that happens
# (docs/decisions.md §1.19 "Points in time written by the database"). Whole seconds, as the APIs write them.
# Local times are made from that text in Python (apicore.presenters.local_text): one zone conversion there
# costs less than PostgreSQL's.


class UtcText(Func):
    """A point in time as the APIs' `*_at` text: `2026-11-20T10:05:00Z`, or NULL."""

    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="""to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')""",
            **extra,
        )

    def as_sqlite(self, compiler, connection, **extra):
        # SQLite keeps Django's datetimes as UTC text "YYYY-MM-DD HH:MM:SS[.ffffff]".
        return self.as_sql(
            compiler, connection, template="replace(substr(%(expressions)s, 1, 19), ' ', 'T') || 'Z'", **extra
        )


class SortableUtcText(Func):
    """A point in time as fixed-width UTC text with microseconds, `2026-11-20T10:05:00.000000Z`, or NULL: such
    texts order as their points in time do, so a reply compares them with now's text (utc_sortable_text)
    without making a datetime of each (a page's 1,000 datetimes cost ~8 ms in the driver and Django)."""

    output_field = CharField()

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(
            compiler,
            connection,
            template="""to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')""",
            **extra,
        )

    def as_sqlite(self, compiler, connection, **extra):
        # Django's SQLite text has the fraction only when it is not zero ("...:SS" or "...:SS.ffffff").
        (value,) = compiled_columns(self, compiler, connection)
        return (
            f"replace(substr({value}, 1, 19), ' ', 'T') || '.' || substr(substr({value}, 21) || '000000', 1, 6) || 'Z'",
            [],
        )


def utc_sortable_text(value):
    """A datetime as SortableUtcText writes it, or None."""
    return None if value is None else value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class MinutesBetween(Func):
    """Whole minutes from the first point in time to the second (rounded half away from zero), or NULL."""

    output_field = IntegerField()
    arity = 2

    def as_postgresql(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"(round(EXTRACT(EPOCH FROM ({end} - {start})) / 60))::integer", []

    def as_sqlite(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"CAST(round((julianday({end}) - julianday({start})) * 1440) AS integer)", []


def compiled_columns(func: Func, compiler, connection) -> list[str]:
    """The SQL of a function's arguments, which must be columns: they are written more than once."""
    compiled = []
    for expression in func.get_source_expressions():
        sql, params = compiler.compile(expression)
        if params:
            raise ValueError(f"{type(func).__name__} takes columns, not values")
        compiled.append(sql)
    return compiled


# --- prepared statements for the pages -------------------------------------------------------------------


@contextmanager
def prepared_statements(using: str = "default"):
    """Within, PostgreSQL queries run on a server-side-binding cursor, which psycopg prepares (DATABASES
    OPTIONS prepare_threshold): a page's statements are the same text on every call (its keys are one array
    parameter), so the server parses and plans them once per connection instead of on every call (2-6 ms
    for a page of flights or bookings). Django's other queries keep its default client-side binding.
    While queries are logged (DEBUG, tests that count them) nothing changes: psycopg leaves a prepared
    execution's text out of what Django's log reads (as main_api.token_lookup)."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.queries_logged:
        yield
        return
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    raw = connection.connection
    previous = raw.cursor_factory
    raw.cursor_factory = ServerBindingCursor
    try:
        yield
    finally:
        raw.cursor_factory = previous


# --- numbers of two decimals as integers -----------------------------------------------------------------


class Hundredths(Func):
    """A number of two decimals (a DecimalField of decimal_places=2) as whole hundredths, an integer: exact on
    both databases (SQLite keeps such numbers as floating point), and read without Decimal."""

    output_field = IntegerField()
    arity = 1

    @property
    def convert_value(self):
        # The database gives an integer already: no int() of each value in Python.
        return self._convert_value_noop

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(%(expressions)s * 100)::bigint", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="CAST(round(%(expressions)s * 100) AS integer)", **extra)


# --- statements compiled once ----------------------------------------------------------------------------
# Building and compiling a queryset is most of the Python of a short read (~0.5 ms of the objects page's query,
# ~0.4 ms of a block's): a statement whose text and parameters a key determines is compiled once per process and
# then only run (within prepared_statements(), prepared once per connection too). The rows are the same as the
# queryset's: run through Django's cursor (counted and logged as any query), converted as Django converts them.


class Compiled:
    """A `values_list` queryset compiled: its text, parameters and model, the converters of its columns."""

    def __init__(self, queryset: QuerySet, connection):
        compiler = queryset.query.get_compiler(connection=connection)
        self.model = queryset.model
        try:
            self.sql, params = compiler.as_sql()
        except EmptyResultSet:  # a condition no row can meet (an integer beyond the column's range)
            self.sql, params = None, ()
        self.params = list(params)
        columns = [selected[0] for selected in compiler.select[: compiler.col_count]]
        self.converters = list(compiler.get_converters(columns).items())
        self.col_count = compiler.col_count
        # Columns the ORM adds for the order (a DISTINCT query's) are not the rows' own.
        self.width = compiler.col_count if compiler.has_extra_select else None

    def rows(self, connection, params: list | None = None) -> list[tuple]:
        if self.sql is None:
            return []
        with connection.cursor() as cursor:
            cursor.execute(self.sql, self.params if params is None else params)
            rows = cursor.fetchall()
        if self.width is not None:
            rows = [row[: self.width] for row in rows]
        if self.converters:
            rows = [_converted(row, self.converters, connection) for row in rows]
        return rows


def _converted(row: tuple, converters: list, connection) -> tuple:
    values = list(row)
    for index, (functions, expression) in converters:
        value = values[index]
        for function in functions:
            value = function(value, expression, connection)
        values[index] = value
    return tuple(values)


class NotComposable(Exception):
    """A page's blocks whose rows cannot come with the page's statement (WithBlockRows): they are read apart."""


def among(lookup: str, keys) -> Q:
    """The condition `lookup` among `keys`: a list of keys (one array parameter on PostgreSQL: `in_keys`), or a
    sub-select of them (a query expression: WithBlockRows's page keys)."""
    if isinstance(keys, list | tuple):
        return Q(**{f"{lookup}__in_keys": list(keys)})
    return Q(**{f"{lookup}__in": keys})


def _same(value):
    return value


def _date_or_none(value):
    return None if value is None else dt.date.fromisoformat(value)


def _bool_or_none(value):
    return None if value is None else bool(value)


# What a column's value is in a JSON array of the database (json_build_array, json_array), read back as the
# queryset gives it; a type not named here (a number with decimals, a point in time: write it as text, UtcText)
# keeps a block's rows out of the page's statement.
_FROM_JSON = {
    **dict.fromkeys(
        (
            "AutoField",
            "BigAutoField",
            "SmallAutoField",
            "IntegerField",
            "BigIntegerField",
            "SmallIntegerField",
            "PositiveIntegerField",
            "PositiveBigIntegerField",
            "PositiveSmallIntegerField",
            "ForeignKey",
            "OneToOneField",
            "CharField",
            "TextField",
            "SlugField",
            "EmailField",
        ),
        _same,
    ),
    "DateField": _date_or_none,
    "BooleanField": _bool_or_none,
}


class WithBlockRows(Compiled):
    """A page's statement (a `values_list` queryset, ordered and sliced) that also reads its blocks' rows: per
    block one more column, the JSON array of the rows of the item's key (the block's queryset is `build(keys)`,
    its key first, in the block's order, filtered with `among(..., keys)`: here a sub-select of the page's keys).
    One round trip instead of one per block: each is a wait for the database, and on a busy machine for a CPU.

    PostgreSQL aggregates each block's rows once for the page (json_agg in their order, joined by key); SQLite
    gathers them per item (json_group_array over the item's rows in order). `rows()` gives (the page's rows,
    per block a list of each row's block rows, as lists of values)."""

    def __init__(self, queryset: QuerySet, blocks: list[tuple[int, Callable]], connection):
        super().__init__(queryset, connection)
        if self.sql is None:
            self.blocks = []
            return
        if self.width is not None or connection.vendor not in ("postgresql", "sqlite"):
            raise NotComposable
        width = self.col_count
        columns = [f'"c{index}"' for index in range(width)]
        parts = [
            f'"_p"({", ".join(columns)}) AS ({self.sql})',
            '"_page" AS (SELECT row_number() OVER () AS "_n", * FROM "_p")',
        ]
        params, selects, joins, self.blocks = list(self.params), [], [], []
        for number, (key_index, build) in enumerate(blocks):
            # (S608, S611: the statement's own identifiers only; every value is a parameter.)
            rows = build(RawSQL(f'SELECT "c{key_index}" FROM "_p"', ()))  # noqa: S608, S611
            compiler = rows.query.get_compiler(connection=connection)
            try:
                sql, block_params = compiler.as_sql()
            except EmptyResultSet:
                raise NotComposable from None
            fields = [selected[0] for selected in compiler.select[: compiler.col_count]]
            readers = [_FROM_JSON.get(field.output_field.get_internal_type()) for field in fields[1:]]
            if compiler.has_extra_select or None in readers:
                raise NotComposable
            # The values to read back (a date's text), by their place in a row of the block's values.
            self.blocks.append((key_index, [(index, read) for index, read in enumerate(readers) if read is not _same]))
            names = [f'"v{index}"' for index in range(1, len(fields))]
            parts.append(f'"_r{number}"("k", {", ".join(names)}) AS ({sql})')
            params += block_params
            values = ", ".join(names)
            if connection.vendor == "postgresql":
                parts.append(
                    f'"_a{number}" AS (SELECT "k", json_agg(json_build_array({values}) ORDER BY "_i")::text AS "j"'  # noqa: S608
                    f' FROM (SELECT row_number() OVER () AS "_i", * FROM "_r{number}") AS "_x" GROUP BY "k")'
                )
                selects.append(f'"_a{number}"."j"')
                joins.append(f'LEFT JOIN "_a{number}" ON "_a{number}"."k" = "_page"."c{key_index}"')
            else:
                parts.append(f'"_a{number}" AS (SELECT row_number() OVER () AS "_i", * FROM "_r{number}")')  # noqa: S608
                selects.append(
                    f'(SELECT json_group_array(json_array({values})) FROM (SELECT * FROM "_a{number}"'  # noqa: S608
                    f' WHERE "k" = "_page"."c{key_index}" ORDER BY "_i"))'
                )
        page_columns = ", ".join(f'"_page".{column}' for column in columns)
        self.sql = (
            f'WITH {", ".join(parts)} SELECT {page_columns}, {", ".join(selects)} FROM "_page" {" ".join(joins)}'  # noqa: S608
            ' ORDER BY "_page"."_n"'
        )
        self.params = params
        self.page_width = width

    def rows(self, connection, params: list | None = None) -> tuple[list[tuple], list[list[list]]]:
        if self.sql is None:
            return [], []
        rows = super().rows(connection, params)
        width = self.page_width
        blocks = []
        for number, (_key_index, readers) in enumerate(self.blocks):
            column = width + number
            per_row = []
            for row in rows:
                elements = orjson.loads(row[column]) if row[column] else []
                for index, read in readers:
                    for element in elements:
                        element[index] = read(element[index])
                per_row.append(elements)
            blocks.append(per_row)
        return [row[:width] for row in rows], blocks


class Statements:
    """Compiled statements by a key that determines the queryset (its text and its parameters alike: e.g. the
    endpoint, the organization and the query's parameters, apicore.views.ListEndpoint.statement_key). The first
    `size` keys of a process are kept, in the order they come (an organization's lists are few)."""

    def __init__(self, size: int = 512):
        self.size = size
        self._compiled: dict[tuple, Compiled] = {}

    def get(self, key: tuple, compile_: Callable[[Any], Compiled], using: str = "default") -> tuple[Compiled, Any]:
        """(The statement of `key`, the connection to run it on); `compile_(connection)` makes it the first time."""
        connection = connections[using]
        key = (connection.vendor, using, *key)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = compile_(connection)
            if len(self._compiled) >= self.size:
                del self._compiled[next(iter(self._compiled))]
            self._compiled[key] = compiled
        return compiled, connection


STATEMENTS = Statements()


class RowsForKeys:
    """The rows of a `values_list` query for a list of keys (a block's rows for a page's items): `build(keys)`
    gives the queryset, filtered with the `in_keys` lookup. On PostgreSQL the keys are one array parameter, so
    the statement's text is the same for every list: it is compiled once per process, and every later call runs
    it with its own keys. Elsewhere (SQLite, whose IN has a placeholder per key) the queryset runs as it is."""

    _MARK = -7_294_117_118  # a key no table has: it marks where the compiled statement takes its keys

    def __init__(self, build: Callable[[list], QuerySet], *, using: str = "default"):
        self.build, self.using = build, using
        self._compiled: tuple[Compiled, int] | None = None

    def __call__(self, keys: list) -> list[tuple]:
        connection = connections[self.using]
        if connection.vendor != "postgresql":
            return list(self.build(keys))
        if self._compiled is None:
            compiled = Compiled(self.build([self._MARK]), connection)
            marked = [index for index, value in enumerate(compiled.params) if value == [self._MARK]]
            if len(marked) != 1:
                raise ValueError("RowsForKeys: the queryset must filter by the keys once, with the in_keys lookup")
            self._compiled = compiled, marked[0]
        compiled, index = self._compiled
        params = list(compiled.params)
        params[index] = list(keys)
        return compiled.rows(connection, params)
