"""The session follows the folder's files (spec decision 20), with real file writes:

new diagram files appear, deleted ones disappear (a `git checkout` leaves the session equal
to the folder); a file that does not parse is listed with its problem, left as it is, and
never overwritten by a write until it parses again or the diagram is deleted on purpose.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import trio

from nereid.actors.folder_watch import FolderSynced
from nereid.actors.persister import Flush
from nereid.commands.session import open_session_handle
from nereid.errors import PersistFailed
from nereid.mcp import McpEndpoint
from nereid.runtime import Subscription
from tests.mcp.session_kit import Agent, memory_client, memory_session

BROKEN = "flowchart TD\n  a[Start] --> b[Unclosed\n"


def _replace(path: Path, text: str) -> None:
    """Write beside and rename over, as vim and git do."""
    temp = path.with_name(f".{path.name}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


async def _until(check: Callable[[], Awaitable[Any]]) -> Any:
    with trio.fail_after(10):
        while True:
            value = await check()
            if value:
                return value
            await trio.sleep(0.05)


async def _synced(events: Subscription, path: str) -> None:
    """Wait until the watcher has handled a burst of changes that touched `path`."""
    with trio.fail_after(10):
        async for event in events:
            if isinstance(event, FolderSynced) and path in event.paths:
                return


async def _saved(endpoint: McpEndpoint) -> None:
    """Wait until the persister wrote everything pending (what could overwrite a file)."""
    with contextlib.suppress(PersistFailed):  # an item it may not write (foreign bytes)
        await endpoint.runtime.registry.lookup("persister").call(Flush(), timeout=10)


async def _listing(agent: Agent) -> dict[str, dict[str, Any]]:
    return {d["diagram_id"]: d for d in (await agent.ok("diagram.list"))["diagrams"]}


async def _make_folder(folder: Path, diagrams: dict[str, str], *, extras: bool = False) -> None:
    """A saved session holding `diagrams` (id -> Mermaid), written by Nereid itself;
    `extras`: also a walkthrough `tour` and an xref `x1` inside diagram `other`."""
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        for diagram_id, text in diagrams.items():
            await agent.ok(
                "diagram.create_from_mermaid", {"diagram_id": diagram_id, "mermaid": text}
            )
        await agent.ok("diagram.delete", {"diagram_id": "flow"})
        if extras:
            await agent.ok("walkthrough.create", {"walkthrough_id": "tour", "title": "The tour"})
            await agent.ok(
                "xref.add",
                {
                    "xref_id": "x1",
                    "from": "d:other/flow/node/n:x",
                    "to": "d:other/flow/node/n:y",
                    "kind": "relates",
                },
            )


async def test_a_checkout_of_another_branch_leaves_the_session_equal_to_the_folder(
    tmp_path: Path,
) -> None:
    branch = tmp_path / "branch"
    await _make_folder(branch, {"other": "flowchart LR\n  x[Ex] --> y[Why]\n"}, extras=True)
    folder = tmp_path / "work"
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        assert set(await _listing(agent)) == {"flow"}
        ids_there = await _read_ast(branch, "other")
        # The checkout: the other branch's files arrive (renamed into place), ours go.
        for name in ("other.meta.json", "other.mmd"):
            _replace(folder / "diagrams" / name, (branch / "diagrams" / name).read_text())
        (folder / "diagrams" / "flow.mmd").unlink()
        (folder / "diagrams" / "flow.meta.json").unlink()
        for name in ("walkthroughs/tour.wt.json", "nereid-session.meta.json"):
            _replace(folder / name, (branch / name).read_text())

        async def switched() -> bool:
            walks = (await agent.ok("walkthrough.list"))["walkthroughs"]
            xrefs = (await agent.ok("xref.list"))["xrefs"]
            return (
                set(await _listing(agent)) == {"other"}
                and [w["walkthrough_id"] for w in walks] == ["tour"]
                and [x["xref_id"] for x in xrefs] == ["x1"]
            )

        await _until(switched)
        walk = await agent.ok("walkthrough.read", {"walkthrough_id": "tour"})
        assert walk["walkthrough"]["title"] == "The tour"
        ast = await agent.ok("diagram.get_ast", {"diagram_id": "other"})
        assert sorted(n["node_id"] for n in ast["ast"]["nodes"]) == ids_there
        # A stray .mmd (no side-car, not listed) is not taken for a diagram.
        with endpoint.runtime.bus.subscribe(FolderSynced) as synced:
            (folder / "diagrams" / "notes.mmd").write_text("flowchart TD\n  q\n", encoding="utf-8")
            await _synced(synced, "diagrams/notes.mmd")
        assert set(await _listing(agent)) == {"other"}
        await agent.ok(
            "diagram.apply_ops",
            {
                "diagram_id": "other",
                "base_rev": (await agent.ok("diagram.stat", {"diagram_id": "other"}))["rev"],
                "ops": [{"type": "flow_add_node", "node_id": "n:z", "label": "Zed"}],
            },
        )
    assert not (folder / "diagrams" / "flow.mmd").exists()
    assert "Zed" in (folder / "diagrams" / "other.mmd").read_text(encoding="utf-8")
    assert (folder / "diagrams" / "notes.mmd").read_text() == "flowchart TD\n  q\n"


async def _read_ast(folder: Path, diagram_id: str) -> list[str]:
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        ast = await Agent(client).ok("diagram.get_ast", {"diagram_id": diagram_id})
    return sorted(n["node_id"] for n in ast["ast"]["nodes"])


async def test_a_broken_edit_is_visible_refuses_writes_and_is_never_overwritten(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj"
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        mmd = folder / "diagrams" / "flow.mmd"
        mmd.write_text(BROKEN, encoding="utf-8")  # in place, as an editor without renames

        async def broken() -> dict[str, Any] | None:
            return (await _listing(agent))["flow"].get("file_error")

        error = await _until(broken)
        assert error["file"] == "diagrams/flow.mmd" and error["line"] == 2
        assert "does not parse" in error["message"] or "parse" in error["message"]
        stat = await agent.ok("diagram.stat", {"diagram_id": "flow"})
        assert stat["file_error"] == error and stat["counts"]["nodes"] == 1  # last good state
        refused = await agent.err(
            "diagram.apply_ops",
            {
                "diagram_id": "flow",
                "base_rev": stat["rev"],
                "ops": [{"type": "flow_add_node", "node_id": "n:x", "label": "X"}],
            },
        )
        assert refused.code == -32600 and "does not parse" in refused.message
        assert refused.data["file_problem"]["line"] == 2
        await _saved(endpoint)
        assert mmd.read_text(encoding="utf-8") == BROKEN
        # Fixed by the person: taken in as a new revision, kept as they wrote it.
        fixed = "flowchart TD\n    hello[Hello]   -->   b[Fixed]\n"
        _replace(mmd, fixed)

        async def parses() -> bool:
            return "file_error" not in (await _listing(agent))["flow"]

        await _until(parses)
        stat = await agent.ok("diagram.stat", {"diagram_id": "flow"})
        assert stat["rev"] == 1 and stat["counts"]["nodes"] == 2 and "file_error" not in stat
        await _saved(endpoint)
        assert mmd.read_text(encoding="utf-8") == fixed  # not reformatted
        await agent.ok(
            "diagram.apply_ops",
            {
                "diagram_id": "flow",
                "base_rev": 1,
                "ops": [{"type": "flow_add_node", "node_id": "n:x", "label": "X"}],
            },
        )
    text = mmd.read_text(encoding="utf-8")
    assert "Fixed" in text and "X" in text


async def test_a_file_that_does_not_parse_at_start_is_listed_and_not_overwritten(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj"
    async with open_session_handle(folder, demo=False, durable_writes=False):
        pass
    mmd = folder / "diagrams" / "flow.mmd"
    mmd.write_text(BROKEN, encoding="utf-8")
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        listed = (await _listing(agent))["flow"]
        assert listed["file_error"]["line"] == 2 and listed["kind"] == "Flowchart"
        # Every read says why the diagram is empty: the same file_error as list and stat.
        stat = await agent.ok("diagram.stat", {"diagram_id": "flow"})
        read = await agent.ok("diagram.read", {"diagram_id": "flow"})
        ast = await agent.ok("diagram.get_ast", {"diagram_id": "flow"})
        assert read["file_error"] == ast["file_error"] == stat["file_error"] == listed["file_error"]
        refused = await agent.err(
            "diagram.create_from_mermaid", {"diagram_id": "flow", "mermaid": "flowchart TD\n  a\n"}
        )
        assert refused.code == -32602 and refused.message == "diagram_id already exists"
        assert refused.data["file_problem"]["file"] == "diagrams/flow.mmd"
        assert mmd.read_text(encoding="utf-8") == BROKEN
        # Replacing it on purpose: delete (removes the person's file), then create.
        await agent.ok("diagram.delete", {"diagram_id": "flow"})
        await agent.ok(
            "diagram.create_from_mermaid", {"diagram_id": "flow", "mermaid": "flowchart TD\n  a\n"}
        )
    assert "a" in mmd.read_text(encoding="utf-8") and mmd.read_text() != BROKEN


async def test_a_broken_file_fixed_after_start_loads_with_its_side_car_ids(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    await _make_folder(folder, {"f": "flowchart TD\n  a[Alpha] --> b[Beta]\n"})
    mmd = folder / "diagrams" / "f.mmd"
    good = mmd.read_text(encoding="utf-8")
    mmd.write_text(BROKEN, encoding="utf-8")
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        assert "file_error" in (await _listing(agent))["f"]
        _replace(mmd, good.replace("Beta", "Beta two"))

        async def loaded() -> bool:
            return "file_error" not in (await _listing(agent))["f"]

        await _until(loaded)
        ast = await agent.ok("diagram.get_ast", {"diagram_id": "f"})
        assert "file_error" not in ast
        assert "file_error" not in await agent.ok("diagram.read", {"diagram_id": "f"})
        labels = {n["node_id"]: n["label"] for n in ast["ast"]["nodes"]}
        assert labels == {"n:a": "Alpha", "n:b": "Beta two"}
    shutil.rmtree(folder)


async def test_a_walkthrough_file_that_does_not_load_keeps_its_state_and_refuses_writes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj"
    async with memory_session(folder) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        await agent.ok("walkthrough.create", {"walkthrough_id": "tour", "title": "Tour"})
        path = folder / "walkthroughs" / "tour.wt.json"
        await _until(lambda: trio.to_thread.run_sync(path.exists))
        good = path.read_text(encoding="utf-8")
        path.write_text("{ not json", encoding="utf-8")

        async def broken() -> dict[str, Any] | None:
            stat = await agent.ok("walkthrough.stat", {"walkthrough_id": "tour"})
            return stat.get("file_error")

        error = await _until(broken)
        assert error["file"] == "walkthroughs/tour.wt.json"
        refused = await agent.err(
            "walkthrough.apply_ops",
            {
                "walkthrough_id": "tour",
                "base_rev": 0,
                "ops": [{"type": "set_title", "title": "Other"}],
            },
        )
        assert refused.code == -32600 and "does not load" in refused.message
        await _saved(endpoint)
        assert path.read_text(encoding="utf-8") == "{ not json"
        _replace(path, good.replace('"Tour"', '"Tour, fixed by hand"'))

        async def fixed() -> bool:
            stat = await agent.ok("walkthrough.stat", {"walkthrough_id": "tour"})
            return "file_error" not in stat and stat["digest"]["rev"] == 1

        await _until(fixed)
        walk = await agent.ok("walkthrough.read", {"walkthrough_id": "tour"})
        assert walk["walkthrough"]["title"] == "Tour, fixed by hand"
