"""A process's own bounded map, for what each worker keeps between requests (the callers of the token caches:
main_api.token_cache, mobile_api.caller_cache). Reads take no lock; writes do."""

import threading
from collections.abc import Iterator
from typing import Any


class BoundedMap:
    """At most `size` entries; when full, the oldest half goes (far more than a process's live entries)."""

    def __init__(self, size: int):
        self.size = size
        self._entries: dict[str, Any] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        return self._entries.get(key)

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            if len(self._entries) >= self.size:
                for old in list(self._entries)[: self.size // 2]:
                    del self._entries[old]
            self._entries[key] = value

    def forget(self, key: str) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)
