"""Session-folder load and save: 50 flowcharts x 200 nodes by default (ms per whole session).

Rows:
  encode (pure)       export Mermaid + build side-cars + meta text, no I/O
  save, memory        `save_session` into `MemoryFiles` (encode + the save algorithm)
  save, folder        `save_session` into a fresh real folder (atomic writes, no fsync)
  save, folder fsync  the same with `--durable-writes` (fsync file and folder per write)
  save, unchanged     a second save of the same session (only the meta is rewritten)
  load, folder        `load_session` of the folder (read, parse, reconcile side-cars)
The baseline is "encode (pure)"; the figures are for the whole session.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from nereid.model import Diagram, FlowchartAst, FlowEdge, FlowNode, Session
from nereid.store.contents import meta_for_session
from nereid.store.diagram_files import encode_diagram
from nereid.store.files import FolderFiles, MemoryFiles
from nereid.store.schema import encode_meta
from nereid.store.session_io import load_session, save_session

from ._common import Timing, print_table, time_sync

DESCRIPTION = "session folder: load and save 50 diagrams x 200 nodes (ms per session)"


def make_flowchart(index: int, nodes: int) -> Diagram:
    """A flowchart of `nodes` nodes, ~1.33 edges per node, labels and a few notes."""
    node_map = {
        f"n:s{index}_{i}": FlowNode(
            label=f"Step {i} of flow {index}",
            shape=("rect", "round", "diamond")[i % 3],
            mermaid_id=f"s{index}_{i}",
            note="check this" if i % 50 == 0 else None,
        )
        for i in range(nodes)
    }
    ids = list(node_map)
    edges: dict[str, FlowEdge] = {}
    for i in range(1, nodes):
        edges[f"e:{len(edges) + 1:04d}"] = FlowEdge(from_node_id=ids[i - 1], to_node_id=ids[i])
        if i % 3 == 0:
            edges[f"e:{len(edges) + 1:04d}"] = FlowEdge(
                from_node_id=ids[i], to_node_id=ids[i // 2], label="back"
            )
    ast = FlowchartAst(direction="TD", nodes=node_map, edges=edges)
    return Diagram(
        diagram_id=f"flow-{index:03d}", name=f"Flow {index}", kind="flowchart", ast=ast, rev=1
    )


def make_session(diagrams: int, nodes: int) -> Session:
    made = [make_flowchart(i, nodes) for i in range(diagrams)]
    return Session(session_id="s:bench", diagrams={d.diagram_id: d for d in made})


def measure(session: Session, runs: int, scratch: Path) -> list[tuple[str, Timing]]:
    def encode() -> None:
        for diagram in session.diagrams.values():
            encode_diagram(diagram)
        encode_meta(meta_for_session(session))

    def save_memory() -> None:
        save_session(MemoryFiles(), session)

    counter = 0

    def fresh_folder(durable: bool) -> None:
        nonlocal counter
        counter += 1
        folder = scratch / f"save-{counter}"
        save_session(FolderFiles(folder, durable=durable), session)
        shutil.rmtree(folder)

    loaded_folder = scratch / "loaded"
    save_session(FolderFiles(loaded_folder), session)

    def save_unchanged() -> None:
        save_session(FolderFiles(loaded_folder), session)

    def load() -> None:
        result = load_session(FolderFiles(loaded_folder))
        assert not result.issues and len(result.session.diagrams) == len(session.diagrams)

    return [
        ("encode (pure)", time_sync(encode, runs=runs)),
        ("save, memory", time_sync(save_memory, runs=runs)),
        ("save, folder", time_sync(lambda: fresh_folder(False), runs=runs)),
        ("save, folder fsync", time_sync(lambda: fresh_folder(True), runs=max(1, runs // 3))),
        ("save, unchanged", time_sync(save_unchanged, runs=runs)),
        ("load, folder", time_sync(load, runs=runs)),
    ]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench store", description=__doc__)
    parser.add_argument("--diagrams", type=int, default=50, help="diagrams (default 50)")
    parser.add_argument("--nodes", type=int, default=200, help="nodes per diagram (default 200)")
    parser.add_argument("--runs", type=int, default=5, help="runs per row (default 5)")
    args = parser.parse_args(argv)
    session = make_session(args.diagrams, args.nodes)
    edges = sum(len(getattr(d.ast, "edges", ())) for d in session.diagrams.values())
    with tempfile.TemporaryDirectory(prefix="nereid-bench-store-") as scratch:
        rows = measure(session, args.runs, Path(scratch))
    print_table(
        f"store: {args.diagrams} flowcharts x {args.nodes} nodes ({edges} edges), ms per session",
        rows,
        baseline="encode (pure)",
    )
    return 0
