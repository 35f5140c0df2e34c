"""webhooks/signing.py against document 3: a receiver written from the document accepts what we sign, and
refuses a wrong token, a changed body or timestamp, and an old request."""

import hashlib
import hmac
import json

import pytest

from webhooks.signing import USER_AGENT, new_event_id, request_headers, signature, verify

KEY = "whsec_ÅÄÖ-key"  # text: the HMAC key is its UTF-8 bytes
TOKEN = "whtok_abc"
NOW = 1_795_000_000


def signed(body: bytes, *, timestamp: int = NOW, attempt: int = 1) -> dict:
    return request_headers(
        token=TOKEN,
        signing_key=KEY,
        event_id="0123456789abcdef0123456789abcdef",
        attempt=attempt,
        timestamp=timestamp,
        body=body,
        request_id="req-1",
    )


def document_receiver(headers: dict, body: bytes) -> bool:
    """A receiver written from document 3 alone, without the project's code."""
    if headers["Authorization"] != f"Bearer {TOKEN}":
        return False
    message = headers["X-Service-Timestamp"].encode() + b"." + body
    expected = hmac.new(KEY.encode("utf-8"), message, hashlib.sha256).hexdigest()
    return (
        hmac.compare_digest(expected, headers["X-Service-Signature"])
        and abs(NOW - int(headers["X-Service-Timestamp"])) <= 300
    )


def test_the_headers_carry_exactly_document_3s_names_and_values():
    body = json.dumps({"event_type": "webhook.ping", "data": {}}).encode()
    headers = signed(body, attempt=3)

    assert set(headers) == {
        "Authorization",
        "Content-Type",
        "X-Service-Event-Id",
        "X-Service-Timestamp",
        "X-Service-Attempt",
        "X-Service-Signature",
        "Request-Id",
        "User-Agent",
    }
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Service-Attempt"] == "3"
    assert headers["X-Service-Timestamp"] == str(NOW)
    assert headers["User-Agent"] == USER_AGENT == "service-webhooks/1.0"
    assert len(headers["X-Service-Signature"]) == 64
    assert headers["X-Service-Signature"] == headers["X-Service-Signature"].lower()
    assert document_receiver(headers, body)


def test_the_signature_covers_the_timestamp_and_the_raw_body_bytes():
    body = b'{"a": 1}'
    base = signature(signing_key=KEY, timestamp=NOW, body=body)

    assert signature(signing_key=KEY, timestamp=NOW + 1, body=body) != base
    assert signature(signing_key=KEY, timestamp=NOW, body=b'{"a":1}') != base  # same JSON, other bytes
    assert signature(signing_key=KEY + "x", timestamp=NOW, body=body) != base


def test_verify_accepts_a_signed_request():
    body = b'{"event_type": "booking.create"}'
    assert verify(headers=signed(body), body=body, token=TOKEN, signing_key=KEY, now=NOW + 299).accepted


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda h, b: ({**h, "Authorization": "Bearer other"}, b), "Authorization"),
        (lambda h, b: ({k: v for k, v in h.items() if k != "Authorization"}, b), "Authorization"),
        (lambda h, b: (h, b + b" "), "signature"),
        (lambda h, b: ({**h, "X-Service-Timestamp": str(NOW - 1)}, b), "signature"),
        (lambda h, b: ({**h, "X-Service-Timestamp": "1e9"}, b), "Unix seconds"),
        (lambda h, b: ({**h, "X-Service-Signature": h["X-Service-Signature"].upper()}, b), "signature"),
    ],
)
def test_verify_refuses_a_wrong_token_a_changed_body_or_timestamp(change, reason):
    body = b'{"event_type": "remark.update"}'
    headers, sent = change(signed(body), body)

    verdict = verify(headers=headers, body=sent, token=TOKEN, signing_key=KEY, now=NOW)

    assert not verdict.accepted
    assert reason in verdict.reason


def test_verify_refuses_a_request_older_or_newer_than_five_minutes():
    body = b"{}"
    old = signed(body, timestamp=NOW - 301)
    assert not verify(headers=old, body=body, token=TOKEN, signing_key=KEY, now=NOW).accepted
    early = signed(body, timestamp=NOW + 301)
    assert not verify(headers=early, body=body, token=TOKEN, signing_key=KEY, now=NOW).accepted


def test_event_ids_are_32_lower_case_hex_characters_and_differ():
    ids = {new_event_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(len(value) == 32 and value == value.lower() and int(value, 16) >= 0 for value in ids)
