"""Measure the "Accepted means saveable" rows of docs/reliability.md against a real server.

`run_saveable_cases(folder)` starts `nereid serve FOLDER --durable-writes`, sends every case
(one diagram each) as a real MCP client over Streamable HTTP, records what the agent sees
(error code and message, or the new rev) and the diagram's `diagram.get_ast` just before a
SIGKILL, then loads the folder with no server running and compares each diagram with what
the agent last read. `scripts/hostile_roundtrip --table` prints the result as Markdown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import trio

from nereid.query.ast_view import ast_view
from nereid.store import FolderFiles, load_session
from nereid.testing.crash import start_server
from nereid.testing.mcp_workspace import connect
from nereid.testing.workspace import ChaosFailure

__all__ = ["CASES", "CaseResult", "Case", "markdown_table", "run_saveable_cases"]

FLOW = "flowchart LR\n  a[A] --> b[B]\n"
SEQ = "sequenceDiagram\n  participant A\n  participant B\n  A->>B: one\n"


@dataclass(frozen=True)
class Case:
    """One input: Mermaid for `diagram.create_from_mermaid`, or ops on a seed diagram."""

    name: str
    mermaid: str | None = None
    seed: str | None = None
    ops: tuple[dict[str, Any], ...] = ()


@dataclass
class CaseResult:
    case: Case
    agent_sees: str
    on_disk: str
    seconds: float


def _chain(edges: int) -> str:
    return "flowchart\n" + "".join(f"n{i}-->n{i + 1}\n" for i in range(edges))


def _nested(depth: int) -> str:
    return (
        "flowchart\n" + "".join(f"subgraph s{i}\n" for i in range(depth)) + "A\n" + "end\n" * depth
    )


CASES: tuple[Case, ...] = (
    Case("sequence message text with U+0001 (op)", seed=SEQ,
         ops=({"type": "seq_update_message", "message_id": "m:0001", "text": "a\x01b"},)),
    Case("sequence title with U+2028 (op)", seed=SEQ,
         ops=({"type": "seq_set_title", "title": "t\u2028x"},)),
    Case("participant alias with U+0085 (op)", seed=SEQ,
         ops=({"type": "seq_update_participant", "participant_id": "p:A", "alias": "x\x85y"},)),
    Case("note text with U+007F (Mermaid)",
         mermaid="sequenceDiagram\nparticipant A\nNote over A: x\x7fy\n"),
    Case("node style with ';' (op)", seed=FLOW,
         ops=({"type": "flow_set_node_style", "node_id": "n:a", "style": "fill:red;x"},)),
    Case("node style with '#59;' (op)", seed=FLOW,
         ops=({"type": "flow_set_node_style", "node_id": "n:a", "style": "fill:red#59;x"},)),
    Case("node style with an unbalanced '\"' (op)", seed=FLOW,
         ops=({"type": "flow_set_node_style", "node_id": "n:a", "style": 'font:"Arial'},)),
    Case("edge style with an unbalanced '\"' (op)", seed=FLOW,
         ops=({"type": "flow_update_edge", "edge_id": "e:0001", "style": 'stroke:"red'},)),
    Case("classDef style with an unbalanced '\"' (op)", seed=FLOW,
         ops=({"type": "flow_set_class_def", "name": "hot", "style": 'fill:"red'},)),
    Case("default link style with an unbalanced '\"' (op)", seed=FLOW,
         ops=({"type": "flow_set_default_edge_style", "style": 'stroke:"red'},)),
    Case("multi-line quoted click tooltip (Mermaid)",
         mermaid='flowchart\nA\nclick A href "https://x" "two\nlines"\n'),
    Case("label with spaces around it, quoted (Mermaid)", mermaid='flowchart\nA["  padded  "]\n'),
    Case("label with spaces around it (op)", seed=FLOW,
         ops=({"type": "flow_update_node", "node_id": "n:a", "label": "  padded  "},)),
    Case("1,000 nested subgraphs (Mermaid)", mermaid=_nested(1000)),
    Case("100 nested subgraphs (Mermaid)", mermaid=_nested(100)),
    Case("55,000-edge chain (Mermaid)", mermaid=_chain(55_000)),
)  # fmt: skip


async def _run_case(url: str, index: int, case: Case) -> tuple[str, dict[str, Any] | None, float]:
    diagram_id = f"case-{index:02d}"
    started = time.perf_counter()
    async with connect(url, f"saveable-{index}") as workspace:
        try:
            if case.mermaid is not None:
                reply = await workspace.call(
                    "diagram.create_from_mermaid",
                    {"mermaid": case.mermaid, "diagram_id": diagram_id, "make_active": False},
                )
                sees = f"created, rev {reply['diagram']['rev']}"
            else:
                assert case.seed is not None
                base = await workspace.create_flowchart(diagram_id, case.seed)
                reply = await workspace.call(
                    "diagram.apply_ops",
                    {"diagram_id": diagram_id, "base_rev": base, "ops": list(case.ops)},
                )
                sees = f"applied, new_rev {reply['new_rev']}"
        except ChaosFailure as failure:
            sees = f"{failure.code} `{failure.message}`"
        elapsed = time.perf_counter() - started
        try:
            ast = (await workspace.call("diagram.get_ast", {"diagram_id": diagram_id}))["ast"]
        except ChaosFailure as failure:
            ast = None
            if not sees.startswith("-"):
                sees += f"; reading it back: {failure.code} `{failure.message[:80]}`"
    return sees, ast, elapsed


async def run_saveable_cases(folder: Path) -> list[CaseResult]:
    """Run every case on one durable server, SIGKILL it, load the folder and compare."""
    seen: list[tuple[str, dict[str, Any] | None, float]] = []
    async with trio.open_nursery() as nursery:
        server = await start_server(nursery, folder, durable=True, start_timeout=60.0)
        try:
            for index, case in enumerate(CASES):
                seen.append(await _run_case(server.url, index, case))
        finally:
            server.process.kill()
            await server.process.wait()
        nursery.cancel_scope.cancel()
    loaded = load_session(FolderFiles(folder))
    results = []
    for index, (case, (sees, ast, elapsed)) in enumerate(zip(CASES, seen, strict=True)):
        diagram = loaded.session.diagrams.get(f"case-{index:02d}")
        if diagram is None:
            disk = "no diagram (nothing was accepted)" if ast is None else "**missing**"
        elif ast is None:
            disk = f"rev {diagram.rev} (the agent's own read-back failed, so nothing to compare)"
        else:
            same = msgspec.json.decode(msgspec.json.encode(ast_view(diagram.ast))) == ast
            disk = f"rev {diagram.rev}, " + (
                "equal to what the agent read" if same else "**differs from memory**"
            )
        if loaded.issues:
            disk += f"; load issues: {loaded.issues}"
        results.append(CaseResult(case, sees, disk, elapsed))
    return results


def markdown_table(results: list[CaseResult]) -> str:
    lines = [
        "| input | what the agent sees | on disk after SIGKILL and reload |",
        "|---|---|---|",
    ]
    for result in results:
        lines.append(f"| {result.case.name} | {result.agent_sees} | {result.on_disk} |")
    return "\n".join(lines)
