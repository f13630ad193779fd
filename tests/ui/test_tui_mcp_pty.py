"""`nereid --demo --mcp-http-port 0` in a pseudo-terminal, driven by an MCP client over HTTP.

An agent sets its spotlight and applies an op; the screen must show each within 200 ms of the
tool's reply (the TUI repaints on the change event, no polling).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import trio
from mcp import Client

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.render import RenderOptions, render_diagram
from nereid.testing.big_diagrams import flowchart
from nereid.ui.label_patch import label_patch

from .pty_screen import PtyScreen

ROOT = str(Path(__file__).resolve().parents[2])
VISIBLE_WITHIN = 0.2


def _result(reply: Any) -> dict[str, Any]:
    structured = getattr(reply, "structured_content", None) or getattr(
        reply, "structuredContent", None
    )
    if structured is not None:
        return dict(structured)
    return dict(json.loads(reply.content[0].text))


async def test_agent_spotlight_and_op_show_up_live() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TUI_PALETTE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": ROOT, "LANG": "C.UTF-8"})
    tui = PtyScreen(
        [sys.executable, "-m", "nereid", "--demo", "--mcp-http-port", "0"],
        cols=120,
        rows=36,
        env=env,
    )
    try:
        tui.wait_for("Diagram [")
        tui.send("?")
        text = tui.wait_for("MCP http://")
        match = re.search(r"MCP (http://127\.0\.0\.1:\d+/mcp)", text)
        assert match is not None, text
        url = match.group(1)
        tui.send("\x1b")
        tui.wait_for(lambda t: "--- Global ---" not in t)
        async with trio.open_nursery() as nursery, Client(url) as agent:
            nursery.start_soon(_drain, tui)
            await agent.call_tool(
                "attention.agent.set", {"object_ref": "d:order-flow/flow/node/n:placed"}
            )
            start = time.monotonic()
            tui.wait_for("order-flow", timeout=30)
            spotlight_s = time.monotonic() - start
            stat = _result(await agent.call_tool("diagram.stat", {"diagram_id": "order-flow"}))
            await agent.call_tool(
                "diagram.apply_ops",
                {
                    "diagram_id": "order-flow",
                    "base_rev": stat["rev"],
                    "ops": [
                        {
                            "type": "flow_update_node",
                            "node_id": "n:placed",
                            "label": "Agent was here",
                        }
                    ],
                },
            )
            start = time.monotonic()
            tui.wait_for("Agent was here", timeout=30)
            op_s = time.monotonic() - start
            nursery.cancel_scope.cancel()
        print(f"spotlight {spotlight_s * 1000:.0f} ms, op {op_s * 1000:.0f} ms")
        assert spotlight_s <= VISIBLE_WITHIN, f"spotlight took {spotlight_s * 1000:.0f} ms"
        assert op_s <= VISIBLE_WITHIN, f"op took {op_s * 1000:.0f} ms"
    finally:
        tui.close()


async def _drain(tui: PtyScreen) -> None:
    """Keep reading the TUI's output while the test awaits MCP replies: a full pty buffer
    would block the TUI's writes, and with them its whole trio run (and its MCP server)."""
    while True:
        tui.pump(0)
        await trio.sleep(0.005)


async def _view(agent: Any, want: Any) -> dict[str, Any]:
    """`view.read_state` once it satisfies `want` (the TUI reports after painting)."""
    deadline = time.monotonic() + 5
    while True:
        view = _result(await agent.call_tool("view.read_state", {}))
        if want(view) or time.monotonic() > deadline:
            return view
        await trio.sleep(0.02)


def demo_tui_with_mcp(cols: int, rows: int) -> tuple[PtyScreen, str]:
    """`nereid --demo` in a colour pty serving MCP on a free port: the screen and its URL
    (read from the help overlay, which is closed again)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "NEREID_TUI_PALETTE")}
    env.update({"TERM": "xterm-256color", "PYTHONPATH": ROOT, "LANG": "C.UTF-8"})
    tui = PtyScreen(
        [sys.executable, "-m", "nereid", "--demo", "--mcp-http-port", "0"],
        cols=cols,
        rows=rows,
        env=env,
    )
    try:
        tui.wait_for("Diagram [")
        tui.send("?")
        match = re.search(r"MCP (http://127\.0\.0\.1:\d+/mcp)", tui.wait_for("MCP http://"))
        assert match is not None
        tui.send("\x1b")
        tui.wait_for(lambda t: "--- Global ---" not in t)
    except BaseException:
        tui.close()
        raise
    return tui, match.group(1)


def _title(text: str) -> str:
    return text.splitlines()[0]


async def test_two_agents_in_turn_the_newest_spotlight_wins_and_the_view_is_reported() -> None:
    tui, url = demo_tui_with_mcp(cols=120, rows=36)
    try:
        async with (
            trio.open_nursery() as nursery,
            Client(url) as alpha,
            Client(url) as beta,
        ):
            nursery.start_soon(_drain, tui)
            await alpha.call_tool(
                "attention.agent.set", {"object_ref": "d:order-flow/flow/node/n:placed"}
            )
            tui.wait_for(lambda t: "order-flow" in _title(t))
            await beta.call_tool(
                "attention.agent.set", {"object_ref": "d:payment-seq/seq/participant/p:psp"}
            )
            tui.wait_for(lambda t: "payment-seq" in _title(t))
            await alpha.call_tool(
                "attention.agent.set", {"object_ref": "d:order-flow/flow/node/n:placed"}
            )
            tui.wait_for(lambda t: "order-flow" in _title(t))
            listing = _result(await beta.call_tool("attention.agents.read", {}))
            newest = max(listing["spotlights"], key=lambda s: s["seq"])
            assert newest["object_ref"] == "d:order-flow/flow/node/n:placed"
            view = await _view(alpha, lambda v: (v["tui"] or {}).get("diagram_id") == "order-flow")
            tui_view = view["tui"]
            assert tui_view["focus_owner"] == "agent"
            assert tui_view["cursor_ref"] == "d:order-flow/flow/node/n:placed"
            assert tui_view["viewport"] == {"width": 118, "height": 33}
            assert tui_view["mcp_url"] == url and tui_view["mouse"] is False
            # The person navigates: follow-AI pauses, then catches up with the newest.
            tui.send("]")
            tui.wait_for(lambda t: "order-states" in _title(t))
            await beta.call_tool(
                "attention.agent.set", {"object_ref": "d:refund-seq/seq/participant/p:customer"}
            )
            view = await _view(alpha, lambda v: (v["tui"] or {}).get("follow_paused") is True)
            assert view["tui"]["diagram_id"] == "order-states"
            tui.wait_for(lambda t: "refund-seq" in _title(t), timeout=30)
            # The walkthrough view is reported too.
            tui.send("w")
            tui.wait_for("Walkthrough [1/1] wt-tour")
            view = await _view(alpha, lambda v: (v["tui"] or {}).get("walkthrough") is not None)
            assert view["tui"]["walkthrough"] == {"walkthrough_id": "wt-tour", "node_id": "n:map"}
            assert view["panes"]["inspector"] is True
            nursery.cancel_scope.cancel()
    finally:
        tui.close()


SUBGRAPH_FLOW = """flowchart TD
subgraph core [Core]
  api["`**Orders** _v2_`"] --> svc
end
gw --> core
core --> db
"""


async def test_an_agent_spotlights_a_subgraph_the_tui_follows_and_lists_it() -> None:
    """Spec decision 23: a subgraph is an object: spotlighted, followed, marked in Objects."""
    tui, url = demo_tui_with_mcp(cols=120, rows=36)
    try:
        async with trio.open_nursery() as nursery, Client(url) as agent:
            nursery.start_soon(_drain, tui)
            await agent.call_tool(
                "diagram.create_from_mermaid",
                {"mermaid": SUBGRAPH_FLOW, "diagram_id": "groups", "make_active": False},
            )
            await agent.call_tool(
                "attention.agent.set", {"object_ref": "d:groups/flow/subgraph/sg:core"}
            )
            text = tui.wait_for(lambda t: "groups" in _title(t) and " Core " in t, timeout=30)
            view = await _view(
                agent, lambda v: (v["tui"] or {}).get("cursor_ref", "").endswith("sg:core")
            )
            assert view["tui"]["cursor_ref"] == "d:groups/flow/subgraph/sg:core"
            # The frame (border and title) is drawn highlighted; the boxes inside are not.
            text = tui.text()
            row = next(r for r, line in enumerate(text.splitlines()) if " Core " in line)
            line = text.splitlines()[row]
            title = tui.screen.buffer[row][line.index(" Core ") + 1]
            corner = tui.screen.buffer[row][line.rindex("╮")]
            assert title.bg != "default" and title.bold, title
            assert corner.bg == title.bg, corner
            # A markdown label shows without its marks, bold and italic as attributes.
            assert "**" not in text and "`" not in text
            api_row = next(r for r, line in enumerate(text.splitlines()) if "Orders v2" in line)
            start = text.splitlines()[api_row].index("Orders v2")
            bold, italic = (tui.screen.buffer[api_row][start + k] for k in (0, 7))
            assert bold.bold and not bold.italics and bold.bg != title.bg, bold
            assert italic.italics and not italic.bold, italic
            # The Objects pane lists the subgraph, marked as the agent's spotlight.
            tui.send("2")
            text = tui.wait_for(lambda t: "subgraph sg:core" in t, timeout=30)
            row = next(line for line in text.splitlines() if "subgraph sg:core" in line)
            assert "◉" in row, row
            assert "node n:api (Orders v2)" in text
            nursery.cancel_scope.cancel()
    finally:
        tui.close()


async def test_an_agents_wider_rename_on_a_big_diagram_shows_at_once_then_laid_out() -> None:
    """Issue 18: a rename that changes the label's width on a diagram laid out in a worker
    shows the new label at once in a provisional patch (the title says so), and the full
    layout replaces it when it arrives."""
    text = flowchart(400)
    ast = parse_flowchart(text)
    drawn = render_diagram(
        Diagram(diagram_id="big", name="big", kind="flowchart", ast=ast, rev=0),
        RenderOptions(show_notes=True, flowchart_extra_col_gap=2),
    )

    def renamed(node_id: str) -> FlowchartAst:
        node = ast.nodes[node_id]
        label = f"{node.label} renamed"
        return msgspec.structs.replace(
            ast, nodes={**ast.nodes, node_id: msgspec.structs.replace(node, label=label)}
        )

    node_id = next(
        n
        for n in ast.nodes
        if (patch := label_patch(drawn, ast, renamed(n), "big", {})) is not None
        and not patch.exact
        and len(patch.rows) == 2  # wrapped onto the empty note row: its box keeps its place
    )
    old = ast.nodes[node_id].label
    new = f"{old} renamed"
    tui, url = demo_tui_with_mcp(cols=160, rows=45)
    try:
        async with trio.open_nursery() as nursery, Client(url) as agent:
            nursery.start_soon(_drain, tui)
            await agent.call_tool(
                "diagram.create_from_mermaid",
                {"mermaid": text, "diagram_id": "big", "make_active": False},
            )
            await agent.call_tool(
                "attention.agent.set", {"object_ref": f"d:big/flow/node/{node_id}"}
            )
            tui.wait_for(
                lambda t: "big" in _title(t) and "updating" not in _title(t) and old in t,
                timeout=60,
            )
            stat = _result(await agent.call_tool("diagram.stat", {"diagram_id": "big"}))
            update = {"type": "flow_update_node", "node_id": node_id, "label": new}
            await agent.call_tool(
                "diagram.apply_ops",
                {"diagram_id": "big", "base_rev": stat["rev"], "ops": [update]},
            )
            # First the patch: the new label wrapped in the box where it was.
            provisional = tui.wait_for(lambda t: "renamed" in t and new not in t, timeout=30)
            assert "updating (label patched, laying out)" in _title(provisional)
            # Then the full layout: the label on one line, the title no longer updating.
            tui.wait_for(lambda t: new in t and "updating" not in _title(t), timeout=60)
            nursery.cancel_scope.cancel()
    finally:
        tui.close()
