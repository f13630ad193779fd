"""The one place session files are read and written: a small interface and its implementations.

`SessionFiles` is the seam: the loader, the saver and the persister only ever use it, with
paths relative to the session folder (always `/`-separated, already checked by `nereid.model.file_names`).

- `FolderFiles`: the real folder. Nothing inside it is ever read or written through a
  symlink: every path is walked one directory at a time by descriptor with `O_NOFOLLOW`
  (the session folder itself may be a link), and a link, a directory or any other
  non-regular file where a session file should be is refused with a precise error.
  Writes are atomic (temp file in the target's directory, write, optional fsync, rename,
  optional directory fsync); `write_many` stages every file of one item before renaming
  any, so a full disk leaves the item's files as they were. Every call blocks on disk I/O:
  async callers run it in `trio.to_thread.run_sync`.
- `MemoryFiles`: an in-memory folder for tests and for demo sessions that must leave
  nothing behind. It records every write and removal so tests can count them.

Both take a `FaultPlan` (`nereid.store.faults`): injected disk errors and stalls at the
real fault points, for tests and the chaos suite.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final, Protocol

from nereid.model.file_names import MAX_NAME_BYTES, TEMP_PREFIX, check_relative_path
from nereid.store.faults import FaultPlan, FaultPoint

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
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_READ_CHUNK: Final = 1 << 20


class SymlinkRefused(OSError):
    """A read or write would have gone through a symlink inside the session folder."""


class SessionFiles(Protocol):
    """Files of one session folder, by relative path. Implementations block on I/O."""

    def describe(self) -> str:
        """Where the files are, for messages (a folder path, `<memory>`)."""
        ...

    def read(self, path: str) -> bytes:
        """The whole file; FileNotFoundError if absent, OSError if unreadable or a link."""
        ...

    def is_file(self, path: str) -> bool:
        """Whether a regular file (not a link, not through a link) exists at `path`."""
        ...

    def list_files(self, directory: str) -> list[str]:
        """Names of the regular files directly in `directory` (empty if it is missing)."""
        ...

    def write(self, path: str, data: bytes) -> None:
        """Replace the file atomically: readers see the old or the new bytes, never a mix."""
        ...

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        """Replace several files: all are staged before any is replaced (one item's files)."""
        ...

    def remove(self, path: str) -> bool:
        """Delete the file if present; True if something was deleted."""
        ...


class FolderFiles:
    """A session folder on disk. `durable`: fsync file and directory before `write` returns."""

    def __init__(
        self, root: Path | str, *, durable: bool = False, faults: FaultPlan | None = None
    ) -> None:
        self.root = Path(root)
        self.durable = durable
        self.faults = faults

    def describe(self) -> str:
        return str(self.root)

    def _fault(self, point: FaultPoint, path: str) -> None:
        if self.faults is not None:
            self.faults.check(point, path)

    def _path(self, path: str) -> Path:
        return self.root.joinpath(*check_relative_path(path).split("/"))

    # -- reading ---------------------------------------------------------------------------

    def read(self, path: str) -> bytes:
        parts = check_relative_path(path).split("/")
        self._fault("read", path)
        if not _HAS_DIR_FD:  # pragma: no cover - systems without dir_fd support
            return _read_by_path(self.root, parts)
        dir_fd, shown = self._walk(parts[:-1], create=False)
        try:
            target = shown / parts[-1]
            try:
                fd = os.open(
                    parts[-1], os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK, dir_fd=dir_fd
                )
            except OSError as err:
                if err.errno == errno.ELOOP:
                    raise SymlinkRefused(
                        errno.ELOOP,
                        f"{target}: symlink refused (session files are never read through links)",
                    ) from None
                raise
            try:
                _require_regular(os.fstat(fd), target)
                chunks: list[bytes] = []
                while chunk := os.read(fd, _READ_CHUNK):
                    chunks.append(chunk)
                return b"".join(chunks)
            finally:
                os.close(fd)
        finally:
            os.close(dir_fd)

    def is_file(self, path: str) -> bool:
        parts = check_relative_path(path).split("/")
        if not _HAS_DIR_FD:  # pragma: no cover
            target = self.root.joinpath(*parts)
            return target.is_file() and not target.is_symlink()
        try:
            dir_fd, _ = self._walk(parts[:-1], create=False)
        except OSError:
            return False
        try:
            info = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
        except OSError:
            return False
        finally:
            os.close(dir_fd)
        return stat.S_ISREG(info.st_mode)

    def list_files(self, directory: str) -> list[str]:
        parts = check_relative_path(directory).split("/")
        if not _HAS_DIR_FD:  # pragma: no cover
            folder = self.root.joinpath(*parts)
            if folder.is_symlink() or not folder.is_dir():
                return []
            return sorted(e.name for e in os.scandir(folder) if e.is_file(follow_symlinks=False))
        try:
            dir_fd, _ = self._walk(parts, create=False)
        except (FileNotFoundError, NotADirectoryError, SymlinkRefused):
            return []  # missing, or a link: nothing of the session is there
        try:
            names = []
            for name in os.listdir(dir_fd):
                try:
                    info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    names.append(name)
            return sorted(names)
        finally:
            os.close(dir_fd)

    # -- writing ---------------------------------------------------------------------------

    def remove(self, path: str) -> bool:
        parts = check_relative_path(path).split("/")
        self._fault("remove", path)
        if not _HAS_DIR_FD:  # pragma: no cover
            return _remove_by_path(self.root, parts)
        try:
            dir_fd, shown = self._walk(parts[:-1], create=False)
        except FileNotFoundError:
            return False
        try:
            try:
                info = os.stat(parts[-1], dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(
                    errno.EISDIR, f"{shown / parts[-1]}: is a directory, not a session file"
                )
            os.unlink(parts[-1], dir_fd=dir_fd)  # a link itself is removed, never its target
            if self.durable:
                self._fault("fsync", path)
                os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return True

    def write(self, path: str, data: bytes) -> None:
        self.write_many([(path, data)])

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        checked = [(check_relative_path(path).split("/"), data) for path, data in items]
        self.root.mkdir(parents=True, exist_ok=True)
        if not _HAS_DIR_FD:  # pragma: no cover - Windows and other systems without dir_fd
            for parts, data in checked:
                _write_by_path(self.root, parts, data, durable=self.durable)
            return
        staged: list[tuple[int, str, str, str]] = []  # (dir fd, temp name, name, path)
        try:
            for parts, data in checked:
                staged.append(self._stage(parts, data))
            for index, (dir_fd, temp, name, path) in enumerate(staged):
                self._fault("rename", path)
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                staged[index] = (dir_fd, "", name, path)  # replaced: nothing to clean up
            if self.durable:
                for dir_fd, _, _, path in staged:
                    self._fault("fsync", path)
                    os.fsync(dir_fd)
        finally:
            for dir_fd, temp, _, _ in staged:
                if temp:
                    try:
                        os.unlink(temp, dir_fd=dir_fd)
                    except OSError:
                        pass
                os.close(dir_fd)

    def _stage(self, parts: list[str], data: bytes) -> tuple[int, str, str, str]:
        """Write `data` to a fresh temp file next to the target; the target is checked."""
        path = "/".join(parts)
        dir_fd, shown = self._walk(parts[:-1], create=True)
        try:
            name = parts[-1]
            target = shown / name
            try:
                info: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            if info is not None and stat.S_ISLNK(info.st_mode):
                raise SymlinkRefused(
                    errno.ELOOP, f"{target}: symlink refused (the target file is a link)"
                )
            if info is not None and stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(
                    errno.EISDIR, f"{target}: is a directory, not a session file"
                )
            temp = _temp_name(name)
            fd = os.open(
                temp,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                0o644,
                dir_fd=dir_fd,
            )
            try:
                try:
                    self._fault("write", path)
                    _write_all(fd, data)
                    if self.durable:
                        self._fault("fsync", path)
                        os.fsync(fd)
                finally:
                    os.close(fd)
            except BaseException:
                try:
                    os.unlink(temp, dir_fd=dir_fd)
                except OSError:
                    pass
                raise
        except BaseException:
            os.close(dir_fd)
            raise
        return dir_fd, temp, name, path

    def _walk(self, parents: list[str], *, create: bool) -> tuple[int, Path]:
        """A descriptor of the real directory `root/parents...`, never reached through a link."""
        dir_fd = os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        shown = self.root
        try:
            for part in parents:
                shown = shown / part
                inner = _open_subdirectory(dir_fd, part, shown, create=create)
                os.close(dir_fd)
                dir_fd = inner
        except BaseException:
            os.close(dir_fd)
            raise
        return dir_fd, shown


def _require_regular(info: os.stat_result, target: Path) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, f"{target}: is a directory, not a session file")
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, f"{target}: not a regular file")


def _open_subdirectory(dir_fd: int, part: str, shown: Path, *, create: bool) -> int:
    """Open (with `create`: creating if needed) the real sub-directory `part`, never a link."""
    if create:
        try:
            os.mkdir(part, 0o755, dir_fd=dir_fd)
        except FileExistsError:
            pass
    info = os.stat(part, dir_fd=dir_fd, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        raise SymlinkRefused(
            errno.ELOOP,
            f"{shown}: symlink refused (session folders are used through real directories only)",
        )
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, f"{shown}: exists and is not a directory")
    try:
        return os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)
    except OSError as err:
        if err.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link meanwhile
            raise SymlinkRefused(errno.ELOOP, f"{shown}: symlink refused") from None
        raise


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


def _read_by_path(root: Path, parts: list[str]) -> bytes:  # pragma: no cover
    current = root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise SymlinkRefused(errno.ELOOP, f"{current}: symlink refused")
    return current.read_bytes()


def _remove_by_path(root: Path, parts: list[str]) -> bool:  # pragma: no cover
    target = root.joinpath(*parts)
    for index in range(1, len(parts)):
        if root.joinpath(*parts[:index]).is_symlink():
            raise SymlinkRefused(errno.ELOOP, f"{root.joinpath(*parts[:index])}: symlink refused")
    if target.is_dir() and not target.is_symlink():
        raise IsADirectoryError(errno.EISDIR, f"{target}: is a directory, not a session file")
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    return True


def _write_by_path(
    root: Path, parts: list[str], data: bytes, *, durable: bool
) -> None:  # pragma: no cover
    parent = root
    for part in parts[:-1]:
        parent = parent / part
        if parent.is_symlink():
            raise SymlinkRefused(errno.ELOOP, f"{parent}: symlink refused")
        parent.mkdir(exist_ok=True)
    target = parent / parts[-1]
    if target.is_symlink():
        raise SymlinkRefused(errno.ELOOP, f"{target}: symlink refused")
    temp = parent / _temp_name(parts[-1])
    try:
        with open(temp, "xb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        try:
            os.replace(temp, target)
        except PermissionError:
            target.unlink(missing_ok=True)
            os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


class MemoryFiles:
    """An in-memory session folder. `log` lists `("write" | "remove", path)` in order."""

    def __init__(
        self, files: dict[str, bytes] | None = None, *, faults: FaultPlan | None = None
    ) -> None:
        self.files: dict[str, bytes] = {}
        self.log: list[tuple[str, str]] = []
        self.faults = faults
        for path, data in (files or {}).items():
            self.files[check_relative_path(path)] = data

    def describe(self) -> str:
        return "<memory>"

    def _fault(self, point: FaultPoint, path: str) -> None:
        if self.faults is not None:
            self.faults.check(point, path)

    def read(self, path: str) -> bytes:
        key = check_relative_path(path)
        self._fault("read", key)
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
        self.write_many([(path, data)])

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        keys = [(check_relative_path(path), data) for path, data in items]
        for key, _ in keys:
            prefix = key + "/"
            if any(existing.startswith(prefix) for existing in self.files):
                raise IsADirectoryError(f"<memory>/{key}: is a directory, not a session file")
            self._fault("write", key)
            self._fault("fsync", key)  # as a durable FolderFiles syncs each staged file
        for key, _ in keys:
            self._fault("rename", key)
        for key, data in keys:
            self.files[key] = bytes(data)
            self.log.append(("write", key))

    def remove(self, path: str) -> bool:
        key = check_relative_path(path)
        self._fault("remove", key)
        self.log.append(("remove", key))
        return self.files.pop(key, None) is not None

    def writes(self) -> Iterator[str]:
        """Paths written, in order (a test helper)."""
        return (path for action, path in self.log if action == "write")
