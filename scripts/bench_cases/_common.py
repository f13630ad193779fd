"""Helpers shared by benchmark cases: timing (best/median of N runs), ratio tables, corpus.

Time a workload with `time_sync` / `time_async` (each run calls it `inner`
times, and the figure is per call), then `print_table` with a baseline
measured in the same run, so ratios compare like with like on this machine.

The render and mermaid cases read the shared generated corpus (`shared/bench/gen_corpus.py`):
`open_corpus` gives its directory, generating it into a temporary one unless given;
`corpus_main` is their command line, and `against_target` / `against_peer` their per-file
verdict and peer columns.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "GEN_CORPUS",
    "Timing",
    "against_peer",
    "against_target",
    "corpus_files",
    "corpus_main",
    "generate_corpus",
    "native_line",
    "open_corpus",
    "print_table",
    "ratio",
    "time_async",
    "time_sync",
]


def _find_generator() -> Path:
    """`shared/bench/gen_corpus.py` in the nearest parent of this checkout that has one (a
    worktree sits one level deeper than the main checkout)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "bench" / "gen_corpus.py"
        if candidate.exists():
            return candidate
    return here.parents[3] / "shared" / "bench" / "gen_corpus.py"


GEN_CORPUS = _find_generator()
"""The shared corpus generator (`python gen_corpus.py DIR` writes flow-*.mmd, seq-*.mmd)."""


@dataclass(frozen=True)
class Timing:
    """Milliseconds per call over several runs."""

    best_ms: float
    median_ms: float
    runs: int

    @classmethod
    def from_samples(cls, samples_ms: list[float]) -> Timing:
        if not samples_ms:
            raise ValueError("Timing needs at least one sample")
        return cls(min(samples_ms), statistics.median(samples_ms), len(samples_ms))


def time_sync(fn: Callable[[], object], *, runs: int = 7, inner: int = 1) -> Timing:
    """Call `fn` `inner` times per run, `runs` runs; ms per call."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - start) * 1000.0 / inner)
    return Timing.from_samples(samples)


async def time_async(
    fn: Callable[[], Awaitable[object]], *, runs: int = 7, inner: int = 1
) -> Timing:
    """Await `fn()` `inner` times per run, `runs` runs; ms per call (inside `trio.run`)."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(inner):
            await fn()
        samples.append((time.perf_counter() - start) * 1000.0 / inner)
    return Timing.from_samples(samples)


def ratio(timing: Timing, baseline: Timing) -> float:
    """Median over baseline median."""
    return timing.median_ms / baseline.median_ms


def _format_ms(value: float) -> str:
    return f"{value:.4f}" if value < 1 else f"{value:.2f}"


def print_table(title: str, rows: list[tuple[str, Timing]], *, baseline: str) -> None:
    """Print one row per measurement with its ratio (median / median) to `baseline`."""
    timings = dict(rows)
    if baseline not in timings:
        raise ValueError(f"baseline {baseline!r} is not one of the rows {list(timings)}")
    base = timings[baseline]
    width = max(len(name) for name, _ in rows)
    print(title)
    print(f"  {'':<{width}}  {'best ms':>10}  {'median ms':>10}  {'ratio':>6}")
    for name, timing in rows:
        print(
            f"  {name:<{width}}  {_format_ms(timing.best_ms):>10}  "
            f"{_format_ms(timing.median_ms):>10}  {ratio(timing, base):>6.2f}"
        )
    print(f"  (ratio = median / median of {baseline!r}; {base.runs} runs each)")


def native_line() -> str:
    """Which modules run compiled in this checkout (docs/native.md): `native: yes (...)` or
    `native: no (why)`. Child processes a case starts see the same build."""
    from nereid._native import status

    return f"  {status()}"


def generate_corpus(directory: Path) -> None:
    """Write the shared corpus into `directory` with `GEN_CORPUS`."""
    if not GEN_CORPUS.exists():
        raise SystemExit(f"corpus generator not found: {GEN_CORPUS} (pass --corpus DIR)")
    subprocess.run([sys.executable, str(GEN_CORPUS), str(directory)], check=True)


@contextmanager
def open_corpus(given: Path | None) -> Iterator[Path]:
    """The corpus directory: `given` (which must be a directory), else a fresh temporary one."""
    if given is not None:
        if not given.is_dir():
            raise SystemExit(f"--corpus {given}: not a directory")
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="nereid-bench-") as tmp:
        generate_corpus(Path(tmp))
        yield Path(tmp)


def corpus_files(corpus: Path) -> list[Path]:
    """The corpus's flowcharts then sequences, each sorted by name."""
    return sorted(corpus.glob("flow-*.mmd")) + sorted(corpus.glob("seq-*.mmd"))


def against_target(timing: Timing, target_ms: float | None) -> tuple[str, bool]:
    """The verdict column (`<=40` / `>40`; empty without a target) and whether it missed."""
    if target_ms is None:
        return "", False
    ok = timing.median_ms <= target_ms
    return f"{'<=' if ok else '>'}{target_ms:.0f}", not ok


def against_peer(timing: Timing, peer_ms: float | None) -> tuple[str, str]:
    """The peer's ms and the ratio peer / ours (`-` for both where there is no peer figure)."""
    if peer_ms is None:
        return "-", "-"
    return f"{peer_ms:.1f}", f"{peer_ms / timing.median_ms:.1f}x"


def corpus_main(
    prog: str, description: str | None, argv: list[str], measure: Callable[[Path, int], int]
) -> int:
    """Parse `--corpus DIR` and `--runs N`, then `measure(corpus, runs)` on the corpus."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--corpus", type=Path, help="directory made by gen_corpus.py")
    parser.add_argument("--runs", type=int, default=7, help="runs per file (default 7)")
    args = parser.parse_args(argv)
    with open_corpus(args.corpus) as corpus:
        return measure(corpus, args.runs)
