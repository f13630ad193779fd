"""State-diagram ops (spec decision 24): add, update, move into a composite, remove; deltas;
refusals that change nothing; and every accepted batch exports and reads back equal."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
from nereid.mermaid import export_state, parse_state
from nereid.model import StateAst
from nereid.model.state import StateNote
from nereid.ops import apply_ops, convert_diagram_ops

SEED = parse_state(
    "stateDiagram-v2\n[*] --> Idle\nIdle --> Busy : go\nstate Busy {\n  [*] --> Work\n}\n"
)


def _apply(ast: StateAst, *ops: dict[str, Any]) -> tuple[StateAst, dict[str, list[str]]]:
    new, delta = apply_ops(ast, convert_diagram_ops(list(ops)), diagram_id="d")
    assert isinstance(new, StateAst)
    back = parse_state(export_state(new))
    assert list(back.states.items()) == list(new.states.items())
    assert list(back.transitions.values()) == list(new.transitions.values())
    return new, delta.to_json()


def test_add_states_and_a_transition() -> None:
    new, delta = _apply(
        SEED,
        {"type": "state_set_state", "state_id": "s:Done", "label": "All done"},
        {"type": "state_set_transition", "transition_id": "t:9", "from_node_id": "s:Busy",
         "to_node_id": "s:Done", "label": "finish"},
        {"type": "state_set_state", "state_id": "end"},
        {"type": "state_set_transition", "transition_id": "t:10", "from_node_id": "s:Done",
         "to_node_id": "end"},
    )  # fmt: skip
    assert new.states["s:Done"].label == "All done"
    assert new.states["end"].kind == "end"
    assert delta["added"] == [
        "d:d/state/state/end",
        "d:d/state/state/s:Done",
        "d:d/state/transition/t:10",
        "d:d/state/transition/t:9",
    ]
    assert "Busy --> Done : finish" in export_state(new)


def test_update_keeps_what_is_absent_and_null_clears() -> None:
    new, _ = _apply(
        SEED,
        {"type": "state_set_state", "state_id": "s:Idle", "descriptions": ["waiting"],
         "notes": [{"text": " first\n  second ", "side": "left of"}, {"text": "again"}],
         "classes": ["hot"], "style": "fill:#f00,stroke:#333"},
    )  # fmt: skip
    idle = new.states["s:Idle"]
    assert (idle.descriptions, idle.notes, idle.classes, idle.styles) == (
        ("waiting",),
        (StateNote(text="first\nsecond", side="left of"), StateNote(text="again")),
        ("hot",),
        ("fill:#f00,stroke:#333",),
    )
    cleared, delta = _apply(
        new, {"type": "state_set_state", "state_id": "s:Idle", "notes": None, "style": None}
    )
    assert cleared.states["s:Idle"].notes == () and cleared.states["s:Idle"].styles == ()
    assert cleared.states["s:Idle"].descriptions == ("waiting",)
    assert delta["updated"] == ["d:d/state/state/s:Idle"]


def test_floating_notes_and_classes_on_start_and_end() -> None:
    new, delta = _apply(
        SEED,
        {"type": "state_set_state", "state_id": "s:Memo", "kind": "note",
         "label": "Check the\n  token first"},
        {"type": "state_set_transition", "transition_id": "t:9", "from_node_id": "s:Memo",
         "to_node_id": "s:Idle"},
        {"type": "state_set_state", "state_id": "start", "classes": ["hot"]},
        {"type": "state_set_state", "state_id": "end", "classes": ["done"]},
        {"type": "state_set_transition", "transition_id": "t:10", "from_node_id": "s:Idle",
         "to_node_id": "end"},
    )  # fmt: skip
    assert new.states["s:Memo"].label == "Check the\ntoken first"
    text = export_state(new)
    assert 'note "Check the' in text and "Memo --> Idle" in text
    assert "[*]:::hot --> Idle" in text and "Idle --> [*]:::done" in text
    assert "d:d/state/state/s:Memo" in delta["added"]
    with pytest.raises(NereidError, match="one class per transition"):
        _apply(new, {"type": "state_set_state", "state_id": "end", "classes": ["a", "b"]})


def test_class_defs_and_direction_through_the_shared_flow_ops() -> None:
    new, delta = _apply(
        SEED,
        {"type": "flow_set_class_def", "name": "hot", "style": "fill:#f00,color:white"},
        {"type": "flow_set_direction", "direction": "lr"},
        {"type": "state_set_state", "state_id": "s:Idle", "classes": ["hot"]},
    )
    assert new.class_defs == {"hot": "fill:#f00,color:white"} and new.direction == "LR"
    assert "classDef hot fill:#f00,color:white" in export_state(new)
    assert delta["updated"] == ["d:d/diagram/meta", "d:d/state/state/s:Idle"]
    gone, _ = _apply(new, {"type": "flow_remove_class_def", "name": "hot"})
    assert gone.class_defs == {}
    for op in (
        {"type": "flow_set_direction", "direction": "TD"},
        {"type": "flow_set_class_def", "name": "a b", "style": "fill:#f00"},
        {"type": "flow_remove_class_def", "name": "nope"},
    ):
        with pytest.raises(NereidError):
            apply_ops(SEED, convert_diagram_ops([op]), diagram_id="d")


def test_move_into_a_composite_makes_it_one() -> None:
    new, delta = _apply(
        SEED, {"type": "state_set_state", "state_id": "s:Idle", "parent_id": "s:Busy"}
    )
    assert new.states["s:Idle"].parent == "s:Busy"
    moved, _ = _apply(
        SEED,
        {"type": "state_set_state", "state_id": "s:Inner", "parent_id": "s:Work", "region": 0},
    )
    assert moved.states["s:Work"].composite
    assert moved.states["s:Inner"].parent == "s:Work"
    assert "    state Work {" in export_state(moved)


def test_remove_a_composite_takes_its_states_and_transitions() -> None:
    new, delta = _apply(SEED, {"type": "state_remove", "state_id": "s:Busy"})
    assert set(new.states) == {"start", "s:Idle"}
    assert [t.to_state_id for t in new.transitions.values()] == ["s:Idle"]
    assert "d:d/state/state/s:Work" in delta["removed"]
    assert "d:d/state/state/start:Busy" in delta["removed"]


@pytest.mark.parametrize(
    ("op", "message"),
    [
        ({"type": "state_set_state", "state_id": "s:a-b"}, "invalid state_id"),
        ({"type": "state_set_state", "state_id": "s:Idle", "label": 'say "hi"'}, "invalid label"),
        ({"type": "state_set_state", "state_id": "start:Busy", "parent_id": None}, "start state"),
        ({"type": "state_set_state", "state_id": "s:Busy", "parent_id": "s:Work"}, "inside itself"),
        ({"type": "state_set_state", "state_id": "s:Idle", "kind": "choice", "label": "x"}, "name"),
        ({"type": "state_set_state", "state_id": "s:Idle", "direction": "TD"}, "direction"),
        ({"type": "state_set_state", "state_id": "s:Idle", "notes": [{"text": "x", "side": "up"}]},
         "side"),
        ({"type": "state_set_state", "state_id": "s:Idle", "kind": "note"}, "floating note"),
        ({"type": "state_set_state", "state_id": "s:N", "kind": "note", "label": 'a "b"'},
         "label"),
        ({"type": "state_set_state", "state_id": "s:Idle", "style": "a\nb"}, "style"),
        ({"type": "state_set_state", "state_id": "start", "style": "fill:#f00"}, "style"),
        ({"type": "state_set_state", "state_id": "end", "notes": [{"text": "x"}]}, "note"),
        ({"type": "state_set_transition", "transition_id": "t:9", "from_node_id": "s:Idle",
          "to_node_id": "s:Nope"}, "object not found"),
        ({"type": "state_set_transition", "transition_id": "t:9", "from_node_id": "s:Idle",
          "to_node_id": "start"}, "no way in"),
        ({"type": "state_set_transition", "transition_id": "t:0001", "label": "a: b"}, "label"),
        ({"type": "state_remove", "state_id": "s:Nope"}, "object not found"),
        ({"type": "flow_add_node", "node_id": "n:x", "label": "x"}, "op kind mismatch"),
    ],
)  # fmt: skip
def test_refusals_change_nothing(op: dict[str, Any], message: str) -> None:
    with pytest.raises(NereidError) as info:
        apply_ops(SEED, convert_diagram_ops([op]), diagram_id="d")
    assert message in str(info.value.message) + str(info.value.data)


def test_kind_mismatch_names_the_state_family() -> None:
    flow = parse_state("stateDiagram-v2\na\n")
    with pytest.raises(NereidError) as info:
        apply_ops(
            flow, convert_diagram_ops([{"type": "seq_set_title", "title": "t"}]), diagram_id="d"
        )
    assert info.value.data == {"diagram_kind": "State", "op_kind": "Seq"}


def test_a_start_transition_into_a_later_scope_is_refused() -> None:
    """Mermaid would put the target in the first scope that names it: not writable."""
    ast = parse_state("stateDiagram-v2\nstate A {\n  [*] --> a\n}\nstate B {\n  b\n}\n")
    with pytest.raises(NereidError, match="cannot be written as Mermaid"):
        apply_ops(
            ast,
            convert_diagram_ops(
                [{"type": "state_set_transition", "transition_id": "t:9",
                  "from_node_id": "start:A", "to_node_id": "s:b"}]
            ),
            diagram_id="d",
        )  # fmt: skip


_IDS = st.sampled_from(["s:Idle", "s:Busy", "s:Work", "s:n1", "s:n2", "start", "end", "start:Busy"])


@st.composite
def _ops(draw: st.DrawFn) -> list[dict[str, Any]]:
    ops: list[dict[str, Any]] = []
    for index in range(draw(st.integers(1, 6))):
        roll = draw(st.integers(0, 4))
        state = draw(_IDS)
        if roll == 0:
            ops.append({"type": "state_set_state", "state_id": state})
        elif roll == 1:
            ops.append(
                {"type": "state_set_state", "state_id": state, "parent_id": draw(st.none() | _IDS)}
            )
        elif roll == 2:
            ops.append(
                {"type": "state_set_transition", "transition_id": f"t:x{index}",
                 "from_node_id": state, "to_node_id": draw(_IDS),
                 "label": draw(st.none() | st.sampled_from(["go", "back"]))}
            )  # fmt: skip
        elif roll == 3:
            ops.append({"type": "state_remove", "state_id": state})
        else:
            ops.append({"type": "state_set_state", "state_id": state, "descriptions": ["d"]})
    return ops


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_ops())
def test_any_accepted_batch_exports_and_reads_back_equal(ops: list[dict[str, Any]]) -> None:
    try:
        new, _delta = apply_ops(SEED, convert_diagram_ops(ops), diagram_id="d")
    except NereidError:
        return
    assert isinstance(new, StateAst)
    back = parse_state(export_state(new))
    assert list(back.states.items()) == list(new.states.items())
    assert list(back.transitions.values()) == list(new.transitions.values())


def test_three_way_merge_keeps_both_sides() -> None:
    """The TUI editor's merge (`merge_asts`) on a state diagram: the person's text edit and an
    agent's op meanwhile both survive; a transition to a state the other side removed is a
    conflict."""
    from nereid.mermaid import StateIdHints, reconcile_state
    from nereid.ops.merge3 import merge_asts

    base = SEED
    current, _ = _apply(base, {"type": "state_set_state", "state_id": "s:Agent"})
    edited = reconcile_state(
        parse_state(export_state(base).replace("Idle --> Busy : go", "Idle --> Busy : start")),
        StateIdHints.from_ast(base),
    )
    merged = merge_asts(base, current, edited)
    assert not merged.conflicts
    assert "s:Agent" in merged.ast.states
    assert [t.label for t in merged.ast.transitions.values()].count("start") == 1
    gone, _ = _apply(base, {"type": "state_remove", "state_id": "s:Work"})
    added = parse_state(export_state(base).replace("}", "  Work --> Extra\n}"))
    clash = merge_asts(base, gone, reconcile_state(added, StateIdHints.from_ast(base)))
    assert clash.conflicts
