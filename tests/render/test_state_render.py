"""State diagrams drawn (spec decision 24): every state and transition owns cells, `[*]` are
`●` / `◉`, choices diamonds, composites titled frames, regions frames inside their composite."""

from __future__ import annotations

from pathlib import Path

import pytest

from nereid.mermaid import parse_state
from nereid.model import STATE_STATE, STATE_TRANSITION, ObjectRef
from nereid.render import render_state

CORPUS = next(
    (
        root / "shared/corpus/mermaid-docs"
        for root in Path(__file__).resolve().parents
        if (root / "shared/corpus/mermaid-docs").is_dir()
    ),
    None,
)
FILES = sorted(CORPUS.glob("state-*.mmd")) if CORPUS else []


@pytest.mark.skipif(not FILES, reason="Mermaid docs corpus not found")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_state_and_transition_is_drawn_and_owns_cells(path: Path) -> None:
    ast = parse_state(path.read_text(encoding="utf-8"))
    drawn = render_state(ast, "d")
    for state_id in ast.states:
        assert drawn.spans.get(ObjectRef("d", STATE_STATE, state_id)), state_id
    for transition_id in ast.transitions:
        assert drawn.spans.get(ObjectRef("d", STATE_TRANSITION, transition_id)), transition_id
    assert all(ref.category[0] == "state" for ref in drawn.spans)


def test_shapes_frames_and_regions() -> None:
    ast = parse_state(
        "stateDiagram-v2\n[*] --> C\nstate C {\n  [*] --> a\n  --\n  [*] --> b\n}\n"
        "state pick <<choice>>\nC --> pick\npick --> [*]\n"
    )
    drawn = render_state(ast, "d")
    assert "●" in drawn.text and "◉" in drawn.text
    assert "╱" in drawn.text  # the choice's diamond
    frame_rows = [line for line in drawn.lines if "╭ C " in line]
    assert frame_rows, drawn.text
    # Two region frames side by side inside C.
    assert any(line.count("╭") == 2 and line.startswith("│") for line in drawn.lines), drawn.text
    composite = drawn.spans[ObjectRef("d", STATE_STATE, "s:C")]
    assert len({span.row for span in composite}) > 4  # the frame and its regions' frames


def test_regions_are_dashed_and_floating_notes_drawn_with_dotted_links() -> None:
    ast = parse_state(
        "stateDiagram-v2\nstate C {\n  [*] --> a\n  --\n  [*] --> b\n}\n"
        'note "Check the token" as N1\nN1 --> C\n'
    )
    drawn = render_state(ast, "d")
    region_rows = [row for row, line in enumerate(drawn.lines) if line.count("┌┄") == 2]
    assert region_rows, drawn.text  # two dashed region frames side by side
    assert "╭ C " in drawn.text  # the composite's own frame stays solid
    note = drawn.spans[ObjectRef("d", STATE_STATE, "s:N1")]
    note_text = "".join(drawn.lines[span.row][span.col_start : span.col_end + 1] for span in note)
    assert "Check the token" in note_text
    link = drawn.spans[ObjectRef("d", STATE_TRANSITION, "t:0003")]
    assert any("┆" in drawn.lines[s.row][s.col_start : s.col_end + 1] for s in link), drawn.text


def test_several_notes_of_a_state_are_drawn_with_notes_on() -> None:
    from nereid.render.options import RenderOptions

    ast = parse_state("stateDiagram-v2\nA\nnote right of A : first\nnote left of A : second\n")
    drawn = render_state(ast, "d", RenderOptions(show_notes=True))
    assert "first" in drawn.text and "second" in drawn.text


def test_a_flowchart_frame_with_a_dash_style_is_dashed_too() -> None:
    from nereid.mermaid import parse_flowchart
    from nereid.render import render_flowchart
    from nereid.render.options import RenderOptions

    text = "flowchart TD\nsubgraph g [G]\n  a\nend\nsubgraph h [H]\n  b\nend\n"
    solid = render_flowchart(parse_flowchart(text), "d", RenderOptions()).text
    dashed = render_flowchart(
        parse_flowchart(text + "style g stroke-dasharray: 5 5\n"), "d", RenderOptions()
    ).text
    assert "┆" not in solid and "┆" in dashed
    assert "╭ H " in dashed  # only the styled frame changes
