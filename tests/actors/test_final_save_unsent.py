"""The session's final save hands over what actors still hold as unsent.

In default mode an actor never waits for room in the persister's mailbox: while the
persister is stuck in a long save, a change it could not take is kept as unsent and offered
again on a retry timer. A session that closes before that timer fires must still write it.
"""

from __future__ import annotations

import trio
import trio.testing

from nereid.actors.protocol import ApplyDiagramOps
from nereid.store.files import MemoryFiles
from tests.actors.session_testkit import Gate, add_node, create, memory_session, saved_session

_MAILBOX = 64  # the persister's mailbox (runtime DEFAULT_MAILBOX_SIZE)


async def test_the_final_save_writes_changes_the_persister_could_not_take(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    gate = Gate()
    rev = 0
    async with memory_session(files=files, run_blocking=gate) as handle:
        await create(handle, diagram_id="d")
        await create(handle, diagram_id="e")
        await handle.flush()
        gate.close()  # the next save hangs in the middle
        diagram = handle.diagram("d")
        await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:first"),)))
        await trio.sleep(1)  # the debounced save started and is stuck
        assert gate.started >= 1
        # Fill the persister's mailbox, then make changes it cannot take.
        rev = 1
        for i in range(_MAILBOX + 8):
            reply = await diagram.call(ApplyDiagramOps(base_rev=rev, ops=(add_node(f"n:{i}"),)))
            rev = reply.new_rev
        other = await handle.diagram("e").call(
            ApplyDiagramOps(base_rev=0, ops=(add_node("n:late"),))
        )
        assert other.new_rev == 1
        gate.open.set()  # the session closes at once, before any retry timer fires
    stored = saved_session(files)
    assert stored.diagrams["d"].rev == rev
    assert stored.diagrams["e"].rev == 1
