"""Hint-jump and the Objects list on a state diagram (pure: no terminal needed)."""

from __future__ import annotations

from nereid.mermaid import parse_state
from nereid.model import STATE_STATE, STATE_TRANSITION, Diagram
from nereid.render import render_state
from nereid.ui.hints import hint_targets
from nereid.ui.objects import SELECTABLE, selectable_objects

TEXT = "stateDiagram-v2\n[*] --> A\nA --> B : go\nstate B {\n  [*] --> b1\n}\nB --> [*]\n"


def test_hints_reach_every_state_and_transition() -> None:
    ast = parse_state(TEXT)
    targets = hint_targets(render_state(ast, "d"), chain=False)
    refs = {t.ref for t in targets}
    assert {r.object_id for r in refs if r.category == STATE_STATE} == set(ast.states)
    assert {r.object_id for r in refs if r.category == STATE_TRANSITION} == set(ast.transitions)
    assert len({t.label for t in targets}) == len(targets)


def test_objects_list_names_states_and_transitions() -> None:
    ast = parse_state(TEXT)
    items = selectable_objects(Diagram(diagram_id="d", name="d", kind="state", ast=ast))
    assert all(item.ref.category in SELECTABLE for item in items)
    labels = [item.label for item in items]
    assert "state s:A (A)" in labels
    assert any(label.startswith("transition ") and "(go)" in label for label in labels)
