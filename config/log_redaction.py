"""No secret reaches a log: the logging configuration of the service (../shared/DECISIONS.md "Hostile input";
docs/decisions.md §12.1 "No secret in any log").

Two independent layers, so that either one alone keeps tokens out of the log:
- levels: oauthlib's DEBUG lines print every issued token (`Issuing token ... {'access_token': ...}`), so
  that logger never goes below INFO, whatever LOG_LEVEL says;
- a filter on every handler (`RedactSecrets`) that rewrites each record before it is written: values of
  secret-named fields (access_token=..., "password": "...", client_secret, code, ...), Bearer and Basic
  credentials, passwords in URLs, password-reset links (by position: whatever follows /password-reset/<uid>/),
  and every text value of an SQL statement that django.db.backends logs (session keys, session data, password
  hashes, token checksums and personal data are all text; statements, numbers and the count of parameters
  stay).

This module imports nothing of Django: settings.py builds LOGGING with it, and the test suite's log capture
(tests/log_secrets.py) installs the same configuration at DEBUG.
"""

import logging
import re

REDACTED = "[redacted]"

# Field names whose value is a secret, as whole names (token_type, code_verifier_method... are other names).
_SECRET_KEYS = (
    r"access_token|refresh_token|id_token|token|client_secret|secret|password\d?|new_password\d?|old_password"
    r"|passwd|code|api_key|signing_key|session_?key|sessionid|csrftoken|csrfmiddlewaretoken|authorization"
)
# "key": "value", 'key': 'value', key='value', key: "value" (a dict repr, JSON, a Python call).
_QUOTED_PAIR = re.compile(
    rf"""(?P<key>(?<![\w-])(?P<q1>['"]?)(?:{_SECRET_KEYS})(?P=q1)\s*[:=]\s*)(?P<q2>['"])(?:\\.|(?!(?P=q2)).)*(?P=q2)""",
    re.IGNORECASE,
)
# key=value in a query string, a form body or a "key=value" log line.
_BARE_PAIR = re.compile(rf"(?P<key>(?:^|(?<=[\s?&;,(]))(?:{_SECRET_KEYS})=)(?P<value>[^\s&;,'\")]+)", re.IGNORECASE)
_AUTH_SCHEME = re.compile(r"\b(?P<scheme>Bearer|Basic)\s+[A-Za-z0-9._~+/=%-]+", re.IGNORECASE)
# scheme://user:password@host (DATABASE_URL, REDIS_URL, a broker URL in an error message).
_URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^:/\s@]*:)[^@\s/]+(?=@)", re.IGNORECASE)
# A password-reset link, by position: whatever follows /password-reset/<uid>/ up to the end of the path (any
# form: Django's tokens were 20 hex digits with SHA-1 and are 32 with SHA-256; a made-up or mangled one is
# redacted too), in a request line, a full address, a Referer or percent-encoded in a query (`%2F`). Only
# Django's own `set-password` (the address the link redirects to once its token is in the session) stays.
_SLASH = r"(?:/|%2F)"
_PATH_END = r"""\s?#&"'<>"""
_RESET_LINK = re.compile(
    rf"(?P<head>{_SLASH}password-reset{_SLASH}[^/{_PATH_END}%]+{_SLASH})"
    rf"(?!set-password(?:[{_PATH_END}]|$))[^{_PATH_END}]+",
    re.IGNORECASE,
)
# A password-reset token outside a link (a traceback's values, a mail's text): a base-36 timestamp, a dash,
# 20 (SHA-1) to 64 hex digits (PasswordResetTokenGenerator).
_RESET_TOKEN = re.compile(r"(?<![0-9A-Za-z])[0-9a-z]{1,13}-[0-9a-f]{20,64}(?![0-9A-Za-z])")
# A text literal of SQL, as Django's last_executed_query renders it on SQLite and PostgreSQL ('' escapes ').
_SQL_TEXT = re.compile(r"'(?:[^']|'')*'")


def redact(text: str) -> str:
    """The text with every value of a known secret shape replaced by [redacted]."""
    text = _QUOTED_PAIR.sub(lambda m: f"{m['key']}{m['q2']}{REDACTED}{m['q2']}", text)
    text = _BARE_PAIR.sub(lambda m: f"{m['key']}{REDACTED}", text)
    text = _AUTH_SCHEME.sub(lambda m: f"{m['scheme']} {REDACTED}", text)
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}", text)
    text = _RESET_LINK.sub(lambda m: f"{m['head']}{REDACTED}", text)
    return _RESET_TOKEN.sub(REDACTED, text)


def redact_sql(sql: str) -> str:
    """An SQL statement without its text values."""
    return _SQL_TEXT.sub("'…'", sql)


class RedactSecrets(logging.Filter):
    """Rewrites a record's message, traceback and stack so that no secret shape is left; drops nothing.

    On a handler, it sees every record that handler writes, from any logger that propagates to it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.db.backends") and isinstance(record.args, tuple) and len(record.args) == 4:
            # "(%.3f) %s; args=%s; alias=%s": the statement with its values written in, then the values.
            duration, sql, params, alias = record.args
            count = len(params) if isinstance(params, list | tuple | dict) else "?"
            record.msg = "(%.3f) %s; args=<%s values>; alias=%s"
            record.args = (duration, redact(redact_sql(str(sql))), count, alias)
            for name in ("sql", "params"):
                if hasattr(record, name):
                    setattr(record, name, REDACTED)
        else:
            message = record.getMessage()
            redacted = redact(message)
            if redacted != message:
                record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


def _at_least(level: str, floor: str) -> str:
    return level if logging.getLevelName(level) >= logging.getLevelName(floor) else floor


def logging_config(level: str = "WARNING", handler: dict | None = None) -> dict:
    """Django's LOGGING: one handler (the console unless given) behind RedactSecrets, at `level`."""
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact_secrets": {"()": "config.log_redaction.RedactSecrets"}},
        "handlers": {
            "console": {**(handler or {"class": "logging.StreamHandler"}), "filters": ["redact_secrets"]},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's defaults give "django" a console handler of its own (with DEBUG) and mail_admins, both
            # without the filter, and hold it at INFO; here it writes through the root handler like the rest.
            "django": {"level": level},
            # Django's defaults give "django.server" (runserver's request lines) a handler of its own and stop
            # it there (propagate False): its lines would go nowhere, or around the filter.
            "django.server": {"level": _at_least(level, "INFO"), "propagate": True},
            # Its DEBUG lines print issued tokens and the requests that carried them.
            "oauthlib": {"level": _at_least(level, "INFO")},
        },
    }
