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
