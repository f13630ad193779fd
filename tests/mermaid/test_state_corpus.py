"""The Mermaid docs' state-diagram examples (`shared/corpus/mermaid-docs/state-*.mmd`).

Every file imports, round-trips (import, export, import gives the same AST and the export is a
fixed point), and has the structure Mermaid gives it: the composites, regions, pseudo-states,
kinds, notes and classes checked below per file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nereid.mermaid import export_state, parse_mermaid, parse_state
from nereid.model import StateAst
from tests.mermaid.corpus_files import corpus_files, skip_without

FILES = corpus_files("state-*.mmd")
pytestmark = skip_without(FILES)


def _load(name: str) -> StateAst:
    path = next(p for p in FILES if p.name == name)
    ast = parse_mermaid(path.read_text(encoding="utf-8"))
    assert isinstance(ast, StateAst)
    return ast


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_each_file_imports_and_round_trips(path: Path) -> None:
    ast = parse_state(path.read_text(encoding="utf-8"))
    exported = export_state(ast)
    again = parse_state(exported)
    assert again == ast
    assert list(again.states) == list(ast.states)
    assert list(again.transitions.items()) == list(ast.transitions.items())
    assert export_state(again) == exported


def _edges(ast: StateAst) -> list[tuple[str, str, str | None]]:
    return [(t.from_state_id, t.to_state_id, t.label) for t in ast.transitions.values()]


def test_simple_start_and_end_are_one_per_scope() -> None:
    ast = _load("state-001.mmd")
    assert ast.front_matter == "title: Simple sample"
    assert set(ast.states) == {"s:Still", "s:Moving", "s:Crash", "start", "end"}
    assert ("start", "s:Still", None) in _edges(ast)
    assert ("s:Crash", "end", None) in _edges(ast)
    assert _load("state-002.mmd").header == "stateDiagram"


def test_names_descriptions_and_labels() -> None:
    assert _load("state-004.mmd").states["s:s2"].label == "This is a state description"
    assert _load("state-005.mmd").states["s:s2"].descriptions == ("This is a state description",)
    assert _edges(_load("state-007.mmd")) == [("s:s1", "s:s2", "A transition")]


def test_composites_own_their_start_and_children() -> None:
    ast = _load("state-009.mmd")
    assert ast.states["s:First"].composite and ast.states["s:NamedComposite"].composite
    assert ast.states["s:second"].parent == "s:First"
    assert ast.states["start:First"].parent == "s:First"
    assert ("start:First", "s:second", None) in _edges(ast)
    assert ("start", "s:First", None) in _edges(ast)
    assert ast.states["s:NamedComposite"].descriptions == ("Another Composite",)
    deep = _load("state-010.mmd")
    assert deep.states["s:third"].parent == "s:Third"
    assert deep.states["s:Third"].parent == "s:Second"
    assert deep.states["s:Second"].parent == "s:First"


def test_choice_fork_join() -> None:
    choice = _load("state-012.mmd")
    assert choice.states["s:if_state"].kind == "choice"
    assert ("s:if_state", "s:False", "if n < 0") in _edges(choice)
    fork = _load("state-013.mmd")
    assert fork.states["s:fork_state"].kind == "fork"
    assert fork.states["s:join_state"].kind == "join"


def test_notes() -> None:
    ast = _load("state-014.mmd")
    (one,) = ast.states["s:State1"].notes
    assert (one.side, one.text) == ("right of", "Important information! You can write\nnotes.")
    (two,) = ast.states["s:State2"].notes
    assert (two.side, two.text) == ("left of", "This is the note to the left.")


def test_concurrency_regions_have_their_own_starts() -> None:
    ast = _load("state-015.mmd")
    assert [ast.states[s].region for s in ("s:NumLockOff", "s:CapsLockOff", "s:ScrollLockOff")] == [
        0,
        1,
        2,
    ]
    assert {"start:Active", "start:Active:2", "start:Active:3"} <= set(ast.states)
    assert ("start:Active:2", "s:CapsLockOff", None) in _edges(ast)


def test_directions_classes_and_accessibility() -> None:
    ast = _load("state-016.mmd")
    assert ast.direction == "LR" and ast.states["s:B"].direction == "LR"
    assert ast.states["s:a"].parent == "s:B"
    styled = _load("state-017.mmd")
    assert styled.acc_title == "This is the accessible title"
    assert styled.acc_descr == "This is an accessible description"
    assert styled.states["s:Crash"].classes == ("movement", "badBadEvent")
    assert styled.states["s:end"].classes == ("badBadEvent",)  # `class end x` makes a state
    inline = _load("state-018.mmd")
    assert inline.states["s:Crash"].classes == ("movement", "badBadEvent")
    assert inline.class_defs["movement"] == "font-style:italic;"
    assert _load("state-019.mmd").states["s:yswsii"].classes == ("yourState",)


def test_comments_are_dropped() -> None:
    assert _edges(_load("state-020.mmd")) == _edges(_load("state-002.mmd"))
