"""A per-process cache of accepted token rows, checked on every call against revision stamps in the shared
cache, in the same round trip as the rate counters (main_api.ratelimit.check_call).

A row depends on four stamps: its organization's (the token rows and the organization's own fields), its
owner's (the name), the owner's member record's (membership and roles) and its OAuth client's (the access
tokens). main_api.signals stamps them
anew whenever one of those rows changes, at once and again when the transaction commits. A call uses its
cached row only when the stamps it holds are the current ones, so a change takes effect on the very next
call in every process. A row is stored only with stamps read *before* the database was: a change that
commits after that read leaves newer stamps behind it.

Keys are the SHA-256 of the credential (never the credential itself); the OAuth access token's end and
the direct token's sunset are checked here against the clock, on every call.
"""

from dataclasses import dataclass

from apicore import counters
from apicore.process_cache import BoundedMap
from main_api.token_lookup import TokenRow

# Far more than the live tokens of one process; when full, the oldest half goes.
MAX_ENTRIES = 10_000


def organization_key(organization_id: int) -> str:
    return counters.revision_key("org", organization_id)


def user_key(user_id: int) -> str:
    return counters.revision_key("user", user_id)


def member_key(member_id: int) -> str:
    return counters.revision_key("member", member_id)


def client_key(application_id: int) -> str:
    return counters.revision_key("app", application_id)


def revision_keys(row: TokenRow) -> list[str]:
    keys = [organization_key(row.organization_id), user_key(row.owner_id), client_key(row.application_id)]
    if row.owner_member_id is not None:
        keys.append(member_key(row.owner_member_id))
    return keys


@dataclass(frozen=True, slots=True)
class Known:
    """What a credential led to the last time: the row (when it may be used) and the stamps it was read
    under, or only the token and the keys of its stamps (always true: they never change for a credential)."""

    token_id: int
    keys: list[str]
    row: TokenRow | None = None
    revision: str = ""


_entries = BoundedMap(MAX_ENTRIES)  # credential hash -> Known


def get(credential_hash: str) -> Known | None:
    return _entries.get(credential_hash)


def remember(credential_hash: str, row: TokenRow, revision: str | None) -> None:
    """Keep the row when it was read under `revision` (stamps read before the query); else only its keys."""
    known = Known(token_id=row.token_id, keys=revision_keys(row))
    if revision:
        known = Known(token_id=known.token_id, keys=known.keys, row=row, revision=revision)
    _entries.put(credential_hash, known)


def forget(credential_hash: str) -> None:
    _entries.forget(credential_hash)


def clear() -> None:
    _entries.clear()
