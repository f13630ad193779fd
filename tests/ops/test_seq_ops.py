"""Sequence ops: effects, deltas and every error (ops.md §4, mcp-tools.md §15.1, §15.3)."""

from __future__ import annotations

import pytest

from nereid.model import SeqAutonumber, SequenceAst
from nereid.model.sequence import ARROW_KINDS
from tests.ops.ops_testkit import login_seq, refuse, run

L = "d:login/seq"


def test_contract_example_batch() -> None:
    ast, delta = run(
        login_seq(),
        {"type": "seq_add_participant", "participant_id": "p:cache", "mermaid_name": "Cache"},
        {"type": "seq_add_message", "message_id": "m:0005", "from_participant_id": "p:api",
         "to_participant_id": "p:cache", "kind": "async", "text": "warm session", "order_key": 2500},
        {"type": "seq_update_message", "message_id": "m:0004", "text": "200 + token"},
        {"type": "seq_set_participant_note", "participant_id": "p:db", "note": "read replica"},
        diagram_id="login",
    )  # fmt: skip
    assert delta.to_json() == {
        "added": [f"{L}/message/m:0005", f"{L}/participant/p:cache"],
        "removed": [],
        "updated": [f"{L}/message/m:0004", f"{L}/participant/p:db"],
    }
    assert isinstance(ast, SequenceAst)
    assert [m.message_id for m in ast.messages] == [
        "m:0001",
        "m:0002",
        "m:0005",
        "m:0003",
        "m:0004",
    ]
    assert list(ast.participants)[-1] == "p:cache"


@pytest.mark.parametrize(
    ("op", "code", "message", "data"),
    [
        ({"type": "seq_add_participant", "participant_id": "p:api", "mermaid_name": "X"},
         "invalid_params", "object already exists", {"kind": "SeqParticipant", "object_id": "p:api"}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": "Two words"},
         "invalid_params", "invalid mermaid_name: must not contain whitespace", {"mermaid_name": "Two words"}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": ""},
         "invalid_params", "invalid mermaid_name: must not be empty", {"mermaid_name": ""}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": "End"},
         "invalid_params", "invalid mermaid_name: is a reserved Mermaid word", {"mermaid_name": "End"}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": "Api"},
         "invalid_params", "participant Mermaid name already in use", {"mermaid_name": "Api", "participant_id": "p:api"}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": "X", "role": "boss"},
         "invalid_params", "invalid role: must be one of actor, boundary, control, entity, database, collections, queue", {"role": "boss"}),
        ({"type": "seq_add_participant", "participant_id": "p:x", "mermaid_name": "X", "alias": "a;b"},
         "invalid_params", "invalid alias: contains ';' (Mermaid reads it as a statement break; write '#59;')", {"alias": "a;b"}),
        ({"type": "seq_update_participant", "participant_id": "p:nope"},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_update_participant", "participant_id": "p:api", "mermaid_name": "Db"},
         "invalid_params", "participant Mermaid name already in use", {"mermaid_name": "Db", "participant_id": "p:db"}),
        ({"type": "seq_set_participant_note", "participant_id": "p:nope"},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_remove_participant", "participant_id": "p:nope"},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_add_message", "message_id": "m:0001", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": 1},
         "invalid_params", "object already exists", {"kind": "SeqMessage", "object_id": "m:0001"}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:no", "to_participant_id": "p:nix", "kind": "sync", "text": "x", "order_key": 1},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:no"}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:api", "to_participant_id": "p:nix", "kind": "sync", "text": "x", "order_key": 1},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nix"}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": " ", "order_key": 1},
         "invalid_params", "invalid text: must not be empty", {"text": " "}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": "a\nb", "order_key": 1},
         "invalid_params", "invalid text: contains a line break or control character: '\\n' at 1", {"text": "a\nb"}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": 1, "arrow": "=>"},
         "invalid_params", "invalid arrow: not a Mermaid sequence arrow (one of " + ", ".join(ARROW_KINDS) + ")", {"arrow": "=>"}),
        ({"type": "seq_add_message", "message_id": "m:9", "from_participant_id": "p:api", "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": 1, "arrow": "-->>"},
         "invalid_params", "arrow does not match message kind", {"arrow": "-->>", "kind": "sync", "arrow_kind": "return"}),
        ({"type": "seq_update_message", "message_id": "m:nope"},
         "not_found", "object not found", {"kind": "SeqMessage", "object_id": "m:nope"}),
        ({"type": "seq_update_message", "message_id": "m:0001", "from_participant_id": "p:nope"},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_update_message", "message_id": "m:0001", "to_participant_id": "p:nope"},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_update_message", "message_id": "m:0001", "kind": "async", "arrow": "->>"},
         "invalid_params", "arrow does not match message kind", {"arrow": "->>", "kind": "async", "arrow_kind": "sync"}),
        ({"type": "seq_remove_message", "message_id": "m:nope"},
         "not_found", "object not found", {"kind": "SeqMessage", "object_id": "m:nope"}),
        ({"type": "seq_add_note", "note_id": "note:1", "placement": "over", "participant_ids": ["p:api", "p:db", "p:client"], "text": "x", "order_key": 1},
         "invalid_params", "invalid participant_ids: a note over names one or two participants", {"participant_ids": ["p:api", "p:db", "p:client"]}),
        ({"type": "seq_add_note", "note_id": "note:1", "placement": "left_of", "participant_ids": ["p:api", "p:db"], "text": "x", "order_key": 1},
         "invalid_params", "invalid participant_ids: a note left_of names exactly one participant", {"participant_ids": ["p:api", "p:db"]}),
        ({"type": "seq_add_note", "note_id": "note:1", "placement": "over", "participant_ids": ["p:nope"], "text": "x", "order_key": 1},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_add_note", "note_id": "note:1", "placement": "over", "participant_ids": ["p:api"], "text": "", "order_key": 1},
         "invalid_params", "invalid text: must not be empty", {"text": ""}),
        ({"type": "seq_update_note", "note_id": "note:nope"},
         "not_found", "object not found", {"kind": "SeqNote", "object_id": "note:nope"}),
        ({"type": "seq_remove_note", "note_id": "note:nope"},
         "not_found", "object not found", {"kind": "SeqNote", "object_id": "note:nope"}),
        ({"type": "seq_add_activation", "activation_id": "act:1", "participant_id": "p:nope", "active": True, "order_key": 1},
         "not_found", "object not found", {"kind": "SeqParticipant", "object_id": "p:nope"}),
        ({"type": "seq_remove_activation", "activation_id": "act:nope"},
         "not_found", "object not found", {"kind": "SeqActivation", "object_id": "act:nope"}),
        ({"type": "seq_set_title", "title": "a;b"},
         "invalid_params", "invalid title: contains ';' (Mermaid reads it as a statement break; write '#59;')", {"title": "a;b"}),
    ],
)  # fmt: skip
def test_seq_errors(op: dict, code: str, message: str, data: dict) -> None:
    error = refuse(login_seq(), op, diagram_id="login")
    assert (error.category, error.message, error.data) == (code, message, data)


def test_duplicate_note_and_activation_ids() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_note", "note_id": "note:1", "placement": "over",
         "participant_ids": ["p:api"], "text": "hi", "order_key": 1500},
        {"type": "seq_add_activation", "activation_id": "act:1", "participant_id": "p:api",
         "active": True, "order_key": 1600},
    )  # fmt: skip
    error = refuse(ast, {"type": "seq_add_note", "note_id": "note:1", "placement": "over",
                         "participant_ids": ["p:api"], "text": "x", "order_key": 1})  # fmt: skip
    assert error.data == {"kind": "SeqNote", "object_id": "note:1"}
    error = refuse(ast, {"type": "seq_add_activation", "activation_id": "act:1",
                         "participant_id": "p:api", "active": False, "order_key": 1})  # fmt: skip
    assert error.data == {"kind": "SeqActivation", "object_id": "act:1"}


def test_arrows_and_activation_markers() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_message", "message_id": "m:a", "from_participant_id": "p:api",
         "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": 5000, "arrow": "->>+"},
        {"type": "seq_add_message", "message_id": "m:b", "from_participant_id": "p:api",
         "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": 5001, "arrow": "-x"},
        {"type": "seq_add_message", "message_id": "m:c", "from_participant_id": "p:api",
         "to_participant_id": "p:db", "kind": "async", "text": "x", "order_key": 5002, "arrow": " -) "},
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    by_id = {m.message_id: m for m in ast.messages}
    assert (by_id["m:a"].arrow, by_id["m:a"].activation, by_id["m:a"].raw_arrow) == (
        None,
        "+",
        "->>+",
    )
    assert by_id["m:b"].arrow == "-x"
    assert by_id["m:c"].arrow is None  # canonical
    # A kind change without an arrow drops a token of the old kind (canonical of the new one).
    ast, _ = run(ast, {"type": "seq_update_message", "message_id": "m:b", "kind": "return"})
    assert isinstance(ast, SequenceAst)
    m_b = next(m for m in ast.messages if m.message_id == "m:b")
    assert (m_b.kind, m_b.arrow) == ("return", None)
    # Null / "" reset the arrow and its activation marker.
    ast, _ = run(ast, {"type": "seq_update_message", "message_id": "m:a", "arrow": None})
    assert isinstance(ast, SequenceAst)
    m_a = next(m for m in ast.messages if m.message_id == "m:a")
    assert (m_a.arrow, m_a.activation) == (None, None)


def test_remove_participant_cascades() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_note", "note_id": "note:1", "placement": "over",
         "participant_ids": ["p:db", "p:api"], "text": "both", "order_key": 2100},
        {"type": "seq_add_note", "note_id": "note:2", "placement": "right_of",
         "participant_ids": ["p:db"], "text": "only db", "order_key": 2200},
        {"type": "seq_add_activation", "activation_id": "act:1", "participant_id": "p:db",
         "active": True, "order_key": 2300},
        diagram_id="login",
    )  # fmt: skip
    ast, delta = run(ast, {"type": "seq_remove_participant", "participant_id": "p:db"},
                     diagram_id="login")  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert delta.to_json() == {
        "added": [],
        "removed": [
            "d:login/seq/activation/act:1", f"{L}/message/m:0002", f"{L}/message/m:0003", f"{L}/note/note:2",
            f"{L}/participant/p:db", f"{L}/section/sec:0000:00",
        ],
        "updated": [f"{L}/block/b:0000", f"{L}/note/note:1", f"{L}/section/sec:0000:01"],
    }  # fmt: skip
    assert [n.participant_ids for n in ast.notes] == [("p:api",)]
    # The alt lost its main section (m:0003): the else section becomes the main one and its
    # header ("no") becomes the block's.
    (block,) = ast.blocks
    assert (block.header, [(s.section_id, s.kind, s.header, s.message_ids) for s in block.sections]) == (
        "no", [("sec:0000:01", "main", None, ("m:0004",))]
    )  # fmt: skip


def test_participant_alias_role_and_meta() -> None:
    ast, delta = run(
        login_seq(),
        {"type": "seq_update_participant", "participant_id": "p:client", "alias": "The client",
         "role": "actor"},
        {"type": "seq_set_autonumber", "enabled": True, "start": 10, "step": 5},
        {"type": "seq_set_title", "title": "Login"},
        diagram_id="login",
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    client = ast.participants["p:client"]
    assert (client.alias, client.role, client.mermaid_name) == ("The client", "actor", "Client")
    assert (ast.autonumber, ast.title) == (SeqAutonumber(start=10, step=5), "Login")
    assert delta.to_json()["updated"] == ["d:login/diagram/meta", f"{L}/participant/p:client"]
    ast, _ = run(
        ast,
        {"type": "seq_update_participant", "participant_id": "p:client", "alias": None},
        {"type": "seq_set_autonumber", "enabled": False},
        {"type": "seq_set_title", "title": None},
    )
    assert isinstance(ast, SequenceAst)
    assert (ast.participants["p:client"].alias, ast.participants["p:client"].role) == (
        None,
        "actor",
    )
    assert (ast.autonumber, ast.title) == (None, None)


def test_notes_update_and_timeline_order() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_note", "note_id": "note:b", "placement": "left_of",
         "participant_ids": ["p:api"], "text": "b", "order_key": 500},
        {"type": "seq_add_note", "note_id": "note:a", "placement": "over",
         "participant_ids": ["p:api", "p:db"], "text": "a", "order_key": 100},
        {"type": "seq_update_note", "note_id": "note:b", "placement": "over",
         "participant_ids": ["p:api", "p:client"], "order_key": 50},
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert [n.note_id for n in ast.notes] == ["note:b", "note:a"]
    assert ast.notes[0].participant_ids == ("p:api", "p:client")
