"""Write latency at every size: `diagram.apply_ops` p50/p99 on an empty vs a big flowchart.

The whole session tree of `nereid serve` (actors, persister with its debounced saves to a
real session folder, default mode) runs in this process. One writer adds one node per
`ApplyDiagramOps` call, back to back, and times every call (round trip to the diagram
actor, ms): first `--adds` adds to an empty flowchart, then the same number to a flowchart
of `--nodes` nodes (built with batches of adds first, not timed), in the same run. Every
add is saved by the persister's debounced saves while the writer goes on, so the figures
show how much a save of the big diagram (its Mermaid export) holds up the writer.

Target (issue 18): the p99 at `--nodes` (default 20 000) <= 2x the empty-diagram p99.
Exit status 1 if it is missed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

DESCRIPTION = "apply_ops p50/p99 while saves run: empty vs 20k-node flowchart (target <= 2x)"

TARGET_RATIO = 2.0
_BUILD_BATCH = 500


def _p(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


async def _phase(handle: object, diagram_id: str, start_rev: int, adds: int) -> list[float]:
    from nereid.actors.protocol import ApplyDiagramOps
    from nereid.ops import FlowAddNode

    address = handle.diagram(diagram_id)  # type: ignore[attr-defined]
    samples: list[float] = []
    rev = start_rev
    for i in range(adds):
        op = FlowAddNode(node_id=f"n:w{i}", label=f"written {i}")
        started = time.perf_counter()
        reply = await address.call(ApplyDiagramOps(base_rev=rev, ops=(op,)))
        samples.append((time.perf_counter() - started) * 1000)
        rev = reply.new_rev
        # An agent's next call comes over I/O: let the other tasks (the saves) run between
        # calls, also when a call took no pass of the scheduler (an inline apply).
        await trio.lowlevel.checkpoint()
    return samples


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


async def _run(folder: Path, nodes: int, adds: int) -> tuple[list[float], list[float], float]:
    from nereid.actors.persister import Flush
    from nereid.actors.protocol import CreateDiagramFromMermaid
    from nereid.actors.tree import open_session
    from nereid.model import Session
    from nereid.store.files import FolderFiles

    files = FolderFiles(folder)
    text = "flowchart TD\n  A[Start]\n"
    async with open_session(Session(session_id="s:bench"), files=files, durable=False) as h:
        for diagram_id in ("empty", "big"):
            await h.session.call(CreateDiagramFromMermaid(mermaid=text, diagram_id=diagram_id))
        rev = await _grow(h, "big", nodes)
        persister = h.registry.lookup("persister")
        await persister.call(Flush(), timeout=120)
        started = time.perf_counter()
        await persister.call(Flush(), timeout=120)  # nothing pending: the floor of a flush
        empty = await _phase(h, "empty", 0, adds)
        await persister.call(Flush(), timeout=120)
        big = await _phase(h, "big", rev, adds)
        started = time.perf_counter()
        await persister.call(Flush(), timeout=120)
        last_save_ms = (time.perf_counter() - started) * 1000
    return empty, big, last_save_ms


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench writes", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=20_000, help="big flowchart (20000)")
    parser.add_argument("--adds", type=int, default=1000, help="timed adds per phase (1000)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nereid-bench-writes-") as folder:
        empty, big, last_save_ms = trio.run(_run, Path(folder), args.nodes, args.adds)
    rows = [("empty flowchart", empty), (f"{args.nodes}-node flowchart", big)]
    print(f"diagram.apply_ops, one node per call, {args.adds} calls per row, saves running")
    print(f"{'diagram':<24} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for label, samples in rows:
        print(f"{label:<24} {_p(samples, 50):8.2f} {_p(samples, 99):8.2f} {max(samples):8.2f}")
    ratio = _p(big, 99) / _p(empty, 99)
    verdict = "ok" if ratio <= TARGET_RATIO else "MISSED"
    print(f"p99 ratio big/empty: {ratio:.2f} (target <= {TARGET_RATIO:g}): {verdict}")
    print(f"final flush of the big diagram: {last_save_ms:.0f} ms")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
