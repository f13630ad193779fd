"""Disk faults under the whole session tree: durable writes are on disk or refused and
rolled back; default mode acknowledges, says it is behind, and catches up by itself."""

from __future__ import annotations

import errno

import pytest
import trio
import trio.testing
from session_testkit import add_node, create, memory_session, saved_session

from nereid.actors.persister import RETRY_MAX, GetSaveStatus, ItemSaveState
from nereid.actors.protocol import (
    ApplyDiagramOps,
    ApplyWalkthroughOps,
    CreateWalkthrough,
    GetDiagram,
    GetWalkthrough,
    ListDiagrams,
    ListWalkthroughs,
)
from nereid.errors import PersistFailed
from nereid.ops import WalkthroughAddNode
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import MemoryFiles

DISK_FAULTS = [errno.ENOSPC, errno.EROFS, errno.EIO, errno.EDQUOT]


@pytest.mark.parametrize("code", DISK_FAULTS)
async def test_durable_writes_are_on_disk_or_refused_and_not_applied(
    autojump_clock: trio.testing.MockClock, code: int
) -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    async with memory_session(files=files, durable=True) as h:
        await create(h, diagram_id="d")
        await h.session.call(CreateWalkthrough(walkthrough_id="w", title="T"))
        reply = await h.diagram("d").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:x"),)))
        assert reply.durable and saved_session(files).diagrams["d"].rev == 1
        plan.inject(Fault(errno=code))
        for attempt in range(3):
            with pytest.raises(PersistFailed) as caught:
                await h.diagram("d").call(
                    ApplyDiagramOps(base_rev=1, ops=(add_node(f"n:lost{attempt}"),))
                )
            assert caught.value.retryable and caught.value.data is not None
            assert caught.value.data["applied"] is False
            assert "not applied" in caught.value.message
            memory = await h.diagram("d").call(GetDiagram())
            assert memory.rev == 1 and f"n:lost{attempt}" not in memory.ast.nodes  # type: ignore[union-attr]
        with pytest.raises(PersistFailed):
            await h.walkthrough("w").call(
                ApplyWalkthroughOps(
                    base_rev=0, ops=(WalkthroughAddNode(node_id="n:1", title="one"),)
                )
            )
        assert (await h.walkthrough("w").call(GetWalkthrough())).rev == 0
        with pytest.raises(PersistFailed, match="was not created"):
            await create(h, diagram_id="new")
        with pytest.raises(PersistFailed, match="was not created"):
            await h.session.call(CreateWalkthrough(walkthrough_id="w2", title="T"))
        listed = await h.session.call(ListDiagrams())
        assert [d.diagram_id for d in listed.diagrams] == ["d"]
        walkthroughs = await h.session.call(ListWalkthroughs())
        assert [w.walkthrough_id for w in walkthroughs.walkthroughs] == ["w"]
        plan.clear()
        await trio.sleep(RETRY_MAX + 1)
        on_disk = saved_session(files)
        assert sorted(on_disk.diagrams) == ["d"] and sorted(on_disk.walkthroughs) == ["w"]
        assert on_disk.diagrams["d"] == await h.diagram("d").call(GetDiagram())  # memory = disk
        reply = await h.diagram("d").call(ApplyDiagramOps(base_rev=1, ops=(add_node("n:y"),)))
        assert reply.durable and reply.new_rev == 2
        assert (await create(h, diagram_id="new")).diagram.diagram_id == "new"
        assert sorted(saved_session(files).diagrams) == ["d", "new"]


async def test_default_mode_says_it_is_behind_and_catches_up_by_itself(
    autojump_clock: trio.testing.MockClock,
) -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    async with memory_session(files=files) as h:
        await create(h, diagram_id="d")
        await create(h, diagram_id="ok")
        await trio.sleep(1)
        status = h.registry.lookup("persister.status")
        assert (await status.call(GetSaveStatus())).item("diagram:d") == ItemSaveState(saved_rev=0)
        plan.inject(Fault(errno=errno.ENOSPC, paths="diagrams/d.*"))
        for rev in range(3):
            await h.diagram("d").call(ApplyDiagramOps(base_rev=rev, ops=(add_node(f"n:{rev}"),)))
        await h.diagram("ok").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:fine"),)))
        await trio.sleep(1)
        behind = (await status.call(GetSaveStatus())).item("diagram:d")
        assert behind.saved_rev == 0 and behind.save_error is not None
        assert behind.save_error.startswith("disk full")
        assert (await status.call(GetSaveStatus())).item("diagram:ok") == ItemSaveState(
            saved_rev=1
        )  # the other diagram kept saving
        assert saved_session(files).diagrams["ok"].rev == 1
        plan.clear()  # space returns; nobody writes
        await trio.sleep(RETRY_MAX + 1)
        assert (await status.call(GetSaveStatus())).item("diagram:d") == ItemSaveState(saved_rev=3)
        assert saved_session(files).diagrams["d"] == await h.diagram("d").call(GetDiagram())
