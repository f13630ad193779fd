"""The watcher's import of a big `.mmd` (ids, three-way merge) runs in a worker process:
the same result as in-process, and the event loop keeps running meanwhile."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import trio
import trio.lowlevel

from nereid.actors import protocol as p
from nereid.actors.diagram import parse_mermaid_text
from nereid.actors.protocol import DiagramChanged
from nereid.commands.session import open_session_handle
from nereid.mermaid import export_ast
from nereid.model import Ast, FlowchartAst
from nereid.offload.dispatch import SMALL_PAYLOAD, import_file_edit, needs_worker
from nereid.ops import DiagramState, FlowAddNode, FlowUpdateNode
from nereid.runtime import Subscription

IN_PROCESS = 1 << 62  # no payload is above it: the job runs on the event loop


def _chain(n: int, label: str = "Step") -> str:
    lines = ["flowchart TD"]
    lines += [f"  s{i}[{label} {i}] --> s{i + 1}[{label} {i + 1}]" for i in range(n)]
    return "\n".join(lines) + "\n"


def _cases() -> list[tuple[str, Ast, Ast, Ast | None]]:
    """(what, current, edited, base): a plain re-import, an edit of the current text, and
    an edit of an older text while an agent added and relabelled nodes meanwhile."""
    base = parse_mermaid_text(_chain(300))
    state = DiagramState(diagram_id="big", ast=base, rev=0)
    node = next(iter(base.nodes))  # type: ignore[union-attr]
    agent, _ = state.apply(
        0,
        (
            FlowAddNode(node_id="n:agent", label="Added by an agent"),
            FlowUpdateNode(node_id=node, label="Agent's label"),
        ),
    )
    edited_text = export_ast(base).replace("Step 7]", "Person's 7]").replace("Step 0]", "Mine]")
    edited = parse_mermaid_text(edited_text)
    return [
        ("no base", base, parse_mermaid_text(_chain(300, "Other")), None),
        ("edit of the current text", base, edited, base),
        ("edit of an older text", agent.ast, edited, base),
    ]


async def test_a_big_import_gives_the_in_process_result_from_a_worker() -> None:
    for what, current, edited, base in _cases():
        assert needs_worker([current, edited]), what  # the default path is the worker
        in_process = await import_file_edit(current, edited, base, small=IN_PROCESS)
        worker = await import_file_edit(current, edited, base)
        assert msgspec.msgpack.encode(worker) == msgspec.msgpack.encode(in_process), what
    merged, conflicts = worker
    assert isinstance(merged, FlowchartAst)
    assert "n:agent" in merged.nodes  # the agent's acknowledged node is kept
    assert any(n.label == "Person's 7" for n in merged.nodes.values())
    assert [c.what for c in conflicts] and all("Mine" in c.yours for c in conflicts)


async def test_a_small_import_stays_in_process() -> None:
    small = parse_mermaid_text(_chain(3))
    assert not needs_worker([small, small])
    ast, conflicts = await import_file_edit(small, small, small, small=SMALL_PAYLOAD)
    assert ast == small and conflicts == ()


async def test_the_event_loop_runs_while_a_big_import_is_merged() -> None:
    """Other tasks get the loop while the worker merges (in-process they would not)."""
    _, current, edited, base = _cases()[2]
    ticks = {"worker": 0, "in-process": 0}

    for mode, small in (("worker", SMALL_PAYLOAD), ("in-process", IN_PROCESS)):
        done = trio.Event()

        async def tick(mode: str = mode, done: trio.Event = done) -> None:
            while not done.is_set():
                ticks[mode] += 1
                await trio.sleep(0.001)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(tick)
            await trio.lowlevel.checkpoint()  # the ticker is running
            await import_file_edit(current, edited, base, small=small)
            done.set()
    assert ticks["in-process"] <= 2  # the loop was held for the whole merge
    assert ticks["worker"] > 10 * max(1, ticks["in-process"])


async def test_a_big_diagram_edited_by_hand_keeps_the_agents_ops(tmp_path: Path) -> None:
    """The real watcher and diagram actor on a diagram past the small-payload threshold."""
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        with handle.bus.subscribe(DiagramChanged) as events:
            mmd = folder / "diagrams" / "flow.mmd"
            _save_like_vim(mmd, _chain(300))
            rev = (await _next_change(events)).rev
            await handle.flush()
            old_text = mmd.read_text(encoding="utf-8")
            actor = handle.registry.lookup("diagram:flow")
            before = await actor.call(p.GetDiagram())
            assert needs_worker([before.ast, before.ast])
            reply = await actor.call(
                p.ApplyDiagramOps(
                    base_rev=rev,
                    ops=(
                        FlowAddNode(node_id="n:agent", label="Agent"),
                        FlowUpdateNode(node_id="n:s3", label="Three by agent"),
                    ),
                )
            )
            await _next_change(events)
            await handle.flush()
            _save_like_vim(mmd, old_text.replace("Step 9]", "Step nine]"))
            merged = await _next_change(events)
            assert merged.rev > reply.new_rev
            ast = (await actor.call(p.GetDiagram())).ast
            assert isinstance(ast, FlowchartAst)
            assert ast.nodes["n:s9"].label == "Step nine"  # the person's change
            assert ast.nodes["n:agent"].label == "Agent"  # the agent's, kept
            assert ast.nodes["n:s3"].label == "Three by agent"
            assert len(ast.nodes) == 302


def _save_like_vim(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.swp-new")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def _next_change(events: Subscription) -> DiagramChanged:
    with trio.fail_after(20):
        event = await events.__anext__()
    assert isinstance(event, DiagramChanged)
    return event
