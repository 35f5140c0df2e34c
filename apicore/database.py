"""Database behaviour that must be the same on PostgreSQL and the embedded SQLite default."""

from contextlib import contextmanager

from django.conf import settings
from django.db import connections
from django.db.backends.signals import connection_created
from django.db.models import CharField, Field, ForeignKey, Func, IntegerField, Lookup, TextField
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


class MinutesBetween(Func):
    """Whole minutes from the first point in time to the second (rounded half away from zero), or NULL."""

    output_field = IntegerField()
    arity = 2

    def as_postgresql(self, compiler, connection, **extra):
        start, end = _compiled_columns(self, compiler, connection)
        return f"(round(EXTRACT(EPOCH FROM ({end} - {start})) / 60))::integer", []

    def as_sqlite(self, compiler, connection, **extra):
        start, end = _compiled_columns(self, compiler, connection)
        return f"CAST(round((julianday({end}) - julianday({start})) * 1440) AS integer)", []


def _compiled_columns(func: Func, compiler, connection) -> list[str]:
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
