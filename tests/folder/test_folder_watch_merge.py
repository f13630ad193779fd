"""An external edit is merged three-way: ops an agent had acknowledged since the text the
person's edit started from are kept, with real file writes and the real watcher."""

from __future__ import annotations

import os
from pathlib import Path

import trio

from nereid.actors import protocol as p
from nereid.actors.protocol import DiagramChanged
from nereid.commands.session import open_session_handle
from nereid.model import FlowchartAst
from nereid.ops import FlowAddEdge, FlowAddNode, FlowUpdateNode

_START = "flowchart TD\n  hello[Hello] --> b[B]\n  b --> c[C]\n"


async def _flow(handle: object) -> tuple[int, FlowchartAst]:
    actor = handle.registry.get("diagram:flow")  # type: ignore[attr-defined]
    diagram = await actor.call(p.GetDiagram())
    assert isinstance(diagram.ast, FlowchartAst)
    return diagram.rev, diagram.ast


async def _apply(handle: object, rev: int, *ops: p.DiagramOp) -> int:  # type: ignore[name-defined]
    actor = handle.registry.get("diagram:flow")  # type: ignore[attr-defined]
    reply = await actor.call(p.ApplyDiagramOps(base_rev=rev, ops=ops))
    assert reply.applied == len(ops)
    return reply.new_rev


def _save_like_vim(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.swp-new")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def _next_change(events: object) -> DiagramChanged:
    with trio.fail_after(10):
        event = await events.__anext__()  # type: ignore[attr-defined]
    assert isinstance(event, DiagramChanged)
    return event


async def _started(handle: object, folder: Path, events: object) -> tuple[Path, str, int]:
    """The person's first text, imported and saved: (file, its text now, rev)."""
    mmd = folder / "diagrams" / "flow.mmd"
    _save_like_vim(mmd, _START)
    rev = (await _next_change(events)).rev
    await handle.flush()  # type: ignore[attr-defined]
    return mmd, mmd.read_text(encoding="utf-8"), rev


async def test_an_edit_of_the_older_text_keeps_the_agents_acknowledged_ops(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        with handle.bus.subscribe(DiagramChanged) as events:
            mmd, old_text, rev = await _started(handle, folder, events)
            # The agent adds a node and an edge, relabels c: acknowledged and on disk.
            rev = await _apply(
                handle,
                rev,
                FlowAddNode(node_id="n:agent", label="Agent"),
                FlowAddEdge(edge_id="e:agent", from_node_id="n:c", to_node_id="n:agent"),
                FlowUpdateNode(node_id="n:c", label="C by agent"),
            )
            await _next_change(events)
            await handle.flush()
            assert "Agent" in mmd.read_text(encoding="utf-8")
            # The person's editor still held the older text: they relabel hello and save.
            _save_like_vim(mmd, old_text.replace("Hello", "Hello person"))
            merged = await _next_change(events)
            assert merged.rev > rev
            _, ast = await _flow(handle)
            assert ast.nodes["n:hello"].label == "Hello person"  # the person's change
            assert ast.nodes["n:agent"].label == "Agent"  # the agent's, kept
            assert ast.nodes["n:c"].label == "C by agent"
            assert "e:agent" in ast.edges and "n:b" in ast.nodes
            await handle.flush()  # the merged revision reaches the file
            text = mmd.read_text(encoding="utf-8")
            assert "Hello person" in text and "C by agent" in text


async def test_an_edit_of_the_newest_text_changes_the_agents_objects(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        with handle.bus.subscribe(DiagramChanged) as events:
            mmd, _, rev = await _started(handle, folder, events)
            await _apply(handle, rev, FlowAddNode(node_id="n:agent", label="Agent"))
            await _next_change(events)
            await handle.flush()
            # Based on the newest text: the person renames the agent's node and drops c.
            newest = mmd.read_text(encoding="utf-8")
            lines = [
                line
                for line in newest.splitlines()
                if not line.startswith("c[") and "--> c" not in line
            ]
            _save_like_vim(mmd, "\n".join(lines).replace("[Agent]", "[Agent, renamed]") + "\n")
            await _next_change(events)
            _, ast = await _flow(handle)
            assert ast.nodes["n:agent"].label == "Agent, renamed"
            assert "n:c" not in ast.nodes and set(ast.nodes) == {"n:hello", "n:b", "n:agent"}


async def test_where_both_changed_one_object_the_file_wins_for_it_only(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        with handle.bus.subscribe(DiagramChanged) as events:
            mmd, old_text, rev = await _started(handle, folder, events)
            await _apply(
                handle,
                rev,
                FlowUpdateNode(node_id="n:b", label="B by agent"),
                FlowAddNode(node_id="n:agent", label="Agent"),
                FlowAddEdge(edge_id="e:agent", from_node_id="n:agent", to_node_id="n:c"),
            )
            await _next_change(events)
            await handle.flush()
            # The person relabels b too, and deletes c (which the agent's new edge uses).
            edit = "flowchart TD\n  hello[Hello] --> b[B by person]\n"
            assert old_text != edit
            _save_like_vim(mmd, edit)
            await _next_change(events)
            _, ast = await _flow(handle)
            assert ast.nodes["n:b"].label == "B by person"  # the file wins for b
            assert ast.nodes["n:agent"].label == "Agent"  # the agent's other work stays
            assert ast.edges["e:agent"].to_node_id == "n:c" and "n:c" in ast.nodes
            assert not any(e.from_node_id == "n:b" for e in ast.edges.values())
