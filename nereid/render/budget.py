"""The render work budget: a drawing too big to be useful is refused before it is made.

Layout and drawing cost grows with three things, each counted from the model or the
geometry before the work it predicts (pure and deterministic: the same diagram is always
accepted or always refused, whatever the machine's load):

- **layout items** (flowcharts): boxes plus one waypoint for every layer an edge crosses,
  plus the edges themselves — what ordering, placement and routing work on. Counted right
  after layering, before any waypoint exists;
- **canvas cells**: width × height of the text drawing (every renderer allocates it), about
  60 bytes each while drawing;
- **line cells** (flowcharts): the summed length of every edge line, what drawing and the
  span map cost.

The limits let every realistic diagram through (the 1000-node benchmark flowchart needs
~5 000 items, 0.85 M canvas cells and 0.26 M line cells) and stop the ones that took tens
of seconds and gigabytes (200 nodes with 7 180 edges: ~10^5 items). A refusal is
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

MAX_LAYOUT_ITEMS: Final = 30_000
MAX_CANVAS_CELLS: Final = 4_000_000
MAX_LINE_CELLS: Final = 2_000_000


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
