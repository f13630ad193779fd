"""Block and section ops, membership upkeep on removal, and the exportability check."""

from __future__ import annotations

from typing import Any

from nereid.mermaid import export_sequence, parse_mermaid
from nereid.model import SeqBlock, SequenceAst
from tests.ops.ops_testkit import login_seq, refuse, run

L = "d:login/seq"


def shape(blocks: tuple[SeqBlock, ...]) -> list:
    """A compact view of a block tree: (id, kind, header, [(section, kind, ids)], children)."""
    return [
        (b.block_id, b.kind, b.header,
         [(s.section_id, s.kind, s.header, list(s.message_ids)) for s in b.sections],
         shape(b.blocks))
        for b in blocks
    ]  # fmt: skip


def msg(message_id: str, order_key: int) -> dict:
    return {"type": "seq_add_message", "message_id": message_id, "from_participant_id": "p:api",
            "to_participant_id": "p:db", "kind": "sync", "text": "x", "order_key": order_key}  # fmt: skip


def test_add_block_infers_parent_and_adopts_children() -> None:
    ast, delta = run(
        login_seq(),
        {"type": "seq_add_block", "block_id": "b:in", "kind": "opt",
         "sections": [{"section_id": "s:in", "message_ids": ["m:0003"]}]},
        {"type": "seq_add_block", "block_id": "b:top", "kind": "loop", "header": "retry",
         "parent_block_id": None,
         "sections": [{"section_id": "s:top", "message_ids": ["m:0002", "m:0003", "m:0004"]}]},
        diagram_id="login",
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert shape(ast.blocks) == [
        ("b:top", "loop", "retry", [("s:top", "main", None, ["m:0002", "m:0003", "m:0004"])], [
            ("b:0000", "alt", "user exists",
             [("sec:0000:00", "main", None, ["m:0003"]), ("sec:0000:01", "else", "no", ["m:0004"])],
             [("b:in", "opt", None, [("s:in", "main", None, ["m:0003"])], [])]),
        ]),
    ]  # fmt: skip
    assert delta.to_json() == {
        "added": [f"{L}/block/b:in", f"{L}/block/b:top", f"{L}/section/s:in", f"{L}/section/s:top"],
        "removed": [],
        "updated": [f"{L}/block/b:0000"],
    }


def test_message_inside_a_section_span_must_be_a_member() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_update_section", "section_id": "sec:0000:00",
         "message_ids": ["m:0002", "m:0003"]},
    )  # fmt: skip
    error = refuse(ast, msg("m:new", 2500), diagram_id="login")
    assert (error.message, error.data) == (
        "invalid block structure",
        {"block_id": "b:0000",
         "reason": "section sec:0000:00 is not a contiguous run of messages: "
                   "message m:new lies inside it but is not a member"},
    )  # fmt: skip
    # ... and is accepted when the same batch adds it to the section.
    ast, delta = run(
        ast,
        msg("m:new", 2500),
        {"type": "seq_update_section", "section_id": "sec:0000:00",
         "message_ids": ["m:0002", "m:new", "m:0003"]},
        diagram_id="login",
    )  # fmt: skip
    assert delta.to_json()["added"] == [f"{L}/message/m:new"]
    assert delta.to_json()["updated"] == [f"{L}/section/sec:0000:00"]


def test_gap_between_sections_is_refused() -> None:
    error = refuse(
        login_seq(),
        msg("m:new", 3500),
        diagram_id="login",
    )
    assert error.data == {
        "block_id": "b:0000",
        "reason": "message m:new lies between sections sec:0000:00 and sec:0000:01",
    }


def test_removing_every_member_removes_the_block() -> None:
    ast, delta = run(
        login_seq(),
        {"type": "seq_remove_message", "message_id": "m:0003"},
        {"type": "seq_remove_message", "message_id": "m:0004"},
        diagram_id="login",
    )
    assert isinstance(ast, SequenceAst)
    assert ast.blocks == ()
    assert delta.to_json()["removed"] == [
        f"{L}/block/b:0000", f"{L}/message/m:0003", f"{L}/message/m:0004",
        f"{L}/section/sec:0000:00", f"{L}/section/sec:0000:01",
    ]  # fmt: skip


def test_remove_block_keeps_messages_and_children() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_block", "block_id": "b:in", "kind": "opt",
         "sections": [{"section_id": "s:in", "message_ids": ["m:0004"]}]},
    )  # fmt: skip
    ast, delta = run(ast, {"type": "seq_remove_block", "block_id": "b:0000"}, diagram_id="login")
    assert isinstance(ast, SequenceAst)
    assert shape(ast.blocks) == [("b:in", "opt", None, [("s:in", "main", None, ["m:0004"])], [])]
    assert len(ast.messages) == 4
    assert delta.to_json()["removed"] == [
        f"{L}/block/b:0000",
        f"{L}/section/sec:0000:00",
        f"{L}/section/sec:0000:01",
    ]


def test_sections_add_update_remove() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_update_section", "section_id": "sec:0000:00",
         "message_ids": ["m:0002", "m:0003"]},
        {"type": "seq_update_block", "block_id": "b:0000", "header": "found"},
        {"type": "seq_update_section", "section_id": "sec:0000:01", "header": None},
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert ast.blocks[0].header == "found" and ast.blocks[0].sections[1].header is None
    ast, delta = run(ast, {"type": "seq_remove_section", "section_id": "sec:0000:00"},
                     diagram_id="login")  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert shape(ast.blocks) == [
        ("b:0000", "alt", None, [("sec:0000:01", "main", None, ["m:0004"])], [])
    ]
    assert delta.to_json()["removed"] == [f"{L}/section/sec:0000:00"]
    ast, _ = run(
        ast,
        {"type": "seq_add_section", "block_id": "b:0000", "section_id": "sec:new",
         "header": "later", "message_ids": []},
        {"type": "seq_update_section", "section_id": "sec:0000:01", "message_ids": ["m:0003"]},
        {"type": "seq_update_section", "section_id": "sec:new", "message_ids": ["m:0004"]},
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    assert [s.kind for s in ast.blocks[0].sections] == ["main", "else"]


def test_block_errors() -> None:
    cases: list[tuple[dict[str, Any], tuple[str, dict[str, Any]]]] = [
        ({"type": "seq_add_block", "block_id": "b:0000", "kind": "opt",
          "sections": [{"section_id": "s", "message_ids": ["m:0001"]}]},
         ("object already exists", {"kind": "SeqBlock", "object_id": "b:0000"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "when",
          "sections": [{"section_id": "s", "message_ids": ["m:0001"]}]},
         ("invalid kind: must be one of alt, opt, loop, par, par_over, critical, break, rect",
          {"kind": "when"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt", "sections": []},
         ("invalid sections: a block needs at least one section", {"sections": []})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s1", "message_ids": ["m:0001"]},
                       {"section_id": "s2", "message_ids": ["m:0002"]}]},
         ("block kind has only one section", {"block_id": "b:x", "kind": "opt"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "sec:0000:01", "message_ids": ["m:0001"]}]},
         ("object already exists", {"kind": "SeqSection", "object_id": "sec:0000:01"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s", "message_ids": ["m:nope"]}]},
         ("object not found", {"kind": "SeqMessage", "object_id": "m:nope"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s", "message_ids": ["m:0001", "m:0001"]}]},
         ("invalid message_ids: lists a message twice", {"message_ids": ["m:0001", "m:0001"]})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s", "header": "h", "message_ids": ["m:0001"]}]},
         ("invalid header: the main section has no header; set the block's header instead",
          {"header": "h"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt", "parent_block_id": "b:no",
          "sections": [{"section_id": "s", "message_ids": ["m:0001"]}]},
         ("object not found", {"kind": "SeqBlock", "object_id": "b:no"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s", "message_ids": ["m:0002", "m:0003"]}]},
         ("invalid block structure",
          {"block_id": "b:0000", "reason": "overlaps block b:x"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt",
          "sections": [{"section_id": "s", "message_ids": ["m:0001", "m:0003"]}]},
         ("invalid block structure",
          {"block_id": "b:x", "reason": "section s is not a contiguous run of messages: "
                                         "message m:0002 lies inside it but is not a member"})),
        ({"type": "seq_add_block", "block_id": "b:x", "kind": "opt", "parent_block_id": "b:0000",
          "sections": [{"section_id": "s", "message_ids": ["m:0001"]}]},
         ("invalid block structure",
          {"block_id": "b:x", "reason": "does not lie inside one section of block b:0000"})),
        ({"type": "seq_update_block", "block_id": "b:no"},
         ("object not found", {"kind": "SeqBlock", "object_id": "b:no"})),
        ({"type": "seq_remove_block", "block_id": "b:no"},
         ("object not found", {"kind": "SeqBlock", "object_id": "b:no"})),
        ({"type": "seq_add_section", "block_id": "b:no", "section_id": "s", "message_ids": []},
         ("object not found", {"kind": "SeqBlock", "object_id": "b:no"})),
        ({"type": "seq_add_section", "block_id": "b:0000", "section_id": "sec:0000:00",
          "message_ids": []},
         ("object already exists", {"kind": "SeqSection", "object_id": "sec:0000:00"})),
        ({"type": "seq_add_section", "block_id": "b:0000", "section_id": "s", "message_ids": []},
         ("invalid block structure", {"block_id": "b:0000", "reason": "section s is empty"})),
        ({"type": "seq_update_section", "section_id": "s:no"},
         ("object not found", {"kind": "SeqSection", "object_id": "s:no"})),
        ({"type": "seq_update_section", "section_id": "sec:0000:00", "header": "h"},
         ("invalid header: the main section has no header; set the block's header instead",
          {"header": "h"})),
        ({"type": "seq_remove_section", "section_id": "s:no"},
         ("object not found", {"kind": "SeqSection", "object_id": "s:no"})),
    ]  # fmt: skip
    for op, (message, data) in cases:
        error = refuse(login_seq(), op, diagram_id="login")
        assert (error.message, error.data) == (message, data), op


def test_single_section_rules() -> None:
    ast, _ = run(
        login_seq(),
        {"type": "seq_add_block", "block_id": "b:o", "kind": "opt",
         "sections": [{"section_id": "s:o", "message_ids": ["m:0001"]}]},
    )  # fmt: skip
    error = refuse(ast, {"type": "seq_add_section", "block_id": "b:o", "section_id": "s",
                         "message_ids": ["m:0002"]})  # fmt: skip
    assert (error.message, error.data) == (
        "block kind has only one section",
        {"block_id": "b:o", "kind": "opt"},
    )
    error = refuse(ast, {"type": "seq_remove_section", "section_id": "s:o"})
    assert (error.message, error.data) == (
        "a block needs at least one section",
        {"block_id": "b:o", "section_id": "s:o"},
    )


def test_nesting_depth_limit() -> None:
    ops = [
        {"type": "seq_add_block", "block_id": f"b:{i}", "kind": "loop",
         "sections": [{"section_id": f"s:{i}", "message_ids": ["m:0001"]}]}
        for i in range(8)
    ]  # fmt: skip
    run(login_seq(), *ops)
    error = refuse(login_seq(), *ops, {"type": "seq_add_block", "block_id": "b:deep",
                                       "kind": "opt", "sections": [
                                           {"section_id": "s:deep", "message_ids": ["m:0001"]}]})  # fmt: skip
    assert error.data == {"block_id": "b:deep", "reason": "blocks are nested more than 8 deep"}


def note(note_id: str, order_key: int) -> dict:
    return {"type": "seq_add_note", "note_id": note_id, "placement": "over",
            "participant_ids": ["p:api"], "text": "n", "order_key": order_key}  # fmt: skip


def notes_of(blocks: tuple[SeqBlock, ...]) -> dict[str, list[str]]:
    """Section id -> its note ids, over the whole tree."""
    found: dict[str, list[str]] = {}
    for block in blocks:
        found |= {s.section_id: list(s.note_ids) for s in block.sections}
        found |= notes_of(block.blocks)
    return found


def test_a_note_placed_inside_a_section_joins_it_as_the_text_reads() -> None:
    wide, _ = run(
        login_seq(),
        {"type": "seq_update_section", "section_id": "sec:0000:00",
         "message_ids": ["m:0002", "m:0003"]},
    )  # fmt: skip
    ast, delta = run(
        wide,
        note("note:in", 2500),  # between two members of the main section
        note("note:gap", 3500),  # between the sections: the earlier one, as exported
        note("note:out", 4500),  # after the block: outside
        note("note:before", 1500),
        diagram_id="login",
    )
    assert isinstance(ast, SequenceAst)
    assert notes_of(ast.blocks) == {"sec:0000:00": ["note:in", "note:gap"], "sec:0000:01": []}
    assert f"{L}/section/sec:0000:00" in delta.to_json()["updated"]
    text = export_sequence(ast)
    assert (
        text.index("Note over Api: n")
        < text.index("alt user exists")
        < text.index("else no")
        < text.rindex("Note over Api: n")
    )
    back = parse_mermaid(text)  # the same members read back (ids are the parser's)
    assert isinstance(back, SequenceAst)
    assert [len(n) for n in notes_of(back.blocks).values()] == [2, 0]


def test_sections_of_notes_only_and_their_upkeep() -> None:
    ast, _ = run(
        login_seq(),
        note("note:a", 4700),
        note("note:b", 4600),
        {"type": "seq_add_block", "block_id": "b:n", "kind": "loop", "header": "notes",
         "sections": [{"section_id": "s:n", "message_ids": [], "note_ids": ["note:a"]}]},
        {"type": "seq_add_section", "block_id": "b:0000", "section_id": "s:e2", "message_ids": [],
         "note_ids": ["note:b"]},
        diagram_id="login",
    )  # fmt: skip
    assert isinstance(ast, SequenceAst)
    text = export_sequence(ast)
    assert "loop notes\nNote over Api: n\nend\n" in text  # a section holding only a note
    back = parse_mermaid(text)
    assert isinstance(back, SequenceAst)
    assert [len(n) for n in notes_of(back.blocks).values()] == [0, 0, 1, 1]
    # Removing the only member drops the section (and a block left empty).
    gone, _ = run(ast, {"type": "seq_remove_note", "note_id": "note:a"}, diagram_id="login")
    assert isinstance(gone, SequenceAst)
    assert [b.block_id for b in gone.blocks] == ["b:0000"]
    error = refuse(
        ast,
        {"type": "seq_update_section", "section_id": "s:n", "note_ids": ["note:nope"]},
        diagram_id="login",
    )
    assert error.category == "not_found"
    # A member note moved out of its section is refused, as a moved message is.
    error = refuse(
        ast, {"type": "seq_update_note", "note_id": "note:b", "order_key": 500},
        diagram_id="login",
    )  # fmt: skip
    assert error.message == "invalid block structure"
