"""Supervisor intensity as specified: restart within the limit, escalate past it.

The session tree (`nereid.actors.tree`) gives root, ``diagrams`` and ``walkthroughs`` the
intensity 5 restarts in 10 s. A sixth crash of diagram actors within the window makes
``diagrams`` give up: root restarts it with all its children, each from its last commit
(the rest of the tree keeps running). Too many crashes of root's own children end the
runtime with `RestartIntensityExceeded`, and calls then fail instead of hanging.
"""

from __future__ import annotations

import random

import pytest
import trio
import trio.lowlevel
import trio.testing

from nereid.actors.protocol import ApplyDiagramOps, GetAttention, GetDiagram
from nereid.ops import FlowAddNode
from nereid.runtime import RestartIntensity, RestartIntensityExceeded
from nereid.testing.faults import FaultInjector, RestartCounter
from nereid.testing.workspace import ActorWorkspace
from tests.chaos.chaos_testkit import FLOW, memory_session


async def test_diagram_crashes_within_the_limit_restart_the_actor_only() -> None:
    counter = RestartCounter()
    async with memory_session(counter) as handle:
        work = ActorWorkspace(handle.registry, "agent:1")
        await work.create_flowchart("d", FLOW)
        await work.add_diagram_node("d", 0, "n:kept")
        for _ in range(5):
            handle.registry.crash("diagram:d")
            assert (await handle.diagram("d").call(GetDiagram())).rev == 1
        assert counter.restarts == 5
        assert counter.escalations == []
        assert dict(counter.crashes) == {"diagram:d": 5}


async def test_one_crash_too_many_escalates_to_root_which_restarts_all_diagrams() -> None:
    counter = RestartCounter()
    async with memory_session(counter) as handle:
        work = ActorWorkspace(handle.registry, "agent:1")
        await work.create_flowchart("d", FLOW)
        await work.create_flowchart("e", FLOW)
        await work.add_diagram_node("d", 0, "n:d1")
        await work.add_diagram_node("e", 0, "n:e1")
        await work.add_diagram_node("e", 1, "n:e2")
        for _ in range(6):
            handle.registry.crash("diagram:d")
            await handle.diagram("d").call(GetDiagram())  # answered once it restarted
        d = await handle.diagram("d").call(GetDiagram())
        e = await handle.diagram("e").call(GetDiagram())
        assert (d.rev, e.rev) == (1, 2)
        assert "n:d1" in d.ast.nodes and "n:e2" in e.ast.nodes  # type: ignore[union-attr]
        assert len(counter.escalations) == 1
        assert b'"actor":"diagrams"' in counter.escalations[0]
        assert counter.crashes["diagram:d"] == 6 and counter.crashes["diagrams"] == 1
        # the rest of the tree never stopped, and writes go on at the acknowledged revs
        await handle.attention.call(GetAttention())
        reply = await handle.diagram("d").call(
            ApplyDiagramOps(base_rev=1, ops=(FlowAddNode(node_id="n:d2", label="after"),))
        )
        assert reply.new_rev == 2


async def test_root_gives_up_past_its_limit_and_the_session_ends(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # The final save fails at once here (no persister runs); tests/actors/
    # test_session_shutdown.py checks that too.
    counter = RestartCounter()
    with pytest.RaisesGroup(RestartIntensityExceeded, flatten_subgroups=True):
        async with memory_session(counter) as handle:
            for _ in range(6):
                handle.registry.crash("attention")
                await trio.sleep(0.01)
            with trio.fail_after(5):  # the runtime is cancelled: nothing waits forever
                await trio.sleep_forever()
    assert len(counter.escalations) == 1
    assert b'"actor":"root"' in counter.escalations[0]


async def test_the_injector_stays_within_the_intensity_budget(
    autojump_clock: trio.testing.MockClock,
) -> None:
    counter = RestartCounter()
    async with memory_session(counter) as handle:
        work = ActorWorkspace(handle.registry, "agent:1")
        await work.create_flowchart("d", FLOW)
        injector = FaultInjector(
            registry=handle.registry,
            rng=random.Random(3),
            rate=1000.0,
            intensity=RestartIntensity(max_restarts=5, within_s=10.0),
            kinds=("diagram",),
        )
        injector.kill_one()
        injector.kill_one()  # the same actor again at once: it may still be restarting
        assert (injector.injected, injector.skipped) == (1, 1)
        for _ in range(19):
            await trio.sleep(0.1)
            injector.kill_one()
        assert injector.injected == 4  # max_restarts - 1 in the 10 s window
        assert injector.skipped == 1 + 16
        await trio.sleep(10)
        assert injector.kill_one() == "diagram:d"  # the window moved on
        assert (await handle.diagram("d").call(GetDiagram())).rev == 0
        assert counter.escalations == []
