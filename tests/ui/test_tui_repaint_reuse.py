"""A repaint reuses what did not change: unmarked diagram rows (`styled_rows`) and the
canvas bands of a pane (`BandedCanvas`). What it paints is what painting afresh gives."""

from __future__ import annotations

import urwid
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.render import Rendered, Span
from nereid.ui.canvas import BAND_ROWS, BandedCanvas, Rows, frame, rows_canvas
from nereid.ui.highlight import DiagramCells, Marks, styled_row, styled_rows, warm_rows

from .tui_helpers import ref

REFS = [ref(f"d:x/flow/node/n:{i}") for i in range(6)]
LINES = [
    "┌───┐ ┌───┐ ┌───┐",
    "│ 0 │─│ 1 │ │ 2 │",
    "└───┘ └───┘ └───┘",
    "  │           │  ",
    "┌───┐ ┌───┐ ┌───┐",
    "│ 3 │ │ 4 │─│ 5 │",
    "└───┘ └───┘ └───┘",
]
SPANS = {
    r: tuple(Span(top + k, 6 * (i % 3), 6 * (i % 3) + 4) for k in range(3))
    for i, r in enumerate(REFS)
    for top in [0 if i < 3 else 4]
}

_marks = st.builds(
    Marks,
    cursor=st.none() | st.sampled_from(REFS),
    cursor_by_agent=st.booleans(),
    selection=st.frozensets(st.sampled_from(REFS), max_size=3),
    spotlights=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(REFS)), max_size=3).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_marks, st.integers(-3, 4), st.integers(-2, 3)), min_size=1, max_size=6))
def test_styled_rows_are_the_rows_styled_afresh(repaints: list[tuple[Marks, int, int]]) -> None:
    cells = DiagramCells(Rendered.from_lines(LINES, SPANS), "x")
    for marks, x0, y0 in repaints:  # one drawing repainted: kept rows are reused
        rows = range(y0, y0 + 8)
        assert styled_rows(cells, marks, rows, x0, 12, False) == [
            styled_row(cells, marks, row, x0, 12, False) for row in rows
        ]


@settings(max_examples=40, deadline=None)
@given(_marks, st.integers(-3, 4), st.integers(-2, 3), st.booleans())
def test_rows_warmed_ahead_are_the_rows_styled_afresh(
    marks: Marks, x0: int, y0: int, dim: bool
) -> None:
    cells = DiagramCells(Rendered.from_lines(LINES, SPANS), "x")
    rows = range(y0, y0 + 8)
    for _step in warm_rows(cells, rows, x0, 12, dim):
        pass
    assert all((row, x0, 12, dim) in cells._plain for row in rows)
    assert styled_rows(cells, marks, rows, x0, 12, dim) == [
        styled_row(cells, marks, row, x0, 12, dim) for row in rows
    ]


def _content(canvas: urwid.Canvas) -> list[object]:
    return list(canvas.content())


_runs = st.lists(
    st.tuples(st.sampled_from(["default", "agent0", "human"]), st.text("ab ─│▶漢", max_size=9)),
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_runs, max_size=30), st.integers(2, 14), st.integers(2, 30)),
        min_size=1,
        max_size=5,
    )
)
def test_banded_pane_canvas_is_the_framed_rows_canvas(
    repaints: list[tuple[Rows, int, int]],
) -> None:
    banded = BandedCanvas()
    for inner, width, height in repaints:  # bands kept from the repaint before are reused
        title = [("title", "Pane "), ("dim", "r1")]
        made = banded.framed(title, inner, width, height, "border")
        expected = rows_canvas(frame(title, inner, width, height, "border"), width, height)
        assert (made.cols(), made.rows()) == (width, height)
        assert _content(made) == _content(expected)


def test_an_unchanged_band_keeps_its_canvas() -> None:
    inner: Rows = [[("default", f"row {i}")] for i in range(3 * BAND_ROWS)]
    banded = BandedCanvas()
    banded.framed([], inner, 20, len(inner) + 2, "border")
    first = dict(banded._parts)
    changed = [list(row) for row in inner]
    changed[BAND_ROWS + 1] = [("agent0", "row x")]
    banded.framed([], changed, 20, len(inner) + 2, "border")
    kept = [key for key, part in banded._parts.items() if first.get(key) is part]
    assert len(kept) == len(first) - 1  # only the band with the changed row is made again
