"""Ops keep `create`/`destroy` and later `autonumber` statements writable (docs/ops.md,
"Lifelines and later autonumber statements")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import SeqIdHints, export_sequence, parse_sequence, reconcile_sequence
from nereid.model import SequenceAst
from tests.ops.ops_testkit import run
from tests.ops.test_ops_roundtrip import seq_view


def _writable(ast: SequenceAst) -> None:
    """Export, read back with the previous ids: the same diagram, and a fixpoint."""
    text = export_sequence(ast)
    back = reconcile_sequence(parse_sequence(text), SeqIdHints.from_ast(ast))
    assert seq_view(back) == seq_view(ast), text
    assert export_sequence(back) == text


TEXT = """sequenceDiagram
participant A
A->>B: one
autonumber 10
create participant C
participant D
A->>C: two
C->>D: three
destroy C
C-xA: four
autonumber off
D->>A: five
"""


def _seq() -> SequenceAst:
    return parse_sequence(TEXT)


def test_importer_reads_lifelines_and_numbering() -> None:
    ast = _seq()
    assert ast.participants["p:C"].created_by == "m:0002"
    assert ast.participants["p:C"].destroyed_by == "m:0004"
    assert list(ast.participants) == ["p:A", "p:B", "p:C", "p:D"]
    assert [(c.message_id, c.on, c.start) for c in ast.autonumber_changes] == [
        ("m:0002", True, 10),
        ("m:0005", False, None),
    ]
    assert parse_sequence(export_sequence(ast)) == ast


def test_removing_the_creating_message_drops_the_creation_and_moves_numbering() -> None:
    ast, _ = run(_seq(), {"type": "seq_remove_message", "message_id": "m:0002"})
    assert isinstance(ast, SequenceAst)
    assert ast.participants["p:C"].created_by is None
    assert ast.autonumber_changes[0].message_id == "m:0003"
    _writable(ast)


def test_retargeting_the_destroying_message_drops_the_destruction() -> None:
    ast, _ = run(
        _seq(),
        {"type": "seq_update_message", "message_id": "m:0004", "from_participant_id": "p:B"},
    )
    assert isinstance(ast, SequenceAst)
    assert ast.participants["p:C"].destroyed_by is None
    _writable(ast)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["m:0001", "m:0002", "m:0003", "m:0004", "m:0005"]),
                  st.integers(0, 7000)),
        max_size=4,
    )
)  # fmt: skip
def test_moving_messages_keeps_the_diagram_writable(moves: list[tuple[str, int]]) -> None:
    ops = [
        {"type": "seq_update_message", "message_id": mid, "order_key": key} for mid, key in moves
    ]
    ast, _ = run(_seq(), *ops) if ops else (_seq(), None)
    assert isinstance(ast, SequenceAst)
    _writable(ast)
