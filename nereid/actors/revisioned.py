"""RevisionedActor: one document with a rev — a diagram or a walkthrough — and its commit rule.

`DiagramActor` and `WalkthroughActor` are this actor for their document kind: the kind says
how its state is handed to the persister (`persist_message`), which event announces a new
rev (`changed`), and who else must hear of it first (`announce`: the diagram tells
``xref``; a walkthrough nobody). Everything else is here, once.

The commit rule, for every new rev, all before the reply:

1. `commit(...)`: the rev survives a restart of this actor;
2. `announce()` (a diagram casts `DiagramObserved` to ``xref``, so existence checks made
   after the reply see it);
3. hand the document to the persister (`PersistLink`; durable mode: flush and wait,
   bounded); the snapshot records `persisted_rev`, and `init` re-sends when it lags, so a
   crash between 1 and 3 loses nothing;
4. publish `changed(...)` (`DiagramChanged` / `WalkthroughChanged`).

With `--durable-writes`, a rev that step 3 cannot confirm on disk (disk full, read-only
folder, EIO, a persister that does not answer in time) is rolled back: the previous
snapshot is committed again, re-announced and handed back to the persister, nothing is
published, and the caller gets `PersistFailed` (retryable, `applied: false`). So memory
stays equal to disk and no agent is told "applied" for a rev that is not on disk. (A
crash between 1 and the rollback restarts at the new rev with nobody told it was
applied; `init` hands it to the persister like any unsent rev.)
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import msgspec

from nereid.actors.persist_link import PersistConfig, PersistLink, not_applied
from nereid.actors.protocol import HandOverUnsent, ResendToPersister
from nereid.errors import PersistFailed
from nereid.model.file_problem import FileProblem
from nereid.ops import DiffResult
from nereid.runtime import Actor, Event, Message, on, on_cast

__all__ = ["RevisionedActor", "RevisionedSnapshot"]


class _Document(Protocol):
    """A document's pure state (`DiagramState`, `WalkthroughState`)."""

    @property
    def rev(self) -> int: ...

    def diff(self, since_rev: int) -> DiffResult: ...


DocT = TypeVar("DocT", bound=_Document)
DeltaT = TypeVar("DeltaT")
OpT = TypeVar("OpT")
DeltaT_co = TypeVar("DeltaT_co", covariant=True)


class _Outcome(Protocol[DeltaT_co]):
    """What an ops batch reports (`ApplyOutcome`, `WalkthroughApplyOutcome`)."""

    @property
    def delta(self) -> DeltaT_co: ...


OutcomeT = TypeVar("OutcomeT", bound=_Outcome[Any])


class RevisionedSnapshot(msgspec.Struct, Generic[DocT], frozen=True, kw_only=True):
    """What a revisioned actor commits: the document, and what the persister has of it.

    Each kind adds its own fields (`DiagramActorState`, `WalkthroughActorState`).
    """

    state: DocT
    #: The last rev the persister took (None: never — a new document, sent by `init`).
    persisted_rev: int | None = None
    #: Its file does not load (an edit by another program): writes are refused until it does.
    file_problem: FileProblem | None = None


SnapT = TypeVar("SnapT", bound=RevisionedSnapshot[Any])
MessageT = TypeVar("MessageT")


class RevisionedActor(Actor[SnapT, MessageT], Generic[SnapT, DocT, DeltaT, MessageT]):
    """One revisioned document; subclasses name the kind (see the module docstring).

    `SnapT`: the committed snapshot (a frozen Struct with `state`, `persisted_rev`,
    `file_problem`); `DocT`: its `state`, the pure document; `DeltaT`: what one rev
    changed; `MessageT`: the requests it answers.
    """

    #: The key of this actor's state in its `PersistLink` (one message per key is kept).
    persist_key: ClassVar[str]

    def __init__(self, config: PersistConfig) -> None:
        self._link = PersistLink(self, config)

    # -- the document kind -----------------------------------------------------------------

    @abstractmethod
    def persist_message(self) -> Message:
        """The persister's message with the current document (`PersistDiagram`...)."""

    @abstractmethod
    def changed(self, document: DocT, delta: DeltaT) -> Event:
        """The event that announces `document`'s new rev."""

    async def announce(self) -> None:  # noqa: B027 - optional hook
        """Tell who must know the current document before anyone is told (step 2)."""

    # -- lifecycle -------------------------------------------------------------------------

    async def init(self, snapshot: SnapT) -> None:
        await self.announce()
        if snapshot.persisted_rev != snapshot.state.rev:
            await self._persist()

    @on_cast(ResendToPersister)
    async def _resend(self, message: ResendToPersister) -> None:
        await self._link.resend()
        self._note_persisted()

    @on(HandOverUnsent)
    async def _hand_over(self, message: HandOverUnsent) -> bool:
        done = await self._link.hand_over()
        self._note_persisted()
        return done

    # -- the commit rule -------------------------------------------------------------------

    async def commit_rev(self, document: DocT, delta: DeltaT) -> bool:
        """Steps 1-4 of the commit rule; returns whether the rev is confirmed on disk.

        Durable mode, not on disk: rolled back, raises `PersistFailed` (not applied)."""
        previous = self.state
        self.commit(msgspec.structs.replace(previous, state=document))
        await self.announce()
        try:
            durable = await self._persist(confirm=True)
        except PersistFailed as err:  # durable mode: not on disk, so not applied either
            self.commit(previous)
            await self.announce()
            await self._persist(wait=False)
            raise not_applied(err, previous.state.rev) from None
        self.runtime.bus.publish(self.changed(document, delta))
        return durable

    async def apply_batch(
        self,
        propose: Callable[[int, Sequence[OpT]], OutcomeT],
        apply: Callable[[int, Sequence[OpT]], tuple[DocT, OutcomeT]],
        base_rev: int,
        ops: Sequence[OpT],
        *,
        dry_run: bool,
    ) -> tuple[OutcomeT, bool]:
        """An ops request: a dry run only proposes; otherwise the batch is applied
        all-or-nothing and a new rev committed; the ops' refusals go back as they are.

        Returns the outcome and whether the new rev is confirmed on disk. A batch that
        changes nothing (empty) returns the same document, which is not committed."""
        document = self.state.state
        if dry_run:
            return propose(base_rev, ops), False
        new_document, outcome = apply(base_rev, ops)
        durable = False
        if new_document is not document:
            durable = await self.commit_rev(new_document, outcome.delta)
        return outcome, durable

    def diff(self, since_rev: int) -> DiffResult:
        """Changes since `since_rev`, as the history window knows them (refusals as wire
        errors)."""
        document: DocT = self.state.state
        return document.diff(since_rev)

    def set_file_problem(self, problem: FileProblem | None) -> None:
        """Commit that the document's file loads again (None) or does not (writes refused)."""
        if problem != self.state.file_problem:
            self.commit(msgspec.structs.replace(self.state, file_problem=problem))

    # -- the persister ---------------------------------------------------------------------

    async def _persist(self, *, confirm: bool = False, wait: bool = True) -> bool:
        durable = await self._link.send(
            self.persist_key, self.persist_message(), item=self.name, confirm=confirm, wait=wait
        )
        self._note_persisted()
        return durable

    def _note_persisted(self) -> None:
        """Record in the snapshot that the persister has the current rev (if it has)."""
        current = self.state
        if not self._link.enabled or self._link.unsent:
            return
        if current.persisted_rev != current.state.rev:
            self.commit(msgspec.structs.replace(current, persisted_rev=current.state.rev))
