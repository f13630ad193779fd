"""A trace of the real session tree (`open_session`), driven by the messages MCP tools send.

The MCP tool handlers for the session are not written yet, so the requests are sent the way
they will send them: one `correlation_scope` per tool call, from outside the actors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
import trio

from nereid.actors.protocol import ApplyDiagramOps, CreateDiagramFromMermaid
from nereid.actors.tree import open_session
from nereid.commands import check
from nereid.commands.trace import open_trace_sink, run
from nereid.errors import Conflict
from nereid.mermaid.sequence import parse_sequence
from nereid.model import Session
from nereid.ops import FlowAddNode
from nereid.runtime import Tracer, correlation_scope
from nereid.store.files import MemoryFiles
from nereid.trace.calls import format_step, request_path
from nereid.trace.reader import read_trace_file

T = TypeVar("T")


async def inline(fn: Callable[[], T]) -> T:
    """Run the persister's file work on the event loop (the in-memory folder never blocks)."""
    await trio.lowlevel.checkpoint()
    return fn()


async def record(path: Path) -> None:
    tracer = Tracer(open_trace_sink(path))
    try:
        async with open_session(
            Session(session_id="s:trace"),
            files=MemoryFiles(),
            durable=True,
            unsaved=True,
            run_blocking=inline,
            tracer=tracer,
        ) as handle:
            with correlation_scope("mcp-create"):
                await handle.session.call(
                    CreateDiagramFromMermaid(mermaid="flowchart TD\n  A --> B\n", diagram_id="auth")
                )
            with correlation_scope("mcp-apply"):
                await handle.diagram("auth").call(
                    ApplyDiagramOps(base_rev=0, ops=(FlowAddNode(node_id="n:C", label="C"),))
                )
            with correlation_scope("mcp-stale"), pytest.raises(Conflict):
                await handle.diagram("auth").call(
                    ApplyDiagramOps(base_rev=0, ops=(FlowAddNode(node_id="n:D", label="D"),))
                )
            handle.diagrams_supervisor.kill("diagram:auth")
            with correlation_scope("mcp-after-crash"):
                await handle.diagram("auth").call(
                    ApplyDiagramOps(base_rev=1, ops=(FlowAddNode(node_id="n:E", label="E"),))
                )
    finally:
        tracer.close()


async def test_a_real_session_trace_reads_filters_and_exports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "session.jsonl"
    await record(path)
    entries, skipped = read_trace_file(path)
    assert skipped.count == 0

    # one durable apply: the diagram actor casts the write, then waits for the flush
    texts = [format_step(step).split(" ", 1)[1] for step in request_path(entries, "mcp-apply")]
    assert texts[0] == "→ diagram:auth ApplyDiagramOps (call from (outside))"
    assert "  → persister PersistDiagram (cast from diagram:auth)" in texts
    assert "  → persister Flush (call from diagram:auth)" in texts
    # the last reply; the status actor may handle the persister's report before or after it
    replies = [t for t in texts if t.startswith("←")]
    assert replies[-1].startswith("← diagram:auth ApplyDiagramOps ok to (outside)")

    assert run([str(path), "--plain", "--errors"]) == 0
    problems = [row.split()[1:3] for row in capsys.readouterr().out.splitlines()]
    assert problems == [
        ["error", "diagram:auth"],
        ["crash", "diagram:auth"],
        ["restart", "diagram:auth"],
    ]

    assert run([str(path), "--stats"]) == 0
    table = {row.split()[0]: row.split()[1:] for row in capsys.readouterr().out.splitlines()[1:]}
    messages, _p50, _p99, errors, crashes, restarts = table["diagram:auth"]
    # Its messages and the final save's HandOverUnsent.
    assert (messages, errors, crashes, restarts) == ("4", "1", "1", "1")
    assert {"session", "persister", "xref"} <= set(table)

    for flags in ([], ["--corr", "mcp-create"]):
        assert run([str(path), "--mermaid", *flags]) == 0
        text = capsys.readouterr().out
        ast = parse_sequence(text)
        assert "p:session" in ast.participants
        (tmp_path / "slice.mmd").write_text(text)
        assert check.run([str(tmp_path / "slice.mmd")]) == 0
        assert capsys.readouterr().out == ""
