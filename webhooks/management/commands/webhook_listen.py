"""`manage.py webhook_listen`: watch a webhook's events arrive, checked as a conforming receiver checks them.

Built on webhooks.receiver.Receiver (Authorization, signature in constant time, 5-minute window, 401 for a
request that fails, duplicates recognised by event id). One line per request on stdout; with --log, every
verified request is also appended to a file as one JSON object per line. The token and the signing key may
come from WEBHOOK_TOKEN and WEBHOOK_SIGNING_KEY instead of the command line, so that `ps` does not show them;
neither is ever printed.
"""

import datetime as dt
import json
import os
import signal
import threading

from django.core.management.base import BaseCommand, CommandError

from webhooks.receiver import Received, Receiver

TOKEN_VARIABLE = "WEBHOOK_TOKEN"
KEY_VARIABLE = "WEBHOOK_SIGNING_KEY"
# A refused request's claims are shown too (they help find a misconfigured sender), cut to this length.
SHOWN_CHARACTERS = 200


def shown(value) -> str:
    """A value on one terminal line: JSON for structures, and no control characters from an unverified
    sender (an escape sequence in a header must not reach the terminal as one)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"


def verdict(received: Received) -> str:
    if not received.accepted:
        return f"refused ({received.reason})"
    return "duplicate event id" if received.duplicate else "accepted"


def line(received: Received) -> str:
    """Local time, verdict, event_type, data, attempt, event id, request id."""
    event = received.event if isinstance(received.event, dict) else {}
    when = dt.datetime.fromtimestamp(received.received_at).astimezone().isoformat(sep=" ", timespec="seconds")
    parts = [
        when,
        verdict(received),
        shown(event.get("event_type", "-")),
        "data=" + shown(event.get("data", "-")),
        "attempt=" + shown(received.header("X-Service-Attempt") or "-"),
        "event=" + shown(received.header("X-Service-Event-Id") or "-"),
        "request=" + shown(received.header("Request-Id") or "-"),
    ]
    return "  ".join(parts)


def log_record(received: Received) -> str:
    """One verified request for the --log file: the body as sent, beside what the headers said."""
    attempt = received.header("X-Service-Attempt") or ""
    record = {
        "received_at": dt.datetime.fromtimestamp(received.received_at, dt.UTC).isoformat(timespec="seconds"),
        "event": received.event,
        "attempt": int(attempt) if attempt.isdigit() else attempt,
        "event_id": received.header("X-Service-Event-Id"),
        "request_id": received.header("Request-Id"),
        "duplicate": received.duplicate,
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


class Command(BaseCommand):
    help = (
        "Receive a webhook's requests on a loopback address, verify each (token, signature, 5-minute window; "
        "401 when one fails) and print one line per request. Token and key: --token/--key or the environment "
        f"variables {TOKEN_VARIABLE} and {KEY_VARIABLE}. Runs until Ctrl-C or SIGTERM."
    )

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, required=True, help="port to listen on (0: any free port)")
        parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
        parser.add_argument("--path", default="/webhook", help="the path shown in the address (default /webhook)")
        parser.add_argument("--token", default="", help=f"the webhook's token (better: {TOKEN_VARIABLE})")
        parser.add_argument("--key", default="", help=f"the webhook's signing key (better: {KEY_VARIABLE})")
        parser.add_argument("--log", default="", help="append each verified event to this file (JSON lines)")

    def handle(self, *args, **options):
        token = options["token"] or os.environ.get(TOKEN_VARIABLE, "")
        signing_key = options["key"] or os.environ.get(KEY_VARIABLE, "")
        if not token or not signing_key:
            raise CommandError(
                f"Give the token and the signing key (--token/--key or {TOKEN_VARIABLE}/{KEY_VARIABLE})."
            )
        writing = threading.Lock()

        def on_received(received: Received) -> None:
            # Called in the request's thread before the answer goes out; one lock keeps lines whole.
            with writing:
                if received.accepted and options["log"]:
                    with open(options["log"], "a", encoding="utf-8") as log:
                        log.write(log_record(received))
                self.stdout.write(line(received))
                self.stdout.flush()

        try:
            receiver = Receiver(
                token=token,
                signing_key=signing_key,
                host=options["host"],
                port=options["port"],
                path=options["path"],
                on_received=on_received,
            )
        except OSError as error:
            raise CommandError(f"Cannot listen on {options['host']}:{options['port']}: {error}") from error
        stopping = threading.Event()
        self._on_signals(lambda *_: stopping.set())
        receiver.start()
        logged = f", verified events appended to {options['log']}" if options["log"] else ""
        self.stdout.write(f"Listening on {receiver.url}{logged}. Ctrl-C stops.")
        self.stdout.flush()
        try:
            while not stopping.wait(0.5):  # short waits: the signal handler runs between them at the latest
                pass
        except KeyboardInterrupt:  # where the signal handlers could not be set (not the main thread)
            pass
        finally:
            receiver.stop()
        self.stdout.write("Stopped.")
        self.stdout.flush()

    @staticmethod
    def _on_signals(handler) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, handler)
            signal.signal(signal.SIGTERM, handler)
