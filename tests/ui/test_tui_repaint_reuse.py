"""A repaint reuses what did not change: unmarked diagram rows (`styled_rows`) and the
canvas bands of a pane (`BandedCanvas`). What it paints is what painting afresh gives."""

from __future__ import annotations

import functools

import urwid
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.refs import FLOW_NODE
from nereid.render import Rendered, Span
from nereid.testing.big_diagrams import flowchart
from nereid.ui.canvas import BAND_ROWS, BandedCanvas, Rows, frame, rows_canvas
from nereid.ui.highlight import DiagramCells, Marks, styled_row, styled_rows, warm_rows
from nereid.ui.modes import Focus

from .tui_helpers import Screen, demo_state, ref, spotlights

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


def _rows_of(rows: Rows, top: int, size: int) -> Rows:
    return rows[top : top + size]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(_runs, max_size=30), st.lists(_runs, max_size=30), st.integers(2, 30)),
        min_size=1,
        max_size=4,
    )
)
def test_bands_made_ahead_are_the_framed_rows_canvas(
    repaints: list[tuple[Rows, Rows, int]],
) -> None:
    banded = BandedCanvas()
    for ahead, inner, height in repaints:  # made ahead from rows that may not be the painted
        rows = functools.partial(_rows_of, ahead)
        for _step in banded.bands_ahead(rows, 12, height, "b"):
            pass
        made = banded.framed([("title", "Pane")], inner, 12, height, "b")
        expected = rows_canvas(frame([("title", "Pane")], inner, 12, height, "b"), 12, height)
        assert _content(made) == _content(expected)
        assert not banded._ahead  # what was made ahead lives until the next paint only


def test_bands_made_ahead_are_taken_by_the_paint() -> None:
    inner: Rows = [[("default", f"row {i}")] for i in range(3 * BAND_ROWS)]
    banded = BandedCanvas()
    banded.framed([], inner, 20, len(inner) + 2, "border")
    moved = inner[5:] + inner[:5]
    steps = list(banded.bands_ahead(lambda top, size: moved[top : top + size], 20, 26, "border"))
    assert len(steps) == 3  # every band is new
    ahead = dict(banded._ahead)
    # Another event before the paint, the same rows: nothing is made again.
    assert not list(banded.bands_ahead(lambda top, size: moved[top : top + size], 20, 26, "border"))
    assert banded._ahead == ahead
    banded.framed([], moved, 20, len(inner) + 2, "border")
    assert all(banded._parts[key] is part for key, part in ahead.items())


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=5), st.booleans())
def test_a_repaint_after_painting_ahead_is_the_repaint_without(
    targets: list[int], select: bool
) -> None:
    """Follow-AI moves the camera to each spotlight; the app makes the Diagram pane's bands
    ahead (`paint_ahead`): the screen is cell for cell the one painted without."""
    diagram = Diagram(
        diagram_id="big", name="big", kind="flowchart", ast=parse_flowchart(flowchart(40)), rev=0
    )
    state = demo_state(diagrams={"big": diagram}, active_diagram_id="big")
    ahead, plain = Screen(state, size=(70, 20)), Screen(state, size=(70, 20))
    cells = ahead.vm.cells()
    assert cells is not None
    nodes = sorted(r for r in cells.rendered.spans if r.category == FLOW_NODE)
    if select:
        for screen in (ahead, plain):
            screen.vm.set_selection([nodes[0]])
    for seq, target in enumerate(targets, 1):
        event = spotlights(("agent:1", nodes[target % len(nodes)], seq))
        for screen in (ahead, plain):
            screen.vm.apply(event)
            screen.vm.follow()
        for _step in ahead.widget.paint_ahead():
            pass
        ahead.render()
        plain.render()
        assert _content(ahead.canvas) == _content(plain.canvas)


def test_a_camera_move_has_its_bands_made_ahead_and_painted() -> None:
    diagram = Diagram(
        diagram_id="big", name="big", kind="flowchart", ast=parse_flowchart(flowchart(40)), rev=0
    )
    screen = Screen(demo_state(diagrams={"big": diagram}, active_diagram_id="big"), size=(70, 20))
    cells = screen.vm.cells()
    assert cells is not None
    last = max((r for r in cells.rendered.spans if r.category == FLOW_NODE), key=cells.bounds)
    screen.vm.apply(spotlights(("agent:1", last, 1)))
    screen.vm.follow()
    steps = list(screen.widget.paint_ahead())
    banded = screen.widget._pane_canvas(screen.widget.rects[Focus.DIAGRAM])
    ahead = dict(banded._ahead)
    assert steps and len(steps) == len(ahead)
    screen.render()
    assert all(banded._parts[key] is part for key, part in ahead.items())
    assert not list(screen.widget.paint_ahead())  # painted: nothing new to make ahead
