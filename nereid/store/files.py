"""The one place session files are read and written: a small interface and its implementations.

`SessionFiles` is the seam: the loader, the saver and the persister only ever use it, with
paths relative to the session folder (always `/`-separated, already checked by `naming`).

- `FolderFiles`: the real folder. Writes are atomic (temp file in the target's directory,
  write, optional fsync, rename, optional directory fsync) and refuse to go through
  symlinks below the session folder (session-folder.md §10). Every call blocks on disk I/O:
  async callers run it in `trio.to_thread.run_sync`.
- `MemoryFiles`: an in-memory folder for tests and for demo sessions that must leave
  nothing behind. It records every write and removal so tests can count them.
"""

from __future__ import annotations

import os
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Protocol

from nereid.store.naming import MAX_NAME_BYTES, TEMP_PREFIX, check_relative_path

__all__ = [
    "FolderFiles",
    "MemoryFiles",
    "SessionFiles",
    "SymlinkRefused",
]

_HAS_DIR_FD: Final = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)


class SymlinkRefused(OSError):
    """A write would have gone through a symlink inside the session folder."""


class SessionFiles(Protocol):
    """Files of one session folder, by relative path. Implementations block on I/O."""

    def describe(self) -> str:
        """Where the files are, for messages (a folder path, `<memory>`)."""
        ...

    def read(self, path: str) -> bytes:
        """The whole file; FileNotFoundError if absent, OSError if unreadable."""
        ...

    def is_file(self, path: str) -> bool:
        """Whether a regular file (or a link to one) exists at `path`."""
        ...

    def list_files(self, directory: str) -> list[str]:
        """Names of the regular files directly in `directory` (empty if it is missing)."""
        ...

    def write(self, path: str, data: bytes) -> None:
        """Replace the file atomically: readers see the old or the new bytes, never a mix."""
        ...

    def remove(self, path: str) -> bool:
        """Delete the file if present; True if something was deleted."""
        ...


class FolderFiles:
    """A session folder on disk. `durable`: fsync file and directory before `write` returns."""

    def __init__(self, root: Path | str, *, durable: bool = False) -> None:
        self.root = Path(root)
        self.durable = durable

    def describe(self) -> str:
        return str(self.root)

    def _path(self, path: str) -> Path:
        return self.root.joinpath(*check_relative_path(path).split("/"))

    def read(self, path: str) -> bytes:
        return self._path(path).read_bytes()

    def is_file(self, path: str) -> bool:
        return self._path(path).is_file()

    def list_files(self, directory: str) -> list[str]:
        folder = self._path(directory)
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(entry.name for entry in entries if entry.is_file())

    def remove(self, path: str) -> bool:
        target = self._path(path)
        self._check_parents(check_relative_path(path).split("/")[:-1])
        try:
            if target.is_dir() and not target.is_symlink():
                raise IsADirectoryError(f"{target}: is a directory, not a session file")
            target.unlink()
        except FileNotFoundError:
            return False
        if self.durable:
            _fsync_directory(target.parent)
        return True

    def write(self, path: str, data: bytes) -> None:
        parts = check_relative_path(path).split("/")
        self.root.mkdir(parents=True, exist_ok=True)
        if _HAS_DIR_FD:
            self._write_at(parts, data)
        else:  # pragma: no cover - Windows and other systems without dir_fd support
            self._write_by_path(parts, data)

    def _check_parents(self, parents: list[str]) -> None:
        """Refuse symlinked directories below the root (the root itself may be a link)."""
        current = self.root
        for part in parents:
            current = current / part
            if current.is_symlink():
                raise SymlinkRefused(
                    f"{current}: symlink refused (session folders are written through real directories only)"
                )

    def _write_at(self, parts: list[str], data: bytes) -> None:
        """POSIX: walk directories by descriptor with O_NOFOLLOW so no link can be swapped in."""
        dir_fd = os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        try:
            shown = self.root
            for part in parts[:-1]:
                shown = shown / part
                inner = _open_subdirectory(dir_fd, part, shown)
                os.close(dir_fd)
                dir_fd = inner
            name = parts[-1]
            target = shown / name
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            if info is not None and stat.S_ISLNK(info.st_mode):
                raise SymlinkRefused(f"{target}: symlink refused (the target file is a link)")
            if info is not None and stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(f"{target}: is a directory, not a session file")
            temp = _temp_name(name)
            fd = os.open(
                temp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                0o644,
                dir_fd=dir_fd,
            )
            try:
                try:
                    _write_all(fd, data)
                    if self.durable:
                        os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                try:
                    os.unlink(temp, dir_fd=dir_fd)
                except OSError:
                    pass
                raise
            if self.durable:
                os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def _write_by_path(self, parts: list[str], data: bytes) -> None:  # pragma: no cover
        parent = self.root
        for part in parts[:-1]:
            parent = parent / part
            if parent.is_symlink():
                raise SymlinkRefused(f"{parent}: symlink refused")
            parent.mkdir(exist_ok=True)
        target = parent / parts[-1]
        if target.is_symlink():
            raise SymlinkRefused(f"{target}: symlink refused")
        temp = parent / _temp_name(parts[-1])
        try:
            with open(temp, "xb") as handle:
                handle.write(data)
                handle.flush()
                if self.durable:
                    os.fsync(handle.fileno())
            try:
                os.replace(temp, target)
            except PermissionError:
                target.unlink(missing_ok=True)
                os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise


def _open_subdirectory(dir_fd: int, part: str, shown: Path) -> int:
    """Open (creating if needed) the real sub-directory `part` of `dir_fd`, never a link."""
    try:
        os.mkdir(part, 0o755, dir_fd=dir_fd)
    except FileExistsError:
        pass
    info = os.stat(part, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise SymlinkRefused(
            f"{shown}: symlink refused (session folders are written through real directories only)"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(f"{shown}: exists and is not a directory")
    return os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)


def _temp_name(name: str) -> str:
    """`.nereid.tmp.<name>.<ns>`, or a shorter random name when that would be too long."""
    candidate = f"{TEMP_PREFIX}{name}.{time.time_ns()}"
    if len(candidate.encode("utf-8")) <= MAX_NAME_BYTES:
        return candidate
    return f"{TEMP_PREFIX}{time.time_ns()}.{secrets.token_hex(8)}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class MemoryFiles:
    """An in-memory session folder. `log` lists `("write" | "remove", path)` in order."""

    def __init__(self, files: dict[str, bytes] | None = None) -> None:
        self.files: dict[str, bytes] = {}
        self.log: list[tuple[str, str]] = []
        for path, data in (files or {}).items():
            self.files[check_relative_path(path)] = data

    def describe(self) -> str:
        return "<memory>"

    def read(self, path: str) -> bytes:
        key = check_relative_path(path)
        try:
            return self.files[key]
        except KeyError:
            raise FileNotFoundError(f"<memory>/{key}") from None

    def is_file(self, path: str) -> bool:
        return check_relative_path(path) in self.files

    def list_files(self, directory: str) -> list[str]:
        prefix = check_relative_path(directory) + "/"
        return sorted(
            path[len(prefix) :]
            for path in self.files
            if path.startswith(prefix) and "/" not in path[len(prefix) :]
        )

    def write(self, path: str, data: bytes) -> None:
        key = check_relative_path(path)
        prefix = key + "/"
        if any(existing.startswith(prefix) for existing in self.files):
            raise IsADirectoryError(f"<memory>/{key}: is a directory, not a session file")
        self.files[key] = bytes(data)
        self.log.append(("write", key))

    def remove(self, path: str) -> bool:
        key = check_relative_path(path)
        self.log.append(("remove", key))
        return self.files.pop(key, None) is not None

    def writes(self) -> Iterator[str]:
        """Paths written, in order (a test helper)."""
        return (path for action, path in self.log if action == "write")
