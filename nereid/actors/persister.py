"""PersisterActor: the only writer of the session folder (architecture.md §4-5).

Other actors tell it what changed (casts: `PersistDiagram`, `DeleteDiagram`,
`PersistWalkthrough`, `DeleteWalkthrough`, `PersistIndex`); it keeps the latest version of
everything and writes the folder with `nereid.store.session_io.save_session`:

- **Debounced**: the first change of a batch arms a one-shot timer (the companion
  `DebounceTimer` actor); changes arriving before it fires join the batch, so a burst of
  edits costs one save. Saves only rewrite what changed (rev-based) and the meta last.
- **Acknowledged on request**: `await address.call(Flush())` writes everything pending now
  and replies once it is on disk — with `FolderFiles(durable=True)` (`--durable-writes`)
  that means fsynced file and folder. Callers that promise durability call `Flush` after
  their cast; queued flushes find nothing left and return at once (group commit).
- **Non-blocking**: file I/O runs in `trio.to_thread.run_sync` (the `run_blocking` seam),
  so the event loop and every reader keep going during a save. Tests pass `MemoryFiles`
  and an inline runner so the autojump clock stays exact.
- **Careful**: files that failed to load (`Kept`) keep their meta entries and are never
  overwritten until written or deleted on purpose; deleting a diagram deletes its files.
  A failed save keeps everything pending, logs, and is retried with the next batch;
  `Flush` reports it as `PersistFailed`.

Start it with `spawn_persister(supervisor, files=..., initial=PersisterState.loaded(...))`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar, assert_never

import msgspec
import trio

from nereid.actors import Actor, Address, Message, Request, Supervisor
from nereid.errors import NereidError
from nereid.mermaid.errors import MermaidExportError
from nereid.model import Diagram, ObjectRef, Session, Walkthrough, XRef
from nereid.store.files import SessionFiles
from nereid.store.schema import StoreFileError
from nereid.store.session_io import Kept, LoadResult, SaveReport, save_session

__all__ = [
    "DEFAULT_DEBOUNCE",
    "Arm",
    "DebounceTimer",
    "DeleteDiagram",
    "DeleteWalkthrough",
    "Flush",
    "FlushReply",
    "GetPersisterStatus",
    "PersistDiagram",
    "PersistFailed",
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
#: How late a timer may fire before the persister assumes it was lost and re-arms.
_TIMER_GRACE: Final = 1.0

T = TypeVar("T")


class PersistFailed(NereidError):
    """The folder could not be written; the changes stay pending and are retried."""


# -- messages ---------------------------------------------------------------------------


class PersistDiagram(Message, frozen=True):
    """The diagram's latest committed state (written if its rev differs from the folder's)."""

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
    """Write everything pending now; reply when it is on disk. Raises PersistFailed."""


class PersisterStatus(msgspec.Struct, frozen=True, kw_only=True):
    pending: bool
    saves: int
    last_error: str | None = None


class GetPersisterStatus(Request[PersisterStatus], frozen=True):
    pass


class _FlushDue(Message, frozen=True):
    """The debounce timer fired (sent by `DebounceTimer`)."""


PersisterMessage = (
    PersistDiagram
    | DeleteDiagram
    | PersistWalkthrough
    | DeleteWalkthrough
    | PersistIndex
    | Flush
    | GetPersisterStatus
    | _FlushDue
)


# -- state ------------------------------------------------------------------------------


class PersisterState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot: what the folder should hold, and what is not written yet."""

    session: Session
    kept: Kept = msgspec.field(default_factory=Kept)
    deleted_diagram_ids: frozenset[str] = frozenset()
    pending: bool = False

    @classmethod
    def loaded(cls, result: LoadResult) -> PersisterState:
        """The state right after loading the folder (nothing pending)."""
        return cls(session=result.session, kept=result.kept)

    @classmethod
    def new(cls, session: Session) -> PersisterState:
        """A session that is not on disk yet (seed, demo copy): everything pending."""
        return cls(session=session, pending=True)


def _with_change(state: PersisterState, message: PersisterMessage) -> PersisterState:
    """Apply one change message to the state (pure)."""
    session, kept, deleted = state.session, state.kept, state.deleted_diagram_ids
    replace = msgspec.structs.replace
    match message:
        case PersistDiagram(diagram=diagram):
            d_id = diagram.diagram_id
            session = replace(session, diagrams={**session.diagrams, d_id: diagram})
            kept, deleted = kept.without([d_id], []), deleted - {d_id}
        case DeleteDiagram(diagram_id=d_id):
            diagrams = {k: v for k, v in session.diagrams.items() if k != d_id}
            session = replace(session, diagrams=diagrams)
            kept, deleted = kept.without([d_id], []), deleted | {d_id}
        case PersistWalkthrough(walkthrough=walkthrough):
            w_id = walkthrough.walkthrough_id
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
        case Flush() | GetPersisterStatus() | _FlushDue():
            return state
        case _:
            assert_never(message)
    return PersisterState(session=session, kept=kept, deleted_diagram_ids=deleted, pending=True)


# -- the debounce timer -----------------------------------------------------------------


class Arm(Message, frozen=True):
    """Cast `message` to `target` after `delay` seconds."""

    delay: float
    target: str
    message: Message


class DebounceTimer(Actor[None, Arm]):
    """A one-shot timer: sleeps in its own task, so the actor that armed it keeps serving."""

    async def handle(self, message: Arm) -> object:
        await trio.sleep(message.delay)
        target = self.runtime.registry.get(message.target)
        if target is not None:
            await target.cast(message.message)
        return None


# -- the persister ----------------------------------------------------------------------


async def _in_thread(fn: Callable[[], T]) -> T:
    return await trio.to_thread.run_sync(fn)


class PersisterActor(Actor[PersisterState, PersisterMessage]):
    """The only writer of one session folder. See the module docstring for the contract."""

    def __init__(
        self,
        files: SessionFiles,
        *,
        timer: str,
        debounce: float = DEFAULT_DEBOUNCE,
        run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]] = _in_thread,
    ) -> None:
        self._files = files
        self._timer = timer
        self._debounce = debounce
        self._run_blocking = run_blocking
        self._state: PersisterState | None = None
        self._armed_at: float | None = None
        self._saves = 0
        self._last_error: str | None = None

    @property
    def state(self) -> PersisterState:
        assert self._state is not None, "init has not run"
        return self._state

    async def init(self, snapshot: PersisterState) -> None:
        self._state = snapshot
        if snapshot.pending:  # a restart with unwritten changes: finish the batch
            await self._arm()

    async def handle(self, message: PersisterMessage) -> object:
        match message:
            case Flush():
                return await self._flush(raise_errors=True)
            case _FlushDue():
                self._armed_at = None
                await self._flush(raise_errors=False)
                return None
            case GetPersisterStatus():
                return PersisterStatus(
                    pending=self.state.pending, saves=self._saves, last_error=self._last_error
                )
            case (
                PersistDiagram()
                | DeleteDiagram()
                | PersistWalkthrough()
                | DeleteWalkthrough()
                | PersistIndex()
            ):
                self._commit(_with_change(self.state, message))
                await self._arm()
                return None
            case _:
                assert_never(message)

    def _commit(self, state: PersisterState) -> None:
        self._state = state
        self.commit(state)

    async def _arm(self) -> None:
        now = trio.current_time()
        # Armed and not overdue: the batch is open. Overdue means the timer lost the Arm
        # (it restarted), so arm again rather than leave the batch unwritten.
        if self._armed_at is not None and now - self._armed_at < self._debounce + _TIMER_GRACE:
            return
        timer = self.runtime.registry.get(self._timer)
        if timer is None:  # no timer: write at once rather than never
            await self._flush(raise_errors=False)
            return
        self._armed_at = now
        await timer.cast(Arm(delay=self._debounce, target=self.name, message=_FlushDue()))

    async def _flush(self, *, raise_errors: bool) -> FlushReply:
        state = self.state
        if not state.pending:
            return FlushReply()
        files = self._files

        def save() -> SaveReport:
            return save_session(
                files,
                state.session,
                kept=state.kept,
                deleted_diagram_ids=state.deleted_diagram_ids,
            )

        try:
            report: SaveReport = await self._run_blocking(save)
        except (OSError, ValueError, StoreFileError, MermaidExportError) as err:
            # I/O, an unstorable id, a diagram that does not export, a broken meta on disk.
            self._last_error = f"saving {files.describe()} failed: {err}"
            _log.error("%s", self._last_error)
            if raise_errors:
                raise PersistFailed(self._last_error) from err
            return FlushReply()
        self._saves += 1
        self._last_error = None
        # One message at a time: nothing changed the state while the save ran.
        self._commit(msgspec.structs.replace(state, pending=False, deleted_diagram_ids=frozenset()))
        return FlushReply(written=report.written, removed=report.removed)


async def spawn_persister(
    supervisor: Supervisor,
    *,
    files: SessionFiles,
    initial: PersisterState,
    name: str = "persister",
    debounce: float = DEFAULT_DEBOUNCE,
    run_blocking: Callable[[Callable[[], Any]], Awaitable[Any]] = _in_thread,
) -> Address:
    """Start the debounce timer (`<name>.timer`) and the persister; return the persister."""
    timer = f"{name}.timer"
    await supervisor.spawn(timer, DebounceTimer, initial=None)
    return await supervisor.spawn(
        name,
        lambda: PersisterActor(files, timer=timer, debounce=debounce, run_blocking=run_blocking),
        initial=initial,
    )
