"""No secret in any log at any level (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §12.1 "No secret
in any log", §12.2 "The suite's log is checked").

oauthlib logs every token it issues at DEBUG; the service's logging configuration (config.log_redaction)
keeps it and every other secret out: oauthlib never below INFO, and a redacting filter on the handler.
The whole suite runs with its log captured at DEBUG and checked (tests/log_secrets.py); the last tests
here show that check failing, naming the kind of secret, with and without pytest-xdist.
"""

import contextlib
import datetime as dt
import io
import logging
import logging.config
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import requests
from django.contrib.auth.tokens import default_token_generator
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.db import connection, connections
from django.test import Client
from django.test.testcases import LiveServerThread, _StaticFilesHandler
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.log import configure_logging

from config.log_redaction import RedactSecrets, logging_config, redact
from tests import log_secrets
from tests.factories import MemberFactory

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "secret-pass-1"  # UserFactory's


@contextlib.contextmanager
def service_logging(config: dict):
    """The whole process logs with `config` (its handler writes to the returned buffer), and SQL is logged;
    afterwards the run's own capture (tests/log_secrets.py) is put back."""
    output = io.StringIO()
    handler = config["handlers"]["console"]
    handler.update({"class": "logging.StreamHandler", "stream": output})
    saved_debug_cursor = connection.force_debug_cursor
    # As a new process would: Django's defaults, then LOGGING (django.utils.log.configure_logging); levels
    # that the run's capture gave to loggers these leave alone are dropped first.
    for name in ("oauthlib", *log_secrets.TOOLING_LOGGERS):
        logging.getLogger(name).setLevel(logging.NOTSET)
    configure_logging("logging.config.dictConfig", config)
    connection.force_debug_cursor = True
    try:
        yield output
    finally:
        connection.force_debug_cursor = saved_debug_cursor
        log_secrets.reinstall_capture()


def use_every_secret(api, member) -> dict[str, str]:
    """Fetch an access token, call with it and with the token's own secret, log in on the website."""
    access = api.fetch_access_token()
    assert api.get("/token", bearer=access).status_code == 200
    assert api.get("/token", bearer=api.secret).status_code == 200
    browser = Client()
    response = browser.post("/login", {"username": member.user.username, "password": PASSWORD}, secure=True)
    assert response.status_code == 302
    return {
        "access token": access,
        "token secret": api.secret,
        "password": PASSWORD,
        "session key": browser.cookies["sessionid"].value,
    }


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__username="anna.berg")


def test_oauthlib_writes_the_issued_access_token_at_debug(api):
    """What the configuration guards against: oauthlib's own DEBUG line holds the token in clear."""
    output = io.StringIO()
    handler = logging.StreamHandler(output)
    library = logging.getLogger("oauthlib")
    saved_level = library.level
    library.addHandler(handler)
    library.setLevel(logging.DEBUG)
    try:
        access = api.fetch_access_token()
    finally:
        library.removeHandler(handler)
        library.setLevel(saved_level)

    assert "Issuing token" in output.getvalue()
    assert access in output.getvalue()


def test_at_log_level_debug_no_secret_is_written(api, member):
    with service_logging(logging_config("DEBUG")) as output:
        used = use_every_secret(api, member)

    log = output.getvalue()
    assert '"accounts_apitoken"' in log  # SQL was logged, and the token lookups with it
    for kind, secret in used.items():
        assert secret not in log, f"a {kind} is in the log"


@pytest.mark.parametrize("layer", ["levels only", "filter only"])
def test_each_layer_alone_keeps_the_issued_token_out(api, member, layer):
    config = logging_config("DEBUG")
    if layer == "levels only":
        del config["handlers"]["console"]["filters"]
    else:
        config["loggers"]["oauthlib"]["level"] = "DEBUG"
    with service_logging(config) as output:
        access = api.fetch_access_token()

    log = output.getvalue()
    if layer == "filter only":
        assert "Issuing token" in log  # oauthlib wrote its line; the filter took the token out
    assert access not in log


def test_a_celery_worker_logs_through_the_filtered_handler():
    """What `celery worker` runs at start: by default it replaces the root handler with its own."""
    from celery.app.log import Logging

    from config.celery import app

    root = logging.getLogger()
    saved = (root.level, Logging._setup)
    Logging._setup = False
    try:
        app.log.setup_logging_subsystem(loglevel="INFO", colorize=False)
        service_handlers = [handler for handler in root.handlers if not type(handler).__module__.startswith("_pytest")]
    finally:
        root.setLevel(saved[0])
        Logging._setup = saved[1]
        log_secrets.reinstall_capture()

    assert service_handlers
    for handler in service_handlers:
        assert any(isinstance(found, RedactSecrets) for found in handler.filters), handler


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("{'access_token': 'Zk3X', 'expires_in': 3600, 'token_type': 'Bearer'}", "'expires_in': 3600"),
        ('{"refresh_token": "Zk3X", "scope": "users:r"}', '"scope": "users:r"'),
        ("grant_type=client_credentials&client_secret=Zk3X", "grant_type=client_credentials"),
        ("Authorization: Bearer Zk3X.y-z_", "Authorization: Bearer"),
        ("Authorization: Basic Zk3XOnNlY3JldA==", "Authorization: Basic"),
        ("could not connect to postgres://flyclub:Zk3X@db:5432/flyclub", "postgres://flyclub:"),
        ("GET /password-reset/MQ/cz1b2c-0123456789abcdef0123 HTTP/1.1", "/password-reset/MQ/"),
        ("login failed, password='Zk3X'", "login failed"),
    ],
)
def test_the_filter_takes_out_every_secret_shape(line, kept):
    redacted = redact(line)

    assert "Zk3X" not in redacted
    assert "cz1b2c-0123456789abcdef0123" not in redacted
    assert kept in redacted
    assert "[redacted]" in redacted


def test_sql_keeps_the_statement_and_drops_every_text_value():
    record = logging.LogRecord(
        "django.db.backends",
        logging.DEBUG,
        __file__,
        1,
        "(%.3f) %s; args=%s; alias=%s",
        (
            0.001,
            'SELECT 1 FROM "django_session" WHERE "session_key" = \'k3yk3yk3y\' AND "n" = 7 AND "s" = \'it\'\'s\'',
            ("k3yk3yk3y", 7, "it's"),
            "default",
        ),
        None,
    )

    RedactSecrets().filter(record)

    message = record.getMessage()
    assert "k3yk3yk3y" not in message
    assert "it" not in message.split("AND")[-1]
    assert '"n" = 7' in message
    assert "args=<3 values>" in message


def test_a_traceback_is_filtered_too():
    try:
        raise ValueError("refused: access_token=Zk3XZk3X")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())

    RedactSecrets().filter(record)

    assert "Zk3XZk3X" not in logging.Formatter().format(record)
    assert "access_token=[redacted]" in logging.Formatter().format(record)


RESET_TOKEN = "diqpoy-0fe1108a4c076f05e4b67fb0f907aef7"  # the form of Django 5's tokens: 32 hex digits


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        (f'"GET /password-reset/Mw/{RESET_TOKEN} HTTP/1.1" 302 0', '"GET /password-reset/Mw/[redacted] HTTP/1.1" 302'),
        (f"Not Found: /password-reset/Mw/{RESET_TOKEN}/more", "Not Found: /password-reset/Mw/[redacted]"),
        (f'"GET /login HTTP/1.1" "https://flyclub.example/password-reset/Mw/{RESET_TOKEN}?x=1"', "Mw/[redacted]?x=1"),
        (f"/login?next=%2Fpassword-reset%2FMw%2F{RESET_TOKEN}&cl=gb", "%2FMw%2F[redacted]&cl=gb"),
        # Any form at that position: a token of another length or alphabet is still a token.
        (f"GET /password-reset/Mw/{RESET_TOKEN}0fe1 HTTP/1.1", "/password-reset/Mw/[redacted] HTTP/1.1"),
        (f"GET /password-reset/Mw/{RESET_TOKEN.upper()}_x HTTP/1.1", "/password-reset/Mw/[redacted] HTTP/1.1"),
        # A token outside a link, by its form (20 hex digits with SHA-1 before Django 4, 32 now).
        (f"checking token {RESET_TOKEN} for 3", "checking token [redacted] for 3"),
    ],
)
def test_a_reset_token_is_taken_out_by_its_place_in_the_link(line, kept):
    redacted = redact(line)

    assert RESET_TOKEN not in redacted.lower()
    assert "0fe1108a4c" not in redacted.lower()
    assert kept in redacted


@pytest.mark.parametrize(
    "line",
    ["GET /password-reset/Mw/set-password HTTP/1.1", "GET /password-reset/done", "GET /password-reset/ HTTP/1.1"],
)
def test_the_reset_pages_without_a_token_stay_readable(line):
    assert redact(line) == line


class _JoiningServer(ThreadedWSGIServer):
    # Closing the server waits for the requests' threads, which write their line after the reply is sent.
    daemon_threads = False
    block_on_close = True


class _LoggingServerThread(LiveServerThread):
    """Django's live server with runserver's request handler, which logs each request line (django.server),
    as a development server does; the live server's own handler logs nothing."""

    server_class = _JoiningServer

    def _create_server(self, connections_override=None):
        return self.server_class(
            (self.host, self.port),
            WSGIRequestHandler,
            allow_reuse_address=False,
            connections_override=connections_override,
        )


@pytest.fixture
def logging_server(settings, transactional_db):
    """A live server in this process, logging its request lines through the run's own log capture."""
    # The live server speaks plain HTTP: no redirect to https, no Secure cookies.
    settings.REQUIRE_HTTPS = settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    shared = {conn.alias: conn for conn in connections.all() if conn.vendor == "sqlite" and conn.is_in_memory_db()}
    for conn in shared.values():
        conn.inc_thread_sharing()
    thread = _LoggingServerThread("localhost", _StaticFilesHandler, connections_override=shared)
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    try:
        if thread.error:
            raise thread.error
        yield f"http://localhost:{thread.port}"
    finally:
        thread.terminate()
        for conn in shared.values():
            conn.dec_thread_sharing()


def test_opening_a_reset_link_leaves_no_token_in_the_log(logging_server):
    """A real reset link (Django's token generator, as the mail sends it) opened on a server that logs its
    request lines: the run's capture (the service's logging configuration at DEBUG) holds the line, with
    the token taken out."""
    member = MemberFactory(user__username="anna.berg")
    uid = urlsafe_base64_encode(force_bytes(member.user.pk))
    token = default_token_generator.make_token(member.user)  # registered: the run's check looks for it too
    capture = log_secrets.capture_path()
    logged_before = capture.stat().st_size

    # A connection per request (Connection: close): no request thread waits for a next request when the server
    # stops, and no request goes out on a connection the server is closing.
    alone = {"headers": {"Connection": "close"}, "timeout": 30}
    opened = requests.get(f"{logging_server}/password-reset/{uid}/{token}", allow_redirects=False, **alone)
    form = requests.get(f"{logging_server}{opened.headers['Location']}", cookies=opened.cookies, **alone)

    assert opened.status_code == 302
    assert opened.headers["Location"] == f"/password-reset/{uid}/set-password"
    assert form.status_code == 200
    assert 'name="new_password1"' in form.text  # Django took the token: a real link
    log = ""
    deadline = time.monotonic() + 10
    while "set-password HTTP/1.1" not in log and time.monotonic() < deadline:
        time.sleep(0.05)  # the server's thread writes its line once the reply is sent
        for handler in logging.getLogger().handlers:
            handler.flush()
        with capture.open(encoding="utf-8") as log_file:
            log_file.seek(logged_before)
            log = log_file.read()
    assert f'"GET /password-reset/{uid}/[redacted] HTTP/1.1" 302' in log
    assert f'"GET /password-reset/{uid}/set-password HTTP/1.1" 200' in log
    assert token not in log
    assert token.split("-")[1] not in log


def test_gunicorns_access_log_leaves_the_reset_token_out(tmp_path):
    """gunicorn's access log, as config/gunicorn.conf.py names its logger class, writing the request line and
    the Referer of a reset link."""
    from gunicorn.config import Config

    from config.gunicorn_logging import RedactingLogger

    path = tmp_path / "access.log"
    config = Config()
    config.set("accesslog", str(path))
    logger = RedactingLogger(config)
    link = f"/password-reset/Mw/{RESET_TOKEN}"
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": link,
        "PATH_INFO": link,
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "192.0.2.7",
        "HTTP_REFERER": f"https://flyclub.example{link}",
        "HTTP_USER_AGENT": "test",
    }
    response = SimpleNamespace(status="302 Found", sent=0, headers=[("Location", "/password-reset/Mw/set-password")])
    try:
        logger.access(response, SimpleNamespace(headers=[]), environ, dt.timedelta(milliseconds=3))
    finally:
        for handler in logger.access_log.handlers:
            handler.close()

    log = path.read_text(encoding="utf-8")
    assert '"GET /password-reset/Mw/[redacted] HTTP/1.1" 302' in log
    assert '"https://flyclub.example/password-reset/Mw/[redacted]"' in log
    assert "0fe1108a4c" not in log


# --- the check of the whole run ---------------------------------------------------------------------


def test_the_runs_capture_holds_each_sql_statement_without_its_text_values(db):
    from django.contrib.auth import get_user_model

    assert not connection.queries_logged  # the service's own code paths, as in production
    get_user_model().objects.filter(username="capture-probe-7f3a").exists()
    for handler in logging.getLogger().handlers:
        handler.flush()

    log = log_secrets.capture_path().read_text(encoding="utf-8")
    assert "capture-probe-7f3a" not in log
    assert any('FROM "accounts_user"' in line and "'…'" in line for line in log.splitlines()), log[-2000:]


LEAKING_TESTS = """
import logging

from accounts.models import User


def test_logs_a_password_it_set():
    User(username="x").set_password("a-leaked-pass-42")
    logging.getLogger("accounts").warning("checked a-leaked-pass-42 for x")


def test_keeps_its_password_out():
    User(username="y").set_password("a-kept-pass-42")
    logging.getLogger("accounts").warning("checked the password of y")
"""

CLEAN_TESTS = """
import logging

from accounts.models import User


def test_keeps_its_password_out():
    User(username="y").set_password("a-kept-pass-42")
    logging.getLogger("accounts").debug("checked the password of y")
"""


def run_inner_suite(tmp_path, source: str, *args: str) -> subprocess.CompletedProcess:
    test_file = tmp_path / "test_inner.py"
    test_file.write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    env.pop("PYTEST_CURRENT_TEST", None)
    return subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)),
            *("-p", "tests.log_secrets", *args, str(test_file)),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("workers", ["0", "2"])
def test_the_run_fails_naming_the_kind_when_a_secret_is_in_its_log(tmp_path, workers):
    done = run_inner_suite(tmp_path, LEAKING_TESTS, "-n", workers)

    output = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, output
    assert "2 passed" in output  # the tests themselves pass: the log check fails the run
    assert "a password (a-l…) is in the log captured at DEBUG" in output
    assert "a-leaked-pass-42" not in output  # the report does not repeat the secret
    assert "a-kept" not in output


def test_the_run_passes_when_no_secret_is_in_its_log(tmp_path):
    done = run_inner_suite(tmp_path, CLEAN_TESTS)

    assert done.returncode == pytest.ExitCode.OK, done.stdout + done.stderr
    assert "secrets in the log" not in done.stdout
