"""WalkthroughActor (``walkthrough:<id>``): owns one walkthrough, its rev and history.

A `RevisionedActor` for walkthroughs (the commit rule is in `nereid.actors.revisioned`):
the persister takes `PersistWalkthrough`, a new rev is `WalkthroughChanged`. Requests are
`WalkthroughRequest` in `nereid.actors.protocol`, one `@on` handler each. Walkthrough node
refs are evidence links: their existence is never checked, so this actor tells nobody but
the persister. An ops batch to an idle walkthrough is applied in its caller's task
(``@on(..., inline=True)``, as a diagram's): the same commit rule, one writer, no round trip.
"""

from __future__ import annotations

import msgspec

from nereid.actors.persist_link import PersistConfig
from nereid.actors.persister import PersistWalkthrough
from nereid.actors.protocol import (
    ApplyWalkthroughOps,
    ApplyWalkthroughOpsReply,
    DiffWalkthrough,
    GetWalkthrough,
    GetWalkthroughNode,
    GetWalkthroughSummary,
    ImportFileReply,
    ImportWalkthrough,
    StatWalkthrough,
    WalkthroughChanged,
    WalkthroughRequest,
    WalkthroughStat,
    WalkthroughSummary,
)
from nereid.actors.refusals import check_id_param
from nereid.actors.revisioned import RevisionedActor, RevisionedSnapshot
from nereid.errors import InvalidRequest, ResourceNotFound
from nereid.model import Walkthrough, WalkthroughNode
from nereid.ops import DiffResult, WalkthroughDelta, WalkthroughState
from nereid.runtime import Event, on

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


class WalkthroughActorState(RevisionedSnapshot[WalkthroughState], frozen=True, kw_only=True):
    """The committed snapshot (`persisted_rev` and `file_problem` as in
    `RevisionedSnapshot`)."""

    @classmethod
    def of(cls, walkthrough: Walkthrough, *, persisted: bool) -> WalkthroughActorState:
        return cls(
            state=WalkthroughState(walkthrough=walkthrough),
            persisted_rev=walkthrough.rev if persisted else None,
        )


class WalkthroughActor(
    RevisionedActor[WalkthroughActorState, WalkthroughState, WalkthroughDelta, WalkthroughRequest]
):
    """One walkthrough. See the module docstring."""

    persist_key = "walkthrough"

    def __init__(self, config: PersistConfig) -> None:
        super().__init__(config)

    @property
    def walkthrough(self) -> Walkthrough:
        return self.state.state.walkthrough

    # -- the document kind -----------------------------------------------------------------

    def persist_message(self) -> PersistWalkthrough:
        return PersistWalkthrough(walkthrough=self.walkthrough)

    def changed(self, document: WalkthroughState, delta: WalkthroughDelta) -> Event:
        return WalkthroughChanged(walkthrough=document.walkthrough, delta=delta)

    # -- reads -----------------------------------------------------------------------------

    @on(GetWalkthrough)
    async def _get(self, message: GetWalkthrough) -> Walkthrough:
        return self.walkthrough

    @on(GetWalkthroughSummary)
    async def _summary(self, message: GetWalkthroughSummary) -> WalkthroughSummary:
        return walkthrough_summary(self.walkthrough)

    @on(GetWalkthroughNode)
    async def _node(self, message: GetWalkthroughNode) -> WalkthroughNode:
        node_id = message.node_id
        check_id_param("node_id", node_id)
        walkthrough = self.walkthrough
        for node in walkthrough.nodes:
            if node.node_id == node_id:
                return node
        raise ResourceNotFound(
            "walkthrough node not found",
            data={"walkthrough_id": walkthrough.walkthrough_id, "node_id": node_id},
        )

    @on(StatWalkthrough)
    async def _stat(self, message: StatWalkthrough) -> WalkthroughStat:
        w = self.walkthrough
        return WalkthroughStat(
            rev=w.rev, nodes=len(w.nodes), edges=len(w.edges), file_problem=self.state.file_problem
        )

    @on(DiffWalkthrough)
    async def _diff(self, message: DiffWalkthrough) -> DiffResult:
        return self.diff(message.since_rev)

    # -- writes ----------------------------------------------------------------------------

    @on(ApplyWalkthroughOps, inline=True)  # an idle walkthrough's caller applies it
    async def _apply(self, message: ApplyWalkthroughOps) -> ApplyWalkthroughOpsReply:
        problem = self.state.file_problem
        if problem is not None and not message.dry_run:
            raise InvalidRequest(
                f"walkthrough file does not load: {problem}; nothing is changed until "
                "it is fixed (the folder is watched) or the walkthrough is deleted",
                data={
                    "walkthrough_id": self.walkthrough.walkthrough_id,
                    "file_problem": msgspec.to_builtins(problem),
                },
            )
        state = self.state.state
        outcome, durable = await self.apply_batch(
            state.propose, state.apply, message.base_rev, message.ops, dry_run=message.dry_run
        )
        return ApplyWalkthroughOpsReply(
            new_rev=outcome.new_rev,
            applied=outcome.applied,
            delta=outcome.delta,
            dry_run=message.dry_run,
            durable=durable,
        )

    @on(ImportWalkthrough)
    async def _import(self, message: ImportWalkthrough) -> ImportFileReply:
        if message.walkthrough is None or message.problem is not None:
            self.set_file_problem(message.problem)
            return ImportFileReply(new_rev=self.state.state.rev, changed=False)
        self.set_file_problem(None)
        new_state, delta = self.state.state.replace(message.walkthrough)
        if new_state is self.state.state:
            return ImportFileReply(new_rev=new_state.rev, changed=False)
        await self.commit_rev(new_state, delta)
        return ImportFileReply(new_rev=new_state.rev, changed=True)
