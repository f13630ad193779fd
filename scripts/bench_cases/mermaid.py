"""Mermaid import speed on the shared generated corpus (`shared/bench/gen_corpus.py`).

Times `parse_flowchart` on `flow-*.mmd` and `parse_sequence` on `seq-*.mmd` (best and median
of N runs, ms per import, lines per second), against Nereid's targets (flow-1000 <= 40 ms,
seq-2000 <= 80 ms) and mermaid.js 12's parse times on the same files (peer figures from
`shared/bench/README.md`; the ratio is mermaid.js time / Nereid time, > 1 means faster).
Without `--corpus DIR` the corpus is generated into a temporary directory first.

Each file is also timed as Nereid saves it (`<file>@saved`: the canonical export of its
import, read again), with the ratio saved/corpus time: re-reading a saved diagram should cost
no more than reading the original text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from ._common import Timing, against_peer, against_target, corpus_files, corpus_main, time_sync

DESCRIPTION = "Mermaid import: ms and lines/s per corpus file vs targets and mermaid.js"

#: Nereid's targets (ms per import) and mermaid.js 12 parse times (ms) on this corpus.
TARGET_MS = {"flow-1000": 40.0, "seq-2000": 80.0}
MERMAID_JS_MS = {
    "flow-0030": 18.0,
    "flow-0100": 52.1,
    "flow-1000": 480.0,
    "seq-0200": 140.0,
    "seq-2000": 1256.0,
}


def _parsers() -> dict[str, Callable[[str], object] | None]:
    from nereid.mermaid.sequence import parse_sequence

    try:
        from nereid.mermaid.flowchart import parse_flowchart
    except ImportError:
        return {"flow": None, "seq": parse_sequence}
    return {"flow": parse_flowchart, "seq": parse_sequence}


def _saved(kind: str, text: str) -> str:
    """The text Nereid writes for `text` (its canonical export)."""
    from nereid.mermaid import export_flowchart, export_sequence, parse_flowchart, parse_sequence

    if kind == "flow":
        return export_flowchart(parse_flowchart(text))
    return export_sequence(parse_sequence(text))


def _measure(corpus: Path, runs: int) -> int:
    parsers = _parsers()
    files = corpus_files(corpus)
    if not files:
        print(f"no flow-*.mmd or seq-*.mmd files in {corpus}", file=sys.stderr)
        return 1
    print(f"Mermaid import, {runs} runs per file, corpus {corpus}")
    header = (
        f"  {'file':<16} {'lines':>6} {'best ms':>9} {'median ms':>10} {'lines/s':>10} "
        f"{'target':>8} {'mermaid.js':>11} {'js/ours':>8}"
    )
    print(header)
    missed = 0
    for path in files:
        name = path.stem
        parse = parsers[name.split("-")[0]]
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if parse is None:
            print(f"  {name:<16} {lines:>6}  (flowchart importer not available in this build)")
            continue
        parse(text)  # warm-up: grammar construction is once per process
        timing: Timing = time_sync(partial(parse, text), runs=runs)
        per_second = lines / (timing.median_ms / 1000.0)
        verdict, miss = against_target(timing, TARGET_MS.get(name))
        missed += miss
        peer_text, ratio_text = against_peer(timing, MERMAID_JS_MS.get(name))
        print(
            f"  {name:<16} {lines:>6} {timing.best_ms:>9.2f} {timing.median_ms:>10.2f} "
            f"{per_second:>10.0f} {verdict:>8} {peer_text:>11} {ratio_text:>8}"
        )
        saved = _saved(name.split("-")[0], text)
        again: Timing = time_sync(partial(parse, saved), runs=runs)
        saved_lines = saved.count("\n")
        print(
            f"  {name + '@saved':<16} {saved_lines:>6} {again.best_ms:>9.2f} "
            f"{again.median_ms:>10.2f} {saved_lines / (again.median_ms / 1000.0):>10.0f} "
            f"{'':>8} {'saved/corpus':>11} {again.median_ms / timing.median_ms:>8.2f}"
        )
    print("  (target: Nereid's goal in ms, median; js/ours: mermaid.js 12 parse ms / ours)")
    return 1 if missed else 0


def main(argv: list[str]) -> int:
    return corpus_main("scripts/bench mermaid", __doc__, argv, _measure)
