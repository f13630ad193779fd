"""Stable ids across re-imports (mermaid.md §6.3, R04, R06) and an edit scenario."""

from __future__ import annotations

import msgspec

from nereid.mermaid import SeqIdHints, export_sequence, parse_sequence, reconcile_sequence
from nereid.mermaid.reconcile_sequence import MessageHint


def test_r04_changed_text_gets_a_fresh_id() -> None:
    hints = SeqIdHints(messages=(MessageHint("m:0001", "p:A", "p:B", "sync", "First"),))
    ast = reconcile_sequence(parse_sequence("sequenceDiagram\nA->>B: Second"), hints)
    assert [m.message_id for m in ast.messages] == ["m:0002"]


def test_r06_participant_keeps_its_stable_id() -> None:
    hints = SeqIdHints(by_name={"Alicia": "p:alice"})
    ast = reconcile_sequence(parse_sequence("sequenceDiagram\nAlicia->>Bob: hi"), hints)
    assert list(ast.participants) == ["p:alice", "p:Bob"]
    assert ast.participants["p:alice"].mermaid_name == "Alicia"
    assert ast.messages[0].from_participant_id == "p:alice"
    assert export_sequence(ast).endswith("Alicia->>Bob: hi\n")


def test_spec_example_fifo_and_fresh_ids() -> None:
    hints = SeqIdHints(
        messages=(
            MessageHint("m:save", "p:ui", "p:api", "sync", "Save"),
            MessageHint("m:0001", "p:ui", "p:api", "sync", "Load"),
        )
    )
    ast = reconcile_sequence(
        parse_sequence("sequenceDiagram\nui->>api: Open\nui->>api: Save"), hints
    )
    assert [m.message_id for m in ast.messages] == ["m:0003", "m:save"]


def test_participant_conflicts_get_reconcile_suffix() -> None:
    hints = SeqIdHints(by_name={"Alicia": "p:Bob", "bad": "p:x/y"})
    ast = reconcile_sequence(
        parse_sequence("sequenceDiagram\nAlicia->>Bob: hi\nbad->>Bob: x"), hints
    )
    assert list(ast.participants) == ["p:Bob", "p:Bob:reconcile:0001", "p:bad"]
    assert [(m.from_participant_id, m.to_participant_id) for m in ast.messages] == [
        ("p:Bob", "p:Bob:reconcile:0001"),
        ("p:bad", "p:Bob:reconcile:0001"),
    ]


def test_edit_scenario_keeps_ids_of_untouched_objects() -> None:
    before = parse_sequence(
        "sequenceDiagram\nparticipant ui\nparticipant api\nalt ok\nui->>api: Load\n"
        "api-->>ui: data\nelse fail\napi-->>ui: error\nend\nNote over ui: done\nactivate api"
    )
    # Give objects stable names the way ops and the side-car would.
    renamed = {"m:0001": "m:load", "m:0002": "m:data", "m:0003": "m:error"}
    before = msgspec.structs.replace(
        before,
        participants={
            ("p:frontend" if pid == "p:ui" else pid): (
                msgspec.structs.replace(p, note="the browser") if pid == "p:ui" else p
            )
            for pid, p in before.participants.items()
        },
        messages=tuple(
            msgspec.structs.replace(
                m,
                message_id=renamed[m.message_id],
                from_participant_id=m.from_participant_id.replace("p:ui", "p:frontend"),
                to_participant_id=m.to_participant_id.replace("p:ui", "p:frontend"),
            )
            for m in before.messages
        ),
        notes=tuple(
            msgspec.structs.replace(n, note_id="note:done", participant_ids=("p:frontend",))
            for n in before.notes
        ),
        blocks=(),
    )
    hints = SeqIdHints.from_ast(before)
    # The person inserts a message at the top and rewords the error message.
    edited = parse_sequence(
        "sequenceDiagram\nparticipant ui\nparticipant api\nui->>api: Hello\nalt ok\n"
        "ui->>api: Load\napi-->>ui: data\nelse fail\napi-->>ui: failure\nend\n"
        "Note over ui: done\nactivate api"
    )
    ast = reconcile_sequence(edited, hints)
    assert list(ast.participants) == ["p:frontend", "p:api"]
    assert ast.participants["p:frontend"].note == "the browser"
    assert [m.message_id for m in ast.messages] == ["m:0001", "m:load", "m:data", "m:0004"]
    assert [n.note_id for n in ast.notes] == ["note:done"]
    assert [a.activation_id for a in ast.activations] == ["act:0001"]
    (block,) = ast.blocks
    assert [s.message_ids for s in block.sections] == [("m:load", "m:data"), ("m:0004",)]
    # The reconciled AST still exports to the same text as the fresh parse.
    assert export_sequence(ast) == export_sequence(edited)


def test_from_ast_then_reconcile_is_identity_for_the_same_text() -> None:
    text = "sequenceDiagram\nA->>B: x\nNote left of A: n\nA->>B: x\nactivate B"
    ast = parse_sequence(text)
    assert reconcile_sequence(parse_sequence(text), SeqIdHints.from_ast(ast)) == ast


def test_empty_hints_change_nothing() -> None:
    ast = parse_sequence("sequenceDiagram\nA->>B: x")
    assert reconcile_sequence(ast, SeqIdHints()) == ast


def test_hints_are_msgspec_serialisable() -> None:
    hints = SeqIdHints.from_ast(parse_sequence("sequenceDiagram\nA->>B: x\nNote over A: y"))
    assert msgspec.json.decode(msgspec.json.encode(hints), type=SeqIdHints) == hints
