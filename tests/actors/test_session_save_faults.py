"""Disk faults under the whole session tree: durable writes are on disk or refused and
rolled back; default mode acknowledges, says it is behind, and catches up by itself."""

from __future__ import annotations

import errno
from typing import Any

import msgspec
import pytest
import trio
import trio.testing

from nereid.actors.persist_link import PersistConfig
from nereid.actors.persister import RETRY_MAX, Flush, GetSaveStatus, ItemSaveState
from nereid.actors.protocol import (
    AddXref,
    ApplyDiagramOps,
    ApplyWalkthroughOps,
    CreateWalkthrough,
    DeleteDiagram,
    DeleteWalkthrough,
    GetDiagram,
    GetWalkthrough,
    ListDiagrams,
    ListWalkthroughs,
    ListXrefs,
    OpenDiagram,
    OpenWalkthrough,
    ReadSelection,
    RemoveXref,
    UpdateSelection,
)
from nereid.actors.tree import SessionHandle
from nereid.errors import PersistFailed
from nereid.model import ObjectRef, XRef, parse_ref
from nereid.ops import WalkthroughAddNode
from nereid.runtime import Address, Request
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import add_node, create, memory_session, saved_session

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
        assert (await h.walkthrough("w").call(GetWalkthrough(walkthrough_id="w"))).rev == 0
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


# -- every other write tool: xref, selection, open, delete (durable mode) ------------------


class _View(msgspec.Struct, frozen=True):
    """What a restart would load, or what memory holds: comparable field by field."""

    diagrams: dict[str, int]
    walkthroughs: dict[str, int]
    xrefs: dict[str, XRef]
    active_diagram_id: str | None
    active_walkthrough_id: str | None
    selection: tuple[ObjectRef, ...]


def _disk(files: MemoryFiles) -> _View:
    s = saved_session(files)
    return _View(
        diagrams={k: d.rev for k, d in s.diagrams.items()},
        walkthroughs={k: w.rev for k, w in s.walkthroughs.items()},
        xrefs=dict(s.xrefs),
        active_diagram_id=s.active_diagram_id,
        active_walkthrough_id=s.active_walkthrough_id,
        selection=tuple(s.selected_object_refs),
    )


async def _memory(h: SessionHandle) -> _View:
    diagrams = await h.session.call(ListDiagrams())
    walkthroughs = await h.session.call(ListWalkthroughs())
    listing = await h.registry.lookup("xref").call(ListXrefs())
    stored = h.registry.lookup("xref")
    assert stored is not None
    return _View(
        diagrams={d.diagram_id: d.rev for d in diagrams.diagrams},
        walkthroughs={w.walkthrough_id: w.rev for w in walkthroughs.walkthroughs},
        xrefs={
            x.xref_id: XRef(
                from_ref=parse_ref(x.from_ref),
                to_ref=parse_ref(x.to_ref),
                kind=x.kind,
                label=x.label,
            )
            for x in listing.xrefs
        },
        active_diagram_id=diagrams.active_diagram_id,
        active_walkthrough_id=walkthroughs.active_walkthrough_id,
        selection=(await h.session.call(ReadSelection())).object_refs,
    )


A = parse_ref("d:a/flow/node/n:A")
B = parse_ref("d:a/flow/node/n:B")
BC = parse_ref("d:b/flow/node/n:B")

WRITES: dict[str, Request[Any]] = {
    "xref.add": AddXref(xref_id="x:new", from_ref=str(A), to_ref=str(BC), kind="k"),
    "xref.remove": RemoveXref(xref_id="x:old"),
    "selection.update": UpdateSelection(object_refs=(B,), mode="add"),
    "diagram.open": OpenDiagram(diagram_id="a"),
    "walkthrough.open": OpenWalkthrough(walkthrough_id="w2"),
    "diagram.delete": DeleteDiagram(diagram_id="b"),
    "walkthrough.delete": DeleteWalkthrough(walkthrough_id="w2"),
}


def _target(h: SessionHandle, tool: str) -> Address:
    return h.registry.lookup("xref" if tool.startswith("xref.") else "session")


SAVE_FAULTS = [
    pytest.param(Fault(errno=errno.ENOSPC), id="ENOSPC"),
    pytest.param(Fault(errno=errno.EROFS, points=frozenset({"write", "remove"})), id="EROFS"),
    pytest.param(Fault(errno=errno.EIO, points=frozenset({"fsync"})), id="EIO-fsync"),
]


@pytest.mark.parametrize("tool", sorted(WRITES))
@pytest.mark.parametrize("fault", SAVE_FAULTS)
async def test_durable_meta_writes_are_on_disk_or_refused_with_memory_equal_to_disk(
    autojump_clock: trio.testing.MockClock, tool: str, fault: Fault
) -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    async with memory_session(files=files, durable=True) as h:
        await create(h, diagram_id="a")
        await create(h, diagram_id="b")
        await h.session.call(CreateWalkthrough(walkthrough_id="w1", title="T"))
        await h.session.call(CreateWalkthrough(walkthrough_id="w2", title="T"))
        await h.session.call(OpenWalkthrough(walkthrough_id="w1"))
        await h.session.call(UpdateSelection(object_refs=(A,)))
        xref = h.registry.lookup("xref")
        await xref.call(AddXref(xref_id="x:old", from_ref=str(A), to_ref=str(B), kind="k"))
        before = await _memory(h)
        assert _disk(files) == before
        plan.inject(fault)
        with pytest.raises(PersistFailed) as caught:
            await _target(h, tool).call(WRITES[tool])
        assert caught.value.retryable and caught.value.data is not None
        assert caught.value.data["applied"] is False and "not applied" in caught.value.message
        assert await _memory(h) == before  # rolled back
        plan.clear()  # memory equals disk once the fault clears, with no new write
        await trio.sleep(RETRY_MAX + 40)
        assert await _memory(h) == before == _disk(files)
        await _target(h, tool).call(WRITES[tool])  # sent again: now it is applied, durably
        after = await _memory(h)
        assert after != before and _disk(files) == after


@pytest.mark.parametrize("tool", ["xref.add", "diagram.delete", "selection.update"])
async def test_durable_write_on_a_disk_slower_than_the_flush_timeout_is_refused(
    tool: str,
) -> None:
    """A real thread and clock: the refused write may still land; the rollback is written
    over it, so memory and disk agree again without a new write."""
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    config = PersistConfig(flush_timeout=0.3, cast_timeout=0.5)
    async with memory_session(
        files=files, durable=True, run_blocking=trio.to_thread.run_sync, config=config
    ) as h:
        await create(h, diagram_id="a")
        await create(h, diagram_id="b")
        await h.session.call(CreateWalkthrough(walkthrough_id="w1", title="T"))
        await h.session.call(CreateWalkthrough(walkthrough_id="w2", title="T"))
        await h.session.call(OpenWalkthrough(walkthrough_id="w1"))
        await h.session.call(UpdateSelection(object_refs=(A,)))
        await h.registry.lookup("xref").call(
            AddXref(xref_id="x:old", from_ref=str(A), to_ref=str(B), kind="k")
        )
        before = await _memory(h)
        plan.inject(Fault(errno=None, points=frozenset({"fsync"}), delay=0.6, times=2))
        with pytest.raises(PersistFailed, match="not applied"):
            await _target(h, tool).call(WRITES[tool])
        assert await _memory(h) == before
        # The rollback reached the persister before the refusal was sent, so this flush
        # comes after it: once both slow syncs are over, whatever was refused is overwritten.
        await h.registry.lookup("persister").call(Flush(), timeout=20)
        assert await _memory(h) == before == _disk(files)
