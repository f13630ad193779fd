"""PersisterActor: the only writer of the session folder (architecture.md §4-5).

Other actors tell it what changed (casts: `PersistDiagram`, `DeleteDiagram`,
`PersistWalkthrough`, `DeleteWalkthrough`, `PersistIndex`); it keeps the latest version of
everything and writes the folder with `nereid.store.session_io.save_session`:

- **Debounced**: the first change of a batch arms a one-shot timer (`send_after`, owned
  by the runtime); changes arriving before it fires join the batch, so a burst of
  edits costs one save. Saves only rewrite what changed (rev-based) and the meta last.
- **Acknowledged on request**: `await address.call(Flush())` writes everything pending now
  and replies once it is on disk — with `FolderFiles(durable=True)` (`--durable-writes`)
  that means fsynced file and folder. Callers that promise durability call `Flush` after
  their cast; queued flushes find nothing left and return at once (group commit).
- **Non-blocking**: file I/O runs in `trio.to_thread.run_sync` (the `run_blocking` seam),
  so the event loop and every reader keep going during a save; big diagrams are exported
  in a worker process first (`persist_export`, the `export_big` seam), since an export in
  the file thread would still hold the GIL. Tests pass `MemoryFiles`
  and an inline runner so the autojump clock stays exact.
- **Careful**: files that failed to load (`Kept`) keep their meta entries and are never
  overwritten until written or deleted on purpose; deleting a diagram deletes its files.
- **Item by item**: one diagram or walkthrough that cannot be saved (export error, a link
  or directory where its file should be, a full disk, EIO, any exception at all) is
  reported and skipped; the others and the meta are still written (`save_session`).
  Failed items stay pending and are retried on a retry timer (backoff from
  `RETRY_MIN` to `RETRY_MAX` seconds), not only on the next change, so the folder
  catches up by itself when space returns. No exception a save raises stops this actor.
- **Visible**: after each save the per-item state (`SaveStatus`: rev on disk, last error)
  goes to the ``<name>.status`` actor, which answers `GetSaveStatus` at once (the MCP
  `saved_rev` / `save_error` fields) and publishes `SaveStatusChanged` (the TUI's
  "not saved: disk full").
- **Durable answers**: `Flush(items=...)` raises `PersistFailed` (retryable) unless each
  named item is on disk after the save; durable writers roll back on it (see
  `PersistLink`).

Start it with `spawn_persister(supervisor, files=..., initial=PersisterState.loaded(...))`.
The save-report keys are the names of the actors that own the items (``diagram:<id>``,
``walkthrough:<id>``) and ``meta`` for the session meta (xrefs, active ids, selection).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, TypeVar, assert_never

import msgspec
import trio

from nereid.actors.persist_export import ExportBig, Pieces, export_big_keeping_pieces
from nereid.errors import ActorError, PersistFailed
from nereid.model import Diagram, ObjectRef, Session, Walkthrough, XRef
from nereid.model.file_names import StorePathError, diagram_paths
from nereid.runtime import (
    Actor,
    Address,
    Message,
    Request,
    Supervisor,
    Timer,
    on,
    on_cast,
    on_note,
    on_read,
)
from nereid.runtime._messages import Event
from nereid.store.files import SessionFiles
from nereid.store.recording import release_files
from nereid.store.session_io import (
    META_KEY,
    Kept,
    LoadResult,
    SaveReport,
    diagram_key,
    save_problem,
    save_session,
    walkthrough_key,
)

__all__ = [
    "DEFAULT_DEBOUNCE",
    "DeleteDiagram",
    "DeleteWalkthrough",
    "Flush",
    "GetSaveStatus",
    "ItemSaveState",
    "LoadedDiagram",
    "RETRY_MAX",
    "RETRY_MIN",
    "ReportSaveStatus",
    "SaveStatus",
    "SaveStatusActor",
    "SaveStatusChanged",
    "FlushReply",
    "GetPersisterStatus",
    "PersistDiagram",
    "PersistFailed",
    "META_KEY",
    "PersistIndex",
    "PersistWalkthrough",
    "PersisterActor",
    "PersisterMessage",
    "PersisterState",
    "PersisterStatus",
    "spawn_persister",
]

_log = logging.getLogger(__name__)

#: Seconds a batch stays open after its first change.
DEFAULT_DEBOUNCE: Final = 0.05
#: Seconds before the first retry of a failed save; doubled per failure up to `RETRY_MAX`.
RETRY_MIN: Final = 0.25
RETRY_MAX: Final = 2.0

T = TypeVar("T")


# -- messages ---------------------------------------------------------------------------


class PersistDiagram(Message, frozen=True):
    """The diagram's latest committed state (written if its rev differs from the folder's)."""

    diagram: Diagram


class LoadedDiagram(Message, frozen=True):
    """A diagram listed before its file was parsed (a lazy start-up) has loaded: this is
    the folder's content, not a change. Held as loaded from now on (nothing is written
    for it), unless something newer of that id came first."""

    diagram: Diagram


class DeleteDiagram(Message, frozen=True):
    """The diagram is gone: drop it from the meta and delete its files."""

    diagram_id: str


class PersistWalkthrough(Message, frozen=True):
    walkthrough: Walkthrough


class DeleteWalkthrough(Message, frozen=True):
    """The walkthrough is gone: its files are collected by the next save."""

    walkthrough_id: str


class PersistIndex(Message, frozen=True):
    """The session-level state the meta file holds (xrefs, active ids, selection)."""

    xrefs: dict[str, XRef]
    active_diagram_id: str | None = None
    active_walkthrough_id: str | None = None
    selected_object_refs: tuple[ObjectRef, ...] = ()


class FlushReply(msgspec.Struct, frozen=True, kw_only=True):
    """What the flush wrote and removed (empty when nothing was pending)."""

    written: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


class Flush(Request[FlushReply], frozen=True):
    """Write everything pending now; reply when it is on disk.

    Raises PersistFailed (retryable) if one of `items` (save-report keys) is not on disk
    after the save; with no `items`, if anything at all is not.
    """

    items: tuple[str, ...] = ()


class PersisterStatus(msgspec.Struct, frozen=True, kw_only=True):
    pending: bool
    saves: int
    last_error: str | None = None
    failures: dict[str, str] = msgspec.field(default_factory=dict)


class ItemSaveState(msgspec.Struct, frozen=True, kw_only=True):
    """One item on disk: the rev a load would give (None: not saved yet), the last error."""

    saved_rev: int | None = None
    save_error: str | None = None


class SaveStatus(msgspec.Struct, frozen=True, kw_only=True):
    """Per item key (``diagram:<id>``, ``walkthrough:<id>``, ``meta``) what is on disk."""

    items: dict[str, ItemSaveState] = msgspec.field(default_factory=dict)

    def item(self, key: str) -> ItemSaveState:
        return self.items.get(key, ItemSaveState())

    @property
    def errors(self) -> dict[str, str]:
        """Key → error of every item whose last save failed."""
        return {k: v.save_error for k, v in self.items.items() if v.save_error is not None}


class ReportSaveStatus(Message, frozen=True):
    """From the persister to ``<name>.status`` after each save."""

    status: SaveStatus


class GetSaveStatus(Request[SaveStatus], frozen=True):
    """Ask ``<name>.status``; it answers at once, even while a save runs."""


class SaveStatusChanged(Event, frozen=True):
    """Which items failed to save changed (`errors` empty: everything saves again)."""

    errors: dict[str, str]


class GetPersisterStatus(Request[PersisterStatus], frozen=True):
    pass


class _FlushDue(Message, frozen=True):
    """The debounce timer fired."""


class _RetryDue(Message, frozen=True):
    """The retry timer fired: try the items that failed again."""


_Change = PersistDiagram | DeleteDiagram | PersistWalkthrough | DeleteWalkthrough | PersistIndex

PersisterMessage = (
    PersistDiagram
    | LoadedDiagram
    | DeleteDiagram
    | PersistWalkthrough
    | DeleteWalkthrough
    | PersistIndex
    | Flush
    | GetPersisterStatus
    | _FlushDue
    | _RetryDue
)


# -- state ------------------------------------------------------------------------------


class PersisterState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot: what the folder should hold, and what is not written yet."""

    session: Session
    kept: Kept = msgspec.field(default_factory=Kept)
    deleted_diagram_ids: frozenset[str] = frozenset()
    pending: bool = False
    failures: dict[str, str] = msgspec.field(default_factory=dict)
    saved_revs: dict[str, int] = msgspec.field(default_factory=dict)
    #: Items to write whatever the rev on disk says: their rev went back (a durable
    #: write rolled back), so the same rev may name other content on disk.
    force: frozenset[str] = frozenset()

    @classmethod
    def loaded(cls, result: LoadResult, listed: Mapping[str, int] | None = None) -> PersisterState:
        """The state right after loading the folder (nothing pending). `listed`: the revs
        of diagrams listed but not parsed yet (their entries are in `result.kept` until
        `LoadedDiagram`), by id."""
        session = result.session
        saved = {diagram_key(k): rev for k, rev in (listed or {}).items()}
        saved.update((diagram_key(k), d.rev) for k, d in session.diagrams.items())
        saved.update((walkthrough_key(k), w.rev) for k, w in session.walkthroughs.items())
        return cls(session=session, kept=result.kept, saved_revs=saved)

    def with_loaded(self, diagram: Diagram) -> PersisterState:
        """`LoadedDiagram`: the kept entry of `diagram` becomes the loaded diagram (pure)."""
        d_id = diagram.diagram_id
        if d_id in self.session.diagrams or d_id in self.deleted_diagram_ids:
            return self  # written or deleted since: that message has the newer state
        if not any(e.diagram_id == d_id for e in self.kept.diagram_entries):
            return self
        return msgspec.structs.replace(
            self,
            session=msgspec.structs.replace(
                self.session, diagrams={**self.session.diagrams, d_id: diagram}
            ),
            kept=self.kept.without([d_id], []),
            saved_revs={**self.saved_revs, diagram_key(d_id): diagram.rev},
        )

    def save_status(self) -> SaveStatus:
        keys = set(self.failures) | set(self.saved_revs)
        return SaveStatus(
            items={
                key: ItemSaveState(
                    saved_rev=self.saved_revs.get(key), save_error=self.failures.get(key)
                )
                for key in sorted(keys)
            }
        )

    @classmethod
    def new(cls, session: Session) -> PersisterState:
        """A session that is not on disk yet (seed, demo copy): everything pending."""
        return cls(session=session, pending=True)


def _with_change(state: PersisterState, message: _Change) -> PersisterState:
    """Apply one change message to the state (pure)."""
    session, kept, deleted = state.session, state.kept, state.deleted_diagram_ids
    force = state.force
    replace = msgspec.structs.replace
    match message:
        case PersistDiagram(diagram=diagram):
            d_id = diagram.diagram_id
            before = session.diagrams.get(d_id)
            replaced = d_id in deleted or any(e.diagram_id == d_id for e in kept.diagram_entries)
            if replaced or (before is not None and diagram.rev < before.rev):
                # Its rev went back, or it replaces a deleted / unloaded diagram of that id:
                # the files on disk hold other content under a rev that may be the same.
                force = force | {diagram_key(d_id)}
            session = replace(session, diagrams={**session.diagrams, d_id: diagram})
            kept, deleted = kept.without([d_id], []), deleted - {d_id}
        case DeleteDiagram(diagram_id=d_id):
            diagrams = {k: v for k, v in session.diagrams.items() if k != d_id}
            session = replace(session, diagrams=diagrams)
            kept, deleted = kept.without([d_id], []), deleted | {d_id}
        case PersistWalkthrough(walkthrough=walkthrough):
            w_id = walkthrough.walkthrough_id
            earlier = session.walkthroughs.get(w_id)
            if earlier is not None and walkthrough.rev < earlier.rev:
                force = force | {walkthrough_key(w_id)}
            session = replace(session, walkthroughs={**session.walkthroughs, w_id: walkthrough})
            kept = kept.without([], [w_id])
        case DeleteWalkthrough(walkthrough_id=w_id):
            walkthroughs = {k: v for k, v in session.walkthroughs.items() if k != w_id}
            session = replace(session, walkthroughs=walkthroughs)
            kept = kept.without([], [w_id])
        case PersistIndex():
            session = replace(
                session,
                xrefs=dict(message.xrefs),
                active_diagram_id=message.active_diagram_id,
                active_walkthrough_id=message.active_walkthrough_id,
                selected_object_refs=tuple(message.selected_object_refs),
            )
        case _:
            assert_never(message)
    return replace(
        state, session=session, kept=kept, deleted_diagram_ids=deleted, pending=True, force=force
    )


# -- the save status --------------------------------------------------------------------


class SaveStatusActor(Actor[SaveStatus, ReportSaveStatus | GetSaveStatus]):
    """Holds the latest `SaveStatus` so readers never wait for a save in progress."""

    @on_read(GetSaveStatus)
    def _get(self, message: GetSaveStatus) -> SaveStatus:
        return self.state

    @on_cast(ReportSaveStatus)
    async def _report(self, message: ReportSaveStatus) -> None:
        before = self.state.errors
        self.commit(message.status)
        if message.status.errors != before:
            self.runtime.bus.publish(SaveStatusChanged(errors=message.status.errors))


# -- the persister ----------------------------------------------------------------------


async def _in_thread(fn: Callable[[], T]) -> T:
    return await trio.to_thread.run_sync(fn)


class PersisterActor(Actor[PersisterState, PersisterMessage]):
    """The only writer of one session folder. See the module docstring for the contract."""

    def __init__(
        self,
        files: SessionFiles,
        *,
        status: str | None = None,
        debounce: float = DEFAULT_DEBOUNCE,
        run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]] = _in_thread,
        export_big: ExportBig | None = None,
    ) -> None:
        self._files = files
        #: The last encoded pieces of each big diagram, forgotten when it is deleted.
        self._pieces = Pieces()
        self._export_big = (
            export_big if export_big is not None else export_big_keeping_pieces(self._pieces)
        )
        self._status_name = status
        self._debounce = debounce
        self._run_blocking = run_blocking
        #: The open batch's timer, until its `_FlushDue` is handled.
        self._flush_timer: Timer | None = None
        #: The armed retry, until its `_RetryDue` is handled.
        self._retry_timer: Timer | None = None
        self._retry_delay = RETRY_MIN
        self._saves = 0
        self._last_error: str | None = None

    async def init(self, snapshot: PersisterState) -> None:
        self._last_error = _summary(snapshot.failures)
        await self._report()
        if snapshot.pending:  # a restart with unwritten changes: finish the batch
            self._arm()

    @on(Flush)
    async def _flush_now(self, message: Flush) -> FlushReply:
        items = message.items
        return await self._flush(raise_for=items or None, raise_all=not items)

    @on_cast(_FlushDue)
    async def _flush_due(self, message: _FlushDue) -> None:
        self._flush_timer = None
        await self._flush()

    @on_cast(_RetryDue)
    async def _retry_due(self, message: _RetryDue) -> None:
        self._retry_timer = None
        await self._flush()

    @on(GetPersisterStatus)
    async def _status(self, message: GetPersisterStatus) -> PersisterStatus:
        state = self.state
        return PersisterStatus(
            pending=state.pending,
            saves=self._saves,
            last_error=self._last_error,
            failures=dict(state.failures),
        )

    @on_note(PersistDiagram)
    def _persist_diagram(self, message: PersistDiagram) -> None:
        self._change(message)

    @on_cast(LoadedDiagram)
    async def _loaded_diagram(self, message: LoadedDiagram) -> None:
        self.commit(self.state.with_loaded(message.diagram))

    @on_cast(DeleteDiagram)
    async def _delete_diagram(self, message: DeleteDiagram) -> None:
        self._release(message.diagram_id)
        self._pieces.forget(message.diagram_id)
        self._change(message)

    @on_note(PersistWalkthrough)
    def _persist_walkthrough(self, message: PersistWalkthrough) -> None:
        self._change(message)

    @on_cast(DeleteWalkthrough)
    async def _delete_walkthrough(self, message: DeleteWalkthrough) -> None:
        self._change(message)

    @on_note(PersistIndex)
    def _persist_index(self, message: PersistIndex) -> None:
        self._change(message)

    def _change(self, message: _Change) -> None:
        self.commit(_with_change(self.state, message))
        self._arm()

    def _release(self, diagram_id: str) -> None:
        """Deleted on purpose: its files may be replaced even if a person changed them."""
        try:
            release_files(self._files, diagram_paths(diagram_id))
        except StorePathError:  # such an id never had files
            pass

    def _arm(self) -> None:
        """Open a batch: its first change arms the debounce timer (later ones join it)."""
        if self._flush_timer is None:
            self._flush_timer = self.send_after(self._debounce, _FlushDue())

    def _arm_retry(self) -> None:
        """Try the failed items again later, by themselves (backoff)."""
        if self._retry_timer is not None:
            return
        delay = self._retry_delay
        self._retry_delay = min(delay * 2, RETRY_MAX)
        self._retry_timer = self.send_after(delay, _RetryDue())

    async def _flush(
        self, *, raise_for: tuple[str, ...] | None = None, raise_all: bool = False
    ) -> FlushReply:
        state = self.state
        reply = await self._save(state) if state.pending else FlushReply()
        failures = self.state.failures
        wanted = list(failures) if raise_all else [k for k in raise_for or () if k in failures]
        if wanted:
            problems = "; ".join(f"{k}: {failures[k]}" for k in wanted)
            raise PersistFailed(
                f"not saved: {problems}",
                data={"save_errors": {k: failures[k] for k in wanted}},
            )
        return reply

    async def _save(self, state: PersisterState) -> FlushReply:
        files = self._files
        rewrite = frozenset(state.failures) | state.force
        to_write = [
            d
            for d_id, d in state.session.diagrams.items()
            if diagram_key(d_id) in rewrite or state.saved_revs.get(diagram_key(d_id)) != d.rev
        ]

        def save() -> SaveReport:
            return save_session(
                files,
                state.session,
                kept=state.kept,
                deleted_diagram_ids=state.deleted_diagram_ids,
                rewrite=rewrite,
                encoded=encoded,
            )

        try:
            # Big diagrams are exported in a worker process, off the event loop's GIL.
            encoded = await self._export_big(to_write)
            report: SaveReport = await self._run_blocking(save)
        except Exception as err:  # noqa: BLE001 - nothing a save raises may stop this actor
            # A broken meta on disk (the whole save is refused), or a bug.
            report = SaveReport(failed={META_KEY: save_problem(err)})
        self._saves += 1
        # One message at a time: nothing changed the state while the save ran.
        saved = dict(state.saved_revs)
        for d_id, diagram in state.session.diagrams.items():
            if diagram_key(d_id) in report.on_disk:
                saved[diagram_key(d_id)] = diagram.rev
        for w_id, walkthrough in state.session.walkthroughs.items():
            if walkthrough_key(w_id) in report.on_disk:
                saved[walkthrough_key(w_id)] = walkthrough.rev
        deleted = frozenset(d for d in state.deleted_diagram_ids if diagram_key(d) in report.failed)
        for d_id in state.deleted_diagram_ids - deleted:
            saved.pop(diagram_key(d_id), None)
        live = {walkthrough_key(w) for w in state.session.walkthroughs}
        live |= {diagram_key(d) for d in state.session.diagrams} | {META_KEY}
        for key in [k for k in saved if k.startswith("walkthrough:") and k not in live]:
            del saved[key]
        failures = dict(report.failed)
        for key in live - report.on_disk - set(failures):
            # Its files are fine, but it is not listed on disk yet (a new item).
            failures[key] = f"not listed yet: {failures.get(META_KEY, 'the meta was not written')}"
        self.commit(
            msgspec.structs.replace(
                state,
                pending=bool(failures),
                deleted_diagram_ids=deleted,
                failures=failures,
                saved_revs=saved,
                force=frozenset(k for k in state.force if k in failures),
            )
        )
        self._last_error = _summary(failures)
        await self._report()
        if failures:
            _log.error("saving %s: %s", files.describe(), self._last_error)
            self._arm_retry()
        else:
            self._retry_delay = RETRY_MIN
        return FlushReply(written=report.written, removed=report.removed)

    async def _report(self) -> None:
        name = self._status_name
        address = None if name is None else self.runtime.registry.get(name)
        if address is None:
            return
        try:
            await address.cast(ReportSaveStatus(status=self.state.save_status()), timeout=1)
        except ActorError as err:  # pragma: no cover - the status actor only stores it
            _log.warning("persister: the save status was not taken: %s", err)


def _summary(failures: dict[str, str]) -> str | None:
    if not failures:
        return None
    return "; ".join(f"{key}: {problem}" for key, problem in sorted(failures.items()))


async def spawn_persister(
    supervisor: Supervisor,
    *,
    files: SessionFiles,
    initial: PersisterState,
    name: str = "persister",
    debounce: float = DEFAULT_DEBOUNCE,
    run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]] = _in_thread,
    export_big: ExportBig | None = None,
) -> Address:
    """Start the status holder (`<name>.status`) and the persister; return the persister."""
    status = f"{name}.status"
    await supervisor.spawn(status, SaveStatusActor, initial=initial.save_status())
    return await supervisor.spawn(
        name,
        lambda: PersisterActor(
            files,
            status=status,
            debounce=debounce,
            run_blocking=run_blocking,
            export_big=export_big,
        ),
        initial=initial,
    )
