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
