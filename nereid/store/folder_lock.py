"""One owner per session folder (spec decision 19): the lock file and its token companion.

The process that opens a folder holds `nereid-session.lock` in it: a JSON record (pid, host,
mode, start time, MCP URL) on a file it keeps `flock`ed for its whole life. The kernel
drops the `flock` when the process ends, however it ends (even `kill -9`), so a lock left
behind by a dead owner is simply taken over: that is the stale-lock recovery, and the
record it replaces is reported (`FolderLock.recovered`). The record is only information;
the `flock` is the truth, so a second owner is impossible on one machine.

When the owner's endpoint needs a bearer token, the token is in `nereid-session.token`,
mode 0600, next to the lock (never in the world-readable lock itself). Both files are
removed on a clean exit.

POSIX only (`fcntl.flock`). Blocking file I/O: call from sync code or a worker thread.
"""

from __future__ import annotations

import datetime
import errno
import fcntl
import itertools
import os
import secrets
import socket
import stat
import time
from pathlib import Path
from typing import Final, Literal

import msgspec

__all__ = [
    "LOCK_FILE",
    "TOKEN_FILE",
    "FolderLock",
    "FolderOwned",
    "LockInfo",
    "OwnerMode",
    "read_owner",
    "read_token",
]

LOCK_FILE: Final = "nereid-session.lock"
TOKEN_FILE: Final = "nereid-session.token"

OwnerMode = Literal["tui", "serve", "mcp"]

_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
#: How long a reader waits for a just-started owner to finish writing its record.
_READ_PATIENCE: Final = 2.0
_MAX_RECORD: Final = 64 * 1024
_ACQUIRE_ATTEMPTS: Final = 20


class LockInfo(msgspec.Struct, frozen=True, kw_only=True):
    """Who owns the folder. `url` None: the owner has no MCP endpoint (yet)."""

    pid: int
    host: str
    mode: str
    started: str
    url: str | None = None
    needs_token: bool = False

    def describe(self) -> str:
        """`pid 123 on host (TUI, MCP at http://…, since …)`, for one-line messages."""
        what = {"tui": "TUI", "serve": "nereid serve", "mcp": "nereid --mcp"}.get(
            self.mode, self.mode
        )
        where = f", MCP at {self.url}" if self.url else ""
        return f"pid {self.pid} on {self.host} ({what}{where}, since {self.started})"


class FolderOwned(Exception):
    """Another live process owns the folder; `info` is its record (None if unreadable)."""

    def __init__(self, folder: Path, info: LockInfo | None) -> None:
        self.folder = folder
        self.info = info
        owner = info.describe() if info is not None else "a process whose lock record is unreadable"
        super().__init__(f"{folder} is already open in another nereid: {owner}")


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _decode(data: bytes) -> LockInfo | None:
    try:
        return msgspec.json.decode(data, type=LockInfo)
    except msgspec.DecodeError:
        return None


def _read_fd(fd: int) -> bytes:
    return os.pread(fd, _MAX_RECORD, 0)


def _open_lock(folder: Path) -> int:
    """The lock file's descriptor, created if missing; never through a symlink."""
    path = folder / LOCK_FILE
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise OSError(
                err.errno, f"{path}: symlink refused (the lock must be a real file)"
            ) from None
        raise


def _same_file(fd: int, path: Path) -> bool:
    """Whether `path` still names the file `fd` is open on (not unlinked or replaced)."""
    try:
        on_disk = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)


class FolderLock:
    """This process's ownership of one folder; `release()` (or exit) gives it up."""

    def __init__(self, folder: Path, fd: int, info: LockInfo, recovered: LockInfo | None):
        self.folder = folder
        self.info = info
        self.recovered = recovered
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, folder: Path | str, mode: OwnerMode) -> FolderLock:
        """Own `folder` (created if missing) or raise `FolderOwned` naming the live owner."""
        root = Path(folder)
        root.mkdir(parents=True, exist_ok=True)
        path = root / LOCK_FILE
        for attempt in itertools.count():
            fd = _open_lock(root)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                held, owner = _probe(root)
                if held or attempt >= _ACQUIRE_ATTEMPTS:
                    raise FolderOwned(root, owner) from None
                continue  # a reader's brief shared lock, or an owner that just left
            except BaseException:
                os.close(fd)
                raise
            if not _same_file(fd, path):  # the owner removed it while we waited: start over
                os.close(fd)
                continue
            break
        try:
            previous = _decode(_read_fd(fd))
            info = LockInfo(pid=os.getpid(), host=socket.gethostname(), mode=mode, started=_now())
            lock = cls(root, fd, info, previous)
            lock._write(info)
        except BaseException:
            os.close(fd)
            raise
        # A token left by a dead owner must not be handed to anyone.
        (root / TOKEN_FILE).unlink(missing_ok=True)
        return lock

    def publish(self, url: str, token: str | None = None) -> None:
        """Record the owner's MCP URL (and write its token, mode 0600, if it needs one)."""
        if token is not None:
            _write_private(self.folder / TOKEN_FILE, token)
        self.info = msgspec.structs.replace(self.info, url=url, needs_token=token is not None)
        self._write(self.info)

    def release(self) -> None:
        """Remove the lock and token files and give up ownership. Idempotent."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            (self.folder / TOKEN_FILE).unlink(missing_ok=True)
            if _same_file(fd, self.folder / LOCK_FILE):
                (self.folder / LOCK_FILE).unlink(missing_ok=True)
        finally:
            os.close(fd)

    def _write(self, info: LockInfo) -> None:
        assert self._fd is not None, "released"
        data = msgspec.json.encode(info) + b"\n"
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_owner(folder: Path | str) -> LockInfo | None:
    """The live owner's record, or None when nobody holds the folder.

    A record being written right now (an owner that is starting) is waited for briefly.
    """
    return _probe(Path(folder))[1]


def _probe(folder: Path) -> tuple[bool, LockInfo | None]:
    """(whether a live process holds the lock, its record if readable)."""
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return False, None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # held: somebody lives
        else:
            return False, None  # nobody holds it: stale (or just released)
        deadline = time.monotonic() + _READ_PATIENCE
        while True:
            info = _decode(_read_fd(fd))
            if info is not None or time.monotonic() > deadline:
                return True, info
            time.sleep(0.01)
    finally:
        os.close(fd)


def read_token(folder: Path | str) -> str | None:
    """The owner's bearer token from the companion file, or None if there is none.

    Refused (PermissionError) when the file is not a private regular file of this user:
    a token others could read or plant is not used.
    """
    path = Path(folder) / TOKEN_FILE
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PermissionError(f"{path}: not a regular file")
        if info.st_mode & 0o077 or info.st_uid != os.getuid():
            raise PermissionError(
                f"{path}: refusing a token file others can read or that another user owns "
                f"(mode {stat.S_IMODE(info.st_mode):o}; it must be 600 and yours)"
            )
        token = os.read(fd, _MAX_RECORD).decode("utf-8").strip()
    finally:
        os.close(fd)
    return token or None


def _write_private(path: Path, text: str) -> None:
    """Write `text` atomically to `path` with mode 0600 from the first byte."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, text.encode("utf-8") + b"\n")
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
