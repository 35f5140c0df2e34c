"""HTTPS when it is required (issue 7, section 3): Secure cookies, HSTS, websites redirected to https, API
addresses answering 403 10000; `make run` (REQUIRE_HTTPS=false) keeps working over plain HTTP.

The settings are read from config/settings.py as a new process would with each REQUIRE_HTTPS, then applied
with the `settings` fixture (the rest of the suite browses the website over plain HTTP: tests/conftest.py).
"""

import runpy
from pathlib import Path

import pytest
from django.test import Client

from bench.server import Gunicorn, service_env
from tests.factories import MemberFactory
from tests.helpers import assert_problem

SETTINGS_FILE = Path(__file__).resolve().parent.parent / "config" / "settings.py"
PASSWORD = "secret-pass-1"  # UserFactory's
PROXY = "10.0.0.5"
SECURITY_SETTINGS = (
    "REQUIRE_HTTPS",
    "SECURE_SSL_REDIRECT",
    "SECURE_REDIRECT_EXEMPT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
)


def settings_with(monkeypatch, **env) -> dict:
    """The security settings config/settings.py gives in a process started with `env`."""
    for name in ("REQUIRE_HTTPS", "HSTS_SECONDS", "HSTS_INCLUDE_SUBDOMAINS", "HSTS_PRELOAD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    values = runpy.run_path(str(SETTINGS_FILE))
    return {name: values[name] for name in SECURITY_SETTINGS}


@pytest.fixture
def https_required(settings, monkeypatch):
    for name, value in settings_with(monkeypatch).items():
        setattr(settings, name, value)
    settings.TRUSTED_PROXIES = [PROXY]
    return settings


@pytest.fixture
def plain_http_demo(settings, monkeypatch):
    """`make run`: bin/run-demo sets REQUIRE_HTTPS=false."""
    for name, value in settings_with(monkeypatch, REQUIRE_HTTPS="false").items():
        setattr(settings, name, value)
    return settings


@pytest.fixture
def member(org):
    return MemberFactory(organization=org, user__username="anna.berg")


def log_in(client, member, **extra):
    return client.post("/login", {"username": member.user.username, "password": PASSWORD}, **extra)


def test_https_required_is_the_default_and_turns_every_protection_on(monkeypatch):
    values = settings_with(monkeypatch)

    assert values["REQUIRE_HTTPS"] is True
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600


def test_hsts_can_be_tuned_by_the_environment(monkeypatch):
    values = settings_with(monkeypatch, HSTS_SECONDS="600", HSTS_INCLUDE_SUBDOMAINS="true", HSTS_PRELOAD="true")

    assert values["SECURE_HSTS_SECONDS"] == 600
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True


def test_a_login_posted_over_plain_http_is_redirected_and_logs_nobody_in(https_required, member):
    client = Client()

    response = log_in(client, member)

    assert response.status_code == 301
    assert response["Location"] == "https://testserver/login"
    assert "_auth_user_id" not in client.session
    assert "sessionid" not in response.cookies


@pytest.mark.parametrize("path", ["/login", "/admin/", "/password-reset/", "/account/", "/"])
def test_a_website_page_over_plain_http_redirects_to_https(https_required, db, path):
    response = Client().get(path, {"next": "/admin/"})

    assert response.status_code == 301
    assert response["Location"] == f"https://testserver{path}?next=%2Fadmin%2F"


@pytest.mark.parametrize(
    ("method", "path"), [("get", "/main/v5/token"), ("post", "/main/v5/oauth/token"), ("get", "/main/v5/openapi.json")]
)
def test_an_api_address_over_plain_http_still_answers_403_10000(https_required, db, method, path):
    response = getattr(Client(), method)(path)

    assert_problem(response, 403, 10000)
    assert "Strict-Transport-Security" not in response


def test_health_stays_open_over_plain_http_for_load_balancers(https_required, db):
    response = Client().get("/health")

    assert response.status_code == 200


def test_over_https_the_cookies_are_secure_and_hsts_is_sent(https_required, member):
    client = Client()

    page = client.get("/login", secure=True)
    response = log_in(client, member, secure=True)

    assert page.status_code == 200
    assert page["Strict-Transport-Security"] == "max-age=31536000"
    assert page.cookies["csrftoken"]["secure"] is True
    assert response.status_code == 302
    assert response["Strict-Transport-Security"] == "max-age=31536000"
    assert response.cookies["sessionid"]["secure"] is True
    assert response.cookies["sessionid"]["httponly"] is True
    assert client.session["_auth_user_id"] == str(member.user_id)


def test_https_behind_a_trusted_proxy_counts_and_a_stranger_saying_https_is_redirected(https_required, member):
    behind_proxy = log_in(Client(), member, REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_PROTO="https")
    stranger = log_in(Client(), member, REMOTE_ADDR="203.0.113.9", HTTP_X_FORWARDED_PROTO="https")

    assert behind_proxy.status_code == 302
    assert behind_proxy["Strict-Transport-Security"] == "max-age=31536000"
    assert behind_proxy.cookies["sessionid"]["secure"] is True
    assert stranger.status_code == 301
    assert stranger["Location"] == "https://testserver/login"


def test_make_run_keeps_working_over_plain_http(plain_http_demo, member):
    client = Client()

    page = client.get("/login")
    response = log_in(client, member)

    assert page.status_code == 200
    assert "Strict-Transport-Security" not in page
    assert page.cookies["csrftoken"]["secure"] == ""
    assert response.status_code == 302
    assert response.cookies["sessionid"]["secure"] == ""
    assert client.session["_auth_user_id"] == str(member.user_id)
    assert Client().get("/main/v5/openapi.json").status_code == 200


# --- gunicorn's control socket -----------------------------------------------------------------------


@pytest.mark.live
def test_benchmark_servers_run_side_by_side_without_the_shared_control_socket(tmp_path):
    """bench.server.Gunicorn (the benchmarks, the live tests) opens no control socket: by default every
    gunicorn of a user takes $HOME/.gunicorn/gunicorn.ctl from the one before."""
    home = tmp_path / "home"
    home.mkdir()
    env = service_env(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", redis_url="")
    env["HOME"] = str(home)
    env.pop("XDG_RUNTIME_DIR", None)
    first = Gunicorn(env, workers=1, log_path=tmp_path / "first.log")
    second = Gunicorn(env, workers=1, log_path=tmp_path / "second.log")
    try:
        clients = [first.start(), second.start()]
        statuses = [client.get("/health").status for client in clients]
    finally:
        first.stop()
        second.stop()

    assert statuses == [200, 200]
    assert not (home / ".gunicorn").exists()
    assert "control" not in (tmp_path / "first.log").read_text().lower()


@pytest.mark.live
def test_gunicorns_access_log_holds_no_password_reset_token_or_credential(tmp_path):
    """The access log writes every request line; bin/run-demo names config.gunicorn_logging.RedactingLogger."""
    access_log = tmp_path / "access.log"
    env = service_env(database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}", redis_url="")
    reset_token = "cz1b2c-0123456789abcdef0123"
    server = Gunicorn(
        env,
        workers=1,
        log_path=tmp_path / "gunicorn.log",
        extra_args=["--logger-class", "config.gunicorn_logging.RedactingLogger", "--access-logfile", str(access_log)],
    )
    try:
        client = server.start()
        client.get(f"/password-reset/MQ/{reset_token}")
        client.get("/main/v5/token?access_token=Zk3XZk3XZk3X&limit=5")
    finally:
        server.stop()

    log = access_log.read_text()
    assert "GET /password-reset/MQ/[redacted]" in log
    assert "access_token=[redacted]&limit=5" in log
    assert reset_token not in log
    assert "Zk3XZk3XZk3X" not in log
