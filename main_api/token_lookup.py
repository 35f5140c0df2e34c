"""The token behind a Bearer credential: one SQL statement, written once per database and prepared.

Every authenticated call runs this lookup (unless main_api.token_cache already holds the row), so it skips
the ORM's per-call work: the statement text is built once from the models' metadata, and on PostgreSQL it
runs on a server-side-binding cursor so that psycopg prepares it (DATABASES OPTIONS prepare_threshold):
no parsing or planning per call. It still goes through Django's cursor wrapper, and while queries are
counted or logged it is the one query it always was. The row is kept as plain values (`TokenRow`); each
request builds its own model instances from them, so nothing one request changes leaks into another.
"""

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connections
from oauth2_provider.models import get_access_token_model

from accounts.models import Member, MemberRole, Organization, Role
from apicore.rows import fresh, instance_from_values
from main_api.models import ApiToken

# What a token call needs of its owner (the name, for GET /token); the rest of the person (contact data,
# national numbers, the password hash) is neither read nor kept in the cache.
OWNER_FIELDS = ("id", "username", "first_name", "last_name_particle", "last_name", "name", "is_active")


@dataclass(frozen=True, slots=True)
class TokenRow:
    token: tuple
    organization: tuple
    owner: tuple
    owner_is_admin: bool
    # The access token's end; None when the credential is the token's own secret (a direct token).
    access_expires: dt.datetime | None
    # The owner's member record in the token's organization (None: not a member, so not an administrator).
    owner_member_id: int | None

    @property
    def direct(self) -> bool:
        return self.access_expires is None

    @property
    def token_id(self) -> int:
        return self.token[_statement_layout().token_pk]

    @property
    def organization_id(self) -> int:
        return self.organization[0]

    @property
    def owner_id(self) -> int:
        return self.owner[0]

    @property
    def application_id(self) -> int:
        return self.token[_statement_layout().token_application]

    @property
    def allowed_ips(self) -> list[str]:
        return self.token[_statement_layout().token_allowed_ips]

    def instance(self, using: str = "default") -> ApiToken:
        """A new ApiToken with its organization and owner, as select_related would give it."""
        layout = _statement_layout()
        token = instance_from_values(ApiToken, layout.token_names, fresh(self.token), using)
        organization = instance_from_values(Organization, layout.organization_names, fresh(self.organization), using)
        owner = instance_from_values(get_user_model(), OWNER_FIELDS, self.owner, using)
        ApiToken.organization.field.set_cached_value(token, organization)
        ApiToken.owner.field.set_cached_value(token, owner)
        token.owner_is_admin = self.owner_is_admin
        return token


@dataclass(frozen=True)
class _Layout:
    token_names: list[str]
    organization_names: list[str]
    token_pk: int
    token_application: int
    token_allowed_ips: int


_layout: _Layout | None = None


def _statement_layout() -> _Layout:
    global _layout
    if _layout is None:
        token_names = [field.attname for field in ApiToken._meta.concrete_fields]
        _layout = _Layout(
            token_names=token_names,
            organization_names=[field.attname for field in Organization._meta.concrete_fields],
            token_pk=token_names.index(ApiToken._meta.pk.attname),
            token_application=token_names.index("application_id"),
            token_allowed_ips=token_names.index("allowed_ips"),
        )
    return _layout


@dataclass(frozen=True)
class _Statement:
    sql: str
    converters: list[tuple[int, list]]  # column index, Django's converters of that column with it
    token_width: int
    organization_width: int
    owner_width: int


_statements: dict[str, _Statement] = {}


def _statement(connection) -> _Statement:
    found = _statements.get(connection.vendor)
    if found is None:
        found = _statements[connection.vendor] = _build_statement(connection)
    return found


def _build_statement(connection) -> _Statement:
    qn = connection.ops.quote_name
    user_model = get_user_model()
    access_model = get_access_token_model()
    owner_fields = [user_model._meta.get_field(name) for name in OWNER_FIELDS]
    tables = (
        ("t", ApiToken._meta.concrete_fields),
        ("o", Organization._meta.concrete_fields),
        ("u", owner_fields),
    )
    columns, converters = [], []
    for alias, fields in tables:
        for field in fields:
            converters.append((len(columns), _converters(connection, field, alias)))
            columns.append(f"{alias}.{qn(field.column)}")
    # After the columns: owner_is_admin, the access token's end, the owner's member id.
    converters.append((len(columns) + 1, _converters(connection, access_model._meta.get_field("expires"), "c")))
    member, role = Member._meta, MemberRole._meta
    access = access_model._meta
    # The credential is either a live access token's checksum or the token's own secret hash (both the
    # SHA-256 of what the client sends); an access token wins, as it did with two lookups in turn. Only
    # names from the models' metadata are written into the text; every value is a parameter.
    sql = (
        f"SELECT {', '.join(columns)}, "  # noqa: S608
        f"EXISTS (SELECT 1 FROM {qn(role.db_table)} r WHERE r.{qn('member_id')} = m.{qn('id')}"
        f" AND r.{qn('role')} = %s), c.{qn('expires')}, m.{qn('id')}"
        f" FROM ("
        f"SELECT a.{qn('application_id')} AS application_id, a.{qn('expires')} AS expires, 0 AS pick"
        f" FROM {qn(access.db_table)} a WHERE a.{qn('token_checksum')} = %s AND a.{qn('expires')} > %s"
        f" UNION ALL "
        f"SELECT d.{qn('application_id')}, NULL, 1 FROM {qn(ApiToken._meta.db_table)} d"
        f" WHERE d.{qn('secret_hash')} = %s"
        f") c"
        f" INNER JOIN {qn(ApiToken._meta.db_table)} t ON t.{qn('application_id')} = c.application_id"
        f" INNER JOIN {qn(Organization._meta.db_table)} o ON o.{qn('id')} = t.{qn('organization_id')}"
        f" INNER JOIN {qn(user_model._meta.db_table)} u ON u.{qn('id')} = t.{qn('owner_id')}"
        f" LEFT JOIN {qn(member.db_table)} m"
        f" ON m.{qn('user_id')} = t.{qn('owner_id')} AND m.{qn('organization_id')} = t.{qn('organization_id')}"
        f" ORDER BY c.pick LIMIT 1"
    )
    return _Statement(
        sql=sql,
        converters=[(index, found) for index, found in converters if found],
        token_width=len(ApiToken._meta.concrete_fields),
        organization_width=len(Organization._meta.concrete_fields),
        owner_width=len(owner_fields),
    )


def _converters(connection, field, alias: str) -> list:
    """Django's conversions of one column's raw value (JSON text, SQLite's dates and decimals...), each with
    the column it is called with."""
    column = field.get_col(alias)
    found = [*connection.ops.get_db_converters(column), *field.get_db_converters(connection)]
    return [(converter, column) for converter in found]


def _cursor(connection):
    """Django's cursor wrapper (errors translated) around a cursor that lets psycopg prepare the statement;
    the project's other queries keep Django's default client-side binding. While queries are logged (DEBUG,
    tests that count them) the default cursor runs the same statement: psycopg leaves a prepared
    execution's text out of what Django's log reads, and the log must show it."""
    if connection.vendor != "postgresql" or connection.queries_logged:
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(ServerBindingCursor(connection.connection))


def find_token_row(*, credential_hash: str, now: dt.datetime, using: str = "default") -> TokenRow | None:
    connection = connections[using]
    statement = _statement(connection)
    params = [Role.ADMIN.value, credential_hash, connection.ops.adapt_datetimefield_value(now), credential_hash]
    with _cursor(connection) as cursor:
        cursor.execute(statement.sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    values: list[Any] = list(row)
    for index, found in statement.converters:
        for converter, column in found:
            values[index] = converter(values[index], column, connection)
    first, second = statement.token_width, statement.token_width + statement.organization_width
    third = second + statement.owner_width
    return TokenRow(
        token=tuple(values[:first]),
        organization=tuple(values[first:second]),
        owner=tuple(values[second:third]),
        owner_is_admin=bool(values[third]),
        access_expires=values[third + 1],
        owner_member_id=values[third + 2],
    )
