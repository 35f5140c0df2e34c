"""One HTTP try: POST the body with its headers, at most 10 s, no redirects, never into the own network.

urllib3 (already underneath requests) with connection classes whose `_new_conn` resolves the host, checks
every answer (webhooks.addresses) and connects to exactly the checked address, so the address connected to
is the address checked. TLS still verifies the certificate against the host name. One pool manager per
process keeps connections alive between tries to the same receiver.
"""

import contextlib
import socket
import threading
import time
from dataclasses import dataclass

import certifi
import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util.timeout import Timeout

from webhooks.addresses import AddressRefused, resolve, url_check

TIMEOUT_SECONDS = 10.0
REPLY_KEPT_BYTES = 1024


# The connection of the try under way in this thread, for its watchdog (post).
_in_flight = threading.local()


class _Guarded:
    def request(self, *args, **kwargs):
        box = getattr(_in_flight, "box", None)
        if box is not None:
            box["connection"] = self
        return super().request(*args, **kwargs)

    def _new_conn(self):
        answers = resolve(self._dns_host, self.port)
        timeout = self.timeout if isinstance(self.timeout, (int, float)) else TIMEOUT_SECONDS
        last_error: OSError | None = None
        for family, kind, proto, _, address in answers:
            sock = socket.socket(family, kind, proto)
            try:
                for option in self.socket_options or ():
                    sock.setsockopt(*option)
                sock.settimeout(timeout)
                sock.connect(address)
                return sock
            except OSError as error:
                sock.close()
                last_error = error
        raise urllib3.exceptions.NewConnectionError(self, f"Failed to connect: {last_error}")


class GuardedHTTPConnection(_Guarded, HTTPConnection):
    pass


class GuardedHTTPSConnection(_Guarded, HTTPSConnection):
    pass


class _GuardedHTTPPool(HTTPConnectionPool):
    ConnectionCls = GuardedHTTPConnection


class _GuardedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = GuardedHTTPSConnection


def _pool_manager() -> urllib3.PoolManager:
    manager = urllib3.PoolManager(num_pools=50, maxsize=4, cert_reqs="CERT_REQUIRED", ca_certs=certifi.where())
    manager.pool_classes_by_scheme = {"http": _GuardedHTTPPool, "https": _GuardedHTTPSPool}
    return manager


_manager: urllib3.PoolManager | None = None


def manager() -> urllib3.PoolManager:
    global _manager
    if _manager is None:
        _manager = _pool_manager()
    return _manager


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    reply: str
    duration_ms: int
    error: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _cut_off(box: dict) -> None:
    """The watchdog: the try has had its 10 s; its connection is shut, so a receiver that answers a byte at a
    time cannot hold the worker longer (urllib3's timeout bounds each wait, not the whole try)."""
    box["cut"] = True
    sock = getattr(box.get("connection"), "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def post(url: str, *, body: bytes, headers: dict[str, str]) -> Outcome:
    started = time.monotonic()
    box: dict = {}
    _in_flight.box = box
    watchdog = threading.Timer(TIMEOUT_SECONDS, _cut_off, args=(box,))
    watchdog.daemon = True
    watchdog.start()
    try:
        outcome = _post(url, body=body, headers=headers, started=started)
    finally:
        watchdog.cancel()
        _in_flight.box = None
    if box.get("cut") or outcome.duration_ms > TIMEOUT_SECONDS * 1000:
        return Outcome(None, "", outcome.duration_ms, f"no complete answer within {TIMEOUT_SECONDS:g} s")
    return outcome


def _post(url: str, *, body: bytes, headers: dict[str, str], started: float) -> Outcome:
    def took() -> int:
        return int((time.monotonic() - started) * 1000)

    try:
        url_check(url, resolve_host=False)
        response = manager().request(
            "POST",
            url,
            body=body,
            headers=headers,
            redirect=False,
            retries=False,
            timeout=Timeout(total=TIMEOUT_SECONDS),
            preload_content=False,
        )
        try:
            head = response.read(REPLY_KEPT_BYTES, decode_content=False)
            # Drain at most a little more so the connection can be reused; a huge reply closes it instead.
            rest = response.read(64 * 1024, decode_content=False)
            if rest and len(rest) == 64 * 1024:
                response.close()
        finally:
            response.release_conn()
        return Outcome(response.status, head.decode("utf-8", "replace"), took())
    except AddressRefused as refused:
        return Outcome(None, "", took(), str(refused))
    except urllib3.exceptions.HTTPError as error:
        reason = getattr(error, "reason", None) or error
        if isinstance(reason, AddressRefused):
            return Outcome(None, "", took(), str(reason))
        return Outcome(None, "", took(), type(reason).__name__ + ": " + str(reason)[:150])
    except OSError as error:
        return Outcome(None, "", took(), type(error).__name__ + ": " + str(error)[:150])
