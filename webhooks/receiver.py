"""A webhook receiver written from document 3 alone: `manage.py webhook_listen`, the tests and the bench use it.

It checks each request as a conforming receiver must (webhooks.signing.verify: Authorization, signature in
constant time, 5-minute window), answers 401 to one that fails, and notes the event id so that a repeated
event is recognised (a receiver de-duplicates by event id). HTTP/1.1 with keep-alive, one thread per
connection, loopback by default.
"""

import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from webhooks import signing

MAX_BODY = 1024 * 1024


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    accepted: bool
    reason: str
    duplicate: bool
    received_at: float = field(default_factory=time.time)
    status: int = 0

    @property
    def event(self) -> dict | None:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def header(self, name: str) -> str | None:
        for key, value in self.headers.items():
            if key.lower() == name.lower():
                return value
        return None


class Receiver:
    """Listen on host:port (port 0: any free one). `reply(received)` may choose the status of an accepted
    request (default 200; it may block, to hold a try open); `on_received(received)` sees every request."""

    def __init__(
        self,
        *,
        token: str,
        signing_key: str,
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = "/webhook",
        reply: Callable[[Received], int] | None = None,
        on_received: Callable[[Received], None] | None = None,
    ):
        self.token, self.signing_key, self.path = token, signing_key, path
        self.reply, self.on_received = reply, on_received
        self.received: list[Received] = []
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.server = ThreadingHTTPServer((host, port), self._handler_class())
        self.server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}{self.path}"

    def start(self) -> "Receiver":
        self._thread = threading.Thread(target=self.server.serve_forever, name="webhook-receiver", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "Receiver":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def accepted(self) -> list[Received]:
        with self._lock:
            return [item for item in self.received if item.accepted]

    def wait_for(self, count: int, *, timeout: float = 20.0, accepted_only: bool = False) -> list[Received]:
        """Block until `count` requests (accepted ones only, if asked) have arrived; raise on timeout."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                items = [item for item in self.received if item.accepted or not accepted_only]
                if len(items) >= count:
                    return items
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(items)} of {count} webhook requests arrived in {timeout} s")
                self._arrived.wait(left)

    def _check(self, path: str, headers: dict[str, str], body: bytes) -> Received:
        verdict = signing.verify(
            headers=_CaseInsensitive(headers),
            body=body,
            token=self.token,
            signing_key=self.signing_key,
            now=int(time.time()),
        )
        event_id = _CaseInsensitive(headers).get("X-Service-Event-Id") or ""
        with self._lock:
            duplicate = verdict.accepted and event_id in self._seen
            if verdict.accepted:
                self._seen.add(event_id)
        return Received(path, headers, body, verdict.accepted, verdict.reason, duplicate)

    def _record(self, received: Received) -> None:
        with self._arrived:
            self.received.append(received)
            self._arrived.notify_all()
        if self.on_received is not None:
            self.on_received(received)

    def _handler_class(self):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body are two writes: without this, Nagle holds the body until the sender's delayed
            # ACK (40 ms a reply on Linux).
            disable_nagle_algorithm = True

            def do_POST(self):
                raw_length = self.headers.get("Content-Length") or "0"
                if not (raw_length.isascii() and raw_length.isdigit()):
                    return self._refuse(400)
                if urllib.parse.urlsplit(self.path).path != receiver.path:
                    return self._refuse(404)
                length = int(raw_length)
                if length > MAX_BODY:
                    return self._refuse(413)
                body = self.rfile.read(length)
                received = receiver._check(self.path, dict(self.headers.items()), body)
                if not received.accepted:
                    received.status = 401
                elif receiver.reply is not None:
                    received.status = receiver.reply(received)
                else:
                    received.status = 200
                receiver._record(received)
                self._answer(received.status)

            def _refuse(self, status: int) -> None:
                """Answer without reading the body, and close: what is left of it cannot be trusted."""
                self._answer(status)
                self.close_connection = True

            def _answer(self, status: int) -> None:
                payload = b"{}" if 200 <= status < 300 else b'{"error": "refused"}'
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format, *args):
                pass

        return Handler


class _CaseInsensitive(dict):
    def __init__(self, headers: dict[str, str]):
        super().__init__({key.lower(): value for key, value in headers.items()})

    def get(self, key, default=None):
        return super().get(key.lower(), default)
