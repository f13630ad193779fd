"""Where the Mermaid docs corpus (`shared/corpus/mermaid-docs`) is, for the conformance tests.

A clean clone without `../shared` skips those tests; CI always has the corpus beside the
clone, so under `CI=true` a missing corpus fails loudly instead of passing as skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

#: Next to the repository, or two levels up from a worktree under `wt/`.
CORPUS = next(
    (
        root / "shared/corpus/mermaid-docs"
        for root in Path(__file__).resolve().parents[2].parents
        if (root / "shared/corpus/mermaid-docs").is_dir()
    ),
    Path(__file__).resolve().parents[2].parent / "shared/corpus/mermaid-docs",
)


def corpus_files(pattern: str) -> list[Path]:
    """The corpus files matching `pattern`; raises under CI=true when there are none."""
    files = sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []
    if not files and os.environ.get("CI", "").lower() == "true":
        raise RuntimeError(f"CI=true but no Mermaid docs corpus files {pattern} at {CORPUS}")
    return files


def skip_without(files: list[Path]) -> pytest.MarkDecorator:
    """Skip (outside CI) when the corpus is not beside this clone."""
    return pytest.mark.skipif(not files, reason=f"Mermaid docs corpus not found at {CORPUS}")
