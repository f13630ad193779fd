"""Renders and exports through MCP: budget refusals, and big work off the event loop.

A real session (the demo) behind a real endpoint, real SDK clients in memory: one agent
renders a 1000-node flowchart (in a worker process; the drawing is then too big to send)
while another keeps reading; the reads are answered while the render is still running,
which could not happen were it drawn on the event loop. A diagram over the budget is refused with -32602 naming the ways in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
import urwid

from nereid.commands.session import open_session_handle, session_endpoint_parts
from nereid.mcp import McpEndpoint
from nereid.mcp.reply_size import DIAGRAM_PARTS
from nereid.offload.dispatch import SMALL_PAYLOAD
from nereid.render.budget import MAX_LAYOUT_ITEMS
from nereid.testing.big_diagrams import dense_flowchart, flowchart
from nereid.ui.app import TuiApp
from nereid.ui.client import ActorClient
from nereid.ui.drawings import LayoutJob
from nereid.ui.viewmodel import ViewModel
from tests.mcp.session_kit import Agent, memory_client, memory_session


async def _create(agent: Agent, diagram_id: str, mermaid: str) -> None:
    await agent.ok(
        "diagram.create_from_mermaid",
        {"mermaid": mermaid, "diagram_id": diagram_id, "make_active": False},
    )


async def test_too_large_diagram_is_refused_with_the_ways_in() -> None:
    async with memory_session(None, demo=True) as endpoint, memory_client(endpoint) as client:
        agent = Agent(client)
        await _create(agent, "dense", dense_flowchart(200, 7180))
        error = await agent.err("diagram.render_text", {"diagram_id": "dense"})
        assert error.code == -32602
        assert error.message.startswith("too large to render: ")
        assert "diagram.get_slice" in error.message
        assert error.data["diagram_id"] == "dense"
        assert error.data["measure"] == "layout items (nodes, edges, edge waypoints)"
        assert error.data["limit"] == MAX_LAYOUT_ITEMS < error.data["value"]
        assert error.data["read_in_parts"] == list(DIAGRAM_PARTS)
        # The ways in work on the same diagram.
        sliced = await agent.ok(
            "diagram.get_slice", {"center_ref": "d:dense/flow/node/n:n0", "depth": 1}
        )
        assert sliced


async def test_big_render_runs_in_a_worker_while_others_read() -> None:
    async with memory_session(None, demo=True) as endpoint:
        async with memory_client(endpoint) as first, memory_client(endpoint) as second:
            renderer, reader = Agent(first), Agent(second)
            await _create(renderer, "big", flowchart(1000))
            await _create(renderer, "mid", flowchart(300))
            small = await renderer.ok("diagram.render_text", {"diagram_id": "order-flow"})
            assert small["text"]
            # A mid-size drawing comes back from the worker whole (this also warms it).
            mid = await renderer.ok("diagram.render_text", {"diagram_id": "mid"})
            assert mid["text"].count("Node 299") == 1
            renders: list[tuple[float, float]] = []
            reads: list[tuple[float, float]] = []
            done = trio.Event()
            texts: list[str] = []

            async def render() -> None:
                # The 1000-node drawing is drawn in full, then found too big to send (1.3 MB).
                for _ in range(3):
                    started = trio.current_time()
                    error = await renderer.err("diagram.render_text", {"diagram_id": "big"})
                    renders.append((started, trio.current_time()))
                    texts.append(error.message.split(":")[0])
                done.set()

            async def read() -> None:
                while not done.is_set():
                    started = trio.current_time()
                    await reader.ok("diagram.stat", {"diagram_id": "order-flow"})
                    reads.append((started, trio.current_time()))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(render)
                nursery.start_soon(read)
            assert texts == ["result too large"] * 3
            # Reads start and finish while one render call is in flight. Drawn on the event
            # loop (measured: about one per render), none could; in a worker, many do.
            inside = [sum(1 for a, b in reads if start <= a and b <= end) for start, end in renders]
            assert max(inside) >= 5, inside
            read = await renderer.ok("diagram.read", {"diagram_id": "big"})
            assert len(read["mermaid"].encode()) > SMALL_PAYLOAD
            assert "n999" in read["mermaid"]


class _Headless(urwid.display.raw.Screen):
    """The TUI's screen without a terminal: the test paints the widget itself."""

    def tty_signal_keys(self, *args: object, **kwargs: object) -> None:
        return None


class _TimedViewModel(ViewModel):
    """A view model that notes when each off-loop layout starts and ends."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.windows: list[tuple[float, float]] = []
        self._started: dict[Any, float] = {}

    def take_layout(self) -> LayoutJob | None:
        job = super().take_layout()
        if job is not None:
            self._started[job.key] = trio.current_time()
        return job

    def layout_done(self, key: Any, outcome: Any, ast: Any) -> bool:
        if key in self._started:
            self.windows.append((self._started.pop(key), trio.current_time()))
        return super().layout_done(key, outcome, ast)


async def test_tui_lays_out_big_diagrams_in_a_worker_while_agents_read() -> None:
    async with open_session_handle(None, demo=True, durable_writes=False) as handle:
        parts = session_endpoint_parts(handle)
        endpoint = McpEndpoint(parts.runtime, parts.tools, resources=parts.resources)
        async with memory_client(endpoint) as first, memory_client(endpoint) as second:
            writer, reader = Agent(first), Agent(second)
            await writer.ok(
                "diagram.create_from_mermaid",
                {"mermaid": flowchart(1000), "diagram_id": "big", "make_active": True},
            )
            tui = ActorClient(handle.registry, handle.bus)
            with tui.subscribe() as events:
                vm = _TimedViewModel(await tui.snapshot(), mcp_url=None)
                vm.following.set_enabled(False)
                app = TuiApp(tui, vm, screen=_Headless())
                size = (160, 50)

                def shown_rev() -> int | None:
                    app.widget.render(size)  # what urwid does when the loop goes idle
                    cells = vm.cells()
                    behind = vm.layout_behind()
                    if cells is None:
                        return None
                    return behind if behind is not None else vm.session.diagrams["big"].rev

                refreshed = [trio.Event()]
                repaint = app.widget.refresh

                def refresh() -> None:  # the app asks for a repaint: look again
                    repaint()
                    refreshed[0].set()

                app.widget.refresh = refresh  # type: ignore[method-assign]

                async def until(condition: Callable[[], object]) -> None:
                    with trio.fail_after(60):  # a hang fails the test instead of the suite
                        while True:
                            refreshed[0] = trio.Event()
                            if condition():
                                return
                            await refreshed[0].wait()

                async def shows(rev: int) -> None:  # laid out (not a provisional patch)
                    await until(lambda: shown_rev() == rev and not vm.layout_provisional())

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(app.pump_events, events)
                    nursery.start_soon(app.lay_out)
                    await until(lambda: vm.active_id == "big")
                    assert shown_rev() is None and vm.layout_pending()
                    assert "Laying out big" in _screen_text(app, size)
                    await shows(
                        vm.session.diagrams["big"].rev
                    )  # the first drawing (warms a worker)
                    reads: list[tuple[float, float]] = []
                    done = trio.Event()

                    async def read() -> None:
                        while not done.is_set():
                            started = trio.current_time()
                            await reader.ok("diagram.stat", {"diagram_id": "order-flow"})
                            reads.append((started, trio.current_time()))

                    nursery.start_soon(read)
                    # Three agent edits in a row: the drawing on screen stays the previous
                    # one, or the new label patched in provisionally (marked as updating),
                    # until the newest layout arrives; none older follows.
                    for n in range(3):
                        stat = await writer.ok("diagram.stat", {"diagram_id": "big"})
                        await writer.ok(
                            "diagram.apply_ops",
                            {
                                "diagram_id": "big",
                                "base_rev": stat["rev"],
                                "ops": [
                                    {
                                        "type": "flow_update_node",
                                        "node_id": "n:n5",
                                        "label": f"Agent edit {n}",
                                    }
                                ],
                            },
                        )
                        shown = shown_rev()
                        assert shown is not None
                        assert shown < stat["rev"] + 1 or vm.layout_provisional()
                        assert "updating (" in _screen_text(app, size)
                    newest = vm.session.diagrams["big"].rev
                    await shows(newest)
                    done.set()
                    cells = vm.cells()
                    assert cells is not None and "Agent edit 2" in cells.rendered.text
                    assert "Agent edit 1" not in cells.rendered.text
                    # Reads start and finish while the TUI lays out: on the event loop none
                    # could (the layout is one call that never yields).
                    inside = [
                        sum(1 for a, b in reads if start <= a and b <= end)
                        for start, end in vm.windows[1:]
                    ]
                    assert inside and max(inside) >= 5, inside
                    # Too large to lay out: the budget's message, not a frozen TUI.
                    await writer.ok(
                        "diagram.create_from_mermaid",
                        {
                            "mermaid": dense_flowchart(200, 7180),
                            "diagram_id": "dense",
                            "make_active": False,
                        },
                    )
                    await until(lambda: "dense" in vm.session.diagrams)
                    vm.switch_diagram("dense")  # the person shows it
                    await until(
                        lambda: (
                            vm.active_id == "dense" and shown_rev() is None and vm.render_error()
                        )
                    )
                    assert "too large to render" in _screen_text(app, size)
                    nursery.cancel_scope.cancel()


def _screen_text(app: TuiApp, size: tuple[int, int]) -> str:
    canvas = app.widget.render(size)
    return "\n".join(line.decode() for line in canvas.text)
