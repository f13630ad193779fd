"""Hint labels for `f` (jump) and `c` (chain) (tui.md §8, with §16.11's screen order).

Targets come from the highlight spans; each gets a two-letter tag over `ASDFJKLEWCMPGH`,
assigned top-to-bottom then left-to-right, so the labels read in screen order. Boxes carry
their tag on the top border and lines in the middle of their longest straight run, so a tag
never covers the text it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.render import Rendered

__all__ = ["ALPHABET", "MAX_TARGETS", "HintTarget", "hint_labels", "hint_targets"]

ALPHABET = "ASDFJKLEWCMPGH"
MAX_TARGETS = len(ALPHABET) ** 2
EDGE_CANVAS = set("─│┌┐└┘├┤┬┴┼▶◀▲▼○✕━┃")


@dataclass(frozen=True)
class HintTarget:
    """An object and the cell where its two-letter tag is painted."""

    ref: ObjectRef
    row: int
    col: int
    label: str = ""


def hint_labels(count: int) -> list[str]:
    """`count` two-letter codes in base-14 order (AA, AS, AD, ...)."""
    if count > MAX_TARGETS:
        raise ValueError(f"too many hint targets ({count}, max {MAX_TARGETS})")
    return [ALPHABET[i // len(ALPHABET)] + ALPHABET[i % len(ALPHABET)] for i in range(count)]


def _place(rendered: Rendered, ref: ObjectRef) -> tuple[int, int] | None:
    spans = rendered.spans.get(ref)
    if not spans:
        return None
    if ref.category in (FLOW_NODE, SEQ_PARTICIPANT, FLOW_SUBGRAPH, STATE_STATE):
        # On the top border, so the tag never hides the label it stands for.
        top = min(s.row for s in spans)
        left = min(s.col_start for s in spans if s.row == top)
        right = max(s.col_end for s in spans if s.row == top)
        return (top, left + 2 if right - left >= 4 else left)
    best: tuple[int, int, int] | None = None  # (score, row, col)
    for span in spans:
        line = rendered.lines[span.row]
        cells = line[span.col_start : span.col_end + 1]
        score = sum(1 for c in cells if c in EDGE_CANVAS) * 10 + min(len(cells), 9)
        if span.col_end - span.col_start < 1:
            score -= 5
        col = (span.col_start + span.col_end) // 2
        if best is None or score > best[0]:
            best = (score, span.row, col)
    if best is None:
        return None
    return (best[1], best[2])


def hint_targets(rendered: Rendered, *, chain: bool) -> list[HintTarget]:
    """Targets in screen order with labels; messages only in jump mode (not chain)."""
    kinds = {
        FLOW_NODE,
        FLOW_EDGE,
        FLOW_SUBGRAPH,
        SEQ_PARTICIPANT,
        STATE_STATE,
        STATE_TRANSITION,
    } | (set() if chain else {SEQ_MESSAGE})
    placed: list[HintTarget] = []
    for ref in rendered.spans:
        if ref.category not in kinds:
            continue
        spot = _place(rendered, ref)
        if spot is not None:
            placed.append(HintTarget(ref, spot[0], spot[1]))
    placed.sort(key=lambda t: (t.row, t.col, t.ref.sort_key()))
    if len(placed) > MAX_TARGETS:
        return placed
    labels = hint_labels(len(placed))
    return [HintTarget(t.ref, t.row, t.col, label) for t, label in zip(placed, labels, strict=True)]
