"""The watched folder: an external save of a diagram file -> the TUI repaints the new rev.

A session folder with one flowchart is opened as the owner opens it (`open_session_handle`,
watcher on); the TUI's event pump (bus event -> re-read -> view model -> widget render) runs
in process. Each run saves a changed `.mmd` the way editors do (write a new file, rename it
over the old one) and measures until the repainted widget shows the new revision; the same
event also drives `resources/updated`. Target <= 300 ms. An agent op's repaint on the same
diagram, measured in the same run, is the peer (`ratio`): the difference is the watcher's
share (file event, debounce, read, parse, reconcile).

Exit status 1 if the target is missed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import trio

from ._common import Timing, print_table

DESCRIPTION = "watched folder: external save of a .mmd -> TUI repaint (target <= 300 ms)"

TARGET_MS = 300.0
SIZE = (200, 60)


def _text(nodes: int, label: str) -> str:
    lines = ["flowchart TD"] + [f"  n{i}[Node {i}]" for i in range(nodes)]
    lines[6] = f"  n5[{label}]"
    lines += [f"  n{i} --> n{i + 1}" for i in range(nodes - 1)]
    return "\n".join(lines) + "\n"


async def bench(nodes: int, runs: int) -> tuple[Timing, Timing]:
    from nereid.actors import protocol as p
    from nereid.commands.session import open_session_handle
    from nereid.ops.flow_ops import FlowUpdateNode
    from nereid.ui.client import ActorClient
    from nereid.ui.viewmodel import ViewModel
    from nereid.ui.widgets import TuiWidget

    external: list[float] = []
    agent: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bench"
        (folder / "diagrams").mkdir(parents=True)
        async with open_session_handle(folder, demo=False, durable_writes=False) as handle:
            mmd = folder / "diagrams" / "flow.mmd"
            await handle.session.call(p.ListDiagrams())
            client = ActorClient(handle.registry, handle.bus)
            with client.subscribe() as events:
                vm = ViewModel(await client.snapshot(), mcp_url=None)
                widget = TuiWidget(vm, lambda effects: None)
                widget.render(SIZE)
                shown = trio.Event()
                want = -1

                async def pump() -> None:
                    async for event in events:
                        for update in await client.translate(event):
                            vm.apply(update)
                        widget.refresh()
                        widget.render(SIZE)
                        if vm.diagrams["flow"].rev >= want:
                            shown.set()

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(pump)
                    for n in range(runs + 1):
                        want, shown = vm.diagrams["flow"].rev + 1, trio.Event()
                        temp = mmd.with_name(".flow.mmd.new")
                        temp.write_text(_text(nodes, f"Saved {n}"), encoding="utf-8")
                        start = time.perf_counter()
                        os.replace(temp, mmd)
                        await shown.wait()
                        if n:
                            external.append((time.perf_counter() - start) * 1000.0)
                        await handle.flush()
                        await trio.sleep(0.1)  # let our own write-back pass the watcher
                        rev = vm.diagrams["flow"].rev
                        want, shown = rev + 1, trio.Event()
                        start = time.perf_counter()
                        await handle.diagram("flow").call(
                            p.ApplyDiagramOps(
                                base_rev=rev, ops=(FlowUpdateNode(node_id="n:n5", label=f"A{n}"),)
                            )
                        )
                        await shown.wait()
                        if n:
                            agent.append((time.perf_counter() - start) * 1000.0)
                        await handle.flush()
                        await trio.sleep(0.1)
                    nursery.cancel_scope.cancel()
    return Timing.from_samples(external), Timing.from_samples(agent)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench folder", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=100, help="flowchart size (default 100)")
    parser.add_argument("--runs", type=int, default=9, help="runs (default 9)")
    args = parser.parse_args(argv)
    external, agent = trio.run(bench, args.nodes, args.runs)
    rows = [("agent op -> repaint (peer)", agent), ("external save -> repaint", external)]
    print_table(
        f"Watched folder, {args.nodes}-node flowchart", rows, baseline="agent op -> repaint (peer)"
    )
    met = external.median_ms <= TARGET_MS
    print(
        f"  external save -> repaint: median {external.median_ms:.2f} ms, "
        f"target <= {TARGET_MS:.0f} ms: {'met' if met else 'MISSED'}"
    )
    return 0 if met else 1
