"""Parsed diagrams kept between runs, outside the session folder (issue 18: start-up).

Loading a folder is mostly parsing (~25 ms of CPU for a 500-node flowchart, 200 of them
in the start-up benchmark), and every agent session launches `nereid --mcp` on the same
folder again. What a load makes of a diagram's files is a pure function of its kind, its
`.mmd` bytes, its side-car bytes and Nereid's code, so `ParseCache` keeps the AST
(msgpack) under the SHA-256 of exactly those; a later load of the same bytes decodes it
(~1 ms) instead of parsing. What the side-car says about the rev (`rev`, `mmd_sha256`)
is read from the side-car on every load, so the rev rule of `diagram_files` is unchanged
and a hit gives the Diagram a parse would give, field for field.

- Where: `$NEREID_CACHE_DIR`, else `$XDG_CACHE_HOME/nereid`, else `~/.cache/nereid`
  (entries in `parsed-v1/`); `NEREID_CACHE_DIR=` (empty) turns it off. Never inside the
  session folder: the format has no place for it and the folder is the person's.
- Trust: the directory is used only if it is a real directory (not a symlink) owned by
  this user and writable by nobody else; entries are opened relative to it with
  `O_NOFOLLOW`, must be regular files and carry a digest of their payload. Anything else
  (missing, torn, foreign, of another format) is a miss, and the diagram is parsed.
- Only diagrams that parsed are kept: a file that does not parse is parsed, and reported,
  on every load, exactly as without the cache.
- Writes are temp + rename, without fsync (a torn entry fails its digest). At most
  `MAX_BYTES` are kept; the least recently used entries go first (a hit touches its entry).
- The code key (`code_key`) covers every source file of the package (name, size,
  mtime) and the versions of Python, msgspec and Lark: another Nereid never reads this
  one's entries.

The same directory keeps the MCP tools' `tools/list` entries (`tool_listing`): with them
`nereid --mcp` answers the handshake without importing the tool modules (and the layers
they use) or generating schemas from the Structs, and they too depend on the code only
(`code_key`).

A cache that cannot be used never fails a load: it says so once in the log and is off.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

import msgspec

import nereid
from nereid.model import Diagram, FlowchartAst, SequenceAst, StateAst
from nereid.model.diagram import Ast
from nereid.store.schema import StoreFileError

if TYPE_CHECKING:  # the load path: `nereid --mcp` reads the kept tool listing before it
    from nereid.store.session_io import DiagramDecoder, DiagramRead

__all__ = [
    "CACHE_DIR_ENV",
    "MAX_BYTES",
    "ParseCache",
    "ToolListing",
    "cached_decoder",
    "code_key",
]

_log = logging.getLogger(__name__)

CACHE_DIR_ENV: Final = "NEREID_CACHE_DIR"
MAX_BYTES: Final = 256 << 20
"""Entries kept at most (a 500-node flowchart's entry is ~150 kB)."""

_SUBDIR: Final = "parsed-v1"
_SUFFIX: Final = ".ast"
_TEMP_PREFIX: Final = ".tmp."
_AST_TYPES: Final[dict[str, type[Ast]]] = {
    t.__name__: t for t in (FlowchartAst, SequenceAst, StateAst)
}


class _Entry(msgspec.Struct, array_like=True, frozen=True):
    """One kept value: what it is (the AST's type name, or `tool-schemas`), a digest of
    its msgpack, the msgpack."""

    ast_type: str
    digest: bytes
    payload: bytes


ToolListing = dict[str, dict[str, Any]]
"""Tool name -> its `tools/list` entry (`nereid.mcp.tools.ToolTable.listing`)."""

_TOOL_LISTING: Final = "tool-listing"


def _tool_listing_name() -> str:
    return f"{_TOOL_LISTING}-{code_key().hex()}{_SUFFIX}"


_ENTRY_DECODER: Final = msgspec.msgpack.Decoder(_Entry)


def _digest(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=16).digest()


@functools.cache
def code_key() -> bytes:
    """What identifies the code that parses: every source file of the package, versions."""
    root = Path(nereid.__file__).resolve().parent
    key = hashlib.sha256()
    key.update(f"{sys.version}\0{msgspec.__version__}\0".encode())
    lark = importlib.util.find_spec("lark")  # not imported: start-up does without Lark
    if lark is not None and lark.origin is not None:
        info = os.stat(lark.origin)
        key.update(f"{lark.origin}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for item in sorted(entries, key=lambda e: e.name):
                if item.is_dir(follow_symlinks=False):
                    if item.name != "__pycache__":
                        stack.append(Path(item.path))
                elif item.name.endswith((".py", ".lark")):
                    info = item.stat(follow_symlinks=False)
                    relative = os.path.relpath(item.path, root)
                    key.update(f"{relative}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return key.digest()


@final
class ParseCache:
    """The parse cache in `directory` (created on first use); see the module docstring."""

    def __init__(self, directory: Path, *, max_bytes: int = MAX_BYTES) -> None:
        self.directory = directory
        self._max_bytes = max_bytes
        self._fd: int | None = None
        self._off = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ParseCache | None:
        """The cache the environment names (module docstring), or None when it is off."""
        chosen = environ.get(CACHE_DIR_ENV)
        if chosen is not None:
            return cls(Path(chosen) / _SUBDIR) if chosen else None
        base = environ.get("XDG_CACHE_HOME") or ""
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        return cls(root / "nereid" / _SUBDIR)

    def _dir_fd(self) -> int | None:
        """The directory, opened and checked once; None (and off) if it cannot be trusted."""
        if self._fd is not None or self._off:
            return self._fd
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as err:
            self._give_up(f"cannot open it: {err.strerror or err}")
            return None
        info = os.fstat(fd)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            os.close(fd)
            self._give_up("it is not this user's alone")
            return None
        self._fd = fd
        return fd

    def _give_up(self, why: str) -> None:
        self._off = True
        _log.warning("the parse cache %s is off: %s", self.directory, why)

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    @staticmethod
    def key(read: DiagramRead) -> str:
        """The entry name of what parsing `read` gives: its kind, both files' bytes, the code."""
        key = hashlib.sha256(code_key())
        key.update(f"\0{read.entry.kind}\0{len(read.mmd)}\0".encode())
        key.update(read.mmd)
        if read.sidecar is None:
            key.update(b"\0-")
        else:
            key.update(f"\0{len(read.sidecar)}\0".encode())
            key.update(read.sidecar)
        return key.hexdigest() + _SUFFIX

    def _read(self, name: str) -> _Entry | None:
        """The entry kept under `name` if it is whole (its digest holds); else None."""
        fd = self._dir_fd()
        if fd is None:
            return None
        try:
            entry_fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd)
        except OSError:
            return None
        try:
            with os.fdopen(entry_fd, "rb") as handle:
                if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    return None
                entry = _ENTRY_DECODER.decode(handle.read())
        except (OSError, msgspec.DecodeError):
            return None
        if _digest(entry.payload) != entry.digest:
            return None
        try:
            os.utime(name, dir_fd=fd, follow_symlinks=False)  # recently used
        except OSError:
            pass
        return entry

    def _write(self, name: str, kind: str, payload: bytes) -> None:
        """Keep `payload` under `name` (temp + rename); a failure only leaves it out."""
        fd = self._dir_fd()
        if fd is None:
            return
        data = msgspec.msgpack.encode(_Entry(kind, _digest(payload), payload))
        temp = f"{_TEMP_PREFIX}{os.getpid()}.{name}"
        try:
            out = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd
            )
            with os.fdopen(out, "wb") as handle:
                handle.write(data)
            os.replace(temp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except OSError as err:
            _log.debug("parse cache: cannot keep %s: %s", name, err)
            try:
                os.unlink(temp, dir_fd=fd)
            except OSError:
                pass

    def get(self, name: str, read: DiagramRead) -> Diagram | None:
        """The Diagram `read` loads as, if its parse is kept under `name`; else None."""
        from nereid.store.session_io import listed_rev

        entry = self._read(name)
        ast_type = None if entry is None else _AST_TYPES.get(entry.ast_type)
        if entry is None or ast_type is None:
            return None
        try:
            ast = msgspec.msgpack.decode(entry.payload, type=ast_type)
            rev = listed_rev(read)
        except msgspec.DecodeError:
            return None
        return Diagram(
            diagram_id=read.entry.diagram_id,
            name=read.entry.name,
            kind=read.entry.kind,
            ast=ast,
            rev=rev,
        )

    def put(self, name: str, ast: Ast) -> None:
        """Keep `ast` under `name`."""
        self._write(name, type(ast).__name__, msgspec.msgpack.encode(ast))

    def tool_listing(self) -> ToolListing | None:
        """The MCP tools' listing this code gave before (`keep_tool_listing`)."""
        entry = self._read(_tool_listing_name())
        if entry is None or entry.ast_type != _TOOL_LISTING:
            return None
        try:
            return msgspec.msgpack.decode(entry.payload, type=ToolListing)
        except msgspec.DecodeError:
            return None

    def keep_tool_listing(self, listing: ToolListing) -> None:
        """Keep the tools' listing: it is a pure function of the code (`code_key`)."""
        self._write(_tool_listing_name(), _TOOL_LISTING, msgspec.msgpack.encode(listing))

    def prune(self) -> None:
        """Remove the least recently used entries beyond `max_bytes` (and stale temp files)."""
        fd = self._dir_fd()
        if fd is None:
            return
        entries: list[tuple[int, int, str]] = []
        try:
            with os.scandir(fd) as listing:
                for item in listing:
                    info = item.stat(follow_symlinks=False)
                    entries.append((info.st_mtime_ns, info.st_size, item.name))
        except OSError as err:
            _log.debug("parse cache: cannot list %s: %s", self.directory, err)
            return
        total = sum(size for _, size, _ in entries)
        for _, size, name in sorted(entries):
            if total <= self._max_bytes:
                break
            try:
                os.unlink(name, dir_fd=fd)
            except OSError:
                continue
            total -= size


def cached_decoder(cache: ParseCache | None, decode: DiagramDecoder) -> DiagramDecoder:
    """`decode`, answering from `cache` where it can and keeping what `decode` parsed."""
    if cache is None:
        return decode

    def run(reads: Sequence[DiagramRead]) -> list[Diagram | StoreFileError]:
        names = [cache.key(read) for read in reads]
        try:
            found: list[Diagram | StoreFileError | None] = [
                cache.get(name, read) for name, read in zip(names, reads, strict=True)
            ]
            missed = [i for i, diagram in enumerate(found) if diagram is None]
            if missed:
                for i, result in zip(missed, decode([reads[i] for i in missed]), strict=True):
                    found[i] = result
                    if isinstance(result, Diagram):
                        cache.put(names[i], result.ast)
                cache.prune()
        finally:
            cache.close()
        return [result for result in found if result is not None]

    return run
