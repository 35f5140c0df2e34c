"""Settings, read from environment variables (see the README's configuration table).

With nothing set, the service runs on the embedded default: a SQLite file, an in-process cache and a
file-system Celery broker, so that `make run` needs no server.
"""

import os
import urllib.parse
from pathlib import Path

import dj_database_url
import dj_email_url

from config.log_redaction import logging_config

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and os.environ.get("DJANGO_REQUIRE_SECRET_KEY"):
        raise RuntimeError("SECRET_KEY must be set")
    SECRET_KEY = "insecure-development-key-change-me"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver")

# Plain HTTP to the API answers 403 (10000). The local demo turns this off.
REQUIRE_HTTPS = env_bool("REQUIRE_HTTPS", True)
# Addresses of reverse proxies whose X-Forwarded-Proto and X-Forwarded-For are believed.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")
# When HTTPS is required, the websites are https only too (apicore.middleware.TrustedProxySchemeMiddleware
# runs first, so https behind a trusted proxy counts): plain HTTP to a page is redirected (API addresses
# answer 403 10000 from HttpsRequiredMiddleware instead, and /health and /ready stay open to load balancers), the
# session and CSRF cookies are Secure, and browsers are told to use https only (HSTS).
SECURE_SSL_REDIRECT = REQUIRE_HTTPS
SECURE_REDIRECT_EXEMPT = [r"^(main|mobile)/v\d+(/|$)", r"^health$", r"^ready$"]
SESSION_COOKIE_SECURE = REQUIRE_HTTPS
CSRF_COOKIE_SECURE = REQUIRE_HTTPS
SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "31536000")) if REQUIRE_HTTPS else 0
# Off unless asked: every subdomain (and the preload list) is a decision about hosts beyond this service.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", False)

INSTALLED_APPS = [
    "adminkit.apps.OrganizationAdminConfig",  # django.contrib.admin, organization-scoped
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",  # the OpenAPI document (apicore.openapi)
    "drf_spectacular_sidecar",  # Swagger UI's files, served by us: the docs page loads nothing from elsewhere
    "oauth2_provider",
    "apicore",
    "accounts",
    "main_api",
    "mobile_api",
    "member_site",
    "objects_app",
    "bookings",
    "flightlog",
    "economy",
    "webhooks",
    "demo",
]

MIDDLEWARE = [
    "apicore.middleware.RequestIdMiddleware",
    "apicore.middleware.ApiRequestLimitsMiddleware",  # wrong Host, body over the limit: the API's own answer
    "apicore.middleware.TrustedProxySchemeMiddleware",
    "apicore.middleware.HttpsRequiredMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.csp.PageKindCSPMiddleware",  # django-csp: a Content-Security-Policy per kind of page (config.csp)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "config.language.NorwegianAliasesMiddleware",  # `no` and `nn` read as `nb`, before the language is chosen
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL") or f"sqlite:///{VAR_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg prepares a statement the first time it runs on a server-side-binding cursor. Only the token
    # lookup of every API call uses one (main_api.token_lookup); Django's cursors keep client-side binding,
    # which never prepares. Needs a direct connection or PgBouncer 1.21+ (max_prepared_statements).
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 0
elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite has no row locks (SELECT ... FOR UPDATE is a no-op): a write transaction takes the database's
    # write lock at BEGIN, so concurrent writers wait for each other (up to the timeout) instead of one of
    # them failing with "database is locked" when it upgrades a read; the second duplicate transaction then
    # sees the first and gets 409 10130.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 20})
# The planner's price of a page read out of order, set on every PostgreSQL connection (apicore.database): 1.1 for
# tables read from memory or SSD; empty keeps the server's (docs/decisions.md §12.24 "The planner's page cost").
POSTGRES_RANDOM_PAGE_COST = float(os.environ.get("POSTGRES_RANDOM_PAGE_COST", "1.1") or 0) or None
# No ATOMIC_REQUESTS: API reads run in autocommit and every API write is one transaction
# (apicore.views.MainApiView.dispatch); services are atomic wherever else they are called from.
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# Seconds between a process's tries of a Redis that did not answer.
REDIS_RETRY_SECONDS = float(os.environ.get("REDIS_RETRY_SECONDS", "5"))
if REDIS_URL:
    # While Redis is away, each process keeps the limits in its own memory and tries Redis again every few
    # seconds (apicore.cache; docs/decisions.md §12.21 "When Redis or the broker is away").
    CACHES = {"default": {"BACKEND": "apicore.cache.RedisCacheWithFallback", "LOCATION": REDIS_URL}}
else:
    # Local memory: rate-limit counters are per process, so the embedded default runs one process.
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("sv", "Svenska"), ("nb", "Norsk bokmål"), ("da", "Dansk")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]  # the websites' style sheet (static/site.css)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = VAR_DIR / "media"

# Mail (the password reset). Production sets EMAIL_URL, read by dj-email-url: submission://user:password@host
# (STARTTLS on 587) or smtp://user:password@host:465?ssl=true. Unset, each message is a file in VAR_DIR/mail
# (what `make run` uses), so that nothing tries a mail server that is not there.
_email_url = os.environ.get("EMAIL_URL", "")  # not a setting: it may hold a password (debug pages show settings)
if _email_url:
    _email = dj_email_url.parse(_email_url)
    if "EMAIL_BACKEND" not in _email:  # dj-email-url would leave Django's SMTP to localhost:25
        raise RuntimeError("EMAIL_URL: the scheme must be smtp, submission, console, file, memory or dummy")
    if _email_url.startswith("file:"):
        # dj-email-url drops the path's first slash; file:///srv/mail means /srv/mail.
        _email["EMAIL_FILE_PATH"] = urllib.parse.urlparse(_email_url).path or str(VAR_DIR / "mail")
    globals().update(_email)
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(VAR_DIR / "mail")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "noreply@localhost")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "DEFAULT_RENDERER_CLASSES": ["apicore.renderers.ApiJSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "apicore.negotiation.JsonOnlyNegotiation",
}

# The OpenAPI documents (apicore.openapi.document_routes gives each API its title, server and routes).
SPECTACULAR_SETTINGS = {
    "OAS_VERSION": "3.1.0",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge: Swagger UI would send the document to validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"validatorUrl": None, "deepLinking": True},
    # Its `check --deploy` walks every route with drf-spectacular's own generator, which reads none of our views
    # (drf_spectacular.E001); apicore.openapi.documents_check generates each API's document instead (§12.20).
    "ENABLE_DJANGO_DEPLOY_CHECK": False,
}

OAUTH2_PROVIDER = {
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    # DOT counts a refresh token's life from its access token's end: 90 days from the last use (document 2).
    "REFRESH_TOKEN_EXPIRE_SECONDS": 90 * 24 * 3600 - 3600,
    # The Mobile API's sign-in (document 2, ../shared/DECISIONS.md "Mobile sign-in", docs/decisions.md §9.8
    # "Authorization codes" and §9.9 "Refresh tokens"; mobile_api.oauth).
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    # Keep only the SHA-256 checksum of issued tokens at rest (RFC 9700).
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
    # RFC 9207 `iss` in every authorization response (RFC 9700 4.4). Our authorize and consent views build the
    # redirect themselves and add it (mobile_api.oauth_v5.app_redirect; docs/decisions.md §9.36).
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "SCOPES": {},
}

# `manage.py check --deploy` warnings that are decisions (docs/decisions.md §12.20 "The deployment checks"):
SILENCED_SYSTEM_CHECKS = [
    # Plain http redirect addresses stay allowed by django-oauth-toolkit, for a native app's loopback redirect
    # (RFC 8252 7.3); the app client service registers http only to 127.0.0.1, [::1] and localhost (§9.3).
    "oauth2_provider.W008",
    # HSTS for every subdomain and the preload list are decisions about hosts beyond this service: off unless
    # the operator sets HSTS_INCLUDE_SUBDOMAINS / HSTS_PRELOAD (§12.3).
    "security.W005",
    "security.W021",
]

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _queue_dir = Path(os.environ.get("CELERY_BROKER_FOLDER", VAR_DIR / "broker"))
    # kombu's file-system transport expects its folders to exist, in the web process and the worker alike.
    for _folder in ("processed", "control"):
        (_queue_dir / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue_dir),
        "data_folder_out": str(_queue_dir),
        "processed_folder": str(_queue_dir / "processed"),
        "control_folder": str(_queue_dir / "control"),
        "store_processed": False,
    }
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE = {
    "oauth-tokens-clear-expired": {"task": "accounts.oauth_tokens_clear_expired", "schedule": 3600.0},
    "webhooks-deliveries-sweep": {"task": "webhooks.deliveries_sweep", "schedule": 15.0},
    "webhooks-paused-ping": {"task": "webhooks.paused_webhooks_ping", "schedule": 3600.0},
    "webhooks-delivery-log-purge": {"task": "webhooks.delivery_log_purge", "schedule": 24 * 3600.0},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TASK_IGNORE_RESULT = True
# Tasks name their queue in tests and the bench (a worker of their own); everything else uses "celery".
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")

# Webhooks (../shared/DECISIONS.md "Webhooks"; docs/decisions.md §10.11 "Addresses" and §10.10 "Secrets
# encrypted, not hashed"). Plain http to loopback addresses only where this is set (tests, `make run`); the
# secrets' encryption keys (Fernet, comma-separated, the first encrypts), else derived from SECRET_KEY
# (webhooks.secrets).
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", False)
WEBHOOK_SECRETS_KEYS = [key for key in os.environ.get("WEBHOOK_SECRETS_KEYS", "").split(",") if key]

# Request size (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §1.23 "Bodies over 1 MiB"): a body
# over 1 MiB is refused (API: 413 10004, see apicore.middleware.ApiRequestLimitsMiddleware); Django's default
# count of form and query fields stays.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000

# API limits (../shared/DECISIONS.md "Limits that the contract leaves open"; docs/decisions.md §2.8 "Failed token
# checks", §3.17 "Failed logins", §9.22 "Limits").
MAIN_API_CALLS_PER_MINUTE = 120
MOBILE_CLIENT_CALLS_PER_MINUTE = 600  # per app client over all its members, unless it has its own limit
MOBILE_LOGIN_CALLS_PER_MINUTE = 120  # per member login (Mobile API v5), counted besides the client's
FAILED_TOKEN_CHECKS_PER_IP = 20
FAILED_TOKEN_CHECKS_WINDOW_SECONDS = 600
# The login page and POST /login-checks share this count per username.
FAILED_LOGINS_PER_USERNAME = 5
FAILED_LOGINS_WINDOW_SECONDS = 900
# POST /login-checks of usernames that are no members of the token's organization, per token.
FAILED_LOGIN_CHECKS_PER_TOKEN = 20
FAILED_LOGIN_CHECKS_WINDOW_SECONDS = 600
# The login page (the Mobile sign-in's too) and the admin login, per client address, whatever the usernames.
FAILED_LOGINS_PER_ADDRESS = 30
FAILED_LOGINS_PER_ADDRESS_WINDOW_SECONDS = 900

# No secret in any log at any level: levels and a redacting filter on the handler (config.log_redaction).
LOGGING = logging_config(os.environ.get("LOG_LEVEL", "WARNING"))
# The Celery worker keeps this configuration (and so the filter) instead of replacing the root handler.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# django-oauth-toolkit's swappable models, named because accounts.ApiToken and its migration refer to them.
OAUTH2_PROVIDER_APPLICATION_MODEL = "oauth2_provider.Application"
OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL = "oauth2_provider.AccessToken"
OAUTH2_PROVIDER_REFRESH_TOKEN_MODEL = "oauth2_provider.RefreshToken"
OAUTH2_PROVIDER_ID_TOKEN_MODEL = "oauth2_provider.IDToken"
OAUTH2_PROVIDER_GRANT_MODEL = "oauth2_provider.Grant"
# Celery's Django fix-up closes every database connection before and after each task unless this is set;
# with it, it closes them every 1,000 tasks, and config.celery closes a broken or aged one before each task
# as Django does between requests (CONN_MAX_AGE). A new connection a task cost more than the webhook try.
CELERY_DB_REUSE_MAX = 1000
