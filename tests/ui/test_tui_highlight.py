"""Cell styles: gap filling, the overlap rule, hint tags and hint labels."""

from __future__ import annotations

from nereid.render import Rendered, Span
from nereid.ui.highlight import DiagramCells, Marks, fill_gaps, styled_row
from nereid.ui.hints import ALPHABET, hint_labels, hint_targets

from .tui_helpers import ref

A = ref("d:x/flow/node/n:a")
B = ref("d:x/flow/node/n:b")
E = ref("d:x/flow/edge/e:0001")

LINES = [
    "┌─────┐   ┌───┐",
    "│ a b │──▶│ b │",
    "└─────┘   └───┘",
]
SPANS = {
    E: (Span(1, 7, 9),),
    A: (Span(0, 0, 6), Span(1, 0, 2), Span(1, 4, 6), Span(2, 0, 6)),
    B: (Span(0, 10, 14), Span(1, 10, 14), Span(2, 10, 14)),
}


def cells() -> DiagramCells:
    return DiagramCells(Rendered.from_lines(LINES, SPANS), "x")


def styles(runs: list[tuple[str, str]]) -> list[str]:
    return [style for style, text in runs for _ in text]


def test_label_spaces_between_flagged_words_are_joined() -> None:
    assert fill_gaps(list("│ a b │"), [(0, 2), (4, 6)], 1) == [(0, 6)]
    # Not between text: a gap of spaces next to a border stays open.
    assert fill_gaps(list("│   b │"), [(0, 0), (4, 6)], 1) == [(0, 0), (4, 6)]


def test_vertical_crossings_are_bridged_up_to_the_limit() -> None:
    assert fill_gaps(list("──│──"), [(0, 1), (3, 4)], 1) == [(0, 4)]
    assert fill_gaps(list("─││─"), [(0, 0), (3, 3)], 1) == [(0, 0), (3, 3)]
    assert fill_gaps(list("─││─"), [(0, 0), (3, 3)], None) == [(0, 3)]


def test_cursor_agent_selection_and_overlap() -> None:
    grid = cells()
    row = styled_row(grid, Marks(cursor=A), 1, 0, 15, dim=False)
    assert styles(row)[:7] == ["human"] * 7
    assert styles(row)[11] == "default"
    row = styled_row(grid, Marks(cursor=A, spotlights=((2, A), (0, B))), 1, 0, 15, dim=False)
    assert styles(row)[3] == "both"  # the person and an agent on the same object
    assert styles(row)[12] == "agent0"
    row = styled_row(grid, Marks(cursor=A, cursor_by_agent=True), 1, 0, 15, dim=False)
    assert styles(row)[3] == "agent_owner"
    row = styled_row(grid, Marks(selection=frozenset({B}), cursor=B), 1, 0, 15, dim=True)
    assert styles(row)[12] == "selected_hot" and styles(row)[3] == "dim"


def test_two_agents_on_one_object_resolve_to_the_lowest_slot() -> None:
    row = styled_row(cells(), Marks(spotlights=((3, B), (1, B))), 1, 0, 15, dim=False)
    assert styles(row)[12] == "agent1"


def test_rows_are_panned_and_padded_outside_the_diagram() -> None:
    row = styled_row(cells(), Marks(), 1, -2, 6, dim=False)
    assert "".join(text for _s, text in row) == "  │ a "
    row = styled_row(cells(), Marks(), 7, 0, 4, dim=False)
    assert "".join(text for _s, text in row) == "    "


def test_hint_tags_paint_over_everything() -> None:
    marks = Marks(cursor=A, hints={(0, 2): ("A", "hint"), (0, 3): ("S", "hint")})
    row = styled_row(cells(), marks, 0, 0, 15, dim=False)
    assert "".join(text for _s, text in row).startswith("┌─AS")
    assert styles(row)[2:4] == ["hint", "hint"]


def test_hint_labels_are_two_letters_in_base_14_order() -> None:
    labels = hint_labels(16)
    assert labels[:3] == ["AA", "AS", "AD"] and labels[14] == "SA"
    assert len(set(hint_labels(len(ALPHABET) ** 2))) == 196


def test_hint_targets_follow_screen_order_and_sit_on_box_borders() -> None:
    targets = hint_targets(Rendered.from_lines(LINES, SPANS), chain=False)
    assert [t.ref for t in targets] == [A, B, E]
    assert (targets[0].row, targets[0].col) == (0, 2)
    assert [t.label for t in targets] == ["AA", "AS", "AD"]
