"""Database behaviour that must be the same on PostgreSQL and the embedded SQLite default."""

from django.db.backends.signals import connection_created
from django.db.models import CharField, Lookup, TextField
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


def install() -> None:
    connection_created.connect(use_unicode_case_on_sqlite, dispatch_uid="apicore-unicode-case")
    # `name__lower="x"` compares LOWER(name) with a lower-cased value: one rule for "without regard to
    # letter case" that uses the Lower() unique indexes on PostgreSQL.
    CharField.register_lookup(Lower)
    TextField.register_lookup(Lower)
    CharField.register_lookup(Like)
    TextField.register_lookup(Like)
