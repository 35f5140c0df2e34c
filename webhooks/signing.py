"""The one place a webhook request is signed and checked (document 3, "Authentication").

The signature is HMAC-SHA256 over the `X-Service-Timestamp` value, a dot and the body exactly as sent, keyed
with the webhook's signing key (its UTF-8 bytes, ../shared/DECISIONS.md "Webhooks"), written as 64 lower-case
hexadecimal characters. The sender (delivery) and the local receiver (`webhook_listen`) use these functions,
so both sides of the project's own tests speak exactly what an integrator's receiver reads.
"""

import hashlib
import hmac
import secrets
from dataclasses import dataclass

USER_AGENT = "service-webhooks/1.0"
# A receiver's suggested tolerance for the timestamp (document 3, Limits).
TIMESTAMP_TOLERANCE_SECONDS = 5 * 60


def signature(*, signing_key: str, timestamp: int, body: bytes) -> str:
    message = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(signing_key.encode("utf-8"), message, hashlib.sha256).hexdigest()


def new_event_id() -> str:
    """An event's id: 32 lower-case hexadecimal characters, the same on every try."""
    return secrets.token_hex(16)


def request_headers(
    *, token: str, signing_key: str, event_id: str, attempt: int, timestamp: int, body: bytes, request_id: str
) -> dict[str, str]:
    """The headers of one try, with their exact names (document 3, Endpoints)."""
    return {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "X-Service-Event-Id": event_id,
        "X-Service-Timestamp": str(timestamp),
        "X-Service-Attempt": str(attempt),
        "X-Service-Signature": signature(signing_key=signing_key, timestamp=timestamp, body=body),
        "Request-Id": request_id,
        "User-Agent": USER_AGENT,
    }


@dataclass(frozen=True)
class Verdict:
    """What a receiver concludes of one request: accepted, or the reason it refuses it (with 401)."""

    accepted: bool
    reason: str = ""


def verify(*, headers, body: bytes, token: str, signing_key: str, now: int) -> Verdict:
    """The three checks of a conforming receiver, in document 3's order: the Authorization header, the
    signature (compared in constant time), a timestamp within the tolerance of `now` (Unix seconds).
    `headers` is any mapping with case-insensitive lookup of header names (or exact names)."""
    authorization = headers.get("Authorization") or ""
    if not hmac.compare_digest(authorization.encode("utf-8"), f"Bearer {token}".encode()):
        return Verdict(False, "the Authorization header is not the webhook's token")
    raw_timestamp = headers.get("X-Service-Timestamp") or ""
    if not (raw_timestamp.isascii() and raw_timestamp.isdigit()):
        return Verdict(False, "X-Service-Timestamp is not Unix seconds")
    timestamp = int(raw_timestamp)
    expected = signature(signing_key=signing_key, timestamp=timestamp, body=body)
    if not hmac.compare_digest(expected.encode("ascii"), (headers.get("X-Service-Signature") or "").encode("utf-8")):
        return Verdict(False, "the signature does not match")
    if abs(now - timestamp) > TIMESTAMP_TOLERANCE_SECONDS:
        return Verdict(False, "the timestamp is not within 5 minutes")
    return Verdict(True)
