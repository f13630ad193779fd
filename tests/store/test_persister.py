"""PersisterActor: debounced, atomic, acknowledged writes; deletes; failures; restarts.

Most tests use the in-memory fake (`MemoryFiles`) with I/O run inline, so the autojump
clock gives exact virtual times; two tests use the real folder and real threads.
"""

from __future__ import annotations

import errno
import json
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import msgspec
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.actors.persister import (
    DEFAULT_DEBOUNCE,
    RETRY_MAX,
    DeleteDiagram,
    DeleteWalkthrough,
    Flush,
    FlushReply,
    GetPersisterStatus,
    GetSaveStatus,
    ItemSaveState,
    PersistDiagram,
    PersisterState,
    PersistFailed,
    PersistIndex,
    PersistWalkthrough,
    SaveStatusChanged,
    spawn_persister,
)
from nereid.model import Diagram, FlowchartAst, FlowNode, Session, Walkthrough, parse_ref
from nereid.runtime import Tracer, open_runtime
from nereid.store.faults import Fault, FaultPlan
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.store.session_io import load_session
from nereid.testing.faults import RestartCounter
from tests.store.store_testkit import EXCEPTION_TYPES

T = TypeVar("T")


async def inline(fn: Callable[[], T]) -> T:
    """Run file work on the event loop: the fake filesystem never blocks."""
    await trio.lowlevel.checkpoint()
    return fn()


def flow(diagram_id: str, rev: int, label: str = "A") -> Diagram:
    ast = FlowchartAst(nodes={"n:a": FlowNode(label=label)})
    return Diagram(
        diagram_id=diagram_id, name=diagram_id.title(), kind="flowchart", ast=ast, rev=rev
    )


def mmd_writes(files: MemoryFiles, diagram_id: str) -> int:
    return sum(1 for path in files.writes() if path == f"diagrams/{diagram_id}.mmd")


async def test_a_burst_of_changes_is_one_save(autojump_clock: trio.testing.MockClock) -> None:
    files = MemoryFiles()
    initial = PersisterState(session=Session(session_id="s:t"))
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=initial, run_blocking=inline
        )
        start = trio.current_time()
        for rev in range(1, 21):
            await persister.cast(PersistDiagram(diagram=flow("d", rev, label=f"v{rev}")))
            await trio.sleep(DEFAULT_DEBOUNCE / 40)  # all inside one debounce window
        await trio.sleep(DEFAULT_DEBOUNCE)
        status = await persister.call(GetPersisterStatus())
        assert (status.pending, status.saves) == (False, 1)
        assert mmd_writes(files, "d") == 1
        assert trio.current_time() - start == pytest.approx(1.5 * DEFAULT_DEBOUNCE)
        loaded = load_session(files).session.diagrams["d"]
        assert (loaded.rev, loaded.ast.nodes["n:a"].label) == (20, "v20")  # type: ignore[union-attr]
        # A later change opens a new batch.
        await persister.cast(PersistDiagram(diagram=flow("d", 21)))
        await trio.sleep(2 * DEFAULT_DEBOUNCE)
        assert mmd_writes(files, "d") == 2


async def test_flush_writes_now_and_replies_when_on_disk(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState.new(Session(session_id="s:t")),
            run_blocking=inline,
        )
        await persister.cast(PersistDiagram(diagram=flow("d", 1)))
        await persister.cast(
            PersistWalkthrough(walkthrough=Walkthrough(walkthrough_id="w:1", title="T", rev=1))
        )
        ref = parse_ref("d:d/flow/node/n:a")
        await persister.cast(
            PersistIndex(xrefs={}, active_diagram_id="d", selected_object_refs=(ref, ref))
        )
        before = trio.current_time()
        reply = await persister.call(Flush())
        assert trio.current_time() == before  # no debounce wait for an explicit flush
        assert reply.written == (
            "diagrams/d.mmd",
            "diagrams/d.meta.json",
            "walkthroughs/~773a31.wt.json",
            "nereid-session.meta.json",
        )
        assert await persister.call(Flush()) == FlushReply()  # nothing left: group commit
        meta = json.loads(files.files["nereid-session.meta.json"])
        assert meta["active_diagram_id"] == "d"
        assert meta["selected_object_refs"] == ["d:d/flow/node/n:a"]
        await trio.sleep(1)
        assert (await persister.call(GetPersisterStatus())).saves == 1  # timer found nothing


async def test_deleting_removes_files(autojump_clock: trio.testing.MockClock) -> None:
    files = MemoryFiles()
    session = Session(session_id="s:t", diagrams={"a": flow("a", 1), "b": flow("b", 1)})
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=PersisterState.new(session), run_blocking=inline
        )
        await persister.cast(
            PersistWalkthrough(walkthrough=Walkthrough(walkthrough_id="w", title="T"))
        )
        await persister.call(Flush())
        files.files["diagrams/a.ascii.txt"] = b"rendered"
        await persister.cast(DeleteDiagram(diagram_id="a"))
        await persister.cast(DeleteWalkthrough(walkthrough_id="w"))
        reply = await persister.call(Flush())
        assert sorted(reply.removed) == [
            "diagrams/a.ascii.txt",
            "diagrams/a.meta.json",
            "diagrams/a.mmd",
            "walkthroughs/w.wt.json",
        ]
        assert sorted(files.files) == [
            "diagrams/b.meta.json",
            "diagrams/b.mmd",
            "nereid-session.meta.json",
        ]


async def test_files_that_failed_to_load_are_left_alone(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    session = Session(session_id="s:t", diagrams={"a": flow("a", 1), "b": flow("b", 1)})
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=PersisterState.new(session), run_blocking=inline
        )
        await persister.call(Flush())
    files.files["diagrams/b.mmd"] = b"flowchart\n  b[unclosed\n"
    broken = dict(files.files)
    result = load_session(files)
    assert [issue.diagram_id for issue in result.issues] == ["b"]
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=PersisterState.loaded(result), run_blocking=inline
        )
        await persister.cast(PersistDiagram(diagram=flow("a", 2)))
        await persister.call(Flush())
        assert files.files["diagrams/b.mmd"] == broken["diagrams/b.mmd"]
        assert files.files["diagrams/b.meta.json"] == broken["diagrams/b.meta.json"]
        assert "b" in {
            d["diagram_id"] for d in json.loads(files.files["nereid-session.meta.json"])["diagrams"]
        }
        # Writing "b" on purpose replaces the broken files.
        await persister.cast(PersistDiagram(diagram=flow("b", 5)))
        await persister.call(Flush())
        assert load_session(files).issues == ()


class FlakyFiles(MemoryFiles):
    def __init__(self) -> None:
        super().__init__()
        self.broken = True

    def write(self, path: str, data: bytes) -> None:
        if self.broken:
            raise OSError(28, "No space left on device")
        super().write(path, data)


async def test_a_failed_save_is_reported_and_retried(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = FlakyFiles()
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState(session=Session(session_id="s:t")),
            run_blocking=inline,
        )
        await persister.cast(PersistDiagram(diagram=flow("d", 1)))
        await trio.sleep(2 * DEFAULT_DEBOUNCE)  # the debounced save fails quietly
        status = await persister.call(GetPersisterStatus())
        assert status.pending and status.last_error is not None
        assert "No space left on device" in status.last_error
        with pytest.raises(PersistFailed, match="No space left"):
            await persister.call(Flush())
        files.broken = False
        reply = await persister.call(Flush())
        assert "diagrams/d.mmd" in reply.written
        assert (await persister.call(GetPersisterStatus())).last_error is None


async def test_a_restarted_persister_finishes_the_batch(
    autojump_clock: trio.testing.MockClock,
) -> None:
    files = MemoryFiles()
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState(session=Session(session_id="s:t")),
            run_blocking=inline,
        )
        await persister.cast(PersistDiagram(diagram=flow("d", 3)))
        await trio.testing.wait_all_tasks_blocked()
        runtime.root.kill("persister")
        await trio.sleep(5 * DEFAULT_DEBOUNCE)
        assert load_session(files).session.diagrams["d"].rev == 3
        assert not (await persister.call(GetPersisterStatus())).pending


async def test_real_folder_with_durable_writes(tmp_path: Path) -> None:
    files = FolderFiles(tmp_path / "session", durable=True)
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=PersisterState.new(Session(session_id="s:t"))
        )
        for rev in range(1, 4):
            await persister.cast(PersistDiagram(diagram=flow("d", rev)))
        await persister.call(Flush())
    loaded = load_session(FolderFiles(tmp_path / "session"))
    assert loaded.issues == () and loaded.session.diagrams["d"].rev == 3
    assert not list((tmp_path / "session").rglob(".nereid.tmp.*"))


class GatedFiles(FolderFiles):
    """A folder whose writes wait for the test to open a gate (a slow disk)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.timed_out = False

    def write(self, path: str, data: bytes) -> None:
        self.waiting.set()
        # Done on the event loop thread, this would stall the loop until the timeout.
        if not self.gate.wait(timeout=2):
            self.timed_out = True
        super().write(path, data)


async def test_a_slow_disk_does_not_block_the_event_loop(tmp_path: Path) -> None:
    files = GatedFiles(tmp_path)
    ticks = 0
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root, files=files, initial=PersisterState.new(Session(session_id="s:t"))
        )
        async with trio.open_nursery() as nursery:
            nursery.start_soon(persister.call, Flush())
            assert await trio.to_thread.run_sync(files.waiting.wait, 5)
            for _ in range(10):  # the loop keeps running while the write is stuck
                await trio.lowlevel.checkpoint()
                ticks += 1
            files.gate.set()
    assert ticks == 10 and not files.timed_out
    assert load_session(FolderFiles(tmp_path)).session.session_id == "s:t"


def test_state_constructors() -> None:
    session = Session(session_id="s")
    assert PersisterState.new(session).pending
    assert msgspec.structs.replace(PersisterState.new(session), pending=False) == PersisterState(
        session=session
    )


async def test_a_batch_armed_before_a_crash_is_written(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The debounce timer belongs to the runtime: a persister that crashes with a batch
    open restarts from its commit (pending) and the batch is still written on time."""
    files = MemoryFiles()
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState(session=Session(session_id="s:t")),
            run_blocking=inline,
        )
        await persister.cast(PersistDiagram(diagram=flow("d", 1)))
        await trio.testing.wait_all_tasks_blocked()
        runtime.root.kill("persister")  # the batch is open, its timer armed
        await trio.sleep(2 * DEFAULT_DEBOUNCE)
        assert not (await persister.call(GetPersisterStatus())).pending
        assert load_session(files).session.diagrams["d"].rev == 1


# -- one bad item, any exception, retried on a timer, visible ------------------------------


class RaisingFiles(MemoryFiles):
    """Writes of paths matching `bad` raise `error` (any type at all)."""

    def __init__(self, bad: str, error: BaseException) -> None:
        super().__init__()
        self.bad, self.error = bad, error

    def write_many(self, items: Sequence[tuple[str, bytes]]) -> None:
        if any(path.startswith(self.bad) for path, _ in items):
            raise self.error
        super().write_many(items)


@settings(max_examples=25, deadline=None)
@given(error_type=st.sampled_from(EXCEPTION_TYPES), whole=st.booleans())
def test_no_exception_type_stops_the_persister(error_type: type[Exception], whole: bool) -> None:
    """A save that raises anything (per item, or the whole save) is reported, never a crash."""

    async def scenario() -> None:
        files = RaisingFiles("diagrams/bad", error_type("injected"))
        broken = {"on": True}

        async def runner(fn: Callable[[], T]) -> T:
            await trio.lowlevel.checkpoint()
            if whole and broken["on"]:
                raise error_type("the whole save")
            return fn()

        counter = RestartCounter()
        async with open_runtime(tracer=Tracer(counter)) as runtime:
            persister = await spawn_persister(
                runtime.root,
                files=files,
                initial=PersisterState(session=Session(session_id="s:t")),
                run_blocking=runner,
            )
            await persister.cast(PersistDiagram(diagram=flow("bad", 1)))
            await persister.cast(PersistDiagram(diagram=flow("good", 1)))
            with pytest.raises(PersistFailed) as caught:
                await persister.call(Flush())
            assert caught.value.retryable and caught.value.data is not None
            assert caught.value.data["retryable"] is True
            if not whole:  # the good one is on disk regardless
                assert load_session(files).session.diagrams["good"].rev == 1
                await persister.call(Flush(items=("diagram:good", "meta")))
            broken["on"] = False
            files.bad = "nothing"
            await trio.sleep(RETRY_MAX + 1)  # the retry timer, no new change needed
            status = await persister.call(GetPersisterStatus())
            assert (status.pending, status.failures) == (False, {})
            assert sorted(load_session(files).session.diagrams) == ["bad", "good"]
            assert counter.crashes == {} and counter.restarts == 0

    trio.run(scenario, clock=trio.testing.MockClock(autojump_threshold=0))


async def test_failed_items_are_retried_on_a_timer_and_visible(
    autojump_clock: trio.testing.MockClock,
) -> None:
    plan = FaultPlan()
    files = MemoryFiles(faults=plan)
    events: list[SaveStatusChanged] = []
    async with open_runtime() as runtime:
        subscription = runtime.bus.subscribe()
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState.new(Session(session_id="s:t", diagrams={"a": flow("a", 1)})),
            run_blocking=inline,
        )
        status_actor = runtime.registry.lookup("persister.status")
        await persister.call(Flush())
        assert (await status_actor.call(GetSaveStatus())).item("diagram:a") == ItemSaveState(
            saved_rev=1
        )
        plan.inject(Fault(errno=errno.ENOSPC, paths="diagrams/a.*"))
        await persister.cast(PersistDiagram(diagram=flow("a", 2)))
        await trio.sleep(2 * DEFAULT_DEBOUNCE)
        state = (await status_actor.call(GetSaveStatus())).item("diagram:a")
        assert state.saved_rev == 1 and state.save_error is not None
        assert state.save_error.startswith("disk full: diagrams/a.mmd: No space left on device")
        await trio.sleep(5 * RETRY_MAX)
        assert plan.hits["write"] >= 4  # retried by itself, with backoff
        plan.clear()
        await trio.sleep(RETRY_MAX + DEFAULT_DEBOUNCE)
        assert (await status_actor.call(GetSaveStatus())).item("diagram:a") == ItemSaveState(
            saved_rev=2
        )
        assert load_session(files).session.diagrams["a"].rev == 2
        await trio.testing.wait_all_tasks_blocked()
        while True:
            try:
                event = subscription.receive_nowait()
            except trio.WouldBlock:
                break
            if isinstance(event, SaveStatusChanged):
                events.append(event)
    assert [sorted(e.errors) for e in events] == [["diagram:a"], []]


async def test_a_rev_that_went_back_is_rewritten_even_if_the_disk_has_that_rev(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A durable write rolled back after its save landed late: rev 2 on disk is other
    content than the rev 2 that follows, so the persister must not trust the rev."""
    files = MemoryFiles()
    async with open_runtime() as runtime:
        persister = await spawn_persister(
            runtime.root,
            files=files,
            initial=PersisterState.new(Session(session_id="s:t")),
            run_blocking=inline,
        )
        refused_wt = Walkthrough(walkthrough_id="w", title="refused", rev=2)
        for diagram, walkthrough in (
            (flow("d", 1), Walkthrough(walkthrough_id="w", title="one", rev=1)),
            (flow("d", 2, label="refused"), refused_wt),  # landed on disk, then rolled back
            (flow("d", 1), Walkthrough(walkthrough_id="w", title="one", rev=1)),
        ):
            await persister.cast(PersistDiagram(diagram=diagram))
            await persister.cast(PersistWalkthrough(walkthrough=walkthrough))
            if diagram.rev == 2:
                await persister.call(Flush())
        await persister.cast(PersistDiagram(diagram=flow("d", 2, label="kept")))
        await persister.cast(
            PersistWalkthrough(walkthrough=Walkthrough(walkthrough_id="w", title="kept", rev=2))
        )
        await persister.call(Flush())
        loaded = load_session(files).session
        assert loaded.diagrams["d"].ast.nodes["n:a"].label == "kept"  # type: ignore[union-attr]
        assert loaded.walkthroughs["w"].title == "kept"
