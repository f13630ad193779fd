"""A session that starts with its diagrams listed but not parsed (`nereid --mcp`, issue 18).

`open_session_handle(lazy=True)` on a real folder: the directory answers from the listing
(ids, names, kinds, revs) before any diagram is parsed; a diagram's first other request
loads it, equal to what a load before the start gives; `xref` and the selection wait for
the diagrams they need; a file that does not parse becomes an unloaded diagram with its
problem (reported on stderr, writes refused, its file left as it is); writes are saved
and leave the other diagrams' files alone. With `background`, worker processes load the
rest and each actor takes its content in by itself.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest
import trio

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.folder_events import FolderEvents
from nereid.actors.folder_watch import FolderSynced
from nereid.actors.persister import PersisterState
from nereid.actors.protocol import (
    AddXref,
    ApplyDiagramOps,
    CheckRefs,
    GetDiagram,
    GetDiagramSummary,
    ListDiagrams,
    ListXrefs,
    UpdateSelection,
)
from nereid.actors.session_runtime import open_session_runtime
from nereid.actors.tree import SessionHandle
from nereid.commands.session import (
    Listed,
    _run_loaded,
    list_probed,
    open_session_handle,
    probe_folder,
)
from nereid.commands.started_now import StartedNow
from nereid.errors import InvalidRequest
from nereid.mermaid import parse_mermaid
from nereid.model import Diagram, FlowchartAst, ObjectRef, Session, empty_ast
from nereid.model.refs import FLOW_NODE, SEQ_PARTICIPANT
from nereid.ops import FlowAddNode
from nereid.runtime import Runtime
from nereid.store.files import FolderFiles
from nereid.store.parse_cache import CACHE_DIR_ENV
from nereid.store.recording import RecordingFiles
from nereid.store.session_io import LoadResult, load_session, save_session

FLOW = "flowchart TD\n  a[Start] --> b[Middle]\n  b --> c[End]\n"
SEQ = "sequenceDiagram\n  participant A\n  participant B\n  A->>B: hello\n"
STATE = "stateDiagram-v2\n  [*] --> Idle\n  Idle --> Busy\n"
BROKEN = "flowchart TD\n  a[[[\n"


def _diagram(diagram_id: str, text: str, rev: int) -> Diagram:
    ast = parse_mermaid(text)
    kind = {"FlowchartAst": "flowchart", "SequenceAst": "sequence", "StateAst": "state"}[
        type(ast).__name__
    ]
    return Diagram(diagram_id=diagram_id, name=f"Name {diagram_id}", kind=kind, ast=ast, rev=rev)  # type: ignore[arg-type]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """flow (with an xref to seq), seq, state, edited (its .mmd changed while Nereid was
    off), broken (its .mmd does not parse)."""
    monkeypatch.setenv(CACHE_DIR_ENV, "")
    made = [
        _diagram("flow", FLOW, 3),
        _diagram("seq", SEQ, 1),
        _diagram("state", STATE, 2),
        _diagram("edited", FLOW, 5),
        _diagram("broken", FLOW, 4),
    ]
    session = Session(session_id="s:lazy", diagrams={d.diagram_id: d for d in made})
    root = tmp_path / "session"
    files = FolderFiles(root)
    save_session(files, session)
    (root / "diagrams" / "edited.mmd").write_text(FLOW + "  c --> d[Added by hand]\n")
    (root / "diagrams" / "broken.mmd").write_text(BROKEN)
    return root


def _eager(folder: Path) -> LoadResult:
    return load_session(FolderFiles(folder))


@asynccontextmanager
async def _lazy(folder: Path, *, background: bool = False) -> AsyncIterator[SessionHandle]:
    async with open_session_handle(
        folder, demo=False, durable_writes=False, watch=False, lazy=True, background=background
    ) as handle:
        yield handle


def _watched(
    folder: Path,
    files: RecordingFiles,
    listed: Listed,
    runtime: Runtime,
    *,
    background: bool,
    events: FolderEvents | None = None,
) -> AbstractAsyncContextManager[SessionHandle]:
    """The session `nereid --mcp` runs on a listed folder, watched, in `runtime`."""
    return _run_loaded(
        folder,
        files,
        listed.result,
        False,
        durable_writes=False,
        tracer=None,
        watch=True,
        runtime=runtime,
        listed=listed,
        background=background,
        events=events,
    )


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "diagrams").iterdir())}


def test_listing_reads_every_file_and_parses_none(folder: Path) -> None:
    files = RecordingFiles(FolderFiles(folder))
    listed = list_probed(folder, files, probe_folder(folder, files))
    eager = _eager(folder)
    assert listed.result.session.diagrams == {}
    revs = {p.state.diagram_id: p.state.rev for p in listed.pending}
    loaded = {k: d.rev for k, d in eager.session.diagrams.items()}
    assert {k: revs[k] for k in loaded} == loaded  # the rev rule without a parse
    assert loaded["edited"] == 6  # edited while Nereid was off: a new rev
    assert sorted(revs) == ["broken", "edited", "flow", "seq", "state"]
    assert all(p.pending and not p.loaded for p in listed.pending)
    assert sorted(e.diagram_id for e in listed.result.kept.diagram_entries) == sorted(revs)
    assert sorted(listed.unsure) == ["broken", "edited"]  # not as Nereid saved them


async def test_the_directory_answers_from_the_listing(folder: Path) -> None:
    eager = _eager(folder)
    async with _lazy(folder) as handle:
        reply = await handle.session.call(ListDiagrams())
        assert [s.diagram_id for s in reply.diagrams] == [
            "broken",
            "edited",
            "flow",
            "seq",
            "state",
        ]
        for summary in reply.diagrams:
            if summary.diagram_id in eager.session.diagrams:
                assert summary.file_problem is None
                loaded = eager.session.diagrams[summary.diagram_id]
                assert (summary.name, summary.kind, summary.rev) == (
                    loaded.name,
                    loaded.kind,
                    loaded.rev,
                )
        # Only the files edited since Nereid saved them were parsed before the first
        # answer: the broken one shows its problem at once (its actor holds it), the
        # edited one that parses keeps its content until its first use, the others were
        # not parsed at all.
        broken = next(s for s in reply.diagrams if s.diagram_id == "broken")
        assert broken.file_problem is not None
        assert (broken.file_problem.file, broken.file_problem.line) == ("diagrams/broken.mmd", 2)
        assert handle.registry.names("diagram:") == ["diagram:broken"]


async def test_a_diagram_loads_on_first_use_as_a_full_load_gives_it(folder: Path) -> None:
    eager = _eager(folder)
    async with _lazy(folder) as handle:
        for diagram_id, loaded in eager.session.diagrams.items():
            assert await handle.diagram(diagram_id).call(GetDiagram()) == loaded
            summary = await handle.diagram(diagram_id).call(GetDiagramSummary())
            assert summary.rev == loaded.rev and summary.file_problem is None


async def test_a_broken_file_is_an_unloaded_diagram_once_looked_at(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(folder)
    async with _lazy(folder) as handle:
        broken = handle.diagram("broken")
        diagram = await broken.call(GetDiagram())
        assert diagram.ast == empty_ast("flowchart")  # empty: not its own
        summary = await broken.call(GetDiagramSummary())
        assert summary.file_problem is not None
        assert summary.file_problem.file == "diagrams/broken.mmd"
        assert summary.file_problem.line == 2
        with pytest.raises(InvalidRequest, match="does not parse"):
            await broken.call(ApplyDiagramOps(base_rev=summary.rev, ops=(_add("n:x"),)))
        await handle.flush()
    assert "diagrams/broken.mmd" in capsys.readouterr().err
    assert _files(folder) == before  # left as it is


def _add(node_id: str) -> FlowAddNode:
    return FlowAddNode(node_id=node_id, label="Added")


async def test_xrefs_and_the_selection_wait_for_the_diagrams_they_name(folder: Path) -> None:
    flow_b = ObjectRef.of("flow", FLOW_NODE, "n:b")
    seq_a = ObjectRef.of("seq", SEQ_PARTICIPANT, "p:A")
    ghost = ObjectRef.of("state", FLOW_NODE, "n:nothing")
    async with _lazy(folder) as handle:
        exists = await handle.xref.call(CheckRefs(refs=(flow_b, ghost)))
        assert exists.exists == (True, False)
        added = await handle.xref.call(
            AddXref(xref_id="x1", from_ref=str(flow_b), to_ref=str(seq_a), kind="calls")
        )
        assert added.status == "ok"
    async with _lazy(folder) as handle:  # a new start: the xref's ends are pending again
        listing = await handle.xref.call(ListXrefs())
        assert [(x.xref_id, x.status) for x in listing.xrefs] == [("x1", "ok")]
        applied = await handle.session.call(UpdateSelection(object_refs=(seq_a, ghost)))
        assert applied.applied == (seq_a,) and applied.ignored == (ghost,)


async def test_writes_are_saved_and_the_other_files_stay_as_they_are(folder: Path) -> None:
    before = _files(folder)
    async with _lazy(folder) as handle:
        flow = handle.diagram("flow")
        summary = await flow.call(GetDiagramSummary())
        reply = await flow.call(ApplyDiagramOps(base_rev=summary.rev, ops=(_add("n:n9"),)))
        assert reply.new_rev == summary.rev + 1
        await handle.flush()
    after = _files(folder)
    changed = {name for name in before if before[name] != after.get(name)}
    assert changed == {"flow.mmd", "flow.meta.json"}
    reloaded = _eager(folder)
    assert "n:n9" in reloaded.session.diagrams["flow"].ast.nodes  # type: ignore[union-attr]
    assert sorted(reloaded.session.diagrams) == ["edited", "flow", "seq", "state"]
    assert [issue.diagram_id for issue in reloaded.issues] == ["broken"]  # still listed


async def test_a_pending_diagram_that_crashes_restarts_pending_and_loads(folder: Path) -> None:
    eager = _eager(folder)
    async with _lazy(folder) as handle:
        assert handle.registry.running(diagram_actor_name("seq")) is None
        handle.diagram("seq")  # started, still pending
        await trio.sleep(0.05)
        handle.registry.crash(diagram_actor_name("seq"))
        await trio.sleep(0.05)
        assert await handle.diagram("seq").call(GetDiagram()) == eager.session.diagrams["seq"]


async def test_the_background_loads_every_diagram_in_worker_processes(folder: Path) -> None:
    eager = _eager(folder)
    async with _lazy(folder, background=True) as handle:
        with trio.fail_after(120):
            while True:  # the broken one's problem shows once the background reached it
                listed = await handle.session.call(ListDiagrams())
                broken = next(s for s in listed.diagrams if s.diagram_id == "broken")
                if broken.file_problem is not None:
                    break
                await trio.sleep(0.05)
        assert broken.file_problem.file == "diagrams/broken.mmd"
        # Only the broken one's actor started (to hold its problem); the others take
        # their parsed content on first use.
        assert handle.registry.names("diagram:") == ["diagram:broken"]
        for diagram_id, loaded in eager.session.diagrams.items():
            assert await handle.diagram(diagram_id).call(GetDiagram()) == loaded


def test_the_persister_holds_a_loaded_diagram_as_on_disk(folder: Path) -> None:
    files = RecordingFiles(FolderFiles(folder))
    listed = list_probed(folder, files, probe_folder(folder, files))
    revs = {p.state.diagram_id: p.state.rev for p in listed.pending}
    state = PersisterState.loaded(listed.result, listed=revs)
    assert state.save_status().item("diagram:flow").saved_rev == 3
    flow = _eager(folder).session.diagrams["flow"]
    loaded = state.with_loaded(flow)
    assert loaded.session.diagrams == {"flow": flow} and not loaded.pending
    assert "flow" not in {e.diagram_id for e in loaded.kept.diagram_entries}
    assert loaded.with_loaded(flow) is loaded  # once


async def test_an_edit_made_after_the_watch_began_is_taken_in_once_the_session_runs(
    folder: Path,
) -> None:
    """`nereid --mcp` begins the folder's watch while it lists the folder: an edit made
    after that and before the session runs is not missed."""
    events = FolderEvents(folder)
    await events.begin()
    files = RecordingFiles(FolderFiles(folder))
    listed = list_probed(folder, files, probe_folder(folder, files))
    edited = FLOW + "  c --> z[Edited before the session ran]\n"
    (folder / "diagrams" / "flow.mmd").write_text(edited, encoding="utf-8")
    async with open_session_runtime() as runtime:
        async with _watched(
            folder, files, listed, runtime, background=False, events=events
        ) as handle:
            with trio.fail_after(30):
                while True:
                    diagram = await handle.diagram("flow").call(GetDiagram())
                    if diagram.rev > 3:
                        break
                    await trio.sleep(0.02)
            assert isinstance(diagram.ast, FlowchartAst)
            labels = {node.label for node in diagram.ast.nodes.values()}
            assert "Edited before the session ran" in labels and "End" in labels


async def test_a_watch_that_cannot_begin_fails_the_opening_with_its_reason(tmp_path: Path) -> None:
    events = FolderEvents(tmp_path / "missing" / "session")
    (tmp_path / "missing").write_text("a file, not a folder", encoding="utf-8")
    await events.begin()  # never raises: the session's opening does (`begun`)
    with pytest.raises(OSError):
        await events.begun()
    await events.aclose()


async def test_work_started_now_returns_or_raises_in_the_waiting_task() -> None:
    def work() -> int:
        started_in_thread.append(threading.current_thread().name)
        return 7

    started_in_thread: list[str] = []
    done = StartedNow(work, name="nereid-test-now")
    assert await done.result() == 7 and started_in_thread == ["nereid-test-now"]

    def broken() -> int:
        raise ValueError("cannot")

    with pytest.raises(ValueError, match="cannot"):
        await StartedNow(broken, name="nereid-test-broken").result()


async def test_an_external_edit_of_a_diagram_without_an_actor_is_taken_in(folder: Path) -> None:
    async with open_session_handle(
        folder, demo=False, durable_writes=False, watch=True, lazy=True, background=False
    ) as handle:
        assert handle.registry.running(diagram_actor_name("seq")) is None
        (folder / "diagrams" / "seq.mmd").write_text(SEQ + "  B->>A: edited by hand\n")
        with trio.fail_after(30):
            while True:  # the directory only: the watch started the actor, nothing else
                listed = await handle.session.call(ListDiagrams())
                seq = next(s for s in listed.diagrams if s.diagram_id == "seq")
                if seq.rev > 1:
                    break
                await trio.sleep(0.02)
        assert handle.registry.running(diagram_actor_name("seq")) is not None
        assert handle.registry.running(diagram_actor_name("flow")) is None
        diagram = await handle.diagram("seq").call(GetDiagram())
        assert diagram.rev == seq.rev and len(diagram.ast.messages) == 2  # type: ignore[union-attr]


async def test_a_restarted_xref_needs_no_diagram_actor(folder: Path) -> None:
    flow_b = ObjectRef.of("flow", FLOW_NODE, "n:b")
    async with _lazy(folder) as handle:
        handle.registry.crash("xref")
        await trio.sleep(0.05)
        started = ["diagram:broken"]  # (it holds its problem from the start)
        assert handle.registry.names("diagram:") == started  # its rebuild started none
        exists = await handle.xref.call(CheckRefs(refs=(flow_b,)))
        assert exists.exists == (True,)
        assert handle.registry.names("diagram:") == [*started, "diagram:flow"]  # it needed it


async def test_a_rewrite_that_changes_nothing_leaves_a_diagram_without_an_actor(
    folder: Path,
) -> None:
    """The watch compares a file with what the session holds before it asks the diagram's
    actor: a file rewritten as it was (an editor's save, a checkout) starts no actor."""
    files = RecordingFiles(FolderFiles(folder))
    listed = list_probed(folder, files, probe_folder(folder, files))
    seq = folder / "diagrams" / "seq.mmd"
    async with open_session_runtime() as runtime:
        async with _watched(folder, files, listed, runtime, background=True) as handle:
            with trio.fail_after(120):
                while True:  # the background has loaded it and taken it in
                    if files.is_own("diagrams/seq.mmd", seq.read_bytes()):
                        break
                    await trio.sleep(0.05)
            with handle.bus.subscribe(FolderSynced) as synced:
                seq.write_bytes(seq.read_bytes())
                with trio.fail_after(30):
                    async for event in synced:
                        if isinstance(event, FolderSynced) and "diagrams/seq.mmd" in event.paths:
                            break
            assert handle.registry.running(diagram_actor_name("seq")) is None
