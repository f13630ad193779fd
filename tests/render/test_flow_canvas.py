"""The render core: canvas line joining (render.md §17 E1), wide characters, spans, wrapping."""

from __future__ import annotations

from nereid.model.refs import FLOW_NODE, ObjectRef
from nereid.render import ASCII, Canvas, Span, slice_cells, text_width, wrap_text
from nereid.render.glyphs import RIGHT


def test_crossing_and_tees_merge_whatever_the_order() -> None:
    cross = Canvas(5, 5)
    cross.hline(2, 0, 4)
    cross.vline(2, 0, 4)
    assert cross.to_lines() == ["  │", "  │", "──┼──", "  │", "  │"]
    tee = Canvas(5, 5)
    tee.vline(2, 0, 4)
    tee.hline(2, 2, 4)
    assert tee.to_lines()[2] == "  ├──"
    down = Canvas(5, 5)
    down.hline(2, 0, 4)
    down.vline(2, 2, 4)
    assert down.to_lines()[2:] == ["──┬──", "  │", "  │"]


def test_line_next_to_text_does_not_sprout_a_tee() -> None:
    canvas = Canvas(6, 3)
    canvas.box(0, 0, 2, 4)
    canvas.add_arms(1, 4, RIGHT)  # an edge leaving the box...
    canvas.put_char(1, 5, "▶")  # ...replaced by an arrowhead: the border stays a plain side
    assert canvas.to_lines() == ["┌───┐", "│   │▶", "└───┘"]


def test_wide_characters_take_two_cells_and_spans_count_cells() -> None:
    owner = ObjectRef("d", FLOW_NODE, "n:A")
    canvas = Canvas(8, 1)
    used = canvas.put_text(0, 1, "日本 x", owner)
    assert used == 6
    line = canvas.to_lines()[0]
    assert text_width(line) == 7
    assert canvas.spans.build()[owner] == (Span(0, 1, 4), Span(0, 6, 6))
    assert slice_cells(line, 3, 4) == "本"
    canvas.put_char(0, 2, "x")  # overwriting half a wide character blanks the other half
    assert canvas.to_lines()[0] == "  x本 x"


def test_ascii_glyphs_and_trimming() -> None:
    canvas = Canvas(10, 4, ASCII)
    canvas.box(0, 0, 2, 4)
    canvas.hline(1, 4, 7)
    assert canvas.to_lines() == ["+---+", "|   +---", "+---+"]
    assert canvas.to_text() == "+---+\n|   +---\n+---+"


def test_wrap_never_drops_text() -> None:
    text = "a rather long label with a verylongwordthatcannotfit"
    lines = wrap_text(text, 10)
    assert all(text_width(line) <= 10 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert wrap_text("one<br>two", 30) == ["one", "two"]
