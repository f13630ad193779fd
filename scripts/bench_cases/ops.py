"""Ops engine speed: a 10-op batch on a 1000-node flowchart (target <= 2 ms).

The flowchart is built with ops (1000 `flow_add_node` + 1000 `flow_add_edge` in one batch,
edges `n{i} --> n{(i*7+1)%n}`), not with the parser. The measured batch adds 3 nodes and 3
edges, updates 2 nodes and 1 edge and removes 1 edge, through `DiagramState.apply` (id check,
revision check, apply, batch-end checks, net delta, history entry). Baseline in the same run:
copying the node dict, the least any copy-on-write apply must do.
"""

from __future__ import annotations

import argparse
import json

from nereid.model import FlowchartAst
from nereid.ops import DiagramState, apply_ops, convert_diagram_ops, decode_diagram_ops

from ._common import print_table, time_sync

DESCRIPTION = "Ops: 10-op batch on a 1000-node flowchart via DiagramState.apply (target <= 2 ms)"

TARGET_MS = 2.0


def build_ops(n: int) -> list[dict[str, object]]:
    ops: list[dict[str, object]] = [
        {"type": "flow_add_node", "node_id": f"n:n{i}", "label": f"Node {i}"} for i in range(n)
    ]
    ops += [
        {"type": "flow_add_edge", "edge_id": f"e:{i + 1:04d}", "from_node_id": f"n:n{i}",
         "to_node_id": f"n:n{(i * 7 + 1) % n}", "label": "next" if i % 3 == 0 else None}
        for i in range(n)
    ]  # fmt: skip
    return ops


def batch_ops() -> list[dict[str, object]]:
    """The measured 10-op batch (valid against the built graph)."""
    return [
        {"type": "flow_add_node", "node_id": "n:new1", "label": "New 1"},
        {"type": "flow_add_node", "node_id": "n:new2", "label": "New 2", "shape": "diamond"},
        {"type": "flow_add_node", "node_id": "n:new3", "label": "New 3", "shape": "round"},
        {"type": "flow_add_edge", "edge_id": "e:new1", "from_node_id": "n:n5", "to_node_id": "n:new1"},
        {"type": "flow_add_edge", "edge_id": "e:new2", "from_node_id": "n:new1", "to_node_id": "n:new2", "label": "yes"},
        {"type": "flow_add_edge", "edge_id": "e:new3", "from_node_id": "n:new2", "to_node_id": "n:new3", "connector": "-.->"},
        {"type": "flow_update_node", "node_id": "n:n10", "label": "Renamed"},
        {"type": "flow_update_node", "node_id": "n:n11", "shape": "stadium"},
        {"type": "flow_update_edge", "edge_id": "e:0020", "label": "changed"},
        {"type": "flow_remove_edge", "edge_id": "e:0030"},
    ]  # fmt: skip


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench ops", description=DESCRIPTION)
    parser.add_argument("--nodes", type=int, default=1000, help="flowchart size (default 1000)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per row (default 7)")
    parser.add_argument("--inner", type=int, default=200, help="calls per run (default 200)")
    args = parser.parse_args(argv)

    build = convert_diagram_ops(build_ops(args.nodes))
    empty = DiagramState(diagram_id="bench", ast=FlowchartAst())
    build_timing = time_sync(lambda: empty.apply(0, build), runs=3)
    state, _ = empty.apply(0, build)
    assert isinstance(state.ast, FlowchartAst)
    nodes = state.ast.nodes

    batch_json = json.dumps(batch_ops()).encode()
    batch = decode_diagram_ops(batch_json)
    _, outcome = state.apply(state.rev, batch)
    assert len(outcome.delta.added) == 6 and len(outcome.delta.updated) == 3, outcome

    def run(fn: object) -> object:
        return time_sync(fn, runs=args.runs, inner=args.inner)  # type: ignore[arg-type]

    rows = [
        ("baseline: dict(nodes) copy", time_sync(lambda: dict(nodes), runs=args.runs,
                                                 inner=args.inner)),
        ("decode 10 ops from JSON", time_sync(lambda: decode_diagram_ops(batch_json),
                                              runs=args.runs, inner=args.inner)),
        ("apply_ops (10 ops)", time_sync(
            lambda: apply_ops(state.ast, batch, diagram_id="bench"),
            runs=args.runs, inner=args.inner)),
        ("DiagramState.apply (10 ops)", time_sync(lambda: state.apply(state.rev, batch),
                                                  runs=args.runs, inner=args.inner)),
        ("DiagramState.propose (10 ops)", time_sync(lambda: state.propose(state.rev, batch),
                                                    runs=args.runs, inner=args.inner)),
    ]  # fmt: skip
    print(
        f"built {len(nodes)} nodes / {len(state.ast.edges)} edges with one batch of "
        f"{len(build)} ops in {build_timing.median_ms:.1f} ms (median of {build_timing.runs})"
    )
    print_table(
        f"ops on a {len(nodes)}-node flowchart", rows, baseline="baseline: dict(nodes) copy"
    )
    apply_ms = dict(rows)["DiagramState.apply (10 ops)"].median_ms
    verdict = "within" if apply_ms <= TARGET_MS else "OVER"
    print(f"DiagramState.apply: {apply_ms:.3f} ms median, {verdict} the {TARGET_MS} ms target")
    return 0
