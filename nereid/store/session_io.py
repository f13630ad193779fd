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

from collections.abc import Iterable

import msgspec

from nereid.model import Diagram, Session, Walkthrough, check_id
from nereid.store import diagram_files
from nereid.store.contents import (
    meta_for_session,
    selection_from_meta,
    walkthrough_file,
    walkthrough_from_file,
    xref_from_entry,
)
from nereid.store.files import SessionFiles
from nereid.store.naming import (
    LEGACY_META_FILE,
    META_FILE,
    WALKTHROUGH_SUFFIX,
    WALKTHROUGHS_DIR,
    StorePathError,
    check_relative_path,
    decode_stem,
    diagram_paths,
    encode_stem,
    render_path,
    sidecar_path,
    walkthrough_path,
)
from nereid.store.schema import (
    DiagramEntry,
    SessionMetaFile,
    SidecarFile,
    StoreFileError,
    decode_meta,
    decode_sidecar,
    decode_walkthrough,
    encode_meta,
    encode_walkthrough,
)

__all__ = [
    "Kept",
    "LoadIssue",
    "LoadResult",
    "SaveReport",
    "SessionNotFound",
    "load_session",
    "read_meta",
    "save_session",
]


class SessionNotFound(StoreFileError):
    """Neither `nereid-session.meta.json` nor the legacy `session.meta.json` exists."""


class LoadIssue(msgspec.Struct, frozen=True, kw_only=True):
    """One file that could not be loaded; the rest of the session loaded without it."""

    path: str
    problem: str
    diagram_id: str | None = None
    walkthrough_id: str | None = None

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
    """What a save did, in order (paths relative to the folder)."""

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


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


def _load_diagram(files: SessionFiles, entry: DiagramEntry) -> Diagram:
    mmd_path = check_relative_path(entry.mmd_path)
    try:
        mmd = files.read(mmd_path)
    except FileNotFoundError:
        raise StoreFileError(mmd_path, "listed in the session meta but missing") from None
    except OSError as err:
        raise StoreFileError(mmd_path, f"cannot read: {err.strerror or err}") from None
    side_path = sidecar_path(mmd_path)
    side_bytes = _read_optional(files, side_path)
    sidecar: SidecarFile | None = None
    if side_bytes is not None:
        sidecar = decode_sidecar(side_bytes, side_path)
    return diagram_files.decode_diagram(entry, mmd, sidecar, mmd_path=mmd_path)


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


def load_session(files: SessionFiles) -> LoadResult:
    """Load the folder (§6). Only a missing or broken meta file fails the whole load.

    Raises SessionNotFound or StoreFileError (meta). Writes nothing.
    """
    meta = read_meta(files)
    issues: list[LoadIssue] = []
    diagrams: dict[str, Diagram] = {}
    failed: dict[str, DiagramEntry] = {}
    for entry in meta.diagrams:
        diagrams.pop(entry.diagram_id, None)
        failed.pop(entry.diagram_id, None)
        try:
            diagrams[entry.diagram_id] = _load_diagram(files, entry)
        except (StoreFileError, StorePathError) as err:
            path = err.path if isinstance(err, StoreFileError) else entry.mmd_path
            problem = err.problem if isinstance(err, StoreFileError) else str(err)
            issues.append(LoadIssue(path=path, problem=problem, diagram_id=entry.diagram_id))
            failed[entry.diagram_id] = entry
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
    session = Session(
        session_id=meta.session_id,
        diagrams=diagrams,
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
    return LoadResult(session=session, issues=tuple(issues), kept=kept)


def save_session(
    files: SessionFiles,
    session: Session,
    *,
    kept: Kept | None = None,
    deleted_diagram_ids: Iterable[str] = (),
) -> SaveReport:
    """Write the session (§8): changed diagrams and walkthroughs, then the meta file last.

    A diagram is rewritten when its rev differs from the rev in the meta on disk or one of
    its two files is missing; a walkthrough when the rev in its file differs. The files of
    `deleted_diagram_ids` (not in `session`) are removed, as are walkthrough files of ids
    no longer present. Raises StoreFileError (existing meta is broken: nothing is written),
    IdError / StorePathError (an id that is invalid or cannot name a file), a Mermaid export
    error, or OSError; the first three before anything is written.
    """
    kept = kept if kept is not None else Kept()
    try:
        previous: SessionMetaFile | None = read_meta(files)
    except SessionNotFound:
        previous = None
    previous_entries = {e.diagram_id: e for e in previous.diagrams} if previous else {}
    written: list[str] = []
    removed: list[str] = []
    kept_ids = {e.diagram_id for e in kept.diagram_entries}

    # Everything that can be refused (unstorable ids, export errors) is found before the
    # first write, so a refused save leaves the folder as it was.
    check_id(session.session_id)
    for wt_id in session.walkthroughs:
        walkthrough_path(check_id(wt_id))
    for diagram_id in session.diagrams:
        check_id(diagram_id)
    for xref_id in session.xrefs:
        check_id(xref_id)
    pending: list[tuple[str, str]] = []
    for diagram_id in sorted(session.diagrams):
        diagram = session.diagrams[diagram_id]
        mmd_path, side_path, _ = diagram_paths(diagram_id)
        before = previous_entries.get(diagram_id)
        unchanged = (
            before is not None
            and before.rev == diagram.rev
            and files.is_file(mmd_path)
            and files.is_file(side_path)
        )
        if not unchanged:
            mmd_text, side_text = diagram_files.encode_diagram(diagram)
            pending += [(mmd_path, mmd_text), (side_path, side_text)]
    for path, text in pending:
        files.write(path, text.encode("utf-8"))
        written.append(path)

    for diagram_id in sorted(set(deleted_diagram_ids) - set(session.diagrams) - kept_ids):
        try:
            paths = set(diagram_paths(diagram_id))
        except StorePathError:  # such an id never had files
            paths = set()
        before = previous_entries.get(diagram_id)
        if before is not None:
            try:
                custom = check_relative_path(before.mmd_path)
                paths |= {custom, sidecar_path(custom), render_path(custom)}
            except StorePathError:
                pass
        for path in sorted(paths):
            if files.remove(path):
                removed.append(path)

    for wt_id in sorted(session.walkthroughs):
        walkthrough = session.walkthroughs[wt_id]
        path = walkthrough_path(wt_id)
        if _stored_walkthrough_rev(files, path) == walkthrough.rev:
            continue
        record = msgspec.structs.replace(walkthrough_file(walkthrough), walkthrough_id=wt_id)
        files.write(path, encode_walkthrough(record).encode("utf-8"))
        written.append(path)

    current_wt = set(session.walkthroughs) | set(kept.walkthrough_ids)
    previous_wt = previous.walkthrough_ids if previous else None
    if previous_wt is None or set(previous_wt) != current_wt:
        removed += _collect_walkthrough_garbage(files, current_wt)

    meta = meta_for_session(
        session, kept_entries=kept.diagram_entries, kept_walkthrough_ids=kept.walkthrough_ids
    )
    files.write(META_FILE, encode_meta(meta).encode("utf-8"))
    written.append(META_FILE)
    try:
        if files.remove(LEGACY_META_FILE):
            removed.append(LEGACY_META_FILE)
    except OSError:
        pass
    return SaveReport(written=tuple(written), removed=tuple(removed))


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


def _collect_walkthrough_garbage(files: SessionFiles, current: set[str]) -> list[str]:
    """Delete walkthrough files whose stem is neither the raw nor encoded form of a current id."""
    keep: set[str] = set()
    for wt_id in current:
        keep.add(wt_id)
        try:
            keep.add(encode_stem(wt_id))
        except StorePathError:
            pass
    removed: list[str] = []
    for name in files.list_files(WALKTHROUGHS_DIR):
        if "\\" in name:  # not a name we could have written; leave it alone
            continue
        for suffix in (WALKTHROUGH_SUFFIX, ".ascii.txt"):
            if name.endswith(suffix) and name[: -len(suffix)] not in keep:
                path = f"{WALKTHROUGHS_DIR}/{name}"
                if files.remove(path):
                    removed.append(path)
                break
    return removed
