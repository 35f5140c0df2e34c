"""Settings for the test suite: the real settings, with a fast password hasher and a private cache."""

import os

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests share nothing through the cache unless a test asks for Redis itself (TEST_REDIS_URL).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CELERY_TASK_ALWAYS_EAGER = True
REQUIRE_HTTPS = True
TEST_REDIS_URL = os.environ.get("TEST_REDIS_URL", "")
WEBHOOK_ALLOW_LOOPBACK = True
