"""A durable `diagram.delete` / `walkthrough.delete`: what the agent is told is on disk when
it is told, and a refused delete leaves everything as it was — spotlights included."""

from __future__ import annotations

import errno

import pytest
import trio
import trio.testing

from nereid.actors.persister import RETRY_MAX
from nereid.actors.protocol import (
    CreateWalkthrough,
    DeleteDiagram,
    DeleteWalkthrough,
    ListSpotlights,
    OpenDiagram,
    OpenWalkthrough,
    ReadSelection,
    SetSpotlight,
    UpdateSelection,
)
from nereid.errors import PersistFailed
from nereid.model import parse_ref
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import create, memory_session, saved_session

A = parse_ref("d:a/flow/node/n:A")
B = parse_ref("d:b/flow/node/n:B")


async def test_a_durable_delete_of_the_active_diagram_is_on_disk_with_its_new_active_id(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    async with memory_session(files=files, durable=True) as h:
        await create(h, diagram_id="a")
        await create(h, diagram_id="b")
        await h.session.call(OpenDiagram(diagram_id="b"))
        await h.session.call(UpdateSelection(object_refs=(A, B)))
        await h.session.call(CreateWalkthrough(walkthrough_id="w1", title="T"))
        await h.session.call(CreateWalkthrough(walkthrough_id="w2", title="T"))
        await h.session.call(OpenWalkthrough(walkthrough_id="w2"))
        reply = await h.session.call(DeleteDiagram(diagram_id="b"))
        on_disk = saved_session(files)  # no time passed: what the ack promised is there
        assert reply.active_diagram_id == "a" == on_disk.active_diagram_id
        assert sorted(on_disk.diagrams) == ["a"]
        assert tuple(on_disk.selected_object_refs) == (A,)
        assert (await h.session.call(ReadSelection())).object_refs == (A,)
        done = await h.session.call(DeleteWalkthrough(walkthrough_id="w2"))
        on_disk = saved_session(files)
        assert done.active_walkthrough_id == "w1" == on_disk.active_walkthrough_id
        assert sorted(on_disk.walkthroughs) == ["w1"]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EIO])
async def test_a_refused_delete_keeps_the_spotlights_on_the_diagram(
    autojump_clock: trio.testing.MockClock, code: int
) -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    async with memory_session(files=files, durable=True) as h:
        await create(h, diagram_id="a")
        await create(h, diagram_id="b")
        attention = h.registry.lookup("attention")
        await attention.call(SetSpotlight(agent_id="agent:1", object_ref=B, agent_name="one"))
        await attention.call(SetSpotlight(agent_id="agent:2", object_ref=A))
        before = (await attention.call(ListSpotlights())).spotlights
        plan.inject(Fault(errno=code))
        with pytest.raises(PersistFailed, match="not applied"):
            await h.session.call(DeleteDiagram(diagram_id="b"))
        assert (await attention.call(ListSpotlights())).spotlights == before
        plan.clear()
        await trio.sleep(RETRY_MAX + 1)
        assert sorted(saved_session(files).diagrams) == ["a", "b"]
        await h.session.call(DeleteDiagram(diagram_id="b"))  # sent again: applied, purged
        after = (await attention.call(ListSpotlights())).spotlights
        assert [s.agent_id for s in after] == ["agent:2"]
        assert sorted(saved_session(files).diagrams) == ["a"]
