"""Redis as the shared cache, with a process-local fallback while Redis is away (docs/decisions.md §12.21).

Every API call reads and counts in the cache (the rate limits, the revision stamps of the token rows, the
Mobile API's blocked addresses, the failed logins). When Redis does not answer, each process keeps those
by itself in its own memory instead of failing the call: the limits then hold per process (a client may
get up to one limit per process), which is what the embedded default does all the time.

A `Breaker` per Redis address and process decides: while Redis is away, no call waits for it; one call
every `RETRY_SECONDS` tries it again (the connect timeout is short, so that try costs little), and the
first that succeeds brings the process back to Redis. Each switch is logged once, a warning on the way to
the local memory and a warning on the way back.
"""

import logging
import threading
import time

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger("apicore.cache")

# Seconds between tries of a Redis that did not answer.
RETRY_SECONDS = 5.0
# Bounded waits on Redis: a refused or unreachable address fails in well under a second.
CONNECT_TIMEOUT_SECONDS = 0.5
SOCKET_TIMEOUT_SECONDS = 2.0


def unreachable_errors() -> tuple[type[BaseException], ...]:
    """What redis-py raises when the server is away (refused, reset, timed out, still loading its data)."""
    import redis

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class Breaker:
    """Whether this process uses Redis (at `location`) or its own memory, and when to try Redis again."""

    def __init__(self, location: str):
        self.location = location
        self.down = False
        self.retry_at = 0.0
        self._lock = threading.Lock()

    def available(self) -> bool:
        """True when Redis is up, or down but due for another try (the try is taken: others keep waiting)."""
        if not self.down:
            return True
        now = time.monotonic()
        with self._lock:
            if now < self.retry_at:
                return False
            self.retry_at = now + retry_seconds()
            return True

    def failed(self, error: BaseException) -> None:
        with self._lock:
            self.retry_at = time.monotonic() + retry_seconds()
            if self.down:
                return
            self.down = True
        logger.warning(
            "Redis cache unreachable (%s: %s); this process keeps the limits and stamps in its own memory "
            "and tries Redis again every %s s",
            type(error).__name__,
            error,
            retry_seconds(),
        )

    def succeeded(self) -> None:
        if not self.down:
            return
        with self._lock:
            if not self.down:
                return
            self.down = False
        logger.warning("Redis cache answers again; this process uses it for the limits and stamps again")


def retry_seconds() -> float:
    return float(getattr(settings, "REDIS_RETRY_SECONDS", RETRY_SECONDS))


_breakers: dict[str, Breaker] = {}
_breakers_lock = threading.Lock()


def breaker(location: str) -> Breaker:
    """The one breaker of this process for `location` (the cache and the counters share it)."""
    found = _breakers.get(location)
    if found is None:
        with _breakers_lock:
            found = _breakers.setdefault(location, Breaker(location))
    return found


def local_cache(location: str, timeout: float | None = None) -> LocMemCache:
    """The process's own memory that stands in for Redis at `location` (one store per address); `timeout` is
    the lifetime of an entry stored without one."""
    return LocMemCache(f"redis-fallback:{location}", {"TIMEOUT": timeout, "OPTIONS": {"MAX_ENTRIES": 100_000}})


def redis_options() -> dict:
    return {"socket_connect_timeout": CONNECT_TIMEOUT_SECONDS, "socket_timeout": SOCKET_TIMEOUT_SECONDS}


def _fallback(name: str):
    def operation(self, *args, **kwargs):
        if self.breaker.available():
            try:
                result = getattr(super(RedisCacheWithFallback, self), name)(*args, **kwargs)
            except self.unreachable as error:
                self.breaker.failed(error)
            else:
                self.breaker.succeeded()
                return result
        return getattr(self.local, name)(*args, **kwargs)

    operation.__name__ = name
    return operation


class RedisCacheWithFallback(RedisCache):
    """Django's RedisCache; while Redis is away, the process's own memory (see the module's text)."""

    def __init__(self, server, params):
        options = {**redis_options(), **params.get("OPTIONS", {})}
        super().__init__(server, {**params, "OPTIONS": options})
        self.location = self._servers[0]
        self.breaker = breaker(self.location)
        self.local = local_cache(self.location, self.default_timeout)
        self.unreachable = unreachable_errors()

    add = _fallback("add")
    get = _fallback("get")
    set = _fallback("set")
    touch = _fallback("touch")
    delete = _fallback("delete")
    get_many = _fallback("get_many")
    has_key = _fallback("has_key")
    incr = _fallback("incr")
    set_many = _fallback("set_many")
    delete_many = _fallback("delete_many")
    clear = _fallback("clear")

    def ping(self) -> bool:
        """Whether Redis answers now (the readiness check; not through the breaker)."""
        try:
            return bool(self._cache.get_client(write=False).ping())
        except self.unreachable:
            return False
