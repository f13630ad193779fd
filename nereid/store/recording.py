"""`RecordingFiles`: a `SessionFiles` that knows which bytes in the folder are Nereid's.

The folder is shared with the person's editor and git (spec decision 20), so every file a
person may edit (`.mmd`, `.wt.json`, the session meta) is in one of three states, by the
content hash of its current bytes:

- **written**: bytes Nereid wrote there (hashed before the rename, so the watcher's event
  always finds it). The watcher never re-imports them; saves may replace them.
- **known**: bytes Nereid read and took in, either at load or because the watcher imported
  them (`remember(..., imported=True)`). Saves may replace them, and the saver keeps a
  person's `.mmd` text as it is when it still reads back as the revision (`imported_text`).
- **foreign**: anything else, e.g. an edit the watcher has not imported yet, or one that
  does not parse; and a file Nereid had that someone else deleted (the watcher deletes
  its item: writing it back would undo the person's delete). Such a file is never
  overwritten: `write` / `write_many` raise
  `ForeignContent` (the save of that one item fails and is retried) until the watcher
  imports it, or the item is deleted on purpose (`release`; `remove` is not guarded).

For each `.mmd` the last few of those contents are also kept as bytes (`own_texts`): the
watcher merges a person's edit against the one it was based on (architecture §8).

Thread-safe: the persister writes from worker threads while the watcher reads in the loop.
"""

from __future__ import annotations

import collections
import hashlib
import threading
from collections.abc import Iterable, Sequence
from typing import Final

from nereid.model.file_names import LEGACY_META_FILE, META_FILE, WALKTHROUGH_SUFFIX, sidecar_path
from nereid.store.files import SessionFiles
from nereid.store.schema import StoreFileError, decode_sidecar

__all__ = ["ForeignContent", "RecordingFiles", "imported_text", "is_guarded", "release_files"]

#: How many recent contents per path are remembered (a burst of saves, then the event).
_KEPT_PER_PATH: Final = 16
#: How many recent `.mmd` texts are kept as bytes: the bases a person's edit may start from.
_TEXTS_PER_PATH: Final = 8


class ForeignContent(StoreFileError):
    """The file holds bytes Nereid neither wrote nor took in: it is not overwritten."""


def is_guarded(path: str) -> bool:
    """Files a person edits by hand: never overwritten while they hold foreign bytes."""
    return path.endswith((".mmd", WALKTHROUGH_SUFFIX)) or path in (META_FILE, LEGACY_META_FILE)


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


class RecordingFiles:
    """Wraps `inner`; see the module docstring for the three states of a file."""

    def __init__(self, inner: SessionFiles) -> None:
        self.inner = inner
        self._lock = threading.Lock()
        self._written: dict[str, collections.deque[bytes]] = {}
        self._known: dict[str, collections.deque[bytes]] = {}
        self._read: dict[str, bytes] = {}
        self._released: set[str] = set()
        self._texts: dict[str, collections.deque[bytes]] = {}
        #: `.mmd` texts read before `adopt_reads` (the load); later reads are the watcher's.
        self._read_texts: dict[str, bytes] | None = {}

    @staticmethod
    def _add(table: dict[str, collections.deque[bytes]], path: str, digest: bytes) -> None:
        seen = table.setdefault(path, collections.deque(maxlen=_KEPT_PER_PATH))
        if digest not in seen:
            seen.append(digest)

    def is_own(self, path: str, data: bytes) -> bool:
        """Whether `data` at `path` is written or known (the watcher has nothing to do)."""
        digest = _digest(data)
        with self._lock:
            return digest in self._written.get(path, ()) or digest in self._known.get(path, ())

    def is_imported(self, path: str, data: bytes) -> bool:
        """Whether `data` at `path` was taken in from outside (load or watcher), not written."""
        digest = _digest(data)
        with self._lock:
            return digest in self._known.get(path, ()) and digest not in self._written.get(path, ())

    def remember(self, path: str, data: bytes, *, imported: bool = False) -> None:
        """Count `data` as Nereid's content of `path`: written by it, or (`imported`) taken in."""
        with self._lock:
            self._add(self._known if imported else self._written, path, _digest(data))
            if path.endswith(".mmd"):
                self._keep_text(path, data)

    def forget_import(self, path: str, data: bytes) -> None:
        """`data` was remembered as taken in, but the import was refused (a durable save
        that failed): it is foreign again, so it is never overwritten and is imported anew."""
        digest = _digest(data)
        with self._lock:
            known = self._known.get(path)
            if known is not None and digest in known:
                known.remove(digest)
            texts = self._texts.get(path)
            if texts is not None and data in texts and digest not in self._written.get(path, ()):
                texts.remove(data)

    def _keep_text(self, path: str, data: bytes) -> None:
        texts = self._texts.setdefault(path, collections.deque(maxlen=_TEXTS_PER_PATH))
        if data in texts:
            texts.remove(data)
        texts.append(data)

    def own_texts(self, path: str) -> tuple[bytes, ...]:
        """The recent `.mmd` contents Nereid wrote or took in at `path`, oldest first."""
        with self._lock:
            return tuple(self._texts.get(path, ()))

    def adopt_reads(self, excluding: Iterable[str] = ()) -> None:
        """Count every file read so far (the load) as known, except the `excluding` paths
        (files that failed to load stay foreign: never overwritten)."""
        skip = set(excluding)
        with self._lock:
            for path, digest in self._read.items():
                if path not in skip:
                    self._add(self._known, path, digest)
            for path, data in (self._read_texts or {}).items():
                if path not in skip:
                    self._keep_text(path, data)
            self._read_texts = None

    def release(self, paths: Iterable[str]) -> None:
        """The item of these files was deleted on purpose: whatever they hold now may be
        replaced (an explicit `diagram.delete`, then a create with that id)."""
        with self._lock:
            self._released.update(paths)

    def _check_writable(self, path: str) -> None:
        if not is_guarded(path):
            return
        with self._lock:
            if path in self._released:
                self._released.discard(path)
                return
        try:
            current = self.inner.read(path)
        except FileNotFoundError:
            if self._had_content(path) and path not in (META_FILE, LEGACY_META_FILE):
                raise ForeignContent(
                    path, "deleted outside nereid; not written again (the item goes too)"
                ) from None
            return
        if not self.is_own(path, current) and not self._sidecar_vouches(path, current):
            raise ForeignContent(
                path,
                "changed outside nereid and not imported (it does not parse, or the import "
                "is still on its way); left as it is",
            )

    def _had_content(self, path: str) -> bool:
        """Whether Nereid believes `path` holds something (it wrote or took it in)."""
        with self._lock:
            return bool(self._written.get(path)) or bool(self._known.get(path))

    def _sidecar_vouches(self, path: str, current: bytes) -> bool:
        """A `.mmd` whose side-car records its hash was written by a Nereid (an earlier
        run whose save was cut short before the meta listed it): not a person's file."""
        from nereid.store.diagram_files import mmd_digest  # (the Mermaid layer: not at start-up)

        if not path.endswith(".mmd"):
            return False
        side = sidecar_path(path)
        try:
            sidecar = decode_sidecar(self.inner.read(side), side)
        except (OSError, StoreFileError):
            return False
        return sidecar.mmd_sha256 is not None and sidecar.mmd_sha256 == mmd_digest(current)

    # -- SessionFiles --------------------------------------------------------------------

    def describe(self) -> str:
        return self.inner.describe()

    def read(self, path: str) -> bytes:
        data = self.inner.read(path)
        with self._lock:
            self._read[path] = _digest(data)
            if self._read_texts is not None and path.endswith(".mmd"):
                self._read_texts[path] = data
        return data

    def is_file(self, path: str) -> bool:
        return self.inner.is_file(path)

    def list_files(self, directory: str) -> list[str]:
        return self.inner.list_files(directory)

    def write(self, path: str, data: bytes) -> None:
        self._check_writable(path)
        self.remember(path, data)
        self.inner.write(path, data)

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        for path, _ in items:
            self._check_writable(path)
        for path, data in items:
            self.remember(path, data)
        self.inner.write_many(items)

    def remove(self, path: str) -> bool:
        with self._lock:  # gone on purpose: writing it again later is no resurrection
            self._written.pop(path, None)
            self._known.pop(path, None)
            self._texts.pop(path, None)
        return self.inner.remove(path)


def imported_text(files: SessionFiles, path: str) -> bytes | None:
    """The bytes at `path` if they are a person's text Nereid took in (not its own export);
    None for other files, a missing file, or folders that do not record (`MemoryFiles`)."""
    if not isinstance(files, RecordingFiles):
        return None
    try:
        data = files.inner.read(path)
    except OSError:
        return None
    return data if files.is_imported(path, data) else None


def release_files(files: SessionFiles, paths: Iterable[str]) -> None:
    """`RecordingFiles.release` for folders that record (nothing to do for the others)."""
    if isinstance(files, RecordingFiles):
        files.release(paths)
