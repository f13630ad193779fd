"""Text rendering speed and scaling on the shared generated corpus (`shared/bench/gen_corpus.py`).

Each file is parsed once (not timed); then `render_flowchart` / `render_sequence` (layout,
drawing, text and span map) is timed, best and median of N runs. Besides the corpus, the
case generates the same generator's flowcharts at 3000 and 10 000 nodes (`flow-03000`,
`flow-10000`), times them with fewer runs, and measures each flowchart's peak memory in a
fresh process (`peak MB`: the child's maximum resident set, interpreter included). It prints
the log-log slope of render time against node count from 300 nodes up (1.0 is linear), and
the drawing each reader gets: edge crossings and U-turns (`nereid.render.flowchart.quality`)
and area.

The peer, beautiful-mermaid (npm), runs in the same run when node is present
(`_beautiful_mermaid.py`: installed into a cache directory outside the repository): its
text -> drawing time per file against ours end to end (`e2e ms`: parse + render, as its
figure includes its parse); `peer/ours` > 1 means Nereid is faster. It is given the files
it can finish (flowcharts up to `--peer-max-nodes`, every sequence). Without node the peer
columns say why they are empty.

Targets: flow-0100 <= 20 ms, flow-1000 <= 500 ms, flow-03000 <= 400 ms, flow-10000 <= 2 s
and <= 500 MB, seq-2000 <= 100 ms, slope <= 1.2, beautiful-mermaid / ours >= 2 on seq-0200
and seq-2000. Without `--corpus DIR` the corpus is generated into a temporary directory
first. Exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ._beautiful_mermaid import PEER, peer_times
from ._common import (
    GEN_CORPUS,
    Timing,
    against_target,
    corpus_files,
    native_line,
    open_corpus,
    time_sync,
)

DESCRIPTION = "Text rendering: ms per file, scaling slope, memory, vs beautiful-mermaid (same run)"

#: Nereid's targets (ms per render, median).
TARGET_MS = {
    "flow-0100": 20.0,
    "flow-1000": 500.0,
    "flow-03000": 400.0,
    "flow-10000": 2000.0,
    "seq-2000": 100.0,
}
TARGET_PEAK_MB = {"flow-10000": 500.0}
TARGET_SLOPE = 1.2
TARGET_PEER_RATIO = {"seq-0200": 2.0, "seq-2000": 2.0}
BIG_FLOWCHARTS = (3000, 10_000)

_CHILD = """
import resource, sys, time
from nereid.mermaid import parse_mermaid
from nereid.render import RenderError, render_diagram
from nereid.model.diagram import Diagram, ast_kind
text = open(sys.argv[1], encoding="utf-8").read()
start = time.perf_counter()
ast = parse_mermaid(text)
try:
    render_diagram(Diagram(diagram_id="d", name="d", kind=ast_kind(ast), ast=ast, rev=0))
    outcome = "ok"
except RenderError as err:
    outcome = str(err)
ms = (time.perf_counter() - start) * 1000
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, ms, outcome, sep="\\t")
"""


def _nodes(name: str) -> int | None:
    head, _, count = name.partition("-")
    return int(count) if head == "flow" and count.isdigit() else None


def _big_flowcharts(directory: Path) -> list[Path]:
    """The corpus generator's flowcharts at BIG_FLOWCHARTS nodes, written into `directory`."""
    spec = importlib.util.spec_from_file_location("gen_corpus", GEN_CORPUS)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the corpus generator {GEN_CORPUS}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    paths = []
    for n in BIG_FLOWCHARTS:
        path = directory / f"flow-{n:05d}.mmd"
        path.write_text(module.flow(n), encoding="utf-8")
        paths.append(path)
    return paths


def _quality(path: Path) -> tuple[str, str, str]:
    """(crossings, U-turns, area) of one file's drawing, as table cells ("-" where not
    applicable)."""
    from nereid.mermaid import parse_mermaid
    from nereid.model.flowchart import FlowchartAst
    from nereid.render import RenderOptions, render_flowchart, render_sequence
    from nereid.render.flowchart.layout import layout_flowchart
    from nereid.render.flowchart.quality import drawn_crossings, u_turns

    ast = parse_mermaid(path.read_text(encoding="utf-8"))
    if isinstance(ast, FlowchartAst):
        geometry = layout_flowchart(ast, RenderOptions())
        crossings, turns = str(drawn_crossings(geometry)), str(u_turns(ast, geometry))
        rendered = render_flowchart(ast, path.stem)
    else:
        crossings = turns = "-"
        rendered = render_sequence(ast, path.stem)
    return crossings, turns, f"{rendered.width}x{rendered.height}"


def _prepare(path: Path) -> tuple[Callable[[], object] | None, Callable[[], object], str]:
    """(render call, parse + render call, why not) for one file; the first is None when the
    file does not render (the second then times parsing up to the refusal)."""
    from nereid.mermaid import MermaidError, parse_mermaid
    from nereid.model.sequence import SequenceAst
    from nereid.render import RenderError, render_flowchart, render_sequence

    text = path.read_text(encoding="utf-8")
    try:
        ast = parse_mermaid(text)
    except MermaidError as err:

        def parse_only() -> object:
            try:
                return parse_mermaid(text)
            except MermaidError as again:
                return again

        return None, parse_only, f"cannot parse: {err}"
    render: Callable[[object], object] = (
        render_sequence if isinstance(ast, SequenceAst) else render_flowchart  # type: ignore[assignment]
    )

    def run() -> object:
        return render(ast, path.stem)

    def end_to_end() -> object:
        try:
            return render(parse_mermaid(text), path.stem)
        except RenderError as err:
            return err

    try:
        run()  # warm-up, and a check that it renders at all
    except (RenderError, MermaidError) as err:
        return None, end_to_end, str(err)
    return run, end_to_end, ""


def _peak_mb(path: Path) -> tuple[float, float, str]:
    """(peak MB, ms, outcome) of parsing and rendering `path` once in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True
    )
    peak, ms, outcome = done.stdout.strip().split("\t", 2)
    return float(peak), float(ms), outcome


def _slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(ms) over log(nodes)."""
    if len(points) < 2:
        return None
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(ms) for _, ms in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def _measure(files: list[Path], runs: int, peer_max_nodes: int) -> int:
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"Text rendering (parse excluded), up to {runs} runs per file; load average {load}")
    print(native_line())
    peer_files = [p for p in files if (_nodes(p.stem) or 0) <= peer_max_nodes]
    started = time.perf_counter()
    peer, peer_note = peer_times(peer_files, runs)
    peer_note = (
        peer_note or f"{PEER} on {len(peer_files)} files in {time.perf_counter() - started:.0f} s"
    )
    print(
        f"  {'file':<10} {'best ms':>9} {'median ms':>10} {'target':>8} {'peak MB':>8} "
        f"{'e2e ms':>8} {'peer ms':>9} {'peer/ours':>9} {'crossings':>10} {'U-turns':>8} "
        f"{'area':>11}"
    )
    missed = 0
    scaling: list[tuple[int, float]] = []
    refused: list[str] = []
    for path in files:
        name = path.stem
        nodes = _nodes(name)
        run, end_to_end, why = _prepare(path)
        peak_text = "-"
        if nodes is not None and nodes >= 1000:
            peak, _, _ = _peak_mb(path)
            peak_text = f"{peak:.0f}"
            if name in TARGET_PEAK_MB and peak > TARGET_PEAK_MB[name]:
                missed += 1
                peak_text += "!"
        if run is None:
            refused.append(name)
            print(f"  {name:<10} ({why}) {peak_text:>8}")
            missed += name in TARGET_MS
            continue
        big = nodes is not None and nodes >= 3000
        timing: Timing = time_sync(run, runs=min(runs, 3) if big else runs)
        verdict, miss = against_target(timing, TARGET_MS.get(name))
        missed += miss
        if nodes is not None and nodes >= 300:
            scaling.append((nodes, timing.median_ms))
        e2e = time_sync(end_to_end, runs=1 if big else runs)
        peer_text, ratio_text = "-", "-"
        if peer is not None and name in peer:
            ratio = peer[name] / e2e.median_ms
            peer_text, ratio_text = f"{peer[name]:.1f}", f"{ratio:.1f}x"
            if name in TARGET_PEER_RATIO and ratio < TARGET_PEER_RATIO[name]:
                missed += 1
                ratio_text += "!"
        elif name in TARGET_PEER_RATIO and peer is not None:
            missed += 1
        crossings, turns, area = _quality(path) if not big else ("-", "-", "-")
        print(
            f"  {name:<10} {timing.best_ms:>9.2f} {timing.median_ms:>10.2f} {verdict:>8} "
            f"{peak_text:>8} {e2e.median_ms:>8.2f} {peer_text:>9} {ratio_text:>9} "
            f"{crossings:>10} {turns:>8} {area:>11}"
        )
    slope = _slope(scaling)
    if slope is None:
        print("  log-log slope: not enough flowcharts of 300+ nodes rendered")
    else:
        span = f"{scaling[0][0]}..{scaling[-1][0]} nodes"
        ok = slope <= TARGET_SLOPE and not any(_nodes(r) for r in refused)
        missed += not ok
        print(
            f"  log-log slope of render time over nodes ({span}): {slope:.2f} "
            f"(target <= {TARGET_SLOPE}{'' if ok else '; missed'}"
            f"{'; refused: ' + ', '.join(refused) if refused else ''})"
        )
    print(f"  peer: {peer_note}" if peer is not None else f"  peer skipped: {peer_note}")
    print("  (target: Nereid's goal in ms, median; peak MB: a fresh process parsing and rendering")
    print(
        "   the file once; e2e: parse + render; peer/ours: peer ms / e2e ms, '!' a missed target;"
    )
    print(
        "   crossings: edges crossing in the drawing; U-turns: routes that turn back on"
        " themselves; area: columns x rows)"
    )
    return 1 if missed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench render", description=__doc__)
    parser.add_argument("--corpus", type=Path, help="directory made by gen_corpus.py")
    parser.add_argument("--runs", type=int, default=7, help="runs per file (default 7)")
    parser.add_argument(
        "--peer-max-nodes",
        type=int,
        default=100,
        help="largest flowchart given to the peer (default 100: it takes seconds beyond)",
    )
    parser.add_argument("--no-big", action="store_true", help="skip the 3000/10000-node files")
    args = parser.parse_args(argv)
    with open_corpus(args.corpus) as corpus, tempfile.TemporaryDirectory() as big_dir:
        files = corpus_files(corpus)
        if not files:
            print(f"no flow-*.mmd or seq-*.mmd files in {corpus}", file=sys.stderr)
            return 1
        if not args.no_big:
            flows = [p for p in files if p.stem.startswith("flow-")]
            files = flows + _big_flowcharts(Path(big_dir)) + files[len(flows) :]
        return _measure(files, args.runs, args.peer_max_nodes)
