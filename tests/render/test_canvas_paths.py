"""The canvas's bulk paths agree with its cell-by-cell ones (nereid.render.canvas).

`to_lines()` decodes whole rows and finds the junctions to resolve with bitwise operations
on each row; `char_at()` resolves one cell from its neighbours. `put_text` writes ASCII onto
blank cells in one go and everything else cluster by cluster. Random drawings over every
kind of call must read the same both ways.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model.refs import FLOW_NODE, ObjectRef
from nereid.render import ASCII, UNICODE, Canvas
from nereid.render.spans import merge_runs

W, H = 9, 6
OWNER = ObjectRef("d", FLOW_NODE, "n:A")

_col = st.integers(0, W - 1)
_row = st.integers(0, H - 1)
_style = st.integers(0, 4)
_text = st.text(alphabet=st.sampled_from("ab  x日\u0301é-"), max_size=6)
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("h"), _row, _col, _col, _style),
        st.tuples(st.just("v"), _col, _row, _row, _style),
        st.tuples(st.just("arms"), _row, _col, st.integers(1, 15), _style),
        st.tuples(st.just("text"), _row, _col, _text),
        st.tuples(st.just("char"), _row, _col, st.sampled_from("▶x "), st.integers(0, 15)),
    ),
    max_size=14,
)


def _draw(canvas: Canvas, ops: list[tuple[object, ...]], *, per_char: bool) -> None:
    for op in ops:
        kind, *args = op
        if kind == "h":
            row, a, b, style = args
            canvas.hline(row, a, b, style, OWNER)  # type: ignore[arg-type]
        elif kind == "v":
            col, a, b, style = args
            canvas.vline(col, a, b, style, OWNER)  # type: ignore[arg-type]
        elif kind == "arms":
            row, col, arms, style = args
            canvas.add_arms(row, col, arms, style, OWNER)  # type: ignore[arg-type]
        elif kind == "text":
            row, col, text = args
            assert isinstance(text, str)
            if per_char and text.isascii():
                for k, ch in enumerate(text[: W - col]):  # type: ignore[operator]
                    canvas.put_text(row, col + k, ch, OWNER)  # type: ignore[operator]
            else:
                canvas.put_text(row, col, text, OWNER)  # type: ignore[arg-type]
        else:
            row, col, char, joins = args
            canvas.put_char(row, col, char, OWNER, joins=joins)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(ops=_ops, ascii=st.booleans())
def test_rows_read_the_same_as_their_cells(ops: list[tuple[object, ...]], ascii: bool) -> None:
    canvas = Canvas(W, H, ASCII if ascii else UNICODE)
    _draw(canvas, ops, per_char=False)
    cells = ["".join(canvas.char_at(r, c) for c in range(W)).rstrip(" ") for r in range(H)]
    while cells and not cells[-1]:
        cells.pop()
    assert canvas.to_lines() == cells


@settings(max_examples=200, deadline=None)
@given(ops=_ops)
def test_ascii_text_in_one_go_equals_text_cell_by_cell(ops: list[tuple[object, ...]]) -> None:
    whole, single = Canvas(W, H), Canvas(W, H)
    _draw(whole, ops, per_char=False)
    _draw(single, ops, per_char=True)
    assert whole.to_lines() == single.to_lines()
    assert whole.spans.build() == single.spans.build()


@st.composite
def _polylines(draw: st.DrawFn) -> list[tuple[int, int]]:
    """Points where each one shares its row or its column with the one before (a repeated
    point included now and then), as the flowchart's edge pieces are."""
    points = [(draw(_row), draw(_col))]
    for _ in range(draw(st.integers(0, 6))):
        row, col = points[-1]
        move = draw(st.sampled_from(["row", "col", "same"]))
        if move == "row":
            points.append((draw(_row), col))
        elif move == "col":
            points.append((row, draw(_col)))
        else:
            points.append((row, col))
    return points


@settings(max_examples=300, deadline=None)
@given(ops=_ops, points=_polylines(), style=_style, owned=st.booleans())
def test_path_draws_what_its_segments_draw_one_by_one(
    ops: list[tuple[object, ...]], points: list[tuple[int, int]], style: int, owned: bool
) -> None:
    """`path` over anything already drawn (lines, text, wide characters, arrowheads with
    joins) leaves the same cells and the same spans as `hline` / `vline` per segment."""
    whole, single = Canvas(W, H), Canvas(W, H)
    _draw(whole, ops, per_char=False)
    _draw(single, ops, per_char=False)
    owner = OWNER if owned else None
    whole.path(points, style, owner)
    for (r0, c0), (r1, c1) in zip(points, points[1:], strict=False):
        if (r0, c0) == (r1, c1):
            continue
        if r0 == r1:
            single.hline(r0, c0, c1, style, owner)
        else:
            single.vline(c0, r0, r1, style, owner)
    assert whole.to_lines() == single.to_lines()
    assert whole.spans.build() == single.spans.build()


@settings(max_examples=200, deadline=None)
@given(runs=st.lists(st.tuples(_row, _col, _col), max_size=12))
def test_merged_runs_are_the_maximal_runs_of_the_cells_they_cover(
    runs: list[tuple[int, int, int]],
) -> None:
    cells = {(row, c) for row, a, b in runs for c in range(min(a, b), max(a, b) + 1)}
    expected = []
    for row, col in sorted(cells):
        if expected and expected[-1][0] == row and expected[-1][2] == col - 1:
            expected[-1] = (row, expected[-1][1], col)
        else:
            expected.append((row, col, col))
    assert [tuple(span) for span in merge_runs(runs)] == expected
