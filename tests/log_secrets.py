"""A log captured at DEBUG during the whole test run holds none of the secrets the tests used (issue 7).

Loaded by tests/conftest.py. Each test process (the only one, or each pytest-xdist worker):
- writes every log record of the run to its own file, through the service's own logging configuration
  (config.log_redaction.logging_config) at DEBUG: root handler, every logger, `logging.disable` off, and
  django.db.backends included: every connection (those of threads too) logs each statement as Django's
  debug cursor does with DEBUG=True (an execute wrapper, so that the service's code paths stay those of
  production);
- keeps a registry of the secrets the tests used, taken where they are made or checked: passwords
  (User.set_password / check_password, website form fields), API token secrets and every other secret of
  apicore.secrets.new_secret (the OAuth client secrets), Bearer credentials checked by the Main API,
  access and refresh tokens issued by oauthlib, authorization codes, password-reset tokens, session keys and
  the signing key (SECRET_KEY);
- at the end, looks for every registered secret in its log: one found fails the run, naming its kind
  and where it was (the secret itself is never printed, only its first characters).

Under xdist each worker checks its own log and hands what it found to the controller, which fails the run.
Loggers of test tooling (factory_boy, Faker) are left out: they are not part of the service.
"""

import functools
import json
import logging
import logging.config
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

MIN_LENGTH = 8  # shorter values ("x", "1234") would be found in any log by chance
_URLSAFE_RUN = re.compile(rf"[A-Za-z0-9_-]{{{MIN_LENGTH},}}")
_URLSAFE = re.compile(r"[A-Za-z0-9_-]+")
TOOLING_LOGGERS = ("factory", "faker", "faker.factory")
PASSWORD_FIELDS = re.compile(r"^(password\d?|new_password\d|old_password)$")
LEAKS_KEY = "log_secret_leaks"
CHECKED_KEY = "log_secret_checked"


class SecretRegistry:
    """Every secret the tests used, with its kind; the first kind given to a value stays."""

    def __init__(self):
        self.kinds: dict[str, str] = {}

    def add(self, kind: str, value) -> None:
        if not isinstance(value, str) or len(value) < MIN_LENGTH:
            return
        if kind == "password" and value.isalpha():
            # A test's made-up wrong password that is a plain word ("anything") is also in paths and texts;
            # generated secrets and the suite's own passwords hold digits or signs.
            return
        self.kinds.setdefault(value, kind)

    def found_in(self, text: str) -> list[dict]:
        """Each registered secret that occurs in `text`: its kind, a masked hint and the line it is on."""
        found: dict[str, int] = {}
        urlsafe = {value for value in self.kinds if _URLSAFE.fullmatch(value)}
        if urlsafe:
            # One pass over the log's runs of URL-safe characters, then substrings of the secrets' lengths:
            # thousands of secrets against a log of many megabytes, without a search per secret.
            lengths = sorted({len(value) for value in urlsafe})
            seen: set[str] = set()
            for match in _URLSAFE_RUN.finditer(text):
                run = match.group()
                if run in seen:
                    continue
                seen.add(run)
                for length in lengths:
                    for start in range(len(run) - length + 1):
                        piece = run[start : start + length]
                        if piece in urlsafe and piece not in found:
                            found[piece] = match.start() + start
        for value in self.kinds.keys() - urlsafe:
            position = text.find(value)
            if position >= 0:
                found[value] = position
        return [
            {
                "kind": self.kinds[value],
                "hint": value[:3] + "…",
                "line": text.count("\n", 0, position) + 1,
            }
            for value, position in sorted(found.items(), key=lambda item: item[1])
        ]


REGISTRY = SecretRegistry()


def register(kind: str, value) -> None:
    """For a test that uses a secret made some other way."""
    REGISTRY.add(kind, value)


class _Patches:
    def __init__(self):
        self._undo: list[Callable[[], None]] = []

    def wrap(self, owner, name: str, after: Callable) -> None:
        """owner.name(...) runs as before; `after(result, *args, **kwargs)` sees what went in and out."""
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            after(result, *args, **kwargs)
            return result

        setattr(owner, name, wrapper)
        self._undo.append(lambda: setattr(owner, name, original))

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()


def _install_registry(patches: _Patches) -> None:
    from django.conf import settings
    from django.contrib.auth.base_user import AbstractBaseUser
    from django.contrib.auth.tokens import PasswordResetTokenGenerator
    from django.contrib.sessions.backends.base import SessionBase
    from django.test.client import RequestFactory
    from oauthlib.oauth2.rfc6749.grant_types.authorization_code import AuthorizationCodeGrant
    from oauthlib.oauth2.rfc6749.tokens import BearerToken

    import apicore.secrets
    import main_api.auth
    import main_api.services
    import mobile_api.services.app_clients

    add = REGISTRY.add
    add("signing key", settings.SECRET_KEY)
    for key in getattr(settings, "SECRET_KEY_FALLBACKS", []):
        add("signing key", key)

    patches.wrap(AbstractBaseUser, "set_password", lambda _r, _user, raw, *a, **k: add("password", raw))
    patches.wrap(AbstractBaseUser, "check_password", lambda _r, _user, raw, *a, **k: add("password", raw))
    patches.wrap(PasswordResetTokenGenerator, "make_token", lambda token, *a, **k: add("password reset token", token))
    patches.wrap(SessionBase, "_get_new_session_key", lambda key, *a, **k: add("session key", key))

    def issued(token, *args, **kwargs):
        add("access token", token.get("access_token"))
        add("refresh token", token.get("refresh_token"))

    patches.wrap(BearerToken, "create_token", issued)
    patches.wrap(
        AuthorizationCodeGrant, "create_authorization_code", lambda g, *a, **k: add("authorization code", g.get("code"))
    )

    # Module globals, so that every caller of these names in those modules goes through the wrapper.
    patches.wrap(main_api.services, "new_secret", lambda secret, *a, **k: add("client secret", secret))
    patches.wrap(mobile_api.services.app_clients, "new_secret", lambda secret, *a, **k: add("app client key", secret))
    patches.wrap(apicore.secrets, "secret_hash", lambda _h, secret, *a, **k: add("client secret", secret))
    patches.wrap(main_api.auth, "secret_hash", lambda _h, credential, *a, **k: add("bearer credential", credential))

    def posted(_response, _factory, _path, data=None, *args, content_type=None, **kwargs):
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError:
                return
        if not isinstance(data, dict):
            return
        for field, value in data.items():
            if PASSWORD_FIELDS.match(str(field)):
                add("password", value)
            elif field in {"client_secret", "refresh_token", "code", "access_token"}:
                add(field.replace("_", " "), value)

    patches.wrap(RequestFactory, "post", posted)


_capture_path: Path | None = None


def _install_capture(path: Path) -> None:
    global _capture_path
    from django.db import connections
    from django.db.backends.signals import connection_created

    _capture_path = path
    _configure_capture(path)
    for connection in connections.all():
        _log_sql_of(connection)
    connection_created.connect(_on_connection_created, dispatch_uid="tests.log_secrets")


def _configure_capture(path: Path) -> None:
    from config.log_redaction import logging_config

    handler = {"class": "logging.FileHandler", "filename": str(path), "encoding": "utf-8"}
    config = logging_config("DEBUG", handler=handler)
    for name in TOOLING_LOGGERS:
        config["loggers"][name] = {"level": "WARNING"}
    logging.config.dictConfig(config)
    logging.disable(logging.NOTSET)


def capture_path() -> Path:
    """The file this process logs the run to."""
    assert _capture_path is not None, "the run's log capture is not installed"
    return _capture_path


def reinstall_capture() -> None:
    """For a test that configured logging its own way: the run's capture goes on (appending to its file)."""
    if _capture_path is not None:
        _configure_capture(_capture_path)


def _checked(text: str) -> dict:
    kinds: dict[str, int] = {}
    for kind in REGISTRY.kinds.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    return {"lines": text.count("\n"), "secrets": kinds}


_sql_logger = logging.getLogger("django.db.backends")


def _log_sql(execute, sql, params, many, context):
    """Each statement logged as Django's debug cursor logs it with DEBUG=True: same logger, message and
    arguments (the statement with its values written in, then the values). Not through
    `force_debug_cursor` itself: with queries logged, the token lookup leaves its prepared statement for
    the default cursor (main_api.token_lookup), and the suite would no longer run the production path."""
    started = time.monotonic()
    try:
        return execute(sql, params, many, context)
    finally:
        if _sql_logger.isEnabledFor(logging.DEBUG):
            connection = context["connection"]
            shown = None
            if not many:
                try:
                    shown = connection.ops.last_executed_query(context["cursor"], sql, params)
                except Exception:  # what Django would show is not worth failing a test for
                    shown = None
            shown = shown or sql
            duration = time.monotonic() - started
            _sql_logger.debug(
                "(%.3f) %s; args=%s; alias=%s",
                duration,
                shown,
                params,
                connection.alias,
                extra={"duration": duration, "sql": shown, "params": params, "alias": connection.alias},
            )


def _log_sql_of(connection) -> None:
    if _log_sql not in connection.execute_wrappers:
        connection.execute_wrappers.append(_log_sql)


def _on_connection_created(sender, connection, **kwargs):
    _log_sql_of(connection)


def _is_xdist_controller(config) -> bool:
    return config.pluginmanager.getplugin("dsession") is not None


class LogSecretsPlugin:
    def __init__(self, config):
        self.config = config
        self.patches = _Patches()
        self.log_path: Path | None = None
        self.leaks: list[dict] = []
        self.checked: list[dict] = []

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session):
        if _is_xdist_controller(self.config):
            return
        worker = getattr(self.config, "workerinput", {}).get("workerid", "main")
        folder = Path(tempfile.mkdtemp(prefix="log-secrets-"))
        self.log_path = folder / f"{worker}.log"
        _install_capture(self.log_path)
        _install_registry(self.patches)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session, exitstatus):
        if self.log_path is not None:
            self.patches.undo()
            for handler in logging.getLogger().handlers:
                handler.flush()
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
            found = REGISTRY.found_in(text)
            for leak in found:
                leak["log"] = str(self.log_path)
            self.leaks.extend(found)
            self.checked.append(_checked(text))
            if hasattr(self.config, "workeroutput"):
                self.config.workeroutput[LEAKS_KEY] = found
                self.config.workeroutput[CHECKED_KEY] = self.checked[-1]
            elif not found:
                # Kept when something was found, to be read; otherwise not worth the disk.
                self.log_path.unlink(missing_ok=True)
        if self.leaks:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        output = getattr(node, "workeroutput", {})
        self.leaks.extend(output.get(LEAKS_KEY, []))
        if CHECKED_KEY in output:
            self.checked.append(output[CHECKED_KEY])

    def pytest_terminal_summary(self, terminalreporter):
        if hasattr(self.config, "workerinput") or not self.checked:
            return
        kinds: dict[str, int] = {}
        for checked in self.checked:
            for kind, count in checked["secrets"].items():
                kinds[kind] = kinds.get(kind, 0) + count
        terminalreporter.write_line(
            f"log check: {len(self.checked)} log(s) captured at DEBUG, "
            f"{sum(checked['lines'] for checked in self.checked)} lines, searched for "
            + ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
            + f": {len(self.leaks)} found"
        )
        if not self.leaks:
            return
        terminalreporter.section("secrets in the log", red=True)
        for leak in self.leaks:
            terminalreporter.write_line(
                f"a {leak['kind']} ({leak['hint']}) is in the log captured at DEBUG: {leak['log']} line {leak['line']}"
            )


def pytest_configure(config):
    # Every record now reaches the root logger at DEBUG; a failing test's report shows WARNING and above
    # of them, unless asked otherwise (--log-level). caplog.at_level / set_level work as ever.
    if config.getoption("log_level", None) is None and not config.getini("log_level"):
        config.option.log_level = "WARNING"
    config.pluginmanager.register(LogSecretsPlugin(config), "log-secrets-check")
