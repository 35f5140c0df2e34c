"""Fixed-window counters and revision stamps in the shared cache: one round trip for an API call's checks.

Redis (production, several gunicorn workers): the checks of one call run as one Lua script, so they are
atomic across processes and cost one round trip on a connection pool that lives as long as the process
(Django's RedisCache builds a client per operation); while Redis is away, the process's own memory stands in
(`FallbackCounters`, apicore.cache, docs/decisions.md §12.21). Any other Django cache (the embedded default's
LocMemCache: one process with threads): the same steps under a lock of the process.

Windows are the ones django-ratelimit uses (each key's window ends at its own second of the period), so
`RateLimit-Reset` and `Retry-After` mean what they meant before this module. Keys carry no secrets: the
counted values are hashed, and callers pass only ids and addresses.
"""

import hashlib
import secrets
import threading
import time
import zlib
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches

from apicore.cache import RedisCacheWithFallback, breaker, local_cache, redis_options, unreachable_errors

PREFIX = "fc:"
# A counter lives a little longer than its window, as django-ratelimit's do.
EXPIRATION_FUDGE = 5
# Revision stamps outlive any cache entry that holds one; a lost stamp only makes every holder reload.
REVISION_TTL = 7 * 24 * 3600

BLOCKED, STALE, COUNTED = 0, 1, 2


@dataclass(frozen=True)
class Window:
    """One counter: its key and the end of its current window (epoch seconds)."""

    key: str
    ends_at: int
    period: int

    def seconds_left(self) -> int:
        """Whole seconds until the count restarts: the window holds `ends_at - now` more seconds, then one."""
        return max(self.ends_at - int(time.time()), 0) + 1

    @property
    def ttl(self) -> int:
        return self.period + EXPIRATION_FUDGE


def window(group: str, value: str, period: int) -> Window:
    """The current window of `value` in `group` (django-ratelimit's `_get_window`: a jitter per value)."""
    now = int(time.time())
    raw = value.encode("utf-8")
    ends_at = now - (now % period) + (zlib.crc32(raw) % period) if period > 1 else now
    if ends_at < now:
        ends_at += period
    digest = hashlib.sha256(f"{group}\0{value}".encode()).hexdigest()[:32]
    return Window(key=f"{PREFIX}{group}:{digest}:{period}:{ends_at}", ends_at=ends_at, period=period)


def revision_key(kind: str, ident: int | str) -> str:
    return f"{PREFIX}rev:{kind}:{ident}"


@dataclass(frozen=True)
class CheckResult:
    """What `check_and_count` found: BLOCKED (with the failed-check count), STALE (the current revision,
    nothing counted) or COUNTED (the current revision and the call's number in its window)."""

    outcome: int
    revision: str = ""
    count: int = 0


@dataclass(frozen=True)
class EachResult:
    """What `check_and_count_each` found: STALE (the current stamps, nothing counted) or COUNTED (the current
    stamps and each counter's number in its window)."""

    outcome: int
    stamps: tuple[str, ...]
    counts: tuple[int, ...] = ()

    @property
    def revision(self) -> str:
        return "/".join(self.stamps)


def _new_stamp() -> str:
    return f"{time.time_ns():x}.{secrets.token_hex(4)}"


# --- Redis ------------------------------------------------------------------------------------------

# The revision of KEYS[first..last]: their stamps joined by '/', a missing one made (from Redis's clock) with
# the lifetime `ttl`. Both scripts below begin with it.
REVISION_OF = """
local function revision_of(first, last, ttl)
  local stamps = {}
  for i = first, last do
    local stamp = redis.call('GET', KEYS[i])
    if not stamp then
      local now = redis.call('TIME')
      stamp = 'r' .. now[1] .. '.' .. now[2]
      redis.call('SET', KEYS[i], stamp, 'EX', ttl)
    end
    stamps[#stamps + 1] = stamp
  end
  return table.concat(stamps, '/')
end
"""

# KEYS[1] failed token checks of the caller's address, KEYS[2] the token's calls in this window,
# KEYS[3..] revision stamps. ARGV[1] failed checks that block, ARGV[2] lifetime of a new call counter,
# ARGV[3] the revision the caller holds: '*' counts whatever it is, any other value counts only when it
# is the current one (the empty string never is), ARGV[4] lifetime of a new stamp.
CHECK_AND_COUNT = (
    REVISION_OF
    + """
local failed = tonumber(redis.call('GET', KEYS[1]) or '0')
if failed >= tonumber(ARGV[1]) then
  return {0, '', failed}
end
local revision = revision_of(3, #KEYS, ARGV[4])
if ARGV[3] ~= '*' and ARGV[3] ~= revision then
  return {1, revision, 0}
end
local count = redis.call('INCR', KEYS[2])
if count == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[2])
end
return {2, revision, count}
"""
)

# The same for a caller counted in several windows (the Mobile API: the login's and the app's), with no
# failed-check key. KEYS[1..ARGV[1]] revision stamps, the KEYS after them the counters. ARGV[2] the revision
# the caller holds ('*': count in any case), ARGV[3] lifetime of a new stamp, ARGV[4..] each counter's lifetime.
CHECK_AND_COUNT_EACH = (
    REVISION_OF
    + """
local n = tonumber(ARGV[1])
local revision = revision_of(1, n, ARGV[3])
if ARGV[2] ~= '*' and ARGV[2] ~= revision then
  return {1, revision}
end
local result = {2, revision}
for i = n + 1, #KEYS do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 then
    redis.call('EXPIRE', KEYS[i], ARGV[3 + i - n])
  end
  result[#result + 1] = count
end
return result
"""
)

INCREMENT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return count
"""


class RedisCounters:
    def __init__(self, url: str):
        import redis

        self.client = redis.Redis.from_url(url, **redis_options())
        self._check = self.client.register_script(CHECK_AND_COUNT)
        self._increment = self.client.register_script(INCREMENT)
        self._check_each = self.client.register_script(CHECK_AND_COUNT_EACH)

    def get(self, key: str) -> int:
        return int(self.client.get(key) or 0)

    def increment(self, key: str, ttl: int) -> int:
        return int(self._increment(keys=[key], args=[ttl]))

    def check_and_count(self, *, blocked_key, block_at, counter_key, counter_ttl, revision_keys, holds) -> CheckResult:
        outcome, revision, number = self._check(
            keys=[blocked_key, counter_key, *revision_keys], args=[block_at, counter_ttl, holds, REVISION_TTL]
        )
        revision = revision.decode() if isinstance(revision, bytes) else revision
        return CheckResult(int(outcome), revision, int(number))

    def check_and_count_each(self, *, revision_keys, holds, counters) -> EachResult:
        found = self._check_each(
            keys=[*revision_keys, *(key for key, _ttl in counters)],
            args=[len(revision_keys), holds, REVISION_TTL, *(ttl for _key, ttl in counters)],
        )
        revision = found[1].decode() if isinstance(found[1], bytes) else found[1]
        stamps = tuple(revision.split("/")) if revision_keys else ()
        return EachResult(int(found[0]), stamps, tuple(int(count) for count in found[2:]))

    def bump(self, keys) -> None:
        with self.client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.set(key, _new_stamp(), ex=REVISION_TTL)
            pipe.execute()


# --- Any Django cache (LocMemCache in the embedded default) ---------------------------------------


class CacheCounters:
    """The same operations on a Django cache, atomic within one process (the embedded default runs one)."""

    def __init__(self, cache):
        self.cache = cache
        self.lock = threading.Lock()

    def get(self, key: str) -> int:
        return int(self.cache.get(key, 0))

    def increment(self, key: str, ttl: int) -> int:
        with self.lock:
            return self._increment(key, ttl)

    def _increment(self, key: str, ttl: int) -> int:
        if self.cache.add(key, 1, ttl):
            return 1
        try:
            return self.cache.incr(key)
        except ValueError:  # expired between add and incr
            self.cache.set(key, 1, ttl)
            return 1

    def _stamps(self, revision_keys) -> list[str]:
        """The stamps of `revision_keys`, a missing one made (under the caller's lock)."""
        stamps = []
        for key in revision_keys:
            stamp = self.cache.get(key)
            if stamp is None:
                stamp = _new_stamp()
                self.cache.set(key, stamp, REVISION_TTL)
            stamps.append(stamp)
        return stamps

    def check_and_count(self, *, blocked_key, block_at, counter_key, counter_ttl, revision_keys, holds) -> CheckResult:
        with self.lock:
            failed = int(self.cache.get(blocked_key, 0))
            if failed >= block_at:
                return CheckResult(BLOCKED, "", failed)
            stamps = self._stamps(revision_keys)
            revision = "/".join(stamps)
            if holds != "*" and holds != revision:
                return CheckResult(STALE, revision)
            return CheckResult(COUNTED, revision, self._increment(counter_key, counter_ttl))

    def check_and_count_each(self, *, revision_keys, holds, counters) -> EachResult:
        with self.lock:
            stamps = self._stamps(revision_keys)
            if holds != "*" and holds != "/".join(stamps):
                return EachResult(STALE, tuple(stamps))
            return EachResult(COUNTED, tuple(stamps), tuple(self._increment(key, ttl) for key, ttl in counters))

    def bump(self, keys) -> None:
        with self.lock:
            self.cache.set_many({key: _new_stamp() for key in keys}, REVISION_TTL)


class FallbackCounters:
    """Redis's counters; while Redis is away (apicore.cache.Breaker), the same in the process's own memory.

    The token rows' stamps (main_api.token_cache) then change on every read, so that no process answers from
    a row that another one may have changed meanwhile: each call reads its row from the database until Redis
    is back. The stamps this process renews meanwhile are renewed in Redis too, first thing when it is back.
    """

    MAX_PENDING = 10_000

    def __init__(self, url: str):
        self.redis = RedisCounters(url)
        self.local = CacheCounters(local_cache(url))
        self.breaker = breaker(url)
        self.unreachable = unreachable_errors()
        self._pending: set[str] = set()
        self._pending_lock = threading.Lock()

    def _redis(self, operation):
        """`operation` on Redis, or None (with the breaker told) when Redis is away or due only later."""
        if not self.breaker.available():
            return None
        try:
            if self._pending:
                with self._pending_lock:
                    pending, self._pending = self._pending, set()
                try:
                    self.redis.bump(pending)
                except BaseException:
                    with self._pending_lock:
                        self._pending |= pending
                    raise
            result = operation()
        except self.unreachable as error:
            self.breaker.failed(error)
            return None
        self.breaker.succeeded()
        return (result,)

    def get(self, key: str) -> int:
        found = self._redis(lambda: self.redis.get(key))
        return found[0] if found else self.local.get(key)

    def increment(self, key: str, ttl: int) -> int:
        found = self._redis(lambda: self.redis.increment(key, ttl))
        return found[0] if found else self.local.increment(key, ttl)

    def check_and_count(self, *, blocked_key, block_at, counter_key, counter_ttl, revision_keys, holds) -> CheckResult:
        arguments = dict(blocked_key=blocked_key, block_at=block_at, counter_key=counter_key, counter_ttl=counter_ttl)
        found = self._redis(lambda: self.redis.check_and_count(**arguments, revision_keys=revision_keys, holds=holds))
        if found:
            return found[0]
        # A stamp of its own for this call only: the caller's row is never current (it reads the database).
        result = self.local.check_and_count(**arguments, revision_keys=[], holds="*" if holds == "*" else "\0never")
        return CheckResult(result.outcome, f"local.{_new_stamp()}", result.count)

    def check_and_count_each(self, *, revision_keys, holds, counters) -> EachResult:
        found = self._redis(
            lambda: self.redis.check_and_count_each(revision_keys=revision_keys, holds=holds, counters=counters)
        )
        if found:
            return found[0]
        # Stamps of their own for this call only: nothing cached is ever current (it is read from the database).
        stamps = tuple(f"local.{_new_stamp()}" for _key in revision_keys)
        if holds != "*":
            return EachResult(STALE, stamps)
        result = self.local.check_and_count_each(revision_keys=[], holds="*", counters=counters)
        return EachResult(COUNTED, stamps, result.counts)

    def bump(self, keys) -> None:
        keys = list(keys)
        if self._redis(lambda: self.redis.bump(keys)) is None:
            with self._pending_lock:
                if len(self._pending) < self.MAX_PENDING:
                    self._pending.update(keys)
            self.local.bump(keys)


_backends: dict = {}


def backend() -> RedisCounters | FallbackCounters | CacheCounters:
    """The counters of the configured cache (RATELIMIT_USE_CACHE), one per process and configuration."""
    alias = getattr(settings, "RATELIMIT_USE_CACHE", "default")
    config = settings.CACHES[alias]
    ident = (alias, config["BACKEND"], str(config.get("LOCATION", "")))
    found = _backends.get(ident)
    if found is None:
        if config["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
            location = config["LOCATION"]
            found = RedisCounters(location[0] if isinstance(location, list | tuple) else location)
        elif _is_fallback_cache(config["BACKEND"]):
            location = config["LOCATION"]
            found = FallbackCounters(location[0] if isinstance(location, list | tuple) else location)
        else:
            found = CacheCounters(caches[alias])
        _backends[ident] = found
    return found


def _is_fallback_cache(path: str) -> bool:
    return path == f"{RedisCacheWithFallback.__module__}.{RedisCacheWithFallback.__qualname__}"
