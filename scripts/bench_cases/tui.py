"""TUI repaint speed on a 300-node flowchart, without a terminal (widget `render`).

- `repaint`: a change that does not touch the diagram text (selection / spotlight): view
  model update + full-screen widget render at 200×60. Target <= 16 ms (one 60 Hz frame).
- `repaint+layout`: a diagram change (a node relabelled): the same plus re-rendering the
  diagram text (layout). Reported for context; it is bounded by the renderer's own speed.
- `layout only (renderer)`: `render_diagram` alone, the part of the two rows above that
  belongs to `nereid.render`, so the TUI's own share can be read off.
- `agent op -> repaint`: an agent's `ApplyDiagramOps` through the real in-process actor tree,
  the TUI's event pump (bus event → re-read → view model) and the widget render of the new
  rev. Target <= 50 ms. The same on a 30-node flowchart is printed for context: the difference
  is the layout's share.

Exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import time

import msgspec
import trio

from nereid.model import Session

from ._common import Timing, print_table, time_sync

DESCRIPTION = "TUI: repaint after a change on a 300-node diagram; agent op -> visible repaint"

TARGET_REPAINT_MS = 16.0
TARGET_AGENT_MS = 50.0
SIZE = (200, 60)


def flowchart_text(nodes: int, width: int = 10) -> str:
    """A layered flowchart: rows of `width` nodes, each wired to two nodes of the next row."""
    lines = ["flowchart TD"]
    for i in range(nodes):
        lines.append(f"  n{i}[Node number {i}]")
    for i in range(nodes - width):
        lines.append(f"  n{i} --> n{i + width}")
        if (i + 1) % width:
            lines.append(f"  n{i} --> n{i + width + 1}")
    return "\n".join(lines) + "\n"


def _session(nodes: int) -> Session:
    from nereid.mermaid import parse_flowchart
    from nereid.model import Diagram

    ast = parse_flowchart(flowchart_text(nodes))
    diagram = Diagram(diagram_id="big", name="big", kind="flowchart", ast=ast, rev=0)
    return Session(session_id="bench", diagrams={"big": diagram}, active_diagram_id="big")


def bench_repaint(nodes: int, runs: int) -> list[tuple[str, Timing]]:
    from nereid.model.refs import FLOW_NODE, ObjectRef
    from nereid.ui.session_state import (
        AttentionChanged,
        DiagramUpdated,
        SessionState,
        Spotlight,
    )
    from nereid.ui.viewmodel import ViewModel
    from nereid.ui.widgets import TuiWidget

    session = _session(nodes)
    state = SessionState(diagrams=session.diagrams, active_diagram_id="big")
    vm = ViewModel(state, mcp_url="http://127.0.0.1:1/mcp")
    vm.following.set_enabled(False)
    widget = TuiWidget(vm, lambda effects: None)
    widget.render(SIZE)
    for key in ("2", "3", "4", "1"):
        widget.keypress(SIZE, key)
    widget.render(SIZE)
    counter = iter(range(10**9))

    def repaint() -> None:
        n = next(counter)
        ref = ObjectRef(diagram_id="big", category=FLOW_NODE, object_id=f"n:n{n % nodes}")
        vm.apply(AttentionChanged((Spotlight(agent_id="a", ref=ref, seq=n),), False))
        widget.refresh()
        widget.render(SIZE)

    diagram = session.diagrams["big"]

    def relabel() -> None:
        n = next(counter)
        current = vm.session.diagrams["big"]
        nodes_map = dict(current.ast.nodes)  # type: ignore[union-attr]
        node = nodes_map["n:n0"]
        nodes_map["n:n0"] = msgspec.structs.replace(node, label=f"Node zero v{n}")
        changed = msgspec.structs.replace(
            current,
            rev=current.rev + 1,
            ast=msgspec.structs.replace(current.ast, nodes=nodes_map),
        )
        vm.apply(DiagramUpdated(changed))
        widget.refresh()
        widget.render(SIZE)

    from nereid.render import RenderOptions, render_diagram

    options = RenderOptions(show_notes=True, flowchart_extra_col_gap=2)

    def layout_only() -> None:
        render_diagram(vm.session.diagrams["big"], options)

    del diagram
    return [
        ("layout only (renderer)", time_sync(layout_only, runs=runs, inner=1)),
        ("repaint", time_sync(repaint, runs=runs, inner=5)),
        ("repaint+layout", time_sync(relabel, runs=runs, inner=1)),
    ]


async def bench_agent_op(nodes: int, runs: int) -> Timing:
    from nereid.actors import protocol as p
    from nereid.actors.tree import open_session
    from nereid.ops.flow_ops import FlowUpdateNode
    from nereid.ui.client import ActorClient
    from nereid.ui.viewmodel import ViewModel
    from nereid.ui.widgets import TuiWidget

    samples: list[float] = []
    async with open_session(_session(nodes), files=None, durable=False) as handle:
        client = ActorClient(handle.registry, handle.bus)
        with client.subscribe() as events:
            vm = ViewModel(await client.snapshot(), mcp_url=None)
            widget = TuiWidget(vm, lambda effects: None)
            widget.render(SIZE)
            shown = trio.Event()
            want_rev = -1

            async def pump() -> None:
                nonlocal shown
                async for event in events:
                    for update in await client.translate(event):
                        vm.apply(update)
                    widget.refresh()
                    widget.render(SIZE)
                    if vm.session.diagrams["big"].rev >= want_rev:
                        shown.set()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(pump)
                address = handle.diagram("big")
                for n in range(runs + 1):
                    rev = vm.session.diagrams["big"].rev
                    want_rev = rev + 1
                    shown = trio.Event()
                    start = time.perf_counter()
                    await address.call(
                        p.ApplyDiagramOps(
                            base_rev=rev,
                            ops=(FlowUpdateNode(node_id="n:n5", label=f"Agent edit {n}"),),
                        )
                    )
                    await shown.wait()
                    if n:  # the first one warms caches
                        samples.append((time.perf_counter() - start) * 1000.0)
                nursery.cancel_scope.cancel()
    return Timing.from_samples(samples)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench tui", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=300, help="flowchart size (default 300)")
    parser.add_argument("--runs", type=int, default=9, help="runs per figure (default 9)")
    args = parser.parse_args(argv)
    rows = bench_repaint(args.nodes, args.runs)
    agent = trio.run(bench_agent_op, args.nodes, args.runs)
    rows.append(("agent op -> repaint", agent))
    small = trio.run(bench_agent_op, 30, args.runs)
    rows.append(("agent op -> repaint, 30 nodes", small))
    print_table(
        f"TUI on a {args.nodes}-node flowchart at {SIZE[0]}x{SIZE[1]}", rows, baseline="repaint"
    )
    timings = dict(rows)
    ok = True
    for name, target in (("repaint", TARGET_REPAINT_MS), ("agent op -> repaint", TARGET_AGENT_MS)):
        met = timings[name].median_ms <= target
        ok &= met
        print(
            f"  {name}: median {timings[name].median_ms:.2f} ms, target <= {target:.0f} ms: "
            f"{'met' if met else 'MISSED'}"
        )
    return 0 if ok else 1
