"""WalkthroughActor (``walkthrough:<id>``): owns one walkthrough, its rev and history.

Same pattern and commit rule as `DiagramActor` (commit, persist — flushed in durable mode,
rolled back with `PersistFailed` when not confirmed on disk —, publish
`WalkthroughChanged`, then reply); requests are `WalkthroughRequest` in
`nereid.actors.protocol`. Walkthrough node refs are evidence links: their existence is never
checked, so this actor needs nobody but the persister.
"""

from __future__ import annotations

from typing import assert_never

import msgspec

from nereid.actors.ops_batch import run_batch
from nereid.actors.persist_link import PersistConfig, PersistLink, not_applied
from nereid.actors.persister import PersistWalkthrough
from nereid.actors.protocol import (
    ApplyWalkthroughOps,
    ApplyWalkthroughOpsReply,
    DiffWalkthrough,
    GetWalkthrough,
    GetWalkthroughNode,
    GetWalkthroughSummary,
    ImportWalkthrough,
    ImportWalkthroughReply,
    ResendToPersister,
    StatWalkthrough,
    WalkthroughChanged,
    WalkthroughRequest,
    WalkthroughStat,
    WalkthroughSummary,
)
from nereid.actors.refusals import check_id_param, from_op_error
from nereid.errors import InvalidRequest, PersistFailed, ResourceNotFound
from nereid.model import Walkthrough, WalkthroughNode
from nereid.model.file_problem import FileProblem
from nereid.ops import OpError, WalkthroughDelta, WalkthroughState
from nereid.runtime._actor import Actor

__all__ = [
    "WalkthroughActor",
    "WalkthroughActorState",
    "walkthrough_actor_name",
    "walkthrough_summary",
]


def walkthrough_actor_name(walkthrough_id: str) -> str:
    """The registry name of a walkthrough's actor."""
    return f"walkthrough:{walkthrough_id}"


def walkthrough_summary(walkthrough: Walkthrough) -> WalkthroughSummary:
    return WalkthroughSummary(
        walkthrough_id=walkthrough.walkthrough_id,
        title=walkthrough.title,
        rev=walkthrough.rev,
        nodes=len(walkthrough.nodes),
        edges=len(walkthrough.edges),
    )


class WalkthroughActorState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed snapshot; `persisted_rev` as in `DiagramActorState`."""

    state: WalkthroughState
    persisted_rev: int | None = None
    #: The walkthrough's file does not load (an edit by another program): writes refused.
    file_problem: FileProblem | None = None

    @classmethod
    def of(cls, walkthrough: Walkthrough, *, persisted: bool) -> WalkthroughActorState:
        return cls(
            state=WalkthroughState(walkthrough=walkthrough),
            persisted_rev=walkthrough.rev if persisted else None,
        )


class WalkthroughActor(Actor[WalkthroughActorState, WalkthroughRequest]):
    """One walkthrough. See the module docstring."""

    def __init__(self, config: PersistConfig) -> None:
        self._link = PersistLink(self, config)
        self._s: WalkthroughActorState | None = None

    @property
    def current(self) -> WalkthroughActorState:
        assert self._s is not None, "init has not run"
        return self._s

    @property
    def walkthrough(self) -> Walkthrough:
        return self.current.state.walkthrough

    async def init(self, snapshot: WalkthroughActorState) -> None:
        self._s = snapshot
        if snapshot.persisted_rev != snapshot.state.rev:
            await self._persist()

    async def handle(self, message: WalkthroughRequest) -> object:
        match message:
            case GetWalkthrough():
                return self.walkthrough
            case GetWalkthroughSummary():
                return walkthrough_summary(self.walkthrough)
            case GetWalkthroughNode(node_id=node_id):
                return self._node(node_id)
            case StatWalkthrough():
                w = self.walkthrough
                return WalkthroughStat(
                    rev=w.rev,
                    nodes=len(w.nodes),
                    edges=len(w.edges),
                    file_problem=self.current.file_problem,
                )
            case ApplyWalkthroughOps():
                problem = self.current.file_problem
                if problem is not None and not message.dry_run:
                    raise InvalidRequest(
                        f"walkthrough file does not load: {problem}; nothing is changed until "
                        "it is fixed (the folder is watched) or the walkthrough is deleted",
                        data={
                            "walkthrough_id": self.walkthrough.walkthrough_id,
                            "file_problem": msgspec.to_builtins(problem),
                        },
                    )
                return await self._apply(message)
            case ImportWalkthrough():
                return await self._import(message)
            case DiffWalkthrough(since_rev=since_rev):
                try:
                    return self.current.state.diff(since_rev)
                except OpError as err:
                    raise from_op_error(err) from None
            case ResendToPersister():
                await self._link.resend()
                self._note_persisted()
                return None
            case _:
                assert_never(message)

    def _node(self, node_id: str) -> WalkthroughNode:
        check_id_param("node_id", node_id)
        walkthrough = self.walkthrough
        for node in walkthrough.nodes:
            if node.node_id == node_id:
                return node
        raise ResourceNotFound(
            "walkthrough node not found",
            data={"walkthrough_id": walkthrough.walkthrough_id, "node_id": node_id},
        )

    async def _apply(self, message: ApplyWalkthroughOps) -> ApplyWalkthroughOpsReply:
        state = self.current.state
        new_state, outcome = run_batch(
            state.propose, state.apply, message.base_rev, message.ops, dry_run=message.dry_run
        )
        durable = False
        if new_state is not None and new_state is not state:
            durable = await self._commit_rev(new_state, outcome.delta)
        return ApplyWalkthroughOpsReply(
            new_rev=outcome.new_rev,
            applied=outcome.applied,
            delta=outcome.delta,
            dry_run=message.dry_run,
            durable=durable,
        )

    async def _import(self, message: ImportWalkthrough) -> ImportWalkthroughReply:
        current = self.current
        if message.walkthrough is None or message.problem is not None:
            if message.problem != current.file_problem:
                self._s = msgspec.structs.replace(current, file_problem=message.problem)
                self.commit(self._s)
            return ImportWalkthroughReply(new_rev=current.state.rev, changed=False)
        if current.file_problem is not None:
            self._s = msgspec.structs.replace(current, file_problem=None)
            self.commit(self._s)
        new_state, delta = self.current.state.replace(message.walkthrough)
        if new_state is self.current.state:
            return ImportWalkthroughReply(new_rev=new_state.rev, changed=False)
        await self._commit_rev(new_state, delta)
        return ImportWalkthroughReply(new_rev=new_state.rev, changed=True)

    async def _commit_rev(self, new_state: WalkthroughState, delta: WalkthroughDelta) -> bool:
        """Commit, hand to the persister (durable: roll back if not on disk), publish."""
        previous = self.current
        self._s = msgspec.structs.replace(previous, state=new_state)
        self.commit(self._s)
        try:
            durable = await self._persist(confirm=True)
        except PersistFailed as err:  # durable mode: not on disk, so not applied
            self._s = previous
            self.commit(previous)
            await self._persist(wait=False)
            raise not_applied(err, previous.state.rev) from None
        self.runtime.bus.publish(
            WalkthroughChanged(
                walkthrough_id=new_state.walkthrough.walkthrough_id, rev=new_state.rev, delta=delta
            )
        )
        return durable

    async def _persist(self, *, confirm: bool = False, wait: bool = True) -> bool:
        durable = await self._link.send(
            "walkthrough",
            PersistWalkthrough(walkthrough=self.walkthrough),
            item=self.name,
            confirm=confirm,
            wait=wait,
        )
        self._note_persisted()
        return durable

    def _note_persisted(self) -> None:
        current = self.current
        if not self._link.enabled or self._link.unsent:
            return
        if current.persisted_rev != current.state.rev:
            self._s = msgspec.structs.replace(current, persisted_rev=current.state.rev)
            self.commit(self._s)
