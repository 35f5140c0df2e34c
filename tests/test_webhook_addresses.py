"""Which addresses a webhook may reach (webhooks.addresses) and what one try does on the wire (webhooks.transport):
never into the service's own network, checked on the address actually connected to, no redirects, the timeout,
the first 1 kB of the reply. DNS is a fake (socket.getaddrinfo patched): no test needs the real network."""

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from webhooks import transport
from webhooks.addresses import AddressRefused, ip_allowed, url_check
from webhooks.receiver import Receiver

PUBLIC_V4 = "93.184.216.34"
PUBLIC_V6 = "2606:2800:220:1:248:1893:25c8:1946"
INSIDE = [
    "10.0.0.1",
    "10.255.255.254",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "127.0.0.1",
    "127.8.9.10",
    "169.254.169.254",  # the clouds' metadata service
    "100.64.0.1",
    "100.127.255.254",
    "::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "fe80::1%eth0",
    "::ffff:10.0.0.1",
    "::ffff:127.0.0.1",
    "2002:a00:1::1",  # 6to4 around 10.0.0.1
    "0.0.0.0",
    "::",
    "224.0.0.1",
    "239.255.255.250",
    "ff02::1",
    "255.255.255.255",
]


class FakeDns:
    """socket.getaddrinfo answering from a table (a name may get several answers, or a new answer on each
    call); an IP literal answers itself. Counts the calls."""

    def __init__(self, table: dict[str, list]):
        self.table, self.calls = table, []

    def __call__(self, host, port, family=0, type=0, proto=0, flags=0):
        self.calls.append(host)
        answers = self.table.get(host, [host])
        if answers and isinstance(answers[0], list):  # one list per call; the last one repeats
            answers = answers[min(len([c for c in self.calls if c == host]), len(answers)) - 1]
        result = []
        for address in answers:
            if ":" in address:
                result.append((socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port or 0, 0, 0)))
            else:
                result.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0)))
        return result


@pytest.fixture
def dns(monkeypatch):
    def install(table: dict[str, list]) -> FakeDns:
        fake = FakeDns(table)
        monkeypatch.setattr(socket, "getaddrinfo", fake)
        return fake

    return install


@pytest.fixture
def no_loopback(settings):
    settings.WEBHOOK_ALLOW_LOOPBACK = False


@pytest.fixture
def connects(monkeypatch):
    """Every socket.connect the process makes; none reaches the network (each fails at once)."""
    made = []

    def connect(sock, address):
        made.append(address[0])
        raise ConnectionRefusedError("no network in this test")

    monkeypatch.setattr(socket.socket, "connect", connect)
    return made


# --- url_check ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("address", INSIDE)
def test_a_host_resolving_inside_is_refused(dns, no_loopback, address):
    dns({"hooks.example.com": [address]})
    with pytest.raises(AddressRefused, match="private, loopback or reserved"):
        url_check("https://hooks.example.com/webhook")


@pytest.mark.parametrize("address", [a for a in INSIDE if "%" not in a])
def test_an_address_written_as_an_ip_inside_is_refused(dns, no_loopback, address):
    dns({})
    host = f"[{address}]" if ":" in address else address
    with pytest.raises(AddressRefused):
        url_check(f"https://{host}/webhook")


def test_one_inside_answer_among_public_ones_is_enough_to_refuse(dns, no_loopback):
    dns({"hooks.example.com": [PUBLIC_V4, PUBLIC_V6, "10.1.2.3"]})
    with pytest.raises(AddressRefused):
        url_check("https://hooks.example.com/webhook")


def test_a_public_address_is_accepted(dns, no_loopback):
    dns({"hooks.example.com": [PUBLIC_V4, PUBLIC_V6]})
    url_check("https://hooks.example.com/webhook")
    url_check(f"https://{PUBLIC_V4}:8443/webhook")
    url_check(f"https://[{PUBLIC_V6}]/webhook")


def test_plain_http_is_refused_outside_loopback(dns, settings):
    dns({"hooks.example.com": [PUBLIC_V4]})
    settings.WEBHOOK_ALLOW_LOOPBACK = True  # even where loopback is allowed
    with pytest.raises(AddressRefused, match="https://"):
        url_check("http://hooks.example.com/webhook")
    with pytest.raises(AddressRefused, match="https://"):
        url_check(f"http://{PUBLIC_V4}/webhook")


def test_loopback_and_its_plain_http_only_where_allowed(dns, settings):
    dns({"localhost": ["127.0.0.1"]})
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    url_check("http://127.0.0.1:8766/webhook")
    url_check("http://localhost:8766/webhook")
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    for url in ("http://127.0.0.1:8766/webhook", "https://127.0.0.1/webhook", "https://localhost/webhook"):
        with pytest.raises(AddressRefused):
            url_check(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://user:secret@hooks.example.com/webhook",
        "https://user@hooks.example.com/webhook",
        "https://:secret@hooks.example.com/webhook",
    ],
)
def test_credentials_in_the_address_are_refused(dns, url):
    dns({"hooks.example.com": [PUBLIC_V4]})
    with pytest.raises(AddressRefused, match="user name or password"):
        url_check(url)


@pytest.mark.parametrize(
    "url", ["ftp://hooks.example.com/", "https:///webhook", "https://hooks.example.com:99999/", "//x/y"]
)
def test_other_schemes_and_broken_addresses_are_refused(dns, url):
    dns({"hooks.example.com": [PUBLIC_V4]})
    with pytest.raises(AddressRefused):
        url_check(url)


def test_a_name_that_does_not_resolve_is_refused(monkeypatch):
    def unknown(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with pytest.raises(AddressRefused, match="could not be resolved"):
        url_check("https://nowhere.example.com/webhook")


def test_nat64_around_a_private_address_is_refused(no_loopback):
    assert not ip_allowed("64:ff9b::a00:1")


# --- transport.post -------------------------------------------------------------------------------------


def headers() -> dict[str, str]:
    return {"Content-Type": "application/json"}


def test_a_try_is_refused_when_dns_answers_inside_at_that_moment(dns, connects, no_loopback):
    # Public when support saved the address, private when the try is made (DNS rebinding).
    fake = dns({"hooks.example.com": [[PUBLIC_V4], ["10.0.0.7"]]})
    url_check("https://hooks.example.com/webhook")

    outcome = transport.post("https://hooks.example.com/webhook", body=b"{}", headers=headers())

    assert outcome.status_code is None and not outcome.succeeded
    assert "private, loopback or reserved" in outcome.error
    assert "10.0.0.7" not in connects and connects == []
    assert fake.calls == ["hooks.example.com", "hooks.example.com"]


def test_a_try_connects_to_exactly_the_address_it_checked(dns, connects, no_loopback):
    # Public on the try's lookup, private on any later one: a second lookup to connect would reach inside.
    fake = dns({"hooks.example.com": [[PUBLIC_V4], ["10.0.0.7"]]})

    outcome = transport.post("https://hooks.example.com/webhook", body=b"{}", headers=headers())

    assert outcome.status_code is None and outcome.error
    assert connects == [PUBLIC_V4]
    assert fake.calls == ["hooks.example.com"]


class Server:
    """A loopback HTTP server whose every POST is answered by `answer(handler)`."""

    def __init__(self, answer):
        outer = self
        self.released = threading.Event()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                answer(self, outer)

            def log_message(self, format, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def reply(handler, status: int, body: bytes = b"", **extra):
    handler.send_response(status)
    for name, value in extra.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def server():
    started = []

    def start(answer) -> Server:
        started.append(Server(answer))
        return started[-1]

    yield start
    for item in started:
        item.stop()


def test_a_redirect_is_not_followed(server):
    with Receiver(token="t", signing_key="k") as target:
        redirecting = server(lambda handler, _: reply(handler, 302, b"moved", Location=target.url))

        outcome = transport.post(redirecting.url, body=b"{}", headers=headers())

        assert (outcome.status_code, outcome.succeeded) == (302, False)
        assert outcome.reply == "moved"
        time.sleep(0.1)
        assert target.received == []


def test_a_slow_receiver_is_given_up_after_the_timeout(server, monkeypatch):
    monkeypatch.setattr(transport, "TIMEOUT_SECONDS", 0.3)

    def slow(handler, outer):
        outer.released.wait(1.5)  # released at the end of the test
        reply(handler, 200)

    slow_server = server(slow)
    started = time.monotonic()

    outcome = transport.post(slow_server.url, body=b"{}", headers=headers())

    assert time.monotonic() - started < 1.0
    assert outcome.status_code is None and not outcome.succeeded
    assert any(word in outcome.error.lower() for word in ("timed out", "timeout", "within 0.3 s"))
    assert 250 <= outcome.duration_ms < 1000


def test_the_timeout_bounds_the_whole_try_not_each_wait(server, monkeypatch):
    """A receiver that answers 200 at once and then a header line every 0.1 s never lets one wait reach the
    timeout; the try still ends at it, as a failure."""
    monkeypatch.setattr(transport, "TIMEOUT_SECONDS", 0.4)

    def dripping(handler, outer):
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        handler.wfile.flush()
        for number in range(20):
            if outer.released.wait(0.1):
                return
            try:
                handler.wfile.write(f"X-Drip-{number}: 1\r\n".encode())
                handler.wfile.flush()
            except OSError:
                return

    started = time.monotonic()

    outcome = transport.post(server(dripping).url, body=b"{}", headers=headers())

    assert time.monotonic() - started < 1.0
    assert outcome.status_code is None and not outcome.succeeded
    assert outcome.error == "no complete answer within 0.4 s"


def test_only_the_first_kilobyte_of_the_reply_is_kept(server):
    answering = server(lambda handler, _: reply(handler, 500, b"a" * 1000 + b"b" * 4000))

    outcome = transport.post(answering.url, body=b"{}", headers=headers())

    assert outcome.status_code == 500 and not outcome.succeeded
    assert outcome.reply == "a" * 1000 + "b" * 24


def test_a_2xx_answer_succeeds(server):
    answering = server(lambda handler, _: reply(handler, 204))
    outcome = transport.post(answering.url, body=b"{}", headers=headers())
    assert (outcome.status_code, outcome.succeeded, outcome.error) == (204, True, "")
