"""The watched folder: an external save of a diagram file -> the TUI repaints the new rev;
a new diagram file (side-car + `.mmd`) -> it is listed; a deleted one -> it is gone.

A session folder with one flowchart is opened as the owner opens it (`open_session_handle`,
watcher on); the TUI's event pump (bus event -> re-read -> view model -> widget render) runs
in process. Each run saves a changed `.mmd` the way editors do (write a new file, rename it
over the old one) and measures until the repainted widget shows the new revision; the same
event also drives `resources/updated`. Target <= 300 ms. An agent op's repaint on the same
diagram, measured in the same run, is the peer (`ratio`): the difference is the watcher's
share (file event, debounce, read, parse, reconcile). A delete waits a grace period first
(an editor's rename must not delete the diagram), so it is slower by design.

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

DESCRIPTION = "watched folder: external save / new / deleted .mmd -> TUI repaint (target <= 300 ms)"

TARGET_MS = 300.0
SIZE = (200, 60)


def _text(nodes: int, label: str) -> str:
    lines = ["flowchart TD"] + [f"  n{i}[Node {i}]" for i in range(nodes)]
    lines[6] = f"  n5[{label}]"
    lines += [f"  n{i} --> n{i + 1}" for i in range(nodes - 1)]
    return "\n".join(lines) + "\n"


async def bench(nodes: int, runs: int) -> dict[str, Timing]:
    from nereid.actors import protocol as p
    from nereid.commands.session import open_session_handle
    from nereid.mermaid import parse_flowchart
    from nereid.model import Diagram
    from nereid.ops.flow_ops import FlowUpdateNode
    from nereid.runtime import ResyncNeeded
    from nereid.store.diagram_files import encode_diagram
    from nereid.ui.client import ActorClient
    from nereid.ui.viewmodel import ViewModel
    from nereid.ui.widgets import TuiWidget

    external: list[float] = []
    agent: list[float] = []
    added: list[float] = []
    deleted: list[float] = []
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
                present: tuple[str, bool] | None = None

                async def pump() -> None:
                    async for event in events:
                        if isinstance(event, ResyncNeeded):
                            vm.resync(await client.snapshot())
                        else:
                            vm.apply(event)
                        widget.refresh()
                        widget.render(SIZE)
                        if present is not None:
                            if (present[0] in vm.session.diagrams) == present[1]:
                                shown.set()
                        elif vm.session.diagrams["flow"].rev >= want:
                            shown.set()

                async with trio.open_nursery() as nursery:
                    nursery.start_soon(pump)
                    for n in range(runs + 1):
                        want, shown = vm.session.diagrams["flow"].rev + 1, trio.Event()
                        temp = mmd.with_name(".flow.mmd.new")
                        temp.write_text(_text(nodes, f"Saved {n}"), encoding="utf-8")
                        start = time.perf_counter()
                        os.replace(temp, mmd)
                        await shown.wait()
                        if n:
                            external.append((time.perf_counter() - start) * 1000.0)
                        await handle.flush()
                        await trio.sleep(0.1)  # let our own write-back pass the watcher
                        rev = vm.session.diagrams["flow"].rev
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
                    for n in range(runs + 1):
                        d_id = f"new{n}"
                        mmd_text, side_text = encode_diagram(
                            Diagram(
                                diagram_id=d_id,
                                name=d_id,
                                kind="flowchart",
                                ast=parse_flowchart(_text(nodes, f"New {n}")),
                                rev=0,
                            )
                        )
                        new_mmd = mmd.with_name(f"{d_id}.mmd")
                        new_mmd.with_name(f"{d_id}.meta.json").write_text(side_text)
                        temp = mmd.with_name(f".{d_id}.mmd.new")
                        temp.write_text(mmd_text, encoding="utf-8")
                        present, shown = (d_id, True), trio.Event()
                        start = time.perf_counter()
                        os.replace(temp, new_mmd)
                        await shown.wait()
                        if n:
                            added.append((time.perf_counter() - start) * 1000.0)
                        await handle.flush()
                        await trio.sleep(0.1)
                        present, shown = (d_id, False), trio.Event()
                        start = time.perf_counter()
                        new_mmd.unlink()
                        new_mmd.with_name(f"{d_id}.meta.json").unlink()
                        await shown.wait()
                        if n:
                            deleted.append((time.perf_counter() - start) * 1000.0)
                        await handle.flush()
                        await trio.sleep(0.1)
                    nursery.cancel_scope.cancel()
    return {
        "agent op -> repaint (peer)": Timing.from_samples(agent),
        "external save -> repaint": Timing.from_samples(external),
        "new .mmd -> listed": Timing.from_samples(added),
        "deleted .mmd -> gone": Timing.from_samples(deleted),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench folder", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=100, help="flowchart size (default 100)")
    parser.add_argument("--runs", type=int, default=9, help="runs (default 9)")
    args = parser.parse_args(argv)
    timings = trio.run(bench, args.nodes, args.runs)
    print_table(
        f"Watched folder, {args.nodes}-node flowchart",
        list(timings.items()),
        baseline="agent op -> repaint (peer)",
    )
    missed = 0
    for name in ("external save -> repaint", "new .mmd -> listed", "deleted .mmd -> gone"):
        median = timings[name].median_ms
        met = median <= TARGET_MS
        missed += not met
        print(
            f"  {name}: median {median:.2f} ms, target <= {TARGET_MS:.0f} ms: "
            f"{'met' if met else 'MISSED'}"
        )
    return 0 if not missed else 1
