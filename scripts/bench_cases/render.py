"""Text rendering speed on the shared generated corpus (`shared/bench/gen_corpus.py`).

Each file is parsed once (not timed); then `render_flowchart` / `render_sequence` (layout,
drawing, text and span map) is timed, best and median of N runs, against Nereid's targets
(flow-0100 <= 20 ms, flow-1000 <= 500 ms, seq-2000 <= 100 ms) and beautiful-mermaid 1.1.3's
ASCII render times on the same files (peer figures from `shared/bench/README.md`; the ratio is
peer time / Nereid time, > 1 means faster). Beside the times it prints what a reader gets:
edge crossings in the drawing (flowcharts; `nereid.render.flowchart.quality`) and the drawing's
area (columns x rows), so a layout change that trades speed for quality, or the reverse, shows.
Without `--corpus DIR` the corpus is generated into a temporary directory first. Exit status 1
if a target is missed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from ._common import Timing, against_peer, against_target, corpus_files, corpus_main, time_sync

DESCRIPTION = "Text rendering: ms per corpus file vs targets and beautiful-mermaid"

#: Nereid's targets (ms per render, median) and beautiful-mermaid's ASCII render times (ms).
TARGET_MS = {"flow-0100": 20.0, "flow-1000": 500.0, "seq-2000": 100.0}
BEAUTIFUL_MERMAID_MS = {"flow-0030": 72.0, "flow-0100": 1091.0, "seq-0200": 4.2, "seq-2000": 122.0}


def _quality(path: Path) -> tuple[str, str]:
    """(crossings, area) of one file's drawing, as table cells ("-" where not applicable)."""
    from nereid.mermaid import parse_mermaid
    from nereid.model.flowchart import FlowchartAst
    from nereid.render import RenderOptions, render_flowchart, render_sequence
    from nereid.render.flowchart.layout import layout_flowchart
    from nereid.render.flowchart.quality import drawn_crossings

    ast = parse_mermaid(path.read_text(encoding="utf-8"))
    if isinstance(ast, FlowchartAst):
        crossings = str(drawn_crossings(layout_flowchart(ast, RenderOptions())))
        rendered = render_flowchart(ast, path.stem)
    else:
        crossings = "-"
        rendered = render_sequence(ast, path.stem)
    return crossings, f"{rendered.width}x{rendered.height}"


def _prepare(path: Path) -> tuple[Callable[[], object] | None, str]:
    """A no-argument render call for one file (parsed here, untimed), or None and why not."""
    from nereid.mermaid import MermaidError, parse_mermaid
    from nereid.model.sequence import SequenceAst
    from nereid.render import RenderError, render_flowchart, render_sequence

    try:
        ast = parse_mermaid(path.read_text(encoding="utf-8"))
    except (MermaidError, ImportError) as err:
        return None, f"cannot parse: {err}"
    if isinstance(ast, SequenceAst):
        seq_ast = ast

        def run() -> object:
            return render_sequence(seq_ast, path.stem)
    else:
        flow_ast = ast

        def run() -> object:
            return render_flowchart(flow_ast, path.stem)

    try:
        run()  # warm-up, and a check that it renders at all
    except (RenderError, ImportError) as err:
        return None, f"cannot render: {err}"
    return run, ""


def _measure(corpus: Path, runs: int) -> int:
    files = corpus_files(corpus)
    if not files:
        print(f"no flow-*.mmd or seq-*.mmd files in {corpus}", file=sys.stderr)
        return 1
    print(f"Text rendering (parse excluded), {runs} runs per file, corpus {corpus}")
    print(
        f"  {'file':<10} {'best ms':>9} {'median ms':>10} {'target':>8} "
        f"{'b-mermaid':>10} {'peer/ours':>10} {'crossings':>10} {'area':>10}"
    )
    missed = 0
    for path in files:
        name = path.stem
        run, why = _prepare(path)
        if run is None:
            print(f"  {name:<10}  ({why})")
            missed += name in TARGET_MS
            continue
        timing: Timing = time_sync(run, runs=runs)
        verdict, miss = against_target(timing, TARGET_MS.get(name))
        missed += miss
        peer_text, ratio_text = against_peer(timing, BEAUTIFUL_MERMAID_MS.get(name))
        crossings, area = _quality(path)
        print(
            f"  {name:<10} {timing.best_ms:>9.2f} {timing.median_ms:>10.2f} {verdict:>8} "
            f"{peer_text:>10} {ratio_text:>10} {crossings:>10} {area:>10}"
        )
    print("  (target: Nereid's goal in ms, median; peer/ours: beautiful-mermaid ASCII ms / ours;")
    print("   crossings: edges crossing in the drawing; area: columns x rows)")
    return 1 if missed else 0


def main(argv: list[str]) -> int:
    return corpus_main("scripts/bench render", __doc__, argv, _measure)
