"""The folder is watched: an edit made to a diagram file by another program becomes a new
revision (ids kept); Nereid's own writes are never re-imported; a broken edit changes nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TypeVar

import trio

from nereid.actors import protocol as p
from nereid.actors.folder_watch import FolderSynced
from nereid.actors.protocol import DiagramChanged
from nereid.commands.session import open_session_handle
from nereid.model import FlowchartAst
from nereid.model.file_names import diagram_paths
from nereid.runtime import Event, Subscription

E = TypeVar("E", bound=Event)


async def _diagram(handle: object, diagram_id: str = "flow") -> p.Diagram:  # type: ignore[name-defined]
    actor = handle.registry.get(f"diagram:{diagram_id}")  # type: ignore[attr-defined]
    return await actor.call(p.GetDiagram())


def _save_like_vim(path: Path, text: str) -> None:
    """Write a new file next to it and rename it over the old one (vim, git checkout)."""
    temp = path.with_name(f".{path.name}.swp-new")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def _next(events: Subscription, kind: type[E]) -> E:
    """The next event of `kind` (others are skipped)."""
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, kind):
                return event
    raise AssertionError("the bus closed")


async def _synced(events: Subscription, path: str) -> None:
    """Wait until the watcher has handled a burst of changes that touched `path`."""
    while path not in (await _next(events, FolderSynced)).paths:
        pass


async def test_external_edits_become_revisions_and_own_writes_are_not_reimported(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
        mmd = folder / "diagrams" / "flow.mmd"
        mmd_path, side_path, _ = diagram_paths("flow")
        with handle.bus.subscribe(DiagramChanged, FolderSynced) as events:
            _save_like_vim(mmd, "flowchart TD\n  hello[Hello there] --> b[B]\n")
            changed = await _next(events, DiagramChanged)
            assert changed.rev == 1
            diagram = await _diagram(handle)
            assert isinstance(diagram.ast, FlowchartAst)
            assert diagram.ast.nodes["n:hello"].label == "Hello there"  # the same id, kept
            assert "n:b" in diagram.ast.nodes
            # Nereid saves the new revision (the side-car; the text is kept): the watcher
            # sees that write and does not re-import it.
            await handle.flush()
            await _synced(events, side_path)
            assert (await _diagram(handle)).rev == 1
            # An edit in place, as an editor without renames saves.
            mmd.write_text("flowchart TD\n  hello[Hello again] --> b[B]\n", encoding="utf-8")
            assert (await _next(events, DiagramChanged)).rev == 2
            await handle.flush()
            await _synced(events, side_path)
            # A broken edit: the diagram keeps its last good state, the file is left as is.
            broken = "flowchart TD\n  hello[Hello -->\n"
            mmd.write_text(broken, encoding="utf-8")
            await _synced(events, mmd_path)
            diagram = await _diagram(handle)
            assert diagram.rev == 2 and diagram.ast.nodes["n:hello"].label == "Hello again"  # type: ignore[union-attr]
            assert mmd.read_text(encoding="utf-8") == broken
