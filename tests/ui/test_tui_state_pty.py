"""A state diagram in the real TUI (spec decision 24): an agent spotlights a state of the
demo's `order-states`; the TUI follows, draws the state highlighted, lists it in Objects."""

from __future__ import annotations

import trio
from mcp import Client

from .test_tui_mcp_pty import _drain, _title, _view, demo_tui_with_mcp


async def test_an_agent_spotlights_a_state_and_the_tui_shows_it() -> None:
    tui, url = demo_tui_with_mcp(cols=140, rows=40)
    try:
        async with trio.open_nursery() as nursery, Client(url) as agent:
            nursery.start_soon(_drain, tui)
            ref = "d:order-states/state/state/s:Cancelled"
            await agent.call_tool("attention.agent.set", {"object_ref": ref})
            text = tui.wait_for(
                lambda t: "order-states" in _title(t) and "no payment, no stock" in t, timeout=30
            )
            view = await _view(agent, lambda v: (v["tui"] or {}).get("cursor_ref") == ref)
            assert view["tui"]["cursor_ref"] == ref
            # The spotlighted state's box is drawn highlighted; another state's is not.
            lines = tui.text().splitlines()
            row = next(r for r, line in enumerate(lines) if "no payment, no stock" in line)
            cell = tui.screen.buffer[row][lines[row].index("no payment") + 1]
            assert cell.bg != "default" or cell.bold or cell.reverse, cell
            other = next(
                (r for r, line in enumerate(lines) if "Order placed" in line and r != row), None
            )
            if other is not None:
                plain = tui.screen.buffer[other][lines[other].index("Order placed") + 1]
                assert (plain.bg, plain.bold) != (cell.bg, cell.bold), plain
            # The Objects pane lists the state, marked as the agent's spotlight.
            tui.send("2")
            text = tui.wait_for(lambda t: "state s:Cancelled" in t, timeout=30)
            listed = next(line for line in text.splitlines() if "state s:Cancelled" in line)
            assert "◉" in listed, listed
            nursery.cancel_scope.cancel()
    finally:
        tui.close()
