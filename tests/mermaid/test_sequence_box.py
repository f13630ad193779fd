"""Sequence participant boxes (`box [colour] [label]` ... `end`): import, export, round trip,
stable ids and precise refusals."""

from __future__ import annotations

import pytest

from nereid.mermaid import MermaidError, export_sequence, parse_sequence
from nereid.mermaid.errors import MermaidExportError
from nereid.mermaid.reconcile import SeqIdHints, reconcile_sequence
from nereid.mermaid.sequence_box import format_box_header, parse_box_header
from nereid.model.sequence import SeqBox, SeqParticipant, SequenceAst


def round_trip(text: str) -> SequenceAst:
    ast = parse_sequence(text)
    exported = export_sequence(ast)
    assert parse_sequence(exported) == ast, exported
    assert export_sequence(parse_sequence(exported)) == exported
    return ast


@pytest.mark.parametrize(
    ("rest", "color", "label"),
    [
        ("Purple Alice & John", "Purple", "Alice & John"),
        ("Another Group", None, "Another Group"),
        ("Aqua", "Aqua", None),
        ("rgb(33, 66, 99) Team", "rgb(33, 66, 99)", "Team"),
        ("rgba(0,0,0,0.5)", "rgba(0,0,0,0.5)", None),
        ("#f00 Team", None, "#f00 Team"),
        ("transparent Red", "transparent", "Red"),
        ("", None, None),
    ],
)
def test_box_header_reads_like_mermaid(rest: str, color: str | None, label: str | None) -> None:
    assert parse_box_header(rest) == (color, label)
    assert format_box_header(color, label) == f"box {rest}".rstrip()


def test_box_groups_declared_participants() -> None:
    ast = round_trip(
        "sequenceDiagram\nbox Aqua Group A\nparticipant A\nactor B as Bee\nend\n"
        "participant C\nbox Team\nparticipant D\nend\nA->>B: hi\nC->>D: yo"
    )
    assert ast.boxes == (
        SeqBox(participant_ids=("p:A", "p:B"), color="Aqua", label="Group A"),
        SeqBox(participant_ids=("p:D",), label="Team"),
    )
    assert list(ast.participants) == ["p:A", "p:B", "p:C", "p:D"]
    assert export_sequence(ast).splitlines()[1:9] == [
        "box Aqua Group A",
        "participant A",
        "actor B as Bee",
        "end",
        "participant C",
        "box Team",
        "participant D",
        "end",
    ]


def test_a_participant_declared_twice_in_its_box_is_one_member() -> None:
    ast = round_trip("sequenceDiagram\nbox\nparticipant A\nparticipant A as Al\nend\nA->>A: x")
    assert ast.boxes == (SeqBox(participant_ids=("p:A",)),)
    assert ast.participants["p:A"].alias == "Al"


def test_end_closes_a_box_and_then_blocks_again() -> None:
    ast = round_trip("sequenceDiagram\nbox G\nparticipant A\nend\nloop x\nA->>A: y\nend")
    assert len(ast.boxes) == 1 and ast.blocks[0].kind == "loop"


@pytest.mark.parametrize(
    ("text", "kind", "line", "fragment"),
    [
        ("box G\nparticipant A\nA->>A: x\nend", "UnsupportedSyntax", 4, "only participant"),
        ("box G\nbox H\nparticipant A\nend\nend", "InvalidBox", 3, "inside another box"),
        ("loop x\nbox G\nparticipant A\nend\nA->>A: y\nend", "InvalidBox", 3, "inside a block"),
        ("A->>B: x\nbox G\nparticipant A\nend", "InvalidBox", 4, "before this box"),
        ("box G\nparticipant A\nend\nbox H\nparticipant A\nend", "InvalidBox", 6, "before"),
        ("box G\nend", "InvalidBox", 2, "no participant"),
        ("box G\nparticipant A", "UnclosedBox", 2, "missing 'end'"),
    ],
)
def test_box_refusals_are_precise(text: str, kind: str, line: int, fragment: str) -> None:
    with pytest.raises(MermaidError) as info:
        parse_sequence("sequenceDiagram\n" + text)
    error = info.value
    assert (error.kind, error.line) == (kind, line), error
    assert error.column is not None
    assert fragment in str(error)


def _ast(*boxes: SeqBox) -> SequenceAst:
    return SequenceAst(
        participants={f"p:{n}": SeqParticipant(mermaid_name=n) for n in "ABC"}, boxes=boxes
    )


@pytest.mark.parametrize(
    ("boxes", "fragment"),
    [
        ((SeqBox(participant_ids=("p:A", "p:C")),), "not consecutive"),
        ((SeqBox(participant_ids=("p:B", "p:A")),), "not consecutive"),
        ((SeqBox(participant_ids=("p:Z",)),), "missing participant"),
        ((SeqBox(participant_ids=()),), "no participants"),
        ((SeqBox(participant_ids=("p:A",)), SeqBox(participant_ids=("p:A",))), "also in box 1"),
        ((SeqBox(participant_ids=("p:B",)), SeqBox(participant_ids=("p:A",))), "not in partic"),
        ((SeqBox(participant_ids=("p:A",), label="Red team"),), "read back"),
        ((SeqBox(participant_ids=("p:A",), label="a;b"),), "';'"),
    ],
)
def test_export_refuses_boxes_that_would_not_read_back(
    boxes: tuple[SeqBox, ...], fragment: str
) -> None:
    with pytest.raises(MermaidExportError) as info:
        export_sequence(_ast(*boxes))
    assert info.value.kind == "InvalidBox"
    assert fragment in str(info.value)


def test_reconcile_maps_box_members_to_the_stable_participant_ids() -> None:
    hints = SeqIdHints(by_name={"A": "p:alice"})
    ast = reconcile_sequence(
        parse_sequence("sequenceDiagram\nbox G\nparticipant A\nparticipant B\nend\nA->>B: x"),
        hints,
    )
    assert ast.boxes[0].participant_ids == ("p:alice", "p:B")
    again = reconcile_sequence(parse_sequence(export_sequence(ast)), SeqIdHints.from_ast(ast))
    assert again == ast
