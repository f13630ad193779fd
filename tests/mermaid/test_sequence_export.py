"""Export of ASTs the importer did not make: validation and §9 export errors."""

from __future__ import annotations

import msgspec
import pytest

from nereid.mermaid import MermaidExportError, export_sequence, parse_sequence
from nereid.model.sequence import (
    SeqBlock,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
)

BASE = parse_sequence("sequenceDiagram\nalt a\nA->>B: 1\nA->>B: 2\nelse b\nA->>B: 3\nend\nA->>B: 4")


def with_blocks(*blocks: SeqBlock) -> SequenceAst:
    return msgspec.structs.replace(BASE, blocks=blocks)


def section(section_id: str, kind: str, *ids: str) -> SeqSection:
    return SeqSection(section_id=section_id, kind=kind, message_ids=ids)


def export_error(ast: SequenceAst) -> str:
    with pytest.raises(MermaidExportError) as info:
        export_sequence(ast)
    return str(info.value)


def test_base_exports() -> None:
    assert export_sequence(BASE) == (
        "sequenceDiagram\nparticipant A\nparticipant B\nalt a\nA->>B: 1\nA->>B: 2\nelse b\n"
        "A->>B: 3\nend\nA->>B: 4\n"
    )


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (SeqBlock(block_id="b:1", kind="opt"), "cannot export block b:1: has no sections"),
        (
            SeqBlock(block_id="b:1", kind="opt", sections=(section("s", "main"),)),
            "cannot export block b:1: section s is empty",
        ),
        (
            SeqBlock(block_id="b:1", kind="opt", sections=(section("s", "main", "m:9"),)),
            "cannot export block b:1: section s references missing message id m:9",
        ),
        (
            SeqBlock(
                block_id="b:1", kind="opt", sections=(section("s", "main", "m:0001", "m:0003"),)
            ),
            "cannot export block b:1: section s message membership is not contiguous",
        ),
        (
            SeqBlock(
                block_id="b:1",
                kind="alt",
                sections=(section("s0", "main", "m:0001"), section("s1", "else", "m:0003")),
            ),
            "cannot export block b:1: section s1 does not start immediately after previous "
            "section s0",
        ),
        (
            SeqBlock(
                block_id="b:1",
                kind="opt",
                sections=(section("s0", "main", "m:0001"), section("s1", "else", "m:0002")),
            ),
            "cannot export block b:1: section s1: a 'opt' block has one section",
        ),
        (
            SeqBlock(block_id="b:1", kind="group", sections=(section("s", "main", "m:0001"),)),
            "cannot export block b:1: unsupported block kind 'group'",
        ),
    ],
)
def test_block_membership_errors(block: SeqBlock, reason: str) -> None:
    assert export_error(with_blocks(block)).startswith(reason)


def test_nested_and_sibling_errors() -> None:
    child = SeqBlock(block_id="b:2", kind="opt", sections=(section("c", "main", "m:0003"),))
    parent = SeqBlock(
        block_id="b:1",
        kind="loop",
        sections=(section("p", "main", "m:0001", "m:0002"),),
        blocks=(child,),
    )
    assert export_error(with_blocks(parent)) == (
        "cannot export block b:1: nested block b:2 is outside parent message range"
    )
    straddle = SeqBlock(
        block_id="b:2", kind="opt", sections=(section("c", "main", "m:0002", "m:0003"),)
    )
    alt = SeqBlock(
        block_id="b:1",
        kind="alt",
        sections=(section("p0", "main", "m:0001", "m:0002"), section("p1", "else", "m:0003")),
        blocks=(straddle,),
    )
    assert export_error(with_blocks(alt)) == (
        "cannot export block b:1: nested block b:2 is not contained within a single parent section"
    )
    one = SeqBlock(block_id="b:1", kind="opt", sections=(section("x", "main", "m:0001", "m:0002"),))
    two = SeqBlock(block_id="b:2", kind="opt", sections=(section("y", "main", "m:0002"),))
    assert export_error(with_blocks(one, two)) == (
        "cannot export block b:2: root blocks overlap: b:1 [0..1] and b:2 [1..1]"
    )


def test_blocks_without_messages() -> None:
    ast = SequenceAst(
        blocks=(SeqBlock(block_id="b:1", kind="opt", sections=(section("s", "main", "m:1"),)),)
    )
    assert export_error(ast) == ("cannot export block b:1: diagram contains blocks but no messages")


def test_message_and_participant_errors() -> None:
    message = BASE.messages[0]
    ghost = msgspec.structs.replace(message, to_participant_id="p:ghost")
    ast = msgspec.structs.replace(BASE, messages=(ghost,), blocks=())
    assert export_error(ast) == "message references missing participant id: p:ghost"
    newline = msgspec.structs.replace(message, text="a\nb")
    ast = msgspec.structs.replace(BASE, messages=(newline,), blocks=())
    assert export_error(ast).startswith("cannot export message text for m:0001")
    semicolon = msgspec.structs.replace(message, text="a; b")
    ast = msgspec.structs.replace(BASE, messages=(semicolon,), blocks=())
    assert "#59;" in export_error(ast)
    bad_name = SequenceAst(participants={"p:x": SeqParticipant(mermaid_name="a->b")})
    assert export_error(bad_name).startswith("cannot export participant p:x: invalid name")
    bad_role = SequenceAst(participants={"p:x": SeqParticipant(mermaid_name="x", role="robot")})
    assert "unsupported role 'robot'" in export_error(bad_role)


def test_note_errors_and_order_keys_from_ops() -> None:
    note = SeqNote(
        note_id="note:x",
        placement="left_of",
        participant_ids=("p:A", "p:B"),
        text="t",
        order_key=1,
    )
    assert export_error(msgspec.structs.replace(BASE, notes=(note,))).startswith(
        "cannot export note note:x"
    )
    # An op-made message with an odd order key still exports in timeline order.
    extra = SeqMessage(
        message_id="m:new",
        from_participant_id="p:B",
        to_participant_id="p:A",
        kind="async",
        text="late",
        order_key=4500,
        arrow="--)",
    )
    ast = msgspec.structs.replace(BASE, messages=(*BASE.messages, extra))
    assert export_sequence(ast).endswith("A->>B: 4\nB--)A: late\n")


def test_stable_ids_export_by_name() -> None:
    ast = SequenceAst(
        participants={"p:alice": SeqParticipant(mermaid_name="Alicia", alias="Alice")},
        messages=(
            SeqMessage(
                message_id="m:hello",
                from_participant_id="p:alice",
                to_participant_id="p:alice",
                kind="sync",
                text="hi",
                order_key=10,
            ),
        ),
    )
    assert (
        export_sequence(ast)
        == "sequenceDiagram\nparticipant Alicia as Alice\nAlicia->>Alicia: hi\n"
    )
