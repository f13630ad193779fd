"""The commit rule: acknowledged revs survive actor restarts and reach the folder."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from nereid.actors.persist_link import PersistConfig
from nereid.actors.persister import PersisterState, spawn_persister
from nereid.actors.protocol import (
    ApplyDiagramOps,
    CheckRefs,
    DeleteDiagram,
    GetActive,
    GetDiagram,
    ListDiagrams,
    OpenDiagram,
)
from nereid.actors.tree import open_session
from nereid.errors import PersistFailed
from nereid.model import Session, parse_ref
from nereid.store.files import MemoryFiles
from nereid.store.session_io import load_session
from tests.actors.session_testkit import (
    Gate,
    add_node,
    create,
    inline,
    memory_session,
    saved_session,
)


@pytest.mark.parametrize("with_files", [True, False], ids=["folder", "memory-only"])
async def test_a_killed_diagram_actor_restarts_at_the_acknowledged_rev(with_files: bool) -> None:
    tree = (
        memory_session()
        if with_files
        else open_session(Session(session_id="s:mem"), files=None, durable=False)
    )
    async with tree as handle:
        await create(handle, diagram_id="d")
        diagram = handle.diagram("d")
        reply = await diagram.call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
        handle.registry.crash("diagram:d")
        snapshot = await diagram.call(GetDiagram())
        assert snapshot.rev == reply.new_rev == 1
        exists = await handle.xref.call(CheckRefs(refs=(parse_ref("d:d/flow/node/n:c"),)))
        assert exists.exists == (True,)
        again = await diagram.call(ApplyDiagramOps(base_rev=1, ops=(add_node("n:e"),)))
        assert again.new_rev == 2


async def test_acknowledged_revs_reach_the_folder_after_a_persister_crash(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    gate = Gate()
    async with memory_session(files=files, run_blocking=gate) as handle:
        await create(handle, diagram_id="d")
        await handle.flush()
        diagram = handle.diagram("d")
        gate.close()  # the next save hangs in the middle
        for rev in range(3):
            await diagram.call(ApplyDiagramOps(base_rev=rev, ops=(add_node(f"n:r{rev}"),)))
        await trio.sleep(1)  # the debounced save started and is stuck
        assert gate.started >= 2
        handle.registry.crash("persister")
        await diagram.call(ApplyDiagramOps(base_rev=3, ops=(add_node("n:last"),)))
        gate.open.set()
        await handle.flush()
        stored = saved_session(files).diagrams["d"]
        assert stored.rev == 4


async def test_durable_replies_wait_for_the_disk() -> None:
    files = MemoryFiles()
    async with memory_session(files=files, durable=True) as handle:
        created = await create(handle, diagram_id="d")
        assert "d" in saved_session(files).diagrams
        assert created.diagram.rev == 0
        reply = await handle.diagram("d").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
        assert reply.durable
        assert saved_session(files).diagrams["d"].rev == 1


async def test_a_stuck_persister_never_hangs_a_reply(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    gate = Gate()
    config = PersistConfig(cast_timeout=1.0, flush_timeout=2.0)
    async with memory_session(files=files, durable=True, run_blocking=gate, config=config) as h:
        await create(h, diagram_id="d")
        gate.close()
        started = trio.current_time()
        with pytest.raises(PersistFailed, match="not confirmed on disk") as caught:
            await h.diagram("d").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
        waited = trio.current_time() - started
        assert waited <= config.cast_timeout + 2 * config.flush_timeout
        # Not confirmed, so not applied: memory stays at what is on disk, retryable.
        assert caught.value.retryable and caught.value.data is not None
        assert (caught.value.data["applied"], caught.value.data["current_rev"]) == (False, 0)
        assert (await h.diagram("d").call(GetDiagram())).rev == 0
        gate.open.set()
        await h.flush()  # the stuck save of rev 1 finished, then the rollback was written
        assert saved_session(files).diagrams["d"].rev == 0
        reply = await h.diagram("d").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
        assert reply.new_rev == 1 and reply.durable
        assert saved_session(files).diagrams["d"].rev == 1


async def test_state_the_persister_missed_is_sent_again(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The persister is gone for a while (stopped, later respawned with the folder's
    state): each diagram keeps what it could not hand over and re-sends it after the
    retry delay — every diagram on its own timer, not one after the other."""
    files = MemoryFiles()
    config = PersistConfig(retry_delay=1.0)
    ids = [f"d{i}" for i in range(6)]
    async with memory_session(files=files, config=config) as handle:
        for diagram_id in ids:
            await create(handle, diagram_id=diagram_id)
        await handle.flush()
        root = handle.runtime.root
        for name in ("persister", "persister.status"):
            await root.stop(name)
        start = trio.current_time()
        for diagram_id in ids:
            reply = await handle.diagram(diagram_id).call(
                ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),))
            )
            assert reply.new_rev == 1
        await spawn_persister(
            root,
            files=files,
            initial=PersisterState.loaded(load_session(files)),
            run_blocking=inline,
        )
        assert {saved_session(files).diagrams[d].rev for d in ids} == {0}
        await trio.sleep_until(start + config.retry_delay + 0.01)  # the retries fired
        await handle.flush()
        assert {saved_session(files).diagrams[d].rev for d in ids} == {1}


async def test_delete_removes_the_files_and_session_restarts_keep_the_directory() -> None:
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        await create(handle, diagram_id="a")
        await create(handle, diagram_id="b")
        await handle.session.call(OpenDiagram(diagram_id="a"))
        await handle.flush()
        assert {"diagrams/a.mmd", "diagrams/b.mmd"} <= set(files.files)
        handle.registry.crash("session")
        active = await handle.session.call(GetActive())
        assert active.active_diagram_id == "a"
        await handle.session.call(DeleteDiagram(diagram_id="b"))
        await handle.flush()
        assert "diagrams/b.mmd" not in files.files
        stored = saved_session(files)
        assert set(stored.diagrams) == {"a"} and stored.active_diagram_id == "a"


async def test_a_loaded_folder_comes_back_as_actors() -> None:
    files = MemoryFiles()
    async with memory_session(files=files) as handle:
        await create(handle, diagram_id="a")
        await handle.diagram("a").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:c"),)))
    # leaving the block saved everything
    loaded = load_session(files)
    async with memory_session(files=files, session=loaded.session) as handle:
        listing = await handle.session.call(ListDiagrams())
        assert [(d.diagram_id, d.rev) for d in listing.diagrams] == [("a", 1)]
        assert listing.active_diagram_id == "a"
        exists = await handle.xref.call(CheckRefs(refs=(parse_ref("d:a/flow/node/n:c"),)))
        assert exists.exists == (True,)


async def test_a_busy_persister_never_holds_up_a_default_mode_write(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A save that takes long (a big export) fills the persister's mailbox; writes go on
    without waiting for room, and the latest state reaches the folder afterwards."""
    files = MemoryFiles()
    gate = Gate()
    async with memory_session(files=files, run_blocking=gate) as h:
        await create(h, diagram_id="d")
        await h.flush()
        gate.close()  # the next save hangs until the gate opens
        await h.diagram("d").call(ApplyDiagramOps(base_rev=0, ops=(add_node("n:first"),)))
        await trio.sleep(1)  # the debounce fired: the persister is stuck in that save
        assert gate.started >= 2
        started = trio.current_time()
        for rev in range(1, 200):  # far more than the persister's mailbox holds
            await h.diagram("d").call(ApplyDiagramOps(base_rev=rev, ops=(add_node(f"n:{rev}"),)))
        assert trio.current_time() - started < 0.5  # no write waited for the mailbox
        gate.open.set()
        await trio.sleep(5)  # the retry timer offers the latest state again
        await h.flush()
        assert saved_session(files).diagrams["d"] == await h.diagram("d").call(GetDiagram())
