"""The row painter draws what the canvas painter draws: same text, same span map.

`paint_rows` (nereid/render/sequence_rows.py) takes the common diagrams; `paint_canvas`
draws everything. Over generated diagrams (participants of every role, every arrow token,
nested blocks with wrapped tabs, wrapped labels, autonumber, titles, every option) the row
painter either declines or gives exactly the canvas painter's result.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_sequence
from nereid.model.sequence import ARROW_KINDS, SequenceAst
from nereid.render import Rendered, RenderOptions, render_sequence, sequence_rows
from nereid.render.budget import MAX_CANVAS_CELLS, TooLargeToRender
from nereid.render.glyphs import glyph_set
from nereid.render.sequence import paint_canvas
from nereid.render.sequence_layout import layout_sequence
from nereid.render.sequence_rows import paint_rows
from nereid.render.spans import Span

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NAMES = ["A", "Bob", "Carol", "D", "Eve"]
DECLARATIONS = [
    "participant {n}", "actor {n}", "participant {n} as The {n}", 'participant {n}@{{ "type": "database" }}',
    'participant {n}@{{ "type": "collections" }}', 'participant {n}@{{ "type": "queue" }}',
    'participant {n}@{{ "type": "boundary" }}', 'participant {n}@{{ "type": "control" }}',
    'participant {n}@{{ "type": "entity" }}', "participant {n} as a very long participant alias",
]  # fmt: skip
TEXTS = [
    "hi", "message 12", "a much longer message text that wraps at thirty cells", "x",
    "données", "two<br/>lines", "ok", "a-b_c", "日本語", "[brackets] (parens)", "   spaced   out",
]  # fmt: skip
HEADERS = ["", " cond", " a much longer header text, wrapped at the width", " ok"]


@st.composite
def _body(draw: st.DrawFn, depth: int) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 4 if depth else 6))):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            kind = draw(st.sampled_from(["alt", "opt", "loop", "par", "critical", "break", "rect"]))
            header = draw(st.sampled_from(HEADERS)) if kind != "rect" else " rgb(1, 2, 3)"
            lines.append(kind + header)
            lines += draw(_body(depth + 1))
            extra = {"alt": "else", "par": "and", "critical": "option"}.get(kind)
            for _ in range(draw(st.integers(0, 2)) if extra else 0):
                lines.append(extra + draw(st.sampled_from(HEADERS)))
                lines += draw(_body(depth + 1))
            lines.append("end")
        else:
            source, target = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
            if source == target:
                target = NAMES[(NAMES.index(source) + 1) % len(NAMES)]
            arrow = draw(st.sampled_from(sorted(ARROW_KINDS)))
            lines.append(f"{source}{arrow}{target}: {draw(st.sampled_from(TEXTS)).strip()}")
    return lines


@st.composite
def plain_diagrams(draw: st.DrawFn) -> SequenceAst:
    """Diagrams the row painter is made for: heads, messages between two lifelines, frames."""
    lines = ["sequenceDiagram"]
    if draw(st.booleans()):
        lines.append("title " + draw(st.sampled_from(["Title", "A longer title of the diagram"])))
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from(["autonumber", "autonumber 10 5"])))
    for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5)):
        lines.append(draw(st.sampled_from(DECLARATIONS)).format(n=name))
    lines += draw(_body(0))
    return parse_sequence("\n".join(lines))


options = st.builds(
    RenderOptions,
    ascii=st.booleans(),
    show_notes=st.booleans(),
    prefix_object_labels=st.booleans(),
    max_label_width=st.sampled_from([4, 8, 12, 30]),
)


def _same(fast: Rendered, slow: Rendered) -> None:
    assert fast.text == slow.text
    assert fast.lines == slow.lines
    assert (fast.width, fast.height) == (slow.width, slow.height)
    assert list(fast.spans) == list(slow.spans)  # the same refs in the same order
    assert fast.spans == slow.spans


@SETTINGS
@given(plain_diagrams(), options)
def test_row_painter_draws_what_the_canvas_draws(ast: SequenceAst, opts: RenderOptions) -> None:
    glyphs = glyph_set(opts.ascii)
    fast = paint_rows(layout_sequence(ast, opts), "d", glyphs)
    if fast is not None:
        _same(fast, paint_canvas(layout_sequence(ast, opts), "d", glyphs))


def test_row_painter_takes_the_common_diagram() -> None:
    text = "\n".join(
        [
            "sequenceDiagram",
            "title Orders",
            "actor U",
            "participant Web",
            'participant DB@{ "type": "database" }',
            "U->>Web: order",
            "alt in stock",
            "Web->>DB: reserve",
            "DB-->>Web: reserved",
            "else out of stock",
            "Web--xU: sorry, a longer reply that wraps",
            "end",
            "loop",
            "Web-)U: poll",
            "end",
        ]
    )
    ast = parse_sequence(text)
    for opts in (RenderOptions(), RenderOptions(ascii=True, max_label_width=8)):
        glyphs = glyph_set(opts.ascii)
        fast = paint_rows(layout_sequence(ast, opts), "d", glyphs)
        assert fast is not None
        _same(fast, paint_canvas(layout_sequence(ast, opts), "d", glyphs))
        assert render_sequence(ast, "d", opts) == fast


def test_row_painter_declines_what_only_the_canvas_draws() -> None:
    for extra in ("Note over A: n", "A->>A: self", "activate A", "destroy B\nA->>B: bye"):
        ast = parse_sequence(f"sequenceDiagram\nA->>B: hi\n{extra}")
        assert paint_rows(layout_sequence(ast, RenderOptions()), "d", glyph_set(False)) is None


def test_row_painter_keeps_the_canvas_budget() -> None:
    """A diagram the row painter would take is refused over the budget all the same."""
    participants = 300
    lines = [f"P{i}->>P{(i * 7 + 1) % participants}: message {i}" for i in range(20_000)]
    ast = parse_sequence("sequenceDiagram\n" + "\n".join(lines))
    assert not any(m.from_participant_id == m.to_participant_id for m in ast.messages)
    with pytest.raises(TooLargeToRender) as info:
        render_sequence(ast, "s")
    assert info.value.measure == "canvas cells" and info.value.value > MAX_CANVAS_CELLS


@given(st.integers(0, 200), st.integers(0, 5000), st.integers(0, 300))
@settings(max_examples=60, deadline=None)
def test_shared_column_cells_are_the_cells_of_the_column(col: int, first: int, count: int) -> None:
    """A lifeline's spans sliced from the shared column tuples (or made, past their rows)
    are one `Span` per row, as `SpanRecorder.add_column` records them."""
    from nereid.render.sequence_rows import _column_cells
    from nereid.render.spans import Span

    last = first + count - 1
    cells = _column_cells(col, first, last)
    assert cells == tuple(Span(row, col, col) for row in range(first, last + 1))
    assert all(type(cell) is Span for cell in cells)


@settings(max_examples=100)
@given(
    st.integers(0, 5000),
    st.integers(1, 40),
    st.integers(-3, 200),
    st.integers(2, 60),
    st.sets(st.integers(0, 40), max_size=4),
)
def test_short_bands_are_the_shared_columns_bands(
    top: int, height: int, left: int, width: int, across: set[int]
) -> None:
    bottom, right = top + height, left + width
    rows = {top + offset for offset in across}
    made = sequence_rows._short_band(top, bottom, left, right, rows)
    kept = sequence_rows._SHORT_BAND_ROWS
    sequence_rows._SHORT_BAND_ROWS = -1  # every band from the shared columns
    try:
        shared = sequence_rows._band(top, bottom, left, right, rows)
    finally:
        sequence_rows._SHORT_BAND_ROWS = kept
    assert made == shared
    assert all(type(span) is Span for span in made)
