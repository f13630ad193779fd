"""`RecordingFiles`: a `SessionFiles` that remembers the bytes Nereid itself wrote.

The folder watcher (spec decision 20) must tell Nereid's own writes from the person's:
every write goes through here, and its content hash is recorded (before the rename, so
the file event always finds it). A changed file whose bytes hash to something Nereid
wrote to that path is ours and is never re-imported. Thread-safe: the persister writes
from worker threads while the watcher reads in the event loop.
"""

from __future__ import annotations

import collections
import hashlib
import threading
from collections.abc import Sequence
from typing import Final

from nereid.store.files import SessionFiles

__all__ = ["RecordingFiles"]

#: How many recent writes per path are remembered (a burst of saves, then the event).
_KEPT_PER_PATH: Final = 16


class RecordingFiles:
    """Wraps `inner`; `is_own(path, data)` says whether Nereid wrote exactly `data` there."""

    def __init__(self, inner: SessionFiles) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._written: dict[str, collections.deque[bytes]] = {}

    def is_own(self, path: str, data: bytes) -> bool:
        digest = hashlib.sha256(data).digest()
        with self._lock:
            return digest in self._written.get(path, ())

    def remember(self, path: str, data: bytes) -> None:
        """Count `data` as Nereid's own content of `path` (e.g. what was just imported)."""
        digest = hashlib.sha256(data).digest()
        with self._lock:
            seen = self._written.setdefault(path, collections.deque(maxlen=_KEPT_PER_PATH))
            if digest not in seen:
                seen.append(digest)

    # -- SessionFiles --------------------------------------------------------------------

    def describe(self) -> str:
        return self.inner.describe()

    def read(self, path: str) -> bytes:
        return self.inner.read(path)

    def is_file(self, path: str) -> bool:
        return self.inner.is_file(path)

    def list_files(self, directory: str) -> list[str]:
        return self.inner.list_files(directory)

    def write(self, path: str, data: bytes) -> None:
        self.remember(path, data)
        self.inner.write(path, data)

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        for path, data in items:
            self.remember(path, data)
        self.inner.write_many(items)

    def remove(self, path: str) -> bool:
        return self.inner.remove(path)
