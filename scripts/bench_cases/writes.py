"""Write latency at every size: `diagram.apply_ops` p50/p99 on an empty vs a big flowchart.

The whole session tree of `nereid serve` (actors, persister with its debounced saves to a
real session folder, default mode) runs in this process, with the server's garbage
collector settings (`settle_heap`, as `nereid serve` once it is ready). One writer adds one
node per `ApplyDiagramOps` call, back to back, and times every call (round trip to the
diagram actor, ms): first `--adds` adds to an empty flowchart, then the same number to a
flowchart of `--nodes` nodes (built with batches of adds first, not timed), in the same
run. Every add is saved by the persister's debounced saves while the writer goes on, so
the figures show how much a save of the big diagram (its Mermaid export) holds up the
writer. `--runs` repeats the run in this process (a fresh session each time);
`--default-gc` keeps Python's default collector settings instead of the server's.

What the slow calls (at or above the row's p99) had in them is counted per row, each call
under the first cause that applies: `gc` (a collection ran during it; the row also gives
the collections' count per generation and the longest), `other` (the call yielded and other
tasks ran), `preempted` (the OS took the CPU away: an involuntary context switch of this
thread; Linux) or `own` (none of these: the call's own work).

Target (issue 18): the p99 at `--nodes` (default 20 000) <= 2x the empty-diagram p99, over
all runs' calls pooled. Exit status 1 if it is missed.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

DESCRIPTION = "apply_ops p50/p99 while saves run: empty vs 20k-node flowchart (target <= 2x)"

TARGET_RATIO = 2.0
_BUILD_BATCH = 500

try:
    import resource

    _RUSAGE_THREAD: int | None = resource.RUSAGE_THREAD
except (ImportError, AttributeError):  # not Linux: no per-thread context switches
    _RUSAGE_THREAD = None


def _p(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def _preemptions() -> int:
    if _RUSAGE_THREAD is None:
        return 0
    return resource.getrusage(_RUSAGE_THREAD).ru_nivcsw


@dataclass
class _Call:
    ms: float
    collections: int
    other_steps: int
    preempted: int


@dataclass
class _Probe:
    """Collections (gc.callbacks) and other tasks' steps (a trio instrument) as counters,
    read before and after each timed call."""

    collections: int = 0
    other_steps: int = 0
    by_generation: Counter[int] = field(default_factory=Counter)
    longest_ms: float = 0.0
    writer: object = None
    _started: float = 0.0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.collections += 1
        self.by_generation[info["generation"]] += 1
        self.longest_ms = max(self.longest_ms, (time.perf_counter() - self._started) * 1000)

    def reset(self) -> None:
        self.by_generation = Counter()
        self.longest_ms = 0.0


class _Steps(trio.abc.Instrument):
    def __init__(self, probe: _Probe) -> None:
        self._probe = probe

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is not self._probe.writer:
            self._probe.other_steps += 1


@dataclass
class _Row:
    calls: list[_Call]
    collections: Counter[int]
    longest_gc_ms: float

    @property
    def samples(self) -> list[float]:
        return [c.ms for c in self.calls]


async def _phase(handle: object, diagram_id: str, start_rev: int, adds: int, probe: _Probe) -> _Row:
    from nereid.actors.protocol import ApplyDiagramOps
    from nereid.ops import FlowAddNode

    address = handle.diagram(diagram_id)  # type: ignore[attr-defined]
    probe.writer = trio.lowlevel.current_task()
    probe.reset()
    calls: list[_Call] = []
    rev = start_rev
    for i in range(adds):
        op = FlowAddNode(node_id=f"n:w{i}", label=f"written {i}")
        collections, steps, preempted = probe.collections, probe.other_steps, _preemptions()
        started = time.perf_counter()
        reply = await address.call(ApplyDiagramOps(base_rev=rev, ops=(op,)))
        ms = (time.perf_counter() - started) * 1000
        calls.append(
            _Call(
                ms=ms,
                collections=probe.collections - collections,
                other_steps=probe.other_steps - steps,
                preempted=_preemptions() - preempted,
            )
        )
        rev = reply.new_rev
        # An agent's next call comes over I/O: let the other tasks (the saves) run between
        # calls, also when a call took no pass of the scheduler (an inline apply).
        await trio.lowlevel.checkpoint()
    probe.writer = None
    return _Row(calls, probe.by_generation, probe.longest_ms)


async def _grow(handle: object, diagram_id: str, nodes: int) -> int:
    from nereid.actors.protocol import ApplyDiagramOps
    from nereid.ops import FlowAddNode

    address = handle.diagram(diagram_id)  # type: ignore[attr-defined]
    rev = 0
    for start in range(0, nodes, _BUILD_BATCH):
        ops = tuple(
            FlowAddNode(node_id=f"n:b{i}", label=f"Node {i}")
            for i in range(start, min(nodes, start + _BUILD_BATCH))
        )
        rev = (await address.call(ApplyDiagramOps(base_rev=rev, ops=ops), timeout=60)).new_rev
    return rev


async def _run(folder: Path, nodes: int, adds: int, server_gc: bool) -> tuple[_Row, _Row, float]:
    from nereid.actors.persister import Flush
    from nereid.actors.protocol import CreateDiagramFromMermaid
    from nereid.actors.tree import open_session
    from nereid.mcp.heap import settle_heap
    from nereid.model import Session
    from nereid.store.files import FolderFiles

    files = FolderFiles(folder)
    text = "flowchart TD\n  A[Start]\n"
    probe = _Probe()
    trio.lowlevel.add_instrument(_Steps(probe))
    gc.callbacks.append(probe.on_gc)
    try:
        async with open_session(Session(session_id="s:bench"), files=files, durable=False) as h:
            for diagram_id in ("empty", "big"):
                await h.session.call(CreateDiagramFromMermaid(mermaid=text, diagram_id=diagram_id))
            if server_gc:
                settle_heap()  # the server's settings once it serves (once per process)
            rev = await _grow(h, "big", nodes)
            persister = h.registry.lookup("persister")
            await persister.call(Flush(), timeout=120)
            empty = await _phase(h, "empty", 0, adds, probe)
            await persister.call(Flush(), timeout=120)
            big = await _phase(h, "big", rev, adds, probe)
            started = time.perf_counter()
            await persister.call(Flush(), timeout=120)
            last_save_ms = (time.perf_counter() - started) * 1000
    finally:
        gc.callbacks.remove(probe.on_gc)
    return empty, big, last_save_ms


def _causes(calls: list[_Call], p99: float) -> str:
    counts: Counter[str] = Counter()
    for call in calls:
        if call.ms < p99:
            continue
        if call.collections:
            counts["gc"] += 1
        elif call.other_steps:
            counts["other"] += 1
        elif call.preempted:
            counts["preempted"] += 1
        else:
            counts["own"] += 1
    return " ".join(f"{k} {counts[k]}" for k in ("gc", "other", "preempted", "own") if counts[k])


def _print_row(label: str, row: _Row) -> None:
    samples = row.samples
    p99 = _p(samples, 99)
    gcs = "/".join(str(row.collections[g]) for g in range(3))
    print(
        f"{label:<24} {_p(samples, 50):8.2f} {p99:8.2f} {max(samples):8.2f}"
        f"  {gcs:>9} {row.longest_gc_ms:7.1f}  {_causes(row.calls, p99)}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench writes", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=20_000, help="big flowchart (20000)")
    parser.add_argument("--adds", type=int, default=1000, help="timed adds per phase (1000)")
    parser.add_argument("--runs", type=int, default=1, help="runs in this process (1)")
    parser.add_argument(
        "--default-gc", action="store_true", help="Python's collector settings, not the server's"
    )
    args = parser.parse_args(argv)
    print(f"diagram.apply_ops, one node per call, {args.adds} calls per row, saves running")
    print(
        f"{'diagram':<24} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  {'gc 0/1/2':>9}"
        f" {'gc max':>7}  slow calls (>= p99) by cause"
    )
    empties: list[float] = []
    bigs: list[float] = []
    ratios: list[float] = []
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="nereid-bench-writes-") as folder:
            empty, big, last_save_ms = trio.run(
                _run, Path(folder), args.nodes, args.adds, not args.default_gc
            )
        _print_row("empty flowchart", empty)
        _print_row(f"{args.nodes}-node flowchart", big)
        ratios.append(_p(big.samples, 99) / _p(empty.samples, 99))
        print(f"run {run}: p99 ratio {ratios[-1]:.2f}; final flush of the big diagram: "
              f"{last_save_ms:.0f} ms")  # fmt: skip
        empties += empty.samples
        bigs += big.samples
    ratio = _p(bigs, 99) / _p(empties, 99)
    verdict = "ok" if ratio <= TARGET_RATIO else "MISSED"
    if args.runs > 1:
        print(
            f"pooled over {args.runs} runs: p99 empty {_p(empties, 99):.2f} ms, big "
            f"{_p(bigs, 99):.2f} ms; per-run ratios {', '.join(f'{r:.2f}' for r in ratios)}"
        )
    print(f"p99 ratio big/empty: {ratio:.2f} (target <= {TARGET_RATIO:g}): {verdict}")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
