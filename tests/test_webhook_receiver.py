"""webhooks.receiver, the receiver that webhook_listen, the tests and the bench use: what it answers to requests
that are not a webhook's at all (document 3's checks themselves: tests/test_webhook_signing.py)."""

import http.client
import time

import pytest

from webhooks import signing
from webhooks.receiver import MAX_BODY, Receiver

TOKEN, KEY = "token-of-the-test", "key-of-the-test"


@pytest.fixture
def receiver():
    with Receiver(token=TOKEN, signing_key=KEY) as running:
        yield running


def post(receiver, *, path="/webhook", body=b"{}", headers=None):
    host, port = receiver.server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=5)
    try:
        connection.putrequest("POST", path)
        for name, value in (headers or {"Content-Length": str(len(body))}).items():
            connection.putheader(name, value)
        connection.endheaders()
        if body:
            connection.send(body)
        return connection.getresponse().status
    finally:
        connection.close()


def signed(body: bytes, event_id: str = "a" * 32) -> dict:
    headers = signing.request_headers(
        token=TOKEN,
        signing_key=KEY,
        event_id=event_id,
        attempt=1,
        timestamp=int(time.time()),
        body=body,
        request_id="b" * 32,
    )
    return {**headers, "Content-Length": str(len(body))}


def test_a_signed_request_is_accepted_and_a_repeat_is_recognised(receiver):
    body = b'{"event_type": "webhook.ping", "data": {}}'
    assert post(receiver, body=body, headers=signed(body)) == 200
    assert post(receiver, body=body, headers=signed(body)) == 200
    first, again = receiver.received
    assert first.accepted and not first.duplicate
    assert again.accepted and again.duplicate


@pytest.mark.parametrize("length", ["abc", "-5", "1e3"])
def test_a_bad_content_length_gets_400_without_reading(receiver, length):
    assert post(receiver, body=b"", headers={"Content-Length": length}) == 400
    assert receiver.received == []


def test_another_path_gets_404(receiver):
    body = b"{}"
    assert post(receiver, path="/elsewhere", body=body, headers=signed(body)) == 404
    assert receiver.received == []


def test_a_body_over_1_mib_gets_413(receiver):
    assert post(receiver, body=b"", headers={"Content-Length": str(MAX_BODY + 1)}) == 413


def test_an_unsigned_request_gets_401(receiver):
    assert post(receiver, body=b"{}") == 401
    assert receiver.received[0].reason == "the Authorization header is not the webhook's token"
