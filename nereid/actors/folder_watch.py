"""The folder watcher (spec decision 20, architecture §8): the person's own edits come in.

`watch_folder(handle, root, files)` follows `diagrams/`, `walkthroughs/` and the session
meta with `watchfiles` (on anyio, so it runs in the trio loop). After each burst of events
(an editor's write + rename, a `git checkout`), every item whose files were touched is
brought in line with the folder; files whose bytes Nereid wrote or already took in
(`RecordingFiles`, by content hash) are skipped, so Nereid's own saves are never
re-imported:

- **changed** `.mmd` of a diagram: parsed off the event loop and sent to its actor as
  `ImportFile` with the text it was based on (of Nereid's recent texts of that file, the
  closest): the person's net change is merged three-way onto the current AST (ids kept;
  where both changed one object the file wins, every other change stays, so ops an agent
  had acknowledged meanwhile are not reverted), committed as a new rev and announced like
  any change (TUI repaint, `resources/updated`, `diagram.diff`);
- **new** `.mmd` with a side-car or listed in the session meta on disk: `AdoptDiagram`
  (with the side-car's ids) — it appears in `diagram.list` and the TUI;
- **deleted** `.mmd` (still missing a moment later, so an editor's rename is not a
  delete): the diagram is deleted from the session;
- a text that **does not parse**: the diagram keeps its last good state (a new file is
  listed empty), its `file_problem` says where (`diagram.list` / `diagram.stat`
  `file_error`, the TUI status line), its writes are refused, and the file is left as it
  is (`RecordingFiles` never overwrites foreign bytes) until it parses again;
- a **walkthrough** file changed, new or deleted: the same (`ImportWalkthrough`,
  `AdoptWalkthrough`, delete); one that does not load is left as it is, and the
  walkthrough keeps its state with a `file_problem` (`walkthrough.stat` `file_error`,
  writes refused) until it loads again;
- the **session meta** changed (a checkout): the diagrams and walkthroughs it lists are
  taken in, its xrefs replace the session's, and then Nereid may rewrite it.

With `--durable-writes` an import whose save the disk refuses (full, read-only) is rolled
back like any write; its file counts as foreign again (never overwritten by the rolled-back
state) and it is tried again every `_RETRY_S` until the disk takes it.

A person's text that was taken in is not rewritten to reformat it (the saver keeps it and
writes only the side-car while it reads back as the revision). The mailbox orders these
imports with every other client's requests.
"""

from __future__ import annotations

import collections
import logging
from contextlib import aclosing
from pathlib import Path
from typing import Final

import msgspec
import trio

from nereid.actors import protocol as p
from nereid.actors.diagram import diagram_actor_name, parse_mermaid_text
from nereid.actors.folder_events import FolderEvents
from nereid.actors.tree import SessionHandle
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.errors import InvalidParams, NereidError, PersistFailed
from nereid.mermaid import MermaidError, detect_kind
from nereid.model import Ast, Diagram, DiagramKind, Walkthrough, empty_ast
from nereid.model.file_names import (
    DIAGRAMS_DIR,
    LEGACY_META_FILE,
    META_FILE,
    WALKTHROUGH_SUFFIX,
    WALKTHROUGHS_DIR,
    StorePathError,
    decode_stem,
    diagram_paths,
    walkthrough_path,
)
from nereid.model.file_problem import FileProblem
from nereid.runtime import Event
from nereid.store.contents import walkthrough_from_file
from nereid.store.diagram_files import decode_diagram
from nereid.store.recording import RecordingFiles
from nereid.store.schema import (
    DiagramEntry,
    SessionMetaFile,
    SidecarFile,
    StoreFileError,
    UnparsableFile,
    decode_meta,
    decode_sidecar,
    decode_walkthrough,
)
from nereid.store.session_io import read_meta

__all__ = ["FolderSynced", "watch_folder"]

_log = logging.getLogger(__name__)


class FolderSynced(Event, frozen=True):
    """The watcher brought the session in line with one burst of folder changes (taken
    in, or skipped as Nereid's own or a stray): `paths`, relative to the folder, sorted.
    Whoever waits for an edit to be handled (or ignored) waits for this."""

    paths: tuple[str, ...]


#: Seconds a missing `.mmd` must stay missing before its diagram is deleted.
_GONE_GRACE: Final = 0.1
#: Seconds before an import that a durable save refused is tried again.
_RETRY_S: Final = 1.0
_SUFFIX: Final = ".mmd"
_SIDECAR_SUFFIX: Final = ".meta.json"


def _diagram_id(path: Path, directory: Path) -> str | None:
    """The diagram id a changed path is the `.mmd` or side-car of, or None."""
    if path.parent != directory:
        return None
    for suffix in (_SUFFIX, _SIDECAR_SUFFIX):
        if path.name.endswith(suffix):
            stem = path.name[: -len(suffix)]
            break
    else:
        return None
    decoded = decode_stem(stem)
    diagram_id = decoded if decoded is not None else stem
    try:
        return diagram_id if diagram_paths(diagram_id)[0] == f"{DIAGRAMS_DIR}/{stem}.mmd" else None
    except StorePathError:
        return None


def _walkthrough_id(path: Path, directory: Path) -> str | None:
    """The walkthrough id a changed path is the file of (encoded name), or None."""
    if path.parent != directory or not path.name.endswith(WALKTHROUGH_SUFFIX):
        return None
    stem = path.name[: -len(WALKTHROUGH_SUFFIX)]
    decoded = decode_stem(stem)
    walkthrough_id = decoded if decoded is not None else stem
    try:
        expected = walkthrough_path(walkthrough_id)
    except StorePathError:
        return None
    return walkthrough_id if expected == f"{WALKTHROUGHS_DIR}/{path.name}" else None


def _load_walkthrough(path: str, data: bytes, walkthrough_id: str) -> Walkthrough:
    loaded = walkthrough_from_file(decode_walkthrough(data, path))
    return msgspec.structs.replace(loaded, walkthrough_id=walkthrough_id)


def _problem(path: str, err: InvalidParams) -> FileProblem:
    data = err.data or {}
    line = data.get("line")
    return FileProblem(
        file=path, message=err.message, line=line, column=data.get("column") if line else None
    )


def _parse(path: str, data: bytes) -> Ast | FileProblem:
    """The `.mmd`'s parse, or why it has none (runs in a worker thread)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return FileProblem(file=path, message=f"not UTF-8 text (byte {err.start})")
    try:
        return parse_mermaid_text(text)
    except InvalidParams as err:
        return _problem(path, err)


def _line_distance(a: bytes, b: bytes) -> int:
    """How many lines differ between two texts (as multisets: cheap, order-blind)."""
    left, right = collections.Counter(a.splitlines()), collections.Counter(b.splitlines())
    return sum(((left - right) + (right - left)).values())


def _base_of(path: str, data: bytes, own: tuple[bytes, ...]) -> Ast | None:
    """The parse of the text the edit `data` started from: of Nereid's recent texts of the
    file (oldest first), the one closest to `data`, the newest on a tie; None if none parses.

    Usually the newest (the file held it when the person saved); an editor that kept an
    older text open and saved over a newer one is based on that older one.
    """
    ranked = sorted(enumerate(own), key=lambda item: (_line_distance(item[1], data), -item[0]))
    for _, text in ranked[:2]:
        parsed = _parse(path, text)
        if not isinstance(parsed, FileProblem):
            return parsed
    return None


def _read_sidecar(files: RecordingFiles, path: str) -> SidecarFile | None:
    try:
        return decode_sidecar(files.read(path), path)
    except (OSError, StoreFileError):
        return None


def _listed_entry(files: RecordingFiles, diagram_id: str) -> DiagramEntry | None:
    try:
        meta = read_meta(files)
    except (OSError, StoreFileError):
        return None
    return next((e for e in meta.diagrams if e.diagram_id == diagram_id), None)


def _kind_of(data: bytes) -> DiagramKind:
    try:
        return detect_kind(data.decode("utf-8"))
    except (UnicodeDecodeError, MermaidError):
        return "flowchart"


def _with_ids(entry: DiagramEntry, data: bytes, sidecar: SidecarFile | None) -> Diagram | None:
    """The file as a load would give it (side-car ids), or None if it does not parse."""
    try:
        return decode_diagram(entry, data, sidecar, mmd_path=entry.mmd_path)
    except (UnparsableFile, StoreFileError):
        return None


def _newcomer(
    files: RecordingFiles, diagram_id: str, data: bytes
) -> tuple[Diagram, FileProblem | None] | None:
    """A new `.mmd` that belongs to the session (a side-car or a meta entry), as a diagram
    (empty with the problem when it does not parse); None for a stray file."""
    mmd_path, side_path, _ = diagram_paths(diagram_id)
    sidecar = _read_sidecar(files, side_path)
    listed = _listed_entry(files, diagram_id)
    if sidecar is None and listed is None:
        return None
    kind = listed.kind if listed is not None else _kind_of(data)
    entry = DiagramEntry(
        diagram_id=diagram_id,
        name=listed.name if listed is not None else diagram_id,
        kind=kind,
        mmd_path=mmd_path,
        rev=listed.rev if listed is not None else 0,
    )
    try:
        return decode_diagram(entry, data, sidecar, mmd_path=mmd_path), None
    except UnparsableFile as err:
        problem = err.file_problem
    except StoreFileError as err:
        problem = FileProblem(file=mmd_path, message=err.problem)
    return Diagram(
        diagram_id=diagram_id, name=entry.name, kind=kind, ast=empty_ast(kind), rev=entry.rev
    ), problem


class _Sync:
    """Brings one diagram of the session in line with its files."""

    def __init__(self, handle: SessionHandle, files: RecordingFiles) -> None:
        self.handle = handle
        self.files = files
        #: The grace for deletes was waited in this burst already (one wait per burst).
        self.graced = False

    async def _grace(self) -> None:
        if not self.graced:
            await trio.sleep(_GONE_GRACE)  # an editor's rename or a checkout in progress
            self.graced = True

    async def _read(self, path: str) -> bytes | None:
        try:
            return await trio.to_thread.run_sync(self.files.read, path)
        except FileNotFoundError:
            return None
        except OSError as err:  # a link, a directory: not a file we take in
            _log.warning("%s cannot be read (%s); left as it is", path, err)
            return None

    async def diagram(self, diagram_id: str) -> None:
        mmd_path, side_path, _ = diagram_paths(diagram_id)
        name = diagram_actor_name(diagram_id)
        data = await self._read(mmd_path)
        if data is None:
            if name in self.handle.registry:
                await self._gone(diagram_id, mmd_path)
            return
        if self.files.is_own(mmd_path, data):
            return  # nothing new: a diagram whose actor has not started stays so
        actor = self.handle.registry.get(name)  # (starting it: it takes the edit in)
        if actor is None:
            await self._adopt(diagram_id, data)
            return
        summary: p.DiagramSummary = await actor.call(p.GetDiagramSummary())
        parsed = await trio.to_thread.run_sync(_parse, mmd_path, data)
        if isinstance(parsed, FileProblem):
            await actor.call(p.ImportFile(problem=parsed))
            _log.warning("%s; the diagram keeps its last good state", parsed)
            return
        ast = parsed
        if summary.file_problem is not None:  # it may never have loaded: take the side-car ids
            entry = DiagramEntry(
                diagram_id=diagram_id,
                name=summary.name,
                kind=summary.kind,
                mmd_path=mmd_path,
                rev=summary.rev,
            )
            sidecar = await trio.to_thread.run_sync(_read_sidecar, self.files, side_path)
            decoded = await trio.to_thread.run_sync(_with_ids, entry, data, sidecar)
            if decoded is not None:
                ast = decoded.ast
        base = await trio.to_thread.run_sync(
            _base_of, mmd_path, data, self.files.own_texts(mmd_path)
        )
        self.files.remember(mmd_path, data, imported=True)
        try:
            reply = await actor.call(p.ImportFile(ast=ast, base=base))
        except PersistFailed:
            self.files.forget_import(mmd_path, data)  # refused: foreign again, retried
            raise
        if reply.changed:
            _log.info("%s edited outside nereid: imported as rev %d", mmd_path, reply.new_rev)

    async def _adopt(self, diagram_id: str, data: bytes) -> None:
        found = await trio.to_thread.run_sync(_newcomer, self.files, diagram_id, data)
        if found is None:
            return  # not a session diagram (no side-car, not listed): left alone
        diagram, problem = found
        mmd_path = diagram_paths(diagram_id)[0]
        if problem is None:
            self.files.remember(mmd_path, data, imported=True)
        await self.handle.session.call(p.AdoptDiagram(diagram=diagram, problem=problem))
        _log.info("%s appeared in the folder: diagram %s", mmd_path, diagram_id)

    async def walkthrough(self, walkthrough_id: str) -> None:
        path = walkthrough_path(walkthrough_id)
        actor = self.handle.registry.get(walkthrough_actor_name(walkthrough_id))
        data = await self._read(path)
        if data is None:
            if actor is not None:
                await self._grace()
                if await trio.to_thread.run_sync(self.files.is_file, path):
                    await self.walkthrough(walkthrough_id)
                    return
                try:
                    await self.handle.session.call(
                        p.DeleteWalkthrough(walkthrough_id=walkthrough_id)
                    )
                except NereidError as err:
                    if err.code != -32002:
                        raise
                    return
                _log.info("%s was deleted: walkthrough %s removed", path, walkthrough_id)
            return
        if self.files.is_own(path, data):
            return
        try:
            walkthrough = await trio.to_thread.run_sync(
                _load_walkthrough, path, data, walkthrough_id
            )
        except StoreFileError as err:
            _log.warning("%s; the walkthrough keeps its state, the file is left as it is", err)
            if actor is not None:
                problem = FileProblem(file=path, message=err.problem)
                await actor.call(p.ImportWalkthrough(problem=problem))
            return
        self.files.remember(path, data, imported=True)
        if actor is None:
            await self.handle.session.call(p.AdoptWalkthrough(walkthrough=walkthrough))
            _log.info("%s appeared in the folder: walkthrough %s", path, walkthrough_id)
        else:
            try:
                reply = await actor.call(p.ImportWalkthrough(walkthrough=walkthrough))
            except PersistFailed:
                self.files.forget_import(path, data)  # refused: foreign again, retried
                raise
            if reply.changed:
                _log.info("%s edited outside nereid: imported as rev %d", path, reply.new_rev)

    async def meta(self) -> None:
        """A changed session meta (a checkout, a hand edit): take in what it lists."""
        for name in (META_FILE, LEGACY_META_FILE):
            data = await self._read(name)
            if data is not None:
                break
        else:
            return
        if self.files.is_own(name, data):
            return
        try:
            meta: SessionMetaFile = await trio.to_thread.run_sync(decode_meta, data, name)
        except StoreFileError as err:
            _log.warning("%s; the session meta is left as it is until it parses", err)
            return
        self.files.remember(name, data, imported=True)  # taken in: it may be rewritten
        registry = self.handle.registry
        for entry in meta.diagrams:
            if diagram_actor_name(entry.diagram_id) not in registry:
                try:
                    await self.diagram(entry.diagram_id)
                except (StorePathError, NereidError) as err:
                    _log.warning("%s: %s not taken in: %s", name, entry.diagram_id, err)
        for walkthrough_id in meta.walkthrough_ids or ():
            if walkthrough_actor_name(walkthrough_id) not in registry:
                try:
                    await self.walkthrough(walkthrough_id)
                except (StorePathError, NereidError) as err:
                    _log.warning("%s: %s not taken in: %s", name, walkthrough_id, err)
        try:
            await self._xrefs(meta)
        except PersistFailed:
            self.files.forget_import(name, data)  # refused: foreign again, retried
            raise

    async def _xrefs(self, meta: SessionMetaFile) -> None:
        """Make the session's xrefs those of the meta (removed, added, changed ones)."""
        xref = self.handle.xref
        have = {x.xref_id: x for x in (await xref.call(p.ListXrefs())).xrefs}
        want = {e.xref_id: e for e in meta.xrefs}
        for xref_id, item in have.items():
            entry = want.get(xref_id)
            if entry is not None and (entry.from_ref, entry.to_ref, entry.kind, entry.label) == (
                item.from_ref,
                item.to_ref,
                item.kind,
                item.label,
            ):
                del want[xref_id]  # the same on both sides
            else:
                await xref.call(p.RemoveXref(xref_id=xref_id))
        for entry in want.values():
            try:
                await xref.call(
                    p.AddXref(
                        xref_id=entry.xref_id,
                        from_ref=entry.from_ref,
                        to_ref=entry.to_ref,
                        kind=entry.kind,
                        label=entry.label,
                    )
                )
            except PersistFailed:
                raise  # durable mode, the disk refused: the meta is taken in again later
            except NereidError as err:
                _log.warning("xref %s from the session meta not taken in: %s", entry.xref_id, err)

    async def _gone(self, diagram_id: str, mmd_path: str) -> None:
        await self._grace()
        if await trio.to_thread.run_sync(self.files.is_file, mmd_path):
            await self.diagram(diagram_id)
            return
        try:
            await self.handle.session.call(p.DeleteDiagram(diagram_id=diagram_id))
        except NereidError as err:
            if err.code != -32002:  # already deleted by someone else: nothing to do
                raise
            return
        _log.info("%s was deleted: diagram %s removed from the session", mmd_path, diagram_id)


async def watch_folder(
    handle: SessionHandle,
    root: Path,
    files: RecordingFiles,
    *,
    events: FolderEvents | None = None,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Keep the session in line with the folder's files until cancelled; started once
    the watch runs. `events`: the watch of `root`, begun before the session ran (its
    changes since are taken in first); else it is begun here."""
    if events is None:
        events = FolderEvents(root)
        await events.begin()
    else:
        await events.begun()
    folder, diagrams, walkthroughs = events.folder, events.diagrams, events.walkthroughs
    metas = {folder / META_FILE, folder / LEGACY_META_FILE}
    sync = _Sync(handle, files)
    #: Imports refused by a durable save that failed, taken in again from `retry_at` on.
    retry: set[tuple[str, str]] = set()
    retry_at = 0.0
    task_status.started()
    async with aclosing(events):  # the watch is closed when cancelled, not by the GC
        async for changes in events:
            paths = {Path(raw) for _, raw in changes}
            work: list[tuple[str, str]] = []
            if paths & metas:
                work.append(("meta", ""))
            work += sorted(
                {("diagram", d) for path in paths if (d := _diagram_id(path, diagrams)) is not None}
            )
            work += sorted(
                {
                    ("walkthrough", w)
                    for path in paths
                    if (w := _walkthrough_id(path, walkthroughs)) is not None
                }
            )
            _log.debug("folder changes: %s -> %s", sorted(map(str, paths)), work)
            if retry and trio.current_time() >= retry_at:  # refused imports, once a second
                work += sorted(retry - set(work))
                retry.clear()
            sync.graced = False
            for kind, item_id in work:
                try:
                    if kind == "meta":
                        await sync.meta()
                    elif kind == "diagram":
                        await sync.diagram(item_id)
                    else:
                        await sync.walkthrough(item_id)
                except PersistFailed as err:  # durable mode, the disk refused: retried
                    _log.warning("%s %s: not taken in yet: %s", kind, item_id, err)
                    retry.add((kind, item_id))
                    retry_at = trio.current_time() + _RETRY_S
                except NereidError as err:  # e.g. refused meanwhile: the next event retries
                    _log.warning("%s %s: not taken in: %s", kind, item_id, err)
            if paths:
                relative = sorted(
                    p.relative_to(folder).as_posix() for p in paths if p.is_relative_to(folder)
                )
                handle.bus.publish(FolderSynced(paths=tuple(relative)))
