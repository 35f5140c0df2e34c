"""`manage.py webhook_listen` as a process: it verifies each request as document 3's receiver does, answers 401
to one that fails, prints one line per request, logs the verified events, recognises a repeated event id, never
shows the token or key, and stops cleanly on SIGTERM."""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from webhooks import signing

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "listen-test-token-Qx7"
SIGNING_KEY = "listen-test-signing-key-9f3a"


class Listener:
    """The command in a subprocess on a free port, token and key given through the environment."""

    def __init__(self, log_path: Path):
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings_test",
            "WEBHOOK_TOKEN": TOKEN,
            "WEBHOOK_SIGNING_KEY": SIGNING_KEY,
            "PYTHONUNBUFFERED": "1",
        }
        command = [sys.executable, "manage.py", "webhook_listen", "--port", "0", "--log", str(log_path)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.output: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        first = self.next_line(timeout=30)
        assert first.startswith("Listening on http://127.0.0.1:"), first
        self.url = first.split()[2].rstrip(",.")

    def _read(self) -> None:
        for text in self.process.stdout:
            self.output.append(text)
            self._lines.put(text.rstrip("\n"))

    def next_line(self, timeout: float = 10) -> str:
        return self._lines.get(timeout=timeout)

    def post(self, body: bytes, headers: dict[str, str]) -> int:
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def listener(tmp_path_factory):
    started = Listener(tmp_path_factory.mktemp("listen") / "webhooks.log")
    yield started
    started.stop()


def event(event_id: str, event_type="booking.create") -> bytes:
    return json.dumps(
        {
            "organization": {"id": 1},
            "event_type": event_type,
            "data": {"id": 42, "object_id": 7},
            "id": event_id,
            "occurred_at": "2026-11-26T09:00:00Z",
            "schema_version": 1,
        }
    ).encode()


def signed(body: bytes, event_id: str, *, token=TOKEN, signing_key=SIGNING_KEY, age=0, attempt=1) -> dict:
    return signing.request_headers(
        token=token,
        signing_key=signing_key,
        event_id=event_id,
        attempt=attempt,
        timestamp=int(time.time()) - age,
        body=body,
        request_id="r" + event_id[1:],
    )


def log_lines(listener) -> list[dict]:
    log_path = Path(listener.process.args[-1])
    return [json.loads(text) for text in log_path.read_text().splitlines()] if log_path.exists() else []


def test_a_correctly_signed_request_is_accepted_printed_and_logged(listener):
    event_id = "a1" * 16
    body = event(event_id)

    assert listener.post(body, signed(body, event_id, attempt=3)) == 200

    printed = listener.next_line()
    assert " accepted " in printed
    for shown in ("booking.create", 'data={"id": 42, "object_id": 7}', "attempt=3", f"event={event_id}"):
        assert shown in printed
    assert f"request=r{event_id[1:]}" in printed
    [logged] = [item for item in log_lines(listener) if item["event_id"] == event_id]
    assert logged["event"] == json.loads(body)
    assert (logged["attempt"], logged["request_id"], logged["duplicate"]) == (3, "r" + event_id[1:], False)


@pytest.mark.parametrize(
    "case, reason",
    [
        ("wrong token", "Authorization"),
        ("wrong signature", "signature"),
        ("six minutes old", "5 minutes"),
    ],
)
def test_a_request_that_fails_a_check_gets_401_and_is_not_logged(listener, case, reason):
    event_id = {"wrong token": "b1", "wrong signature": "b2", "six minutes old": "b3"}[case] * 16
    body = event(event_id)
    headers = {
        "wrong token": signed(body, event_id, token=TOKEN + "x"),
        "wrong signature": signed(body, event_id, signing_key=SIGNING_KEY + "x"),
        "six minutes old": signed(body, event_id, age=6 * 60),
    }[case]

    assert listener.post(body, headers) == 401

    printed = listener.next_line()
    assert " refused (" in printed and reason in printed and f"event={event_id}" in printed
    assert not [item for item in log_lines(listener) if item["event_id"] == event_id]


def test_a_body_changed_after_signing_is_refused(listener):
    event_id = "b4" * 16
    headers = signed(event(event_id), event_id)

    assert listener.post(event(event_id, "booking.delete"), headers) == 401
    assert "refused (the signature does not match)" in listener.next_line()


def test_a_repeated_event_id_is_reported_as_duplicate(listener):
    event_id = "c1" * 16
    body = event(event_id)
    assert listener.post(body, signed(body, event_id, attempt=1)) == 200
    assert " accepted " in listener.next_line()

    # The next try of the same event (a receiver answers 2xx again, so that the service stops trying).
    assert listener.post(body, signed(body, event_id, attempt=2)) == 200

    printed = listener.next_line()
    assert " duplicate event id " in printed and "attempt=2" in printed
    assert [item["duplicate"] for item in log_lines(listener) if item["event_id"] == event_id] == [False, True]


def test_an_unverified_sender_cannot_put_control_characters_on_the_terminal(listener):
    body = b'{"event_type": "\\u001b[2Jboom"}'
    headers = {"Content-Type": "application/json", "X-Service-Event-Id": "\x1b]0;x\x07"}

    assert listener.post(body, headers) == 401

    printed = listener.next_line()
    assert "\x1b" not in printed and "\x07" not in printed
    assert "\\x1b[2Jboom" in printed


def test_sigterm_stops_it_cleanly_and_the_secrets_never_appear(tmp_path):
    started = Listener(tmp_path / "webhooks.log")
    event_id = "d1" * 16
    body = event(event_id)
    assert started.post(body, signed(body, event_id)) == 200
    started.post(body, signed(body, event_id, token="not-it"))
    started.next_line()
    started.next_line()

    assert started.stop() == 0

    time.sleep(0.1)  # the reader thread takes the last line
    output = "".join(started.output)
    assert output.rstrip().endswith("Stopped.")
    assert "Traceback" not in output
    assert TOKEN not in output and SIGNING_KEY not in output
    assert TOKEN not in (tmp_path / "webhooks.log").read_text()
    assert SIGNING_KEY not in (tmp_path / "webhooks.log").read_text()


def test_without_a_token_or_key_it_refuses_to_start(monkeypatch):
    monkeypatch.delenv("WEBHOOK_TOKEN", raising=False)
    monkeypatch.delenv("WEBHOOK_SIGNING_KEY", raising=False)
    with pytest.raises(CommandError, match="WEBHOOK_TOKEN"):
        call_command("webhook_listen", "--port", "0", "--key", "only-the-key")
