"""State-diagram import: what Mermaid reads is kept, what it refuses is refused precisely, and
every accepted text round-trips (hypothesis over generated diagrams)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mermaid import (
    MermaidError,
    StateIdHints,
    detect_kind,
    export_state,
    parse_state,
    reconcile_state,
)


def _roundtrip(text: str) -> None:
    ast = parse_state(text)
    exported = export_state(ast)
    again = parse_state(exported)
    assert again == ast
    assert list(again.states.items()) == list(ast.states.items())
    assert list(again.transitions.items()) == list(ast.transitions.items())
    assert export_state(again) == exported


def test_detect_kind() -> None:
    assert detect_kind("%% c\nstateDiagram-v2\n") == "state"
    assert detect_kind("---\ntitle: x\n---\nstateDiagram\n") == "state"


@pytest.mark.parametrize(
    ("text", "kind", "line", "column"),
    [
        ("stateDiagram-v3\n", "MissingHeader", 1, 1),
        ("stateDiagram-v2\n  a --> b; b --> c\n", "UnsupportedSyntax", 2, 10),
        ("stateDiagram-v2\n}\n", "UnexpectedBrace", 2, 1),
        ("stateDiagram-v2\n--\n", "UnexpectedConcurrency", 2, 1),
        ("stateDiagram-v2\nstate A {\n a\n", "UnclosedState", 2, 1),
        ("stateDiagram-v2\na --> b : x : y\n", "InvalidText", 2, None),
        ("stateDiagram-v2\nnote left of a\n text\n", "UnclosedNote", 2, 1),
        ('stateDiagram-v2\nnote "floating" as N\n', "UnsupportedSyntax", 2, 1),
        ("stateDiagram-v2\nhide empty description\n", "UnsupportedSyntax", 2, 1),
        ("stateDiagram-v2\ndirection TD\n", "InvalidDirection", 2, 11),
        ("stateDiagram-v2\na-b --> c\n", "InvalidStateId", 2, 1),
        (
            "stateDiagram-v2\nstate fork1 <<fork>>\nstate fork1 <<join>>\n",
            "ConflictingStateKind",
            3,
            1,
        ),
        ("stateDiagram-v2\na : go direction LR\n", "UnsupportedSyntax", 2, None),
        ("stateDiagram-v2\nnote right of a : x\nnote left of a : y\n", "DuplicateNote", 3, 1),
        ("stateDiagram-v2\n[*]:::hot --> a\n", "UnsupportedSyntax", 2, None),
        ("stateDiagram-v2\nclass a\n", "InvalidClass", 2, None),
        ("stateDiagram-v2\na --> \n", "InvalidTransition", 2, None),
        ("stateDiagram-v2\nstate A {\nstate A {\n}\n}\n", "InvalidState", 3, 1),
    ],
)
def test_refusals_name_line_and_column(text: str, kind: str, line: int, column: int | None) -> None:
    with pytest.raises(MermaidError) as info:
        parse_state(text)
    assert info.value.kind == kind, str(info.value)
    assert info.value.line == line
    assert f"line {line}" in str(info.value) or kind == "UnclosedState"
    if column is not None:
        assert info.value.column == column


def test_a_state_belongs_to_its_first_scope_and_transitions_cross_scopes() -> None:
    text = (
        "stateDiagram-v2\nOutside\nstate C {\n  [*] --> inner\n  inner --> Outside : leave\n"
        "  state D {\n    deep --> inner\n  }\n}\n"
    )
    ast = parse_state(text)
    assert ast.states["s:Outside"].parent is None
    assert ast.states["s:inner"].parent == "s:C"
    assert ast.states["s:deep"].parent == "s:D"
    _roundtrip(text)


def test_keywords_are_case_insensitive_and_alternates_read() -> None:
    ast = parse_state("stateDiagram-v2\nSTATE f [[fork]]\nNote Left Of f : hi\nDirection lr\n")
    assert ast.states["s:f"].kind == "fork"
    assert ast.states["s:f"].note_side == "left of"
    assert ast.direction == "LR"


def test_comment_after_statement_and_colon_text_kept() -> None:
    ast = parse_state("stateDiagram-v2\na --> b %% gone\nb --> c : x %% kept\n")
    labels = [t.label for t in ast.transitions.values()]
    assert labels == [None, "x %% kept"]


def test_multi_line_acc_descr_and_labelled_composite() -> None:
    text = (
        'stateDiagram-v2\naccDescr {\n  one\n  two\n}\nstate "Long name" as L {\n'
        "  direction LR\n  x\n  --\n  y\n}\nL : more\n"
    )
    ast = parse_state(text)
    assert ast.acc_descr == "one\ntwo"
    assert ast.states["s:L"].label == "Long name"
    assert ast.states["s:L"].descriptions == ("more",)
    assert ast.states["s:y"].region == 1
    _roundtrip(text)


def test_front_matter_and_directives_are_kept() -> None:
    text = "---\ntitle: T\n---\n%%{init: {'theme': 'dark'}}%%\nstateDiagram-v2\na --> b\n"
    ast = parse_state(text)
    assert ast.front_matter == "title: T"
    assert ast.directives == ("%%{init: {'theme': 'dark'}}%%",)
    _roundtrip(text)


def test_reconcile_keeps_transition_ids_across_moves() -> None:
    first = parse_state("stateDiagram-v2\na --> b\nb --> c : go\n")
    moved = parse_state("stateDiagram-v2\nx --> a\nb --> c : go\na --> b\n")
    kept = reconcile_state(moved, StateIdHints.from_ast(first))
    by_pair = {(t.from_state_id, t.to_state_id): tid for tid, t in kept.transitions.items()}
    assert by_pair[("s:a", "s:b")] == "t:0001"
    assert by_pair[("s:b", "s:c")] == "t:0002"
    assert by_pair[("s:x", "s:a")] == "t:0003"


# -- property: generated diagrams round-trip ---------------------------------------------------

_NAMES = st.sampled_from(["a", "b", "c", "Idle", "Run_2", "x.y", "é1", "[*]"])
_TEXT = (
    st.text(alphabet=st.sampled_from(list("ab c1é-<>=!?()[]{}'`#%*/\\,.")), min_size=1, max_size=12)
    .map(str.strip)
    .filter(bool)
)


@st.composite
def _block(draw: st.DrawFn, depth: int) -> list[str]:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        choice = draw(st.integers(0, 9 if depth < 3 else 7))
        one, two = draw(_NAMES), draw(_NAMES)
        if choice <= 2:
            label = draw(st.none() | _TEXT)
            lines.append(f"{one} --> {two}" + (f" : {label}" if label else ""))
        elif choice == 3 and one != "[*]":
            lines.append(f"{one} : {draw(_TEXT)}")
        elif choice == 4 and one != "[*]":
            lines.append(f'state "{draw(_TEXT)}" as {one}')
        elif choice == 5 and one != "[*]":
            lines.append(f"note {draw(st.sampled_from(['left of', 'right of']))} {one}")
            lines.extend(draw(st.lists(_TEXT, min_size=1, max_size=3)))
            lines.append("end note")
        elif choice == 6 and one != "[*]":
            lines.append(f"{one}:::hot")
        elif choice == 7 and one != "[*]":
            lines.append(f"state {one} <<{draw(st.sampled_from(['choice', 'fork', 'join']))}>>")
        elif depth < 3 and one != "[*]":
            lines.append(f"state {one.upper()}{depth} {{")
            lines.extend(draw(_block(depth + 1)))
            if draw(st.booleans()):
                lines.append("--")
                lines.extend(draw(_block(depth + 1)))
            lines.append("}")
    return lines


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_block(0))
def test_generated_diagrams_round_trip_or_are_refused_precisely(lines: list[str]) -> None:
    text = "stateDiagram-v2\nclassDef hot fill:#f00\n" + "\n".join(lines) + "\n"
    try:
        ast = parse_state(text)
    except MermaidError as err:
        assert err.line is not None, str(err)
        return
    exported = export_state(ast)
    again = parse_state(exported)
    assert list(again.states.items()) == list(ast.states.items()), exported
    assert list(again.transitions.items()) == list(ast.transitions.items()), exported
    assert export_state(again) == exported
