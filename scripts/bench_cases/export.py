"""Mermaid export and import of big generated diagrams: is the cost linear in the size?

Rows, for a chain of N edges (`a0 --> a1 --> ...`, one edge per line) at N = 5k, 20k and
55k (`--sizes`), and for subgraphs nested 100 deep (the import cap) and 5,000 deep (built
directly: export and import must not recurse per level):
  export chain N      `export_flowchart` of the parsed chain
  import chain N      `parse_flowchart` of its text
The baseline is "export chain <smallest N>"; `us/edge` is the cost per edge, which a linear
exporter keeps flat as N grows (the ratio then grows like N). The sequence row exports a
chain of N/5 messages. A 55k-edge chain took 17 s to export before the fix (node-id check
was quadratic); see docs/reliability.md.
"""

from __future__ import annotations

import argparse
from functools import partial

from nereid.mermaid import export_flowchart, export_sequence, parse_flowchart, parse_sequence
from nereid.model import FlowchartAst, FlowNode, FlowSubgraph

from ._common import Timing, print_table, time_sync

DESCRIPTION = "Mermaid export/import of big chains and deep nesting: linear in size?"


def chain_text(edges: int) -> str:
    return "flowchart\n" + "".join(f"a{i} --> a{i + 1}\n" for i in range(edges))


def sequence_text(messages: int) -> str:
    body = "".join(f"P{i % 7}->>P{(i + 1) % 7}: message {i}\n" for i in range(messages))
    return "sequenceDiagram\n" + body


def nested(depth: int) -> FlowchartAst:
    subgraphs = {
        f"sg:s{i}": FlowSubgraph(
            mermaid_id=f"s{i}",
            node_ids=("n:A",) if i == depth - 1 else (),
            subgraph_ids=(f"sg:s{i + 1}",) if i < depth - 1 else (),
        )
        for i in range(depth)
    }
    return FlowchartAst(nodes={"n:A": FlowNode(label="A", mermaid_id="A")}, subgraphs=subgraphs)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench export", description=__doc__)
    parser.add_argument("--sizes", default="5000,20000,55000", help="chain lengths (edges)")
    parser.add_argument("--runs", type=int, default=3, help="runs per row (default 3)")
    args = parser.parse_args(argv)
    sizes = sorted(int(size) for size in args.sizes.split(","))
    rows: list[tuple[str, Timing]] = []
    per_edge: list[str] = []
    for size in sizes:
        text = chain_text(size)
        ast = parse_flowchart(text)
        export = time_sync(partial(export_flowchart, ast), runs=args.runs)
        load = time_sync(partial(parse_flowchart, text), runs=args.runs)
        rows += [(f"export chain {size}", export), (f"import chain {size}", load)]
        per_edge.append(
            f"  N={size}: export {export.median_ms * 1000 / size:.1f} us/edge, "
            f"import {load.median_ms * 1000 / size:.1f} us/edge"
        )
    messages = sizes[-1] // 5
    seq_text = sequence_text(messages)
    seq_ast = parse_sequence(seq_text)
    rows.append(
        (
            f"export sequence {messages}",
            time_sync(partial(export_sequence, seq_ast), runs=args.runs),
        )
    )
    deep = parse_flowchart(export_flowchart(nested(100)))
    rows.append(("export nested 100", time_sync(partial(export_flowchart, deep), runs=args.runs)))
    deeper = nested(5000)
    rows.append(
        ("export nested 5000", time_sync(partial(export_flowchart, deeper), runs=args.runs))
    )
    print_table(
        "Mermaid export and import (ms per call)", rows, baseline=f"export chain {sizes[0]}"
    )
    print("per edge (flat = linear):")
    print("\n".join(per_edge))
    return 0
