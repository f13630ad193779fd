"""Leaving a session tree: cancelled from outside it still saves; a dead persister fails fast."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.actors.protocol import ApplyDiagramOps, GetAttention
from nereid.errors import ActorDown
from nereid.runtime import RestartIntensityExceeded
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import add_node, create, memory_session, saved_session


async def test_a_cancelled_session_writes_its_acknowledged_work() -> None:
    files = MemoryFiles()
    with trio.CancelScope() as outer:
        # A long debounce: without the final save nothing below would reach the folder.
        async with memory_session(files=files) as handle:
            await create(handle, diagram_id="d")
            await handle.flush()
            reply = await handle.diagram("d").call(
                ApplyDiagramOps(base_rev=0, ops=(add_node("n:late"),))
            )
            assert reply.new_rev == 1
            outer.cancel()  # what Ctrl-C in `nereid serve` does to the code around the session
            await trio.sleep_forever()
    assert outer.cancelled_caught
    stored = saved_session(files).diagrams["d"]
    assert stored.rev == 1
    assert "n:late" in stored.ast.nodes  # type: ignore[union-attr]


async def test_the_final_save_fails_at_once_when_root_gave_up(
    autojump_clock: trio.testing.MockClock,
) -> None:
    errors: list[ActorDown] = []
    start = trio.current_time()
    with pytest.RaisesGroup(RestartIntensityExceeded, flatten_subgroups=True):
        async with memory_session() as handle:
            try:
                for _ in range(6):  # the sixth crash within 10 s: root gives up
                    handle.registry.crash("attention")
                    await handle.attention.call(GetAttention())  # answered once restarted
                await trio.sleep_forever()
            finally:
                with trio.CancelScope(shield=True):
                    try:
                        await handle.flush()
                    except ActorDown as error:
                        errors.append(error)
    assert trio.current_time() - start < 1  # at once, not after the flush's 10 s deadline
    assert len(errors) == 1
    assert "persister is not running" in str(errors[0])
