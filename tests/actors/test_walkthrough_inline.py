"""``@on(ApplyWalkthroughOps, inline=True)``: an idle walkthrough's caller applies the batch.

The same guarantees as a diagram's inline apply (`test_session_diagrams.py`) and as the
runtime's inline requests (`tests/runtime/test_runtime_inline.py`): the commit rule runs as
in the actor's task (snapshot, persister, event, then the reply), one writer at a time, each
sender's batches in its order, never a half-done rev seen, and a crash restarts from the
last commit.
"""

from __future__ import annotations

from typing import assert_never

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.actors.protocol import (
    ApplyWalkthroughOps,
    ApplyWalkthroughOpsReply,
    CreateWalkthrough,
    DiffWalkthrough,
    GetWalkthrough,
    StatWalkthrough,
    WalkthroughChanged,
)
from nereid.errors import Conflict, InvalidParams
from nereid.ops import WalkthroughAddNode, WalkthroughSetTitle
from nereid.runtime import Address
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import drain, memory_session, saved_session


def _node(node_id: str) -> WalkthroughAddNode:
    return WalkthroughAddNode(node_id=node_id, title=node_id)


async def test_an_apply_to_an_idle_walkthrough_is_committed_in_the_callers_task() -> None:
    """No pass of the scheduler (the persister takes a note), and the snapshot, the event
    and the saved file show the new rev as from the actor's task."""
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        await handle.session.call(CreateWalkthrough(title="Tour", walkthrough_id="wt"))
        tour = handle.walkthrough("wt")
        await trio.testing.wait_all_tasks_blocked()
        with handle.bus.subscribe(WalkthroughChanged) as events:
            with trio.testing.assert_no_checkpoints():
                reply = await tour.call(ApplyWalkthroughOps(base_rev=0, ops=(_node("wn:1"),)))
            seen = await drain(events)
        assert reply.new_rev == 1 and reply.applied == 1
        assert [(e.rev, e.delta) for e in seen] == [(1, reply.delta)]  # type: ignore[union-attr]
        walkthrough = await tour.call(GetWalkthrough(walkthrough_id="wt"))
        assert walkthrough.rev == 1 and [n.node_id for n in walkthrough.nodes] == ["wn:1"]
        with pytest.raises(Conflict):  # a refusal reaches the caller; the actor goes on
            await tour.call(ApplyWalkthroughOps(base_rev=0, ops=(_node("wn:2"),)))
        with pytest.raises(InvalidParams):  # an op's refusal changes nothing
            await tour.call(ApplyWalkthroughOps(base_rev=1, ops=(_node("wn:1"),)))
        assert (await tour.call(StatWalkthrough(walkthrough_id="wt"))).rev == 1
        await handle.flush()
        saved = saved_session(files).walkthroughs["wt"]
        assert saved.rev == 1 and [n.node_id for n in saved.nodes] == ["wn:1"]


async def test_a_crash_after_an_inline_apply_restarts_from_its_commit() -> None:
    async with memory_session() as handle:
        await handle.session.call(CreateWalkthrough(title="Tour", walkthrough_id="wt"))
        tour = handle.walkthrough("wt")
        await trio.testing.wait_all_tasks_blocked()
        await tour.call(ApplyWalkthroughOps(base_rev=0, ops=(WalkthroughSetTitle(title="v2"),)))
        handle.registry.crash("walkthrough:wt")
        again = await tour.call(GetWalkthrough(walkthrough_id="wt"))
        assert (again.rev, again.title) == (1, "v2")
        reply = await tour.call(ApplyWalkthroughOps(base_rev=1, ops=(_node("wn:1"),)))
        assert reply.new_rev == 2


async def _apply(tour: Address, node_id: str) -> ApplyWalkthroughOpsReply:
    """Add one node at the current rev, rebasing on a conflict (another sender won)."""
    rev = (await tour.call(StatWalkthrough(walkthrough_id="wt"))).rev
    while True:
        try:
            return await tour.call(ApplyWalkthroughOps(base_rev=rev, ops=(_node(node_id),)))
        except Conflict as stale:
            assert stale.data is not None
            rev = stale.data["current_rev"]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["apply", "dry", "read", "stat", "diff", "pass"]), max_size=8),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
)
def test_every_senders_walkthrough_batches_stay_in_its_order(
    scripts: list[list[str]], durable: bool
) -> None:
    """Several senders interleave inline applies (durable: each waits half-way for the disk),
    dry runs, queued reads, stats and diffs: each sender's nodes appear in its order, every
    rev adds exactly one node (so no read ever sees a half-done batch), every rev is
    published once and in order, and the folder ends with every node."""

    async def main() -> None:
        files = MemoryFiles()
        async with memory_session(files=files, durable=durable) as handle:
            await handle.session.call(CreateWalkthrough(title="Tour", walkthrough_id="wt"))
            tour = handle.walkthrough("wt")

            async def sender(number: int, script: list[str]) -> None:
                mine: list[str] = []
                for index, action in enumerate(script):
                    node_id = f"wn:{number}.{index}"
                    match action:
                        case "apply":
                            reply = await _apply(tour, node_id)
                            assert reply.applied == 1 and reply.durable == durable
                            assert f"w:wt/node/{node_id}" in reply.delta.added
                            mine.append(node_id)
                        case "dry":
                            rev = (await tour.call(StatWalkthrough(walkthrough_id="wt"))).rev
                            ops = (_node(node_id),)
                            try:
                                proposed = await tour.call(
                                    ApplyWalkthroughOps(base_rev=rev, ops=ops, dry_run=True)
                                )
                            except Conflict:
                                continue  # another sender moved on meanwhile
                            assert proposed.dry_run and proposed.new_rev == rev + 1
                        case "read":
                            walkthrough = await tour.call(GetWalkthrough(walkthrough_id="wt"))
                            ids = [n.node_id for n in walkthrough.nodes]
                            assert walkthrough.rev == len(ids)
                            assert [i for i in ids if i.startswith(f"wn:{number}.")] == mine
                        case "stat":
                            stat = await tour.call(StatWalkthrough(walkthrough_id="wt"))
                            assert stat.rev == stat.nodes >= len(mine)
                        case "diff":
                            diff = await tour.call(
                                DiffWalkthrough(walkthrough_id="wt", since_rev=0)
                            )
                            added = [r for c in diff.changes if c.kind == "added" for r in c.refs]
                            assert diff.to_rev == len(added)
                        case "pass":
                            await trio.lowlevel.checkpoint()
                        case _:
                            assert_never(action)  # type: ignore[arg-type]

            with handle.bus.subscribe(WalkthroughChanged) as events:
                async with trio.open_nursery() as nursery:
                    for number, script in enumerate(scripts):
                        nursery.start_soon(sender, number, script)
                seen = await drain(events)
            walkthrough = await tour.call(GetWalkthrough(walkthrough_id="wt"))
            ids = [n.node_id for n in walkthrough.nodes]
            for number, script in enumerate(scripts):
                expected = [f"wn:{number}.{i}" for i, a in enumerate(script) if a == "apply"]
                assert [i for i in ids if i.startswith(f"wn:{number}.")] == expected
            assert walkthrough.rev == len(ids) == sum(s.count("apply") for s in scripts)
            revs = [e.rev for e in seen]  # type: ignore[union-attr]
            assert revs == list(range(1, walkthrough.rev + 1))
            await handle.flush()
            saved = saved_session(files).walkthroughs["wt"]
            assert (saved.rev, [n.node_id for n in saved.nodes]) == (walkthrough.rev, ids)

    trio.run(main)
