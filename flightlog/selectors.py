"""Reads of the flight log shared by the APIs and the website: query expressions and small loads."""

from django.db.models import CharField, FloatField, Func, IntegerField, OuterRef, Q, Subquery
from django.db.models.functions import Lower

from apicore.database import MinutesBetween, compiled_columns
from economy.models import Transaction

from .models import FlightApproval

# The flag of the object's organization that hides the crew of its flights (the flight's own path to it).
CREW_HIDDEN = "object__organization__hide_crew_in_log"


def first_transaction_id() -> Subquery:
    """A flight's transaction_id: the smallest id of its transactions (economy), or null."""
    return Subquery(Transaction.objects.filter(flightlog=OuterRef("pk")).order_by("id").values("id")[:1])


def crew_shown() -> Q:
    """Flights whose crew the object's organization shows (the crew filters match only these)."""
    return Q(**{CREW_HIDDEN: False})


def with_instructor(value: bool) -> Q:
    """has_instructor: a hidden crew counts as a flight without instructor."""
    shown = crew_shown() & Q(instructor__isnull=False)
    return shown if value else ~shown


def approved_types(approval_ids: list[int]):
    """(approval id, flight type id, name) of the approvals' flight types, by name (any case), then id."""
    return (
        FlightApproval.flight_types.through.objects.filter(flightapproval_id__in=approval_ids)
        .order_by("flightapproval_id", Lower("flighttype__name"), "flighttype_id")
        .values_list("flightapproval_id", "flighttype_id", "flighttype__name")
    )


def flown_by(user_id: int) -> Q:
    """Flights with the login as pilot or instructor (any of its member records: a pilot from a sharing
    club flies a shared object as that club's member). The crew flag does not matter: these are the
    person's own flights (the Mobile API's `mine`)."""
    return Q(pilot__user_id=user_id) | Q(instructor__user_id=user_id)


# --- meter readings for the APIs' pages: floats and totals written by the database ---------------------------
# A page of 500 flights has 3,000 readings and 2,000 reading totals: converted to floats, subtracted and rounded
# in Python from Decimals, they took 1.3 of the 3.1 ms of building the page's items. Readings have two decimals
# (flightlog.models._reading), so each of these is exact on both databases: PostgreSQL subtracts numerics and
# converts the result (the same float as float() of the Decimal); SQLite keeps readings as floating point, and
# rounding to the two decimals gives the same float again. The database gives the Python type already: no
# conversion of each value.


class ReadingFloat(Func):
    """A reading (two decimals) as a float, or NULL."""

    output_field = FloatField()
    arity = 1

    @property
    def convert_value(self):
        return self._convert_value_noop

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(%(expressions)s)::float8", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="CAST(%(expressions)s AS REAL)", **extra)


class ReadingHours(Func):
    """The total of two readings, end - start, as a float (flightlog.totals.reading_difference), or NULL."""

    output_field = FloatField()
    arity = 2

    @property
    def convert_value(self):
        return self._convert_value_noop

    def as_postgresql(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"({end} - {start})::float8", []

    def as_sqlite(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"round({end} - {start}, 2)", []


class ReadingMinutes(Func):
    """The total of two readings in whole minutes: (end - start) * 60 rounded half up, or NULL. (With two
    decimals the product never ends in a half: ties cannot come up on SQLite's floating point.)"""

    output_field = IntegerField()
    arity = 2

    @property
    def convert_value(self):
        return self._convert_value_noop

    def as_postgresql(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"round(({end} - {start}) * 60)::integer", []

    def as_sqlite(self, compiler, connection, **extra):
        start, end = compiled_columns(self, compiler, connection)
        return f"CAST(round(({end} - {start}) * 60) AS integer)", []


class WholeMinutes(MinutesBetween):
    """apicore.database.MinutesBetween read as the integer both databases give (no int() of each value)."""

    @property
    def convert_value(self):
        return self._convert_value_noop


class DateText(Func):
    """A date as the APIs write it, YYYY-MM-DD, written by the database (1,000 a page with the minutes)."""

    output_field = CharField()
    arity = 1

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="to_char(%(expressions)s, 'YYYY-MM-DD')", **extra)

    def as_sqlite(self, compiler, connection, **extra):
        # SQLite keeps Django's dates as YYYY-MM-DD text.
        return self.as_sql(compiler, connection, template="CAST(%(expressions)s AS TEXT)", **extra)
