"""The render work budget: a drawing too big to be useful is refused before it is made.

Layout and drawing cost grows with three things, each counted from the model or the
geometry before the work it predicts (pure and deterministic: the same diagram is always
accepted or always refused, whatever the machine's load):

- **layout items** (flowcharts): boxes plus one waypoint for every layer an edge crosses,
  plus the edges themselves — what ordering, placement and routing work on. Counted right
  after layering, before any waypoint exists;
- **canvas cells**: width × height of the text drawing (every renderer allocates it): a byte
  each while drawing, and about as many characters of text, held twice (lines and text);
- **line cells** (flowcharts): the summed length of every edge line, what drawing and the
  span map cost (a vertical line owns one span per row, ~100 bytes each).

The limits let every realistic diagram through and stop the ones that took tens of seconds
and gigabytes (200 nodes with 7 180 edges: ~1.8 × 10^5 items). Big diagrams draw their long
edges as stubs (`flowchart/stubs.py`), so the items counted (every edge as if drawn in full)
overstate their work: the 10 000-node benchmark flowchart counts 49 862 items and lays out
~31 000; its drawing is 14 006 × 2 616 cells with 12.3 M line cells (mostly horizontal runs
across its widest layers, drawn as slices). One node fanning out to 2 600 others is refused
on line cells (18.6 M). A refusal is
`TooLargeToRender`, a `RenderError` whose message starts with "too large to render".
"""

from __future__ import annotations

from typing import Any, Final

from nereid.render.errors import RenderError

__all__ = [
    "MAX_CANVAS_CELLS",
    "MAX_LAYOUT_ITEMS",
    "MAX_LINE_CELLS",
    "TooLargeToRender",
    "check_budget",
]

MAX_LAYOUT_ITEMS: Final = 60_000
MAX_CANVAS_CELLS: Final = 40_000_000
MAX_LINE_CELLS: Final = 16_000_000


class TooLargeToRender(RenderError):
    """The drawing would exceed the budget: `measure` (what was counted) is `value` > `limit`."""

    def __init__(self, measure: str, value: int, limit: int) -> None:
        super().__init__(f"too large to render: {value} {measure} (limit {limit})")
        self.measure = measure
        self.value = value
        self.limit = limit

    def __reduce__(self) -> Any:
        """Pickle with all three fields (renders run in worker processes)."""
        return (TooLargeToRender, (self.measure, self.value, self.limit))


def check_budget(measure: str, value: int, limit: int) -> None:
    """Raise TooLargeToRender if `value` of `measure` is over `limit`."""
    if value > limit:
        raise TooLargeToRender(measure, value, limit)
