"""A per-process cache of accepted Mobile API callers, checked on every call against revision stamps in the
shared cache, in the same round trip as the call limits (apicore.counters.check_and_count_each); the Main
API's token cache (main_api.token_cache) works the same way.

A caller's rows depend on the stamps of its access token, its app client, and for a member's token its login,
member, user and organization. mobile_api.signals (and main_api.signals, for the member, user and organization)
stamp them anew whenever one of those rows changes, at once and again when the transaction commits; the
services that end logins with a queryset update stamp the logins themselves. A call uses its cached rows
only when the stamps it holds are the current ones, so revocation, a password change, a locked member or a
revoked client is effective on the very next call in every process. Rows are stored only with stamps read
*before* the database was.

Keys are the SHA-256 of the credential (never the credential itself). The access token's end is checked
against the clock on every call. Not kept: the password hash, national identity numbers, emergency contacts,
the token and the client secret (a request that reads one of them loads it, as a deferred field).
"""

import datetime as dt
from dataclasses import dataclass
from functools import cache

from django.contrib.auth import get_user_model
from django.db import transaction
from oauth2_provider.models import get_access_token_model, get_application_model

from accounts.models import Member, Organization
from apicore import counters
from apicore.process_cache import BoundedMap
from apicore.rows import column_names, fresh, instance_from_values, row_values
from mobile_api.caller import MobileCaller
from mobile_api.models import AppClient, MobileLogin

# Far more than the live tokens of one process; when full, the oldest half goes.
MAX_ENTRIES = 10_000


def access_token_key(access_token_id: int) -> str:
    return counters.revision_key("mobile-access", access_token_id)


def client_key(application_id: int) -> str:
    """The app client's and its OAuth Application's: by the Application's id, which both rows know."""
    return counters.revision_key("mobile-client", application_id)


def login_key(token_family) -> str:
    """A login's, by its refresh-token family, which the services that end logins in bulk know."""
    return counters.revision_key("mobile-login", str(token_family))


# The member's, user's and organization's stamps are the Main API token cache's: one change renews both.
def member_key(member_id: int) -> str:
    return counters.revision_key("member", member_id)


def user_key(user_id: int) -> str:
    return counters.revision_key("user", user_id)


def organization_key(organization_id: int) -> str:
    return counters.revision_key("org", organization_id)


@dataclass(frozen=True)
class _Columns:
    access: tuple[str, ...]
    application: tuple[str, ...]
    client: tuple[str, ...]
    login: tuple[str, ...]
    member: tuple[str, ...]
    user: tuple[str, ...]
    organization: tuple[str, ...]


@cache
def _columns() -> _Columns:
    return _Columns(
        access=column_names(get_access_token_model(), leave_out=("token", "token_checksum")),
        application=column_names(get_application_model(), leave_out=("client_secret",)),
        client=column_names(AppClient),
        login=column_names(MobileLogin),
        member=column_names(Member),
        user=column_names(
            get_user_model(),
            leave_out=(
                "password",
                "personal_identification_number",
                "emergency_contact_name",
                "emergency_contact_phone",
                "emergency_contact_relation",
            ),
        ),
        organization=column_names(Organization),
    )


@dataclass(frozen=True, slots=True)
class CallerRow:
    """The rows of one accepted caller as plain values; `caller()` builds a request's own instances."""

    access: tuple
    application: tuple
    client: tuple
    login: tuple | None = None
    member: tuple | None = None
    user: tuple | None = None
    organization: tuple | None = None

    @classmethod
    def of(cls, caller: MobileCaller) -> "CallerRow":
        columns = _columns()
        row = cls(
            access=row_values(caller.access_token, columns.access),
            application=row_values(caller.client.application, columns.application),
            client=row_values(caller.client, columns.client),
        )
        if caller.login is None:
            return row
        member = caller.member
        return cls(
            access=row.access,
            application=row.application,
            client=row.client,
            login=row_values(caller.login, columns.login),
            member=row_values(member, columns.member),
            user=row_values(member.user, columns.user),
            organization=row_values(member.organization, columns.organization),
        )

    @property
    def access_expires(self) -> dt.datetime:
        return self.access[_columns().access.index("expires")]

    def caller(self) -> MobileCaller:
        columns = _columns()
        access = instance_from_values(get_access_token_model(), columns.access, fresh(self.access))
        application = instance_from_values(get_application_model(), columns.application, fresh(self.application))
        client = instance_from_values(AppClient, columns.client, fresh(self.client))
        AppClient.application.field.set_cached_value(client, application)
        if self.login is None:
            return MobileCaller(client=client, login=None, member=None, access_token=access)
        login = instance_from_values(MobileLogin, columns.login, fresh(self.login))
        member = instance_from_values(Member, columns.member, fresh(self.member))
        user = instance_from_values(get_user_model(), columns.user, fresh(self.user))
        organization = instance_from_values(Organization, columns.organization, fresh(self.organization))
        Member.user.field.set_cached_value(member, user)
        Member.organization.field.set_cached_value(member, organization)
        MobileLogin.member.field.set_cached_value(login, member)
        MobileLogin.app_client.field.set_cached_value(login, client)
        return MobileCaller(client=client, login=login, member=member, access_token=access)


def revision_keys(caller: MobileCaller) -> list[str]:
    keys = [access_token_key(caller.access_token.pk), client_key(caller.client.application_id)]
    if caller.login is not None:
        member = caller.member
        keys += [
            login_key(caller.login.token_family),
            member_key(member.pk),
            user_key(member.user_id),
            organization_key(member.organization_id),
        ]
    return keys


@dataclass(frozen=True, slots=True)
class Known:
    """What a credential led to the last time: the keys of its stamps (they never change for a credential),
    and the rows with the stamps they were read under when they may be used."""

    keys: list[str]
    row: CallerRow | None = None
    revision: str = ""


_entries = BoundedMap(MAX_ENTRIES)  # credential hash -> Known


def get(credential_hash: str) -> Known | None:
    return _entries.get(credential_hash)


def remember(credential_hash: str, caller: MobileCaller, revision: str | None) -> None:
    """Keep the rows when they were read under `revision` (stamps read before the queries); else the keys."""
    known = Known(keys=revision_keys(caller))
    if revision:
        known = Known(keys=known.keys, row=CallerRow.of(caller), revision=revision)
    _entries.put(credential_hash, known)


def restamp(keys: list[str], using: str = "default") -> None:
    """New stamps for `keys`: now, so that every process stops using the rows at once (and tests, whose
    transactions never commit, see it); and again after the commit, so that rows read before the commit
    under the first new stamps are not used either."""
    if not keys:
        return
    counters.backend().bump(keys)
    transaction.on_commit(lambda: counters.backend().bump(keys), using=using, robust=True)


def forget(credential_hash: str) -> None:
    _entries.forget(credential_hash)


def clear() -> None:
    _entries.clear()
