"""Database behaviour that must be the same on PostgreSQL and the embedded SQLite default."""

from django.db.backends.signals import connection_created
from django.db.models import CharField, TextField
from django.db.models.functions import Lower


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


def install() -> None:
    connection_created.connect(use_unicode_case_on_sqlite, dispatch_uid="apicore-unicode-case")
    # `name__lower="x"` compares LOWER(name) with a lower-cased value: one rule for "without regard to
    # letter case" that uses the Lower() unique indexes on PostgreSQL.
    CharField.register_lookup(Lower)
    TextField.register_lookup(Lower)
