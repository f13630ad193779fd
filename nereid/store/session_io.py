"""Loading and saving a whole session folder (session-folder.md §6, §8, §14) over `SessionFiles`.

Blocking (it does the I/O through the `SessionFiles` it is given); the file contents
themselves are built and parsed by the pure modules `contents`, `diagram_files`, `schema`.

Where we differ from the reference, on purpose:

- A diagram or walkthrough whose files are missing or broken does not fail the whole load:
  it is left out of the session, the problem is reported in `LoadResult.issues` (naming the
  file), and its meta entry and files are kept untouched by later saves until something is
  written for that id on purpose (see `Kept`).
- Deleting a diagram deletes its files (spec decision 14): `save_session(deleted=...)`.
- A walkthrough listed under one id whose file holds another id is loaded under the listed id.
"""

from __future__ import annotations

import errno
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Final, NamedTuple

import msgspec

from nereid.mermaid import detect_kind
from nereid.mermaid.errors import MermaidError, MermaidExportError
from nereid.model import Diagram, IdError, Session, Walkthrough, check_id
from nereid.model.file_names import (
    LEGACY_META_FILE,
    META_FILE,
    WALKTHROUGH_SUFFIX,
    WALKTHROUGHS_DIR,
    StorePathError,
    check_relative_path,
    decode_stem,
    diagram_files_of,
    diagram_paths,
    encode_stem,
    sidecar_path,
    walkthrough_path,
)
from nereid.model.file_problem import FileProblem
from nereid.store import diagram_files
from nereid.store.contents import (
    diagram_entry,
    meta_for_session,
    selection_from_meta,
    walkthrough_file,
    walkthrough_from_file,
    xref_from_entry,
)
from nereid.store.files import SessionFiles
from nereid.store.recording import imported_text
from nereid.store.schema import (
    MAX_REV,
    DiagramEntry,
    Rev,
    SessionMetaFile,
    SidecarFile,
    StoreFileError,
    UnparsableFile,
    decode_meta,
    decode_sidecar,
    decode_walkthrough,
    encode_meta,
    encode_walkthrough,
)

__all__ = [
    "META_KEY",
    "DiagramDecoder",
    "DiagramRead",
    "Kept",
    "LoadIssue",
    "ListedRead",
    "Listing",
    "LoadResult",
    "SaveReport",
    "SessionNotFound",
    "decode_here",
    "decode_read",
    "diagram_issue",
    "diagram_key",
    "list_listed",
    "listed_read",
    "listed_rev",
    "load_listed",
    "load_session",
    "read_meta",
    "save_problem",
    "save_session",
    "walkthrough_key",
    "with_decoded",
]

_log = logging.getLogger(__name__)


class SessionNotFound(StoreFileError):
    """Neither `nereid-session.meta.json` nor the legacy `session.meta.json` exists."""


class LoadIssue(msgspec.Struct, frozen=True, kw_only=True):
    """One file that could not be loaded; the rest of the session loaded without it."""

    path: str
    problem: str
    diagram_id: str | None = None
    walkthrough_id: str | None = None
    #: Where the file does not parse (a `.mmd`), when that is the problem.
    file_problem: FileProblem | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


class Kept(msgspec.Struct, frozen=True, kw_only=True):
    """Entries of the folder that failed to load: saves keep listing them and keep their files."""

    diagram_entries: tuple[DiagramEntry, ...] = ()
    walkthrough_ids: tuple[str, ...] = ()

    def without(self, diagram_ids: Iterable[str], walkthrough_ids: Iterable[str]) -> Kept:
        """The entries left once these ids are written (or deleted) on purpose."""
        drop_d, drop_w = set(diagram_ids), set(walkthrough_ids)
        return Kept(
            diagram_entries=tuple(e for e in self.diagram_entries if e.diagram_id not in drop_d),
            walkthrough_ids=tuple(w for w in self.walkthrough_ids if w not in drop_w),
        )


class LoadResult(msgspec.Struct, frozen=True, kw_only=True):
    session: Session
    issues: tuple[LoadIssue, ...] = ()
    kept: Kept = msgspec.field(default_factory=Kept)


class SaveReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a save did, in order (paths relative to the folder), item by item.

    `failed`: item key (`diagram:<id>`, `walkthrough:<id>`, `meta`) → why it was not
    saved. `on_disk`: keys whose current state a load of the folder now gives.
    """

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    failed: dict[str, str] = msgspec.field(default_factory=dict)
    on_disk: frozenset[str] = frozenset()


def read_meta(files: SessionFiles) -> SessionMetaFile:
    """The session meta (legacy name as fallback). Raises SessionNotFound or StoreFileError."""
    for name in (META_FILE, LEGACY_META_FILE):
        try:
            data = files.read(name)
        except FileNotFoundError:
            continue
        except OSError as err:
            raise StoreFileError(name, f"cannot read: {err.strerror or err}") from None
        return decode_meta(data, name)
    raise SessionNotFound(META_FILE, f"not found in {files.describe()}")


def _read_optional(files: SessionFiles, path: str) -> bytes | None:
    try:
        return files.read(path)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise StoreFileError(path, f"cannot read: {err.strerror or err}") from None


class DiagramRead(NamedTuple):
    """A listed diagram's bytes, read from the folder; decoding them is pure work."""

    entry: DiagramEntry
    mmd: bytes
    sidecar: bytes | None
    mmd_path: str
    sidecar_path: str


DiagramDecoder = Callable[[Sequence[DiagramRead]], list["Diagram | StoreFileError"]]
"""Decodes reads in order: each the Diagram, or the StoreFileError saying why it cannot be."""


def _read_diagram(files: SessionFiles, entry: DiagramEntry) -> DiagramRead:
    mmd_path = check_relative_path(entry.mmd_path)
    try:
        mmd = files.read(mmd_path)
    except FileNotFoundError:
        raise StoreFileError(mmd_path, "listed in the session meta but missing") from None
    except OSError as err:
        raise StoreFileError(mmd_path, f"cannot read: {err.strerror or err}") from None
    side_path = sidecar_path(mmd_path)
    return DiagramRead(entry, mmd, _read_optional(files, side_path), mmd_path, side_path)


class _SidecarRev(msgspec.Struct):
    """The two side-car keys a loaded rev depends on (validated as `SidecarFile` does)."""

    rev: Rev | None = None
    mmd_sha256: str | None = None


_REV_DECODER: Final = msgspec.json.Decoder(_SidecarRev)

_REV_TAIL: Final = re.compile(
    rb',[ \t\n\r]*"rev"[ \t\n\r]*:[ \t\n\r]*(0|[1-9][0-9]{0,18})[ \t\n\r]*,'
    rb'[ \t\n\r]*"mmd_sha256"[ \t\n\r]*:[ \t\n\r]*"([0-9a-f]{64})"[ \t\n\r]*}[ \t\n\r]*\Z'
)
"""A side-car's last two members as Nereid writes them: `rev`, then `mmd_sha256`."""
_TAIL_BYTES: Final = 256


class ListedRead(NamedTuple):
    """What the listing tells of a read without parsing it (`listed_read`)."""

    rev: int
    """The rev it loads as (`diagram_files.loaded_rev`)."""
    as_saved: bool
    """It loads for sure: its `.mmd` is byte for byte the one Nereid saved with its
    side-car (the side-car's `mmd_sha256`, in a side-car that ends as Nereid writes it),
    and its header names the meta's kind. False: only its parse can tell (edited while
    Nereid was off, no side-car, a side-car decoded for its rev)."""


def _from_tail(read: DiagramRead) -> ListedRead | None:
    """`listed_read` without decoding the side-car (23 MB of JSON for the 200 x 500-node
    start-up bench: the GIL held for ~90 ms beside the imports), when the rev is the
    meta's; None: decode it.

    Exact: in a JSON document that ends so, those are the top-level object's last `rev`
    and `mmd_sha256` members (no bracket or unescaped quote is left to open another
    value), which a decode takes (the last of a repeated key wins); a side-car that does
    not decode (not JSON, a bad value elsewhere) lists at the meta's rev, as this does.
    """
    assert read.sidecar is not None
    tail = _REV_TAIL.search(read.sidecar, max(0, len(read.sidecar) - _TAIL_BYTES))
    if tail is None or int(tail[1]) > MAX_REV:
        return None
    unchanged = tail[2].decode() == diagram_files.mmd_digest(read.mmd)
    rev = diagram_files.rev_after(read.entry.rev, int(tail[1]), unchanged=unchanged)
    if rev != read.entry.rev:
        return None
    return ListedRead(rev, unchanged and _header_names(read.mmd, read.entry.kind))


_HEAD_BYTES: Final = 512


def _header_names(mmd: bytes, kind: str) -> bool:
    """Whether `mmd`'s header names `kind` (`detect_kind`), from its first `_HEAD_BYTES`
    when the text holds no preamble (no front matter, no directive anywhere: one that
    does not close fails the whole text; no line of the head changes then, and a header
    cut short does not match: False), else from the whole text."""
    head = mmd[:_HEAD_BYTES]
    front = head.lstrip(b"\xef\xbb\xbf\r\n")[:3] == b"---"
    if len(head) < len(mmd) and (front or b"%%{" in mmd):
        head = mmd
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as err:
        if head is mmd or err.start < len(head) - 3:
            return False
        text = head[: err.start].decode("utf-8")  # a character cut at the end
    try:
        return detect_kind(text) == kind
    except MermaidError:
        return False


def listed_read(read: DiagramRead) -> ListedRead:
    """The rev `read` loads as, and whether it loads for sure, from the side-car's `rev`
    and `mmd_sha256` alone: no parse. Raises `msgspec.DecodeError` for a side-car that
    is not such JSON (then the diagram does not load either)."""
    if read.sidecar is not None:
        quick = _from_tail(read)
        if quick is not None:
            return quick
    return _decoded(read)


def listed_rev(read: DiagramRead) -> int:
    """The rev `read` loads as (`listed_read`)."""
    return listed_read(read).rev


def decoded_rev(read: DiagramRead) -> int:
    """`listed_rev` by decoding the side-car's `rev` and `mmd_sha256` (the path the tail
    read stands in for, and its oracle in the tests)."""
    return _decoded(read).rev


def _decoded(read: DiagramRead) -> ListedRead:
    """`listed_read` by decoding the side-car's `rev` and `mmd_sha256`
    (`diagram_files.loaded_rev`)."""
    sidecar = None if read.sidecar is None else _REV_DECODER.decode(read.sidecar)
    if sidecar is None or sidecar.rev is None:
        return ListedRead(read.entry.rev, as_saved=False)
    unchanged = sidecar.mmd_sha256 == diagram_files.mmd_digest(read.mmd)
    rev = diagram_files.rev_after(read.entry.rev, sidecar.rev, unchanged=unchanged)
    return ListedRead(rev, unchanged and _header_names(read.mmd, read.entry.kind))


def decode_read(read: DiagramRead) -> Diagram:
    """The diagram `read` holds; raises StoreFileError (UnparsableFile: where it fails)."""
    sidecar: SidecarFile | None = None
    if read.sidecar is not None:
        sidecar = decode_sidecar(read.sidecar, read.sidecar_path)
    return diagram_files.decode_diagram(read.entry, read.mmd, sidecar, mmd_path=read.mmd_path)


def decode_here(reads: Sequence[DiagramRead]) -> list[Diagram | StoreFileError]:
    """`DiagramDecoder` in this thread, one after the other."""
    decoded: list[Diagram | StoreFileError] = []
    for read in reads:
        try:
            decoded.append(decode_read(read))
        except StoreFileError as err:
            decoded.append(err)
    return decoded


def _load_walkthrough(files: SessionFiles, path: str) -> Walkthrough:
    try:
        data = files.read(path)
    except OSError as err:
        raise StoreFileError(path, f"cannot read: {err.strerror or err}") from None
    return walkthrough_from_file(decode_walkthrough(data, path))


def _listed_walkthrough_path(files: SessionFiles, walkthrough_id: str) -> str:
    """The encoded file name, else the legacy raw-id name if that one exists (§7)."""
    path = walkthrough_path(walkthrough_id)
    if files.is_file(path):
        return path
    try:
        legacy = walkthrough_path(walkthrough_id, legacy=True)
    except StorePathError:
        return path
    return legacy if files.is_file(legacy) else path


def load_session(files: SessionFiles, decode: DiagramDecoder = decode_here) -> LoadResult:
    """Load the folder (§6). Only a missing or broken meta file fails the whole load.

    Raises SessionNotFound or StoreFileError (meta). Writes nothing.
    """
    return load_listed(files, read_meta(files), decode)


def load_listed(
    files: SessionFiles, meta: SessionMetaFile, decode: DiagramDecoder = decode_here
) -> LoadResult:
    """Load what `meta` (read by `read_meta`) lists; a file that fails is an issue, not an error.

    Files are read here, in the meta's order; `decode` parses them (`decode_here`, or a
    pool of worker processes for a big folder). Writes nothing.
    """
    listing = list_listed(files, meta)
    return with_decoded(listing, decode(listing.reads))


class Listing(NamedTuple):
    """A folder read but not parsed (`list_listed`): what a load is, less the decoding.

    `result`: the session without its diagrams (walkthroughs, xrefs, active ids and
    selection loaded; diagrams whose files cannot be read as issues and `kept`);
    `reads`: the listed diagrams' bytes to decode, in the meta's order (an id listed
    twice is read twice; the last entry wins); `order`: every listed entry with its read
    or why it has none, for `with_decoded`.
    """

    result: LoadResult
    reads: tuple[DiagramRead, ...]
    order: tuple[tuple[DiagramEntry, DiagramRead | StoreFileError | StorePathError], ...]


def list_listed(
    files: SessionFiles, meta: SessionMetaFile, *, diagram_files: SessionFiles | None = None
) -> Listing:
    """Read what `meta` lists without parsing a diagram (cheap: bytes and small JSON).

    A start-up that loads diagrams lazily lists the session from this and decodes
    `Listing.reads` later (`with_decoded`, or one by one). `diagram_files`: where the
    diagrams' files are read (default `files`; the walkthroughs are read from `files`).
    Writes nothing.
    """
    from_files = files if diagram_files is None else diagram_files
    order: list[tuple[DiagramEntry, DiagramRead | StoreFileError | StorePathError]] = []
    for entry in meta.diagrams:
        try:
            order.append((entry, _read_diagram(from_files, entry)))
        except (StoreFileError, StorePathError) as err:
            order.append((entry, err))
    reads = tuple(read for _, read in order if isinstance(read, DiagramRead))
    issues: list[LoadIssue] = []
    failed: dict[str, DiagramEntry] = {}
    for entry, outcome in order:
        failed.pop(entry.diagram_id, None)
        if not isinstance(outcome, DiagramRead):
            issues.append(diagram_issue(entry, outcome))
            failed[entry.diagram_id] = entry
    walkthroughs, wt_issues, failed_walkthroughs = _load_walkthroughs(files, meta)
    session = Session(
        session_id=meta.session_id,
        diagrams={},
        walkthroughs=walkthroughs,
        xrefs={entry.xref_id: xref_from_entry(entry) for entry in meta.xrefs},
        active_diagram_id=meta.active_diagram_id,
        active_walkthrough_id=meta.active_walkthrough_id,
        selected_object_refs=selection_from_meta(meta),
    )
    kept = Kept(
        diagram_entries=tuple(failed.values()),
        walkthrough_ids=tuple(w for w in failed_walkthroughs if w not in walkthroughs),
    )
    result = LoadResult(session=session, issues=(*issues, *wt_issues), kept=kept)
    return Listing(result=result, reads=reads, order=tuple(order))


def diagram_issue(entry: DiagramEntry, error: StoreFileError | StorePathError) -> LoadIssue:
    """The load issue of a listed diagram that cannot be read or decoded."""
    return LoadIssue(
        path=error.path if isinstance(error, StoreFileError) else entry.mmd_path,
        problem=error.problem if isinstance(error, StoreFileError) else str(error),
        diagram_id=entry.diagram_id,
        file_problem=error.file_problem if isinstance(error, UnparsableFile) else None,
    )


def with_decoded(listing: Listing, decoded: Sequence[Diagram | StoreFileError]) -> LoadResult:
    """The load `listing` gives with its reads decoded as `decoded` (in order; issues in
    meta order)."""
    issues: list[LoadIssue] = []
    diagrams: dict[str, Diagram] = {}
    failed: dict[str, DiagramEntry] = {}
    results = iter(decoded)
    for entry, outcome in listing.order:
        diagrams.pop(entry.diagram_id, None)
        failed.pop(entry.diagram_id, None)
        result = next(results) if isinstance(outcome, DiagramRead) else outcome
        if isinstance(result, Diagram):
            diagrams[entry.diagram_id] = result
            continue
        issues.append(diagram_issue(entry, result))
        failed[entry.diagram_id] = entry
    base = listing.result
    wt_issues = tuple(issue for issue in base.issues if issue.diagram_id is None)
    return LoadResult(
        session=msgspec.structs.replace(base.session, diagrams=diagrams),
        issues=(*issues, *wt_issues),
        kept=Kept(
            diagram_entries=tuple(failed.values()),
            walkthrough_ids=base.kept.walkthrough_ids,
        ),
    )


def _load_walkthroughs(
    files: SessionFiles, meta: SessionMetaFile
) -> tuple[dict[str, Walkthrough], list[LoadIssue], list[str]]:
    """The walkthroughs `meta` lists (or, for an old meta, the folder holds), the issues
    of those that do not load, and their ids."""
    issues: list[LoadIssue] = []
    walkthroughs: dict[str, Walkthrough] = {}
    failed_walkthroughs: list[str] = []
    if meta.walkthrough_ids is not None:
        for wt_id in meta.walkthrough_ids:
            try:
                path = _listed_walkthrough_path(files, wt_id)
                loaded = _load_walkthrough(files, path)
            except (StoreFileError, StorePathError) as err:
                problem = err.problem if isinstance(err, StoreFileError) else str(err)
                where = err.path if isinstance(err, StoreFileError) else wt_id
                issues.append(LoadIssue(path=where, problem=problem, walkthrough_id=wt_id))
                failed_walkthroughs.append(wt_id)
                continue
            walkthroughs[wt_id] = msgspec.structs.replace(loaded, walkthrough_id=wt_id)
    else:
        for name in files.list_files(WALKTHROUGHS_DIR):
            if not name.endswith(WALKTHROUGH_SUFFIX) or "\\" in name:
                continue
            path = f"{WALKTHROUGHS_DIR}/{name}"
            try:
                loaded = _load_walkthrough(files, path)
            except StoreFileError as err:
                stem = name[: -len(WALKTHROUGH_SUFFIX)]
                guessed = decode_stem(stem) or stem
                issues.append(LoadIssue(path=path, problem=err.problem, walkthrough_id=guessed))
                failed_walkthroughs.append(guessed)
                continue
            walkthroughs[loaded.walkthrough_id] = loaded
    return walkthroughs, issues, failed_walkthroughs


def diagram_key(diagram_id: str) -> str:
    """The save-report key of a diagram (the name of its actor)."""
    return f"diagram:{diagram_id}"


def walkthrough_key(walkthrough_id: str) -> str:
    """The save-report key of a walkthrough (the name of its actor)."""
    return f"walkthrough:{walkthrough_id}"


#: The save-report key of the session meta (xrefs, active ids, selection, the listing).
META_KEY: Final = "meta"

_REASONS: Final = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EIO: "I/O error",
}


def save_problem(err: BaseException) -> str:
    """A short reason first (`disk full: ...`), for the status line and `save_error`."""
    if isinstance(err, OSError):
        reason = _REASONS.get(err.errno or 0)
        code = errno.errorcode.get(err.errno or 0)
        where = f"{err.filename}: " if err.filename is not None else ""
        detail = f"{where}{err.strerror or err}" + (f" [{code}]" if code else "")
        return f"{reason}: {detail}" if reason else detail
    if isinstance(err, MermaidExportError):
        return f"cannot export as Mermaid: {err}"
    if isinstance(err, (StoreFileError, StorePathError, IdError)):
        return str(err)
    return f"{type(err).__name__}: {err}"


def save_session(
    files: SessionFiles,
    session: Session,
    *,
    kept: Kept | None = None,
    deleted_diagram_ids: Iterable[str] = (),
    rewrite: Iterable[str] = (),
    encoded: Mapping[str, tuple[str, str] | Exception] | None = None,
) -> SaveReport:
    """Write the session (§8) item by item: diagrams, walkthroughs, then the meta last.

    A diagram is rewritten when its rev differs from the rev in the meta on disk, one of
    its two files is missing, or its key is in `rewrite` (its last save failed, or its
    rev went back so the rev on disk may name other content); a walkthrough when the rev
    in its file differs or its key is in `rewrite`. The files of `deleted_diagram_ids` are
    removed, as are walkthrough files of ids no longer present, never a file that another
    entry owns. `encoded`: diagrams already exported elsewhere (a worker process), by id:
    their `(mmd, side-car)` texts, or what the export raised.

    One item that cannot be saved (export error, unstorable id, a link or directory where
    its file should be, any OSError, any exception) is reported in `SaveReport.failed`
    and skipped: the others and the meta are still written, and the meta keeps listing
    what is on disk for it. Only a broken meta on disk (StoreFileError) refuses the whole
    save, before anything is written: without it, which files belong to whom is unknown.
    """
    kept = kept if kept is not None else Kept()
    try:
        previous: SessionMetaFile | None = read_meta(files)
    except SessionNotFound:
        previous = None
    previous_entries = {e.diagram_id: e for e in previous.diagrams} if previous else {}
    previous_wt = set(previous.walkthrough_ids) if previous and previous.walkthrough_ids else set()
    scan_mode = previous is not None and previous.walkthrough_ids is None
    force = set(rewrite)
    written: list[str] = []
    removed: list[str] = []
    failed: dict[str, str] = {}
    files_ok: set[str] = set()

    def attempt(key: str, work: Callable[[], None]) -> bool:
        try:
            work()
        except Exception as err:  # one item never stops the others, whatever it raises
            failed[key] = save_problem(err)
            _log.error("saving %s in %s failed: %s", key, files.describe(), failed[key])
            return False
        files_ok.add(key)
        return True

    listed: dict[str, DiagramEntry] = {e.diagram_id: e for e in kept.diagram_entries}
    for diagram_id in sorted(session.diagrams):
        diagram = session.diagrams[diagram_id]
        key = diagram_key(diagram_id)

        def save_diagram(diagram: Diagram = diagram, key: str = key) -> None:
            check_id(diagram.diagram_id)
            entry = diagram_entry(diagram)
            mmd_path, side_path, _ = diagram_paths(diagram.diagram_id)
            before = previous_entries.get(diagram.diagram_id)
            unchanged = (
                key not in force
                and before is not None
                and before.rev == diagram.rev
                and files.is_file(mmd_path)
                and files.is_file(side_path)
            )
            if not unchanged:
                person = diagram_files.sidecar_keeping(diagram, imported_text(files, mmd_path))
                if person is not None:  # the person's text is the revision: keep it
                    files.write(side_path, person.encode("utf-8"))
                    written.append(side_path)
                else:
                    done = (encoded or {}).get(diagram.diagram_id)
                    if isinstance(done, Exception):
                        raise done
                    mmd_text, side_text = done or diagram_files.encode_diagram(diagram)
                    files.write_many(
                        [
                            (mmd_path, mmd_text.encode("utf-8")),
                            (side_path, side_text.encode("utf-8")),
                        ]
                    )
                    written.extend((mmd_path, side_path))
            listed[diagram.diagram_id] = entry

        if not attempt(key, save_diagram) and diagram_id in previous_entries:
            listed[diagram_id] = previous_entries[diagram_id]  # what is on disk for it

    listed_wt = set(kept.walkthrough_ids)
    for wt_id in sorted(session.walkthroughs):
        walkthrough = session.walkthroughs[wt_id]
        key = walkthrough_key(wt_id)

        def save_walkthrough(walkthrough: Walkthrough = walkthrough, wt_id: str = wt_id) -> None:
            path = walkthrough_path(check_id(wt_id))
            forced = walkthrough_key(wt_id) in force
            if forced or _stored_walkthrough_rev(files, path) != walkthrough.rev:
                record = msgspec.structs.replace(
                    walkthrough_file(walkthrough), walkthrough_id=wt_id
                )
                files.write(path, encode_walkthrough(record).encode("utf-8"))
                written.append(path)

        if attempt(key, save_walkthrough) or wt_id in previous_wt or scan_mode:
            listed_wt.add(wt_id)

    # Files another entry owns are never deleted: every listed diagram's, the walkthroughs'
    # and the meta's own.
    owned = {META_FILE, LEGACY_META_FILE}
    for entry in listed.values():
        try:
            owned.update(diagram_files_of(entry.mmd_path))
        except StorePathError:
            pass

    def save_meta() -> None:
        check_id(session.session_id)
        for xref_id in session.xrefs:
            check_id(xref_id)
        meta = meta_for_session(session, diagram_entries=listed.values(), walkthrough_ids=listed_wt)
        files.write(META_FILE, encode_meta(meta).encode("utf-8"))
        written.append(META_FILE)

    # The meta first, then the deletes: a delete whose meta did not reach the disk leaves
    # every file in place, so the folder still loads with the item (what the durable
    # rollback restores in memory); removed files are at worst unlisted garbage.
    meta_ok = attempt(META_KEY, save_meta)
    for diagram_id in sorted(set(deleted_diagram_ids) - set(session.diagrams) - set(listed)):
        if not meta_ok:
            failed[diagram_key(diagram_id)] = "not deleted yet: the meta was not written"
            continue

        def delete_files(diagram_id: str = diagram_id) -> None:
            paths: set[str] = set()
            try:
                paths.update(diagram_paths(diagram_id))
            except StorePathError:  # such an id never had files
                pass
            before = previous_entries.get(diagram_id)
            if before is not None:
                try:
                    paths.update(diagram_files_of(before.mmd_path))
                except StorePathError:
                    pass
            for path in sorted(paths - owned):
                if files.remove(path):
                    removed.append(path)

        attempt(diagram_key(diagram_id), delete_files)

    current_wt = set(session.walkthroughs) | set(kept.walkthrough_ids)
    changed_wt = previous is None or previous.walkthrough_ids is None or previous_wt != current_wt
    if meta_ok and changed_wt:
        removed += _collect_walkthrough_garbage(files, current_wt | listed_wt, owned, failed)
    if meta_ok:
        try:
            if files.remove(LEGACY_META_FILE):
                removed.append(LEGACY_META_FILE)
        except OSError:
            pass
    return SaveReport(
        written=tuple(written),
        removed=tuple(removed),
        failed=failed,
        on_disk=frozenset(
            _on_disk(session, files_ok, meta_ok, previous_entries, previous_wt, deleted_diagram_ids)
        ),
    )


def _on_disk(
    session: Session,
    files_ok: set[str],
    meta_ok: bool,
    previous_entries: dict[str, DiagramEntry],
    previous_wt: set[str],
    deleted_diagram_ids: Iterable[str],
) -> Iterator[str]:
    """Keys whose current state a load of the folder would now give.

    An item's files are enough when the meta on disk already lists it (a loaded diagram
    takes its side-car's rev); a new item needs the meta too.
    """
    if meta_ok:
        yield META_KEY
    for diagram_id, diagram in session.diagrams.items():
        key = diagram_key(diagram_id)
        if key not in files_ok:
            continue
        before = previous_entries.get(diagram_id)
        if meta_ok or (
            before is not None
            and before == msgspec.structs.replace(diagram_entry(diagram), rev=before.rev)
        ):
            yield key
    for wt_id in session.walkthroughs:
        key = walkthrough_key(wt_id)
        if key in files_ok and (meta_ok or wt_id in previous_wt):
            yield key
    for diagram_id in deleted_diagram_ids:
        key = diagram_key(diagram_id)
        if key in files_ok and meta_ok:
            yield key


def _stored_walkthrough_rev(files: SessionFiles, path: str) -> int | None:
    """The rev in an existing `.wt.json` (missing key → 0), None if absent or unreadable."""
    try:
        data = files.read(path)
    except OSError:
        return None
    try:
        return decode_walkthrough(data, path).rev
    except StoreFileError:
        return None


def _collect_walkthrough_garbage(
    files: SessionFiles, current: set[str], owned: set[str], failed: dict[str, str]
) -> list[str]:
    """Delete walkthrough files whose stem is neither the raw nor encoded form of a current id.

    A file that cannot be deleted is reported under its walkthrough's key and left.
    """
    keep: set[str] = set()
    for wt_id in current:
        keep.add(wt_id)
        try:
            keep.add(encode_stem(wt_id))
        except StorePathError:
            pass
    removed: list[str] = []
    try:
        names = files.list_files(WALKTHROUGHS_DIR)
    except OSError as err:
        _log.warning("cannot list %s for clean-up: %s", WALKTHROUGHS_DIR, save_problem(err))
        return removed
    for name in names:
        if "\\" in name:  # not a name we could have written; leave it alone
            continue
        for suffix in (WALKTHROUGH_SUFFIX, ".ascii.txt"):
            stem = name[: -len(suffix)]
            path = f"{WALKTHROUGHS_DIR}/{name}"
            if name.endswith(suffix) and stem not in keep and path not in owned:
                try:
                    if files.remove(path):
                        removed.append(path)
                except OSError as err:
                    failed[walkthrough_key(decode_stem(stem) or stem)] = save_problem(err)
                break
    return removed
