"""Sequence import cases S01-S24 of mermaid.md §12, plus Nereid's extensions (Port/EXT)."""

from __future__ import annotations

import pytest

from nereid.mermaid import MermaidError, export_sequence, parse_sequence
from nereid.model.sequence import (
    SeqActivation,
    SeqAutonumber,
    SeqBlock,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
)


def roundtrip(text: str) -> SequenceAst:
    """Parse, and check R1 (same AST after export + re-import) and R2 (export fixpoint)."""
    ast = parse_sequence(text)
    exported = export_sequence(ast)
    again = parse_sequence(exported)
    assert again == ast
    assert export_sequence(again) == exported
    return ast


def error(text: str) -> MermaidError:
    with pytest.raises(MermaidError) as info:
        parse_sequence(text)
    return info.value


def brief(ast: SequenceAst) -> list[tuple[str, str, str, str, str | None, str, int]]:
    return [
        (
            m.message_id,
            m.from_participant_id,
            m.to_participant_id,
            m.kind,
            m.raw_arrow,
            m.text,
            m.order_key,
        )
        for m in ast.messages
    ]


def test_s01_basic_messages() -> None:
    ast = roundtrip("sequenceDiagram\nAda->>Bo: ping\nBo-->>Ada: pong")
    assert list(ast.participants) == ["p:Ada", "p:Bo"]
    assert ast.participants["p:Ada"] == SeqParticipant(mermaid_name="Ada")
    assert brief(ast) == [
        ("m:0001", "p:Ada", "p:Bo", "sync", None, "ping", 1000),
        ("m:0002", "p:Bo", "p:Ada", "return", None, "pong", 2000),
    ]


def test_s02_every_arrow() -> None:
    text = (
        "sequenceDiagram\nA-)B: a\nA--)B: b\nA-xB: c\nA--xB: d\nA->B: e\nA-->B: f\n"
        "A<<->>B: g\nA<<-->>B: h"
    )
    ast = roundtrip(text)
    assert [m.kind for m in ast.messages] == [
        "async",
        "async",
        "sync",
        "sync",
        "sync",
        "sync",
        "sync",
        "return",
    ]
    assert [m.raw_arrow for m in ast.messages] == [
        None,
        "--)",
        "-x",
        "--x",
        "->",
        "-->",
        "<<->>",
        "<<-->>",
    ]
    body = export_sequence(ast).splitlines()[3:]
    assert body == text.splitlines()[1:]


def test_s03_activation_markers_and_declaration_order() -> None:
    ast = roundtrip("sequenceDiagram\nparticipant web\nweb->>+api: GET /items\napi-->>-web: 200 OK")
    assert [m.raw_arrow for m in ast.messages] == ["->>+", "-->>-"]
    assert [(m.kind, m.arrow, m.activation) for m in ast.messages] == [
        ("sync", None, "+"),
        ("return", None, "-"),
    ]
    # Port (decision 4): declaration order, not the Rust id order (api before web).
    assert export_sequence(ast).splitlines()[1:3] == ["participant web", "participant api"]


def test_s04_alias_is_kept() -> None:
    # Rust: InvalidParticipantDecl. Port EXT: display alias.
    ast = roundtrip("sequenceDiagram\nparticipant A as Alice\nA->>B: x")
    assert ast.participants["p:A"] == SeqParticipant(mermaid_name="A", alias="Alice")
    assert "participant A as Alice" in export_sequence(ast)


def test_s05_actor_role() -> None:
    # Rust: UnsupportedSyntax. Port EXT: role actor.
    ast = roundtrip("sequenceDiagram\nactor A")
    assert ast.participants == {"p:A": SeqParticipant(mermaid_name="A", role="actor")}
    assert export_sequence(ast) == "sequenceDiagram\nactor A\n"


def test_s06_note() -> None:
    # Rust: UnsupportedSyntax. Port EXT: a note attached to A.
    ast = roundtrip("sequenceDiagram\nA->>B: hi\nNote right of A: t")
    assert ast.notes == (
        SeqNote(
            note_id="note:0001",
            placement="right_of",
            participant_ids=("p:A",),
            text="t",
            order_key=2000,
        ),
    )


def test_s07_autonumber() -> None:
    # Rust: UnsupportedSyntax. Port EXT: autonumber kept (the spec lists it as a gap).
    ast = roundtrip("sequenceDiagram\nautonumber\nA->>B: x")
    assert ast.autonumber == SeqAutonumber()
    assert roundtrip("sequenceDiagram\nautonumber 10 5\nA->>B: x").autonumber == SeqAutonumber(
        start=10, step=5
    )


S08 = "sequenceDiagram\nalt hit\n  opt warm\n    u->>c: read\n  end\nelse miss\n  u->>d: query\nend"


def test_s08_nested_blocks_and_export() -> None:
    ast = roundtrip(S08)
    assert ast.blocks == (
        SeqBlock(
            block_id="b:0001",
            kind="alt",
            header="hit",
            sections=(
                SeqSection(section_id="sec:0001:00", kind="main", message_ids=("m:0001",)),
                SeqSection(
                    section_id="sec:0001:01", kind="else", header="miss", message_ids=("m:0002",)
                ),
            ),
            blocks=(
                SeqBlock(
                    block_id="b:0002",
                    kind="opt",
                    header="warm",
                    sections=(
                        SeqSection(section_id="sec:0002:00", kind="main", message_ids=("m:0001",)),
                    ),
                ),
            ),
        ),
    )
    # §7.2 example, with participants in appearance order (decision 4).
    assert export_sequence(ast) == (
        "sequenceDiagram\nparticipant u\nparticipant c\nparticipant d\nalt hit\nopt warm\n"
        "u->>c: read\nend\nelse miss\nu->>d: query\nend\n"
    )


def test_s09_par_and() -> None:
    ast = roundtrip("sequenceDiagram\npar one\nu-)q: emit\nand two\nu->>u: log\nend")
    (block,) = ast.blocks
    assert (block.block_id, block.kind, block.header) == ("b:0001", "par", "one")
    assert [(s.kind, s.header, s.message_ids) for s in block.sections] == [
        ("main", None, ("m:0001",)),
        ("and", "two", ("m:0002",)),
    ]


def test_s10_empty_section() -> None:
    err = error("sequenceDiagram\nalt x\nelse y\nA->>B: m\nend")
    assert (err.kind, err.line) == ("EmptyBlockSection", 3)
    assert str(err) == "empty block section on line 3: sec:0001:00 contains no messages"


def test_s11_else_outside_alt() -> None:
    err = error("sequenceDiagram\nloop l\nA->>B: x\nelse e\nend")
    assert (err.kind, err.line) == ("ElseOutsideAlt", 4)
    assert str(err) == "invalid 'else' on line 4: only valid inside an open 'alt' block: else e"


def test_s12_unmatched_end() -> None:
    err = error("sequenceDiagram\nalt\nu->>v: m\nend\nend")
    assert (err.kind, err.line) == ("UnmatchedEnd", 5)
    assert str(err) == "unmatched 'end' on line 5: no block is currently open"


def test_s13_unclosed_block() -> None:
    err = error("sequenceDiagram\nalt x\nA->>B: x")
    assert (err.kind, err.line) == ("UnclosedBlock", 2)
    assert str(err) == "unclosed 'alt' block b:0001: missing 'end' for block opened on line 2"


def _nested(depth: int) -> str:
    return (
        "sequenceDiagram\n"
        + "".join(f"opt o{i}\n" for i in range(depth))
        + "A->>B: m\n"
        + ("end\n" * depth)
    )


def test_s14_nesting_depth() -> None:
    err = error(_nested(9))
    assert (err.kind, err.line) == ("BlockNestingTooDeep", 10)
    assert str(err) == "block nesting too deep on line 10: max supported depth is 8"
    ast = roundtrip(_nested(8))
    assert export_sequence(ast).count("\nend") == 8


def test_s15_missing_text_and_missing_colon() -> None:
    err = error("sequenceDiagram\nA->>B:")
    assert (err.kind, err.line, str(err)) == (
        "MissingMessageText",
        2,
        "missing message text on line 2: A->>B:",
    )
    err = error("sequenceDiagram\nA->>B hi")
    assert (err.kind, err.line) == ("InvalidMessageLine", 2)
    assert str(err).startswith("invalid message syntax on line 2: A->>B hi (expected")


def test_s16_names_with_spaces() -> None:
    # Rust: InvalidMessageParticipant (whitespace). Port EXT: Mermaid allows such names.
    ast = roundtrip("sequenceDiagram\nBig Co->>B: x")
    assert list(ast.participants) == ["p:Big Co", "p:B"]
    assert export_sequence(ast).endswith("Big Co->>B: x\n")


def test_s16_names_mermaid_cannot_hold_still_fail() -> None:
    # Mermaid reads `Big(Co)` as one name, but not a name that starts with '('.
    assert "p:Big(Co)" in roundtrip("sequenceDiagram\nBig(Co)->>B: x").participants
    err = error("sequenceDiagram\n(Big)->>B: x")
    assert (err.kind, err.line, err.column, err.text) == (
        "InvalidMessageParticipant",
        2,
        1,
        "(Big)",
    )
    assert str(err) == "invalid message participant on line 2: (Big) (must not start with '(')"


def test_s17_header_must_stand_alone() -> None:
    err = error("sequenceDiagram autonumber\nA->>B: x")
    assert err.kind == "MissingHeader"
    assert str(err) == "expected 'sequenceDiagram' as the first non-empty line"
    assert (err.line, err.column) == (1, 1)


def test_s18_spaces_and_colons() -> None:
    ast = roundtrip("sequenceDiagram\nA ->> B : ratio 1:2")
    assert ast.messages[0].text == "ratio 1:2"
    assert export_sequence(ast).endswith("A->>B: ratio 1:2\n")


def test_s19_declaration_order_is_kept() -> None:
    # Rust (S-Q1): amy, zed. Port (decision 4): zed, amy as declared.
    ast = roundtrip("sequenceDiagram\nparticipant zed\nparticipant amy\nzed->>amy: hi")
    assert export_sequence(ast).splitlines()[1:3] == ["participant zed", "participant amy"]


def test_s20_critical_option() -> None:
    # Rust: UnsupportedSyntax. Port EXT: critical/option blocks.
    ast = roundtrip("sequenceDiagram\ncritical c\nA->>B: x\noption o\nA->>B: y\nend")
    (block,) = ast.blocks
    assert (block.kind, block.header) == ("critical", "c")
    assert [(s.kind, s.header) for s in block.sections] == [("main", None), ("option", "o")]


def test_s21_end_with_trailing_text() -> None:
    err = error("sequenceDiagram\nA->>B: x\nend now")
    assert (err.kind, err.line) == ("UnsupportedSyntax", 3)
    assert str(err).startswith("unsupported Mermaid syntax on line 3: end now")


def test_s22_header_only() -> None:
    ast = roundtrip("sequenceDiagram")
    assert ast == SequenceAst()
    assert export_sequence(ast) == "sequenceDiagram\n"


def test_s23_identical_messages_coexist() -> None:
    ast = roundtrip("sequenceDiagram\nu->>v: a\nu->>v: a")
    assert [m.message_id for m in ast.messages] == ["m:0001", "m:0002"]
    assert ast.messages[0].text == ast.messages[1].text == "a"


def test_s24_crlf() -> None:
    ast = roundtrip("sequenceDiagram\r\nA->>B: a\r\nB-->>A: b\r\n")
    assert [m.text for m in ast.messages] == ["a", "b"]


# ---- Nereid extensions ----------------------------------------------------------------------


def test_v11_participant_types_and_aliases() -> None:
    ast = roundtrip(
        "sequenceDiagram\n"
        'participant API@{ "type": "boundary" } as Public API\n'
        'actor DB@{ "type": "database" } as User Database\n'
        'participant Q@{ "type": "queue", "alias": "Jobs" }\n'
        "participant X@{ type: control }\n"
        'participant Y@{ "type": "entity", "alias": "Inner" } as Outer\n'
    )
    assert {pid: (p.role, p.alias) for pid, p in ast.participants.items()} == {
        "p:API": ("boundary", "Public API"),
        "p:DB": ("database", "User Database"),
        "p:Q": ("queue", "Jobs"),
        "p:X": ("control", None),
        "p:Y": ("entity", "Outer"),
    }


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ('participant A@{ "type": "cloud" }', "InvalidParticipantMetadata"),
        ('participant A@{ "colour": "red" }', "InvalidParticipantMetadata"),
        ("participant A@{ nonsense }", "InvalidParticipantMetadata"),
        ("participant A as", "InvalidParticipantDecl"),
        ("participant A:B", "InvalidParticipantName"),
        ("participant", "InvalidParticipantDecl"),
    ],
)
def test_bad_declarations(line: str, kind: str) -> None:
    err = error(f"sequenceDiagram\n{line}")
    assert (err.kind, err.line) == (kind, 2)
    assert err.column is not None


def test_notes_over_two_and_implicit_participants() -> None:
    ast = roundtrip("sequenceDiagram\nnote over Alice, John: a<br/>b\nAlice->John: hi")
    assert list(ast.participants) == ["p:Alice", "p:John"]
    assert ast.notes[0].participant_ids == ("p:Alice", "p:John")
    assert ast.notes[0].text == "a<br/>b"
    assert export_sequence(ast).splitlines()[3] == "Note over Alice,John: a<br/>b"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Note right of A,B: t", "InvalidNote"),
        ("Note under A: t", "InvalidNote"),
        ("Note over A:", "MissingNoteText"),
        ("Note over A{1}: t", "InvalidNoteParticipant"),
    ],
)
def test_bad_notes(line: str, kind: str) -> None:
    err = error(f"sequenceDiagram\n{line}")
    assert (err.kind, err.line) == (kind, 2)


def test_activation_statements() -> None:
    ast = roundtrip("sequenceDiagram\nA->>J: hi\nactivate J\nJ-->>A: ok\ndeactivate J")
    assert ast.activations == (
        SeqActivation(activation_id="act:0001", participant_id="p:J", active=True, order_key=2000),
        SeqActivation(activation_id="act:0002", participant_id="p:J", active=False, order_key=4000),
    )
    assert [m.order_key for m in ast.messages] == [1000, 3000]
    err = error("sequenceDiagram\nactivate Ghost")
    assert (err.kind, err.line, err.column, err.text) == ("UnknownParticipant", 2, 10, "Ghost")


def test_title_and_all_block_kinds() -> None:
    ast = roundtrip(
        "sequenceDiagram\ntitle: Booking\nloop every minute\nA->>B: a\nend\n"
        "break when it fails\nA->>B: b\nend\nrect rgb(1, 2, 3)\nA->>B: c\nend\nopt x\nA->>B: d\nend"
    )
    assert ast.title == "Booking"
    assert [(b.kind, b.header) for b in ast.blocks] == [
        ("loop", "every minute"),
        ("break", "when it fails"),
        ("rect", "rgb(1, 2, 3)"),
        ("opt", "x"),
    ]


@pytest.mark.parametrize(
    ("line", "construct"),
    [
        ('properties A: {"x": "y"}', "properties"),
        ('Details A: {"x": "y"}', "details"),
        ("rect", "rect"),
        ("autonumber on", "autonumber off"),
    ],
)
def test_unsupported_constructs_are_refused_precisely(line: str, construct: str) -> None:
    err = error(f"sequenceDiagram\nA->>B: x\n  {line}")
    assert (err.kind, err.line, err.column) == ("UnsupportedSyntax", 3, 3)
    assert str(err).startswith(f"unsupported Mermaid syntax on line 3: {line} (")
    assert construct in str(err)


def test_unknown_line_without_arrow() -> None:
    err = error("sequenceDiagram\nParticipants X")
    assert (err.kind, err.line, str(err)) == (
        "UnsupportedSyntax",
        2,
        "unsupported Mermaid syntax on line 2: Participants X",
    )


def test_semicolon_separates_statements_except_in_entity_codes() -> None:
    ast = roundtrip("sequenceDiagram\nA->>B: hi; B-->>A: I #9829; you #59; ok;")
    assert [m.text for m in ast.messages] == ["hi", "I #9829; you #59; ok"]
    err = error("sequenceDiagram\nA->>B: x;   Q")
    assert (err.kind, err.line, err.column) == ("UnsupportedSyntax", 2, 13)


def test_keyword_like_names() -> None:
    # Keywords are case-insensitive and end at a non-word character, as in Mermaid's lexer:
    # `alt->>B` opens an alt block, `Alternative->>B` is a message.
    ast = roundtrip("sequenceDiagram\nparticipant endpoint\nAlternative->>endpoint: x")
    assert list(ast.participants) == ["p:endpoint", "p:Alternative"]
    err = error("sequenceDiagram\nalt->>B: x\nA->>B: y")
    assert err.kind == "UnclosedBlock"
    err = error("sequenceDiagram\nand ->> B: x")
    assert err.kind == "AndOutsidePar"
    err = error("sequenceDiagram\nparticipant End")
    assert err.kind == "InvalidParticipantName"
    assert "keyword 'End'" in str(err)


def test_comments_and_indentation_columns() -> None:
    err = error("sequenceDiagram\n%% a comment\n    A->>B: x\n    A->>B{: y")
    assert (err.kind, err.line, err.column) == ("InvalidMessageParticipant", 4, 9)


def test_participant_menu_links() -> None:
    ast = roundtrip(
        "sequenceDiagram\nparticipant Alice\nBob->>Alice: x\n"
        "link Alice: Dashboard @ https://dash.example.org/a?x=1#top\n"
        'links Alice: {"Wiki": "https://wiki.example.org/a", "Dashboard": "https://d2"}\n'
        "link Bob: Home @ https://bob.example.org"
    )
    assert ast.participants["p:Alice"].links == (
        ("Dashboard", "https://d2"),
        ("Wiki", "https://wiki.example.org/a"),
    )
    assert ast.participants["p:Bob"].links == (("Home", "https://bob.example.org"),)
    assert 'links Alice: {"Dashboard": "https://d2", "Wiki": "https://wiki.example.org/a"}' in (
        export_sequence(ast)
    )


@pytest.mark.parametrize(
    "line",
    ["link Ghost: a @ b", "link A: no at sign", "link A", 'links A: ["x"]', "links A: {bad"],
)
def test_bad_links(line: str) -> None:
    err = error(f"sequenceDiagram\nparticipant A\n{line}")
    assert (err.kind, err.line) == ("InvalidLink", 3)
    assert err.column is not None


def test_central_connection_column() -> None:
    ast = roundtrip("sequenceDiagram\n  Alice->>()John: hi\nAlice()->>John: ho\nA()-)+()B: x")
    assert [(m.from_central, m.to_central) for m in ast.messages] == [
        (False, True),
        (True, False),
        (True, True),
    ]
    assert export_sequence(ast).splitlines()[-1] == "A()-)+()B: x"
    ast = roundtrip("sequenceDiagram\nA->>B: call max() and f()")
    assert ast.messages[0].text == "call max() and f()"


def test_notes_stay_in_the_section_they_are_written_in() -> None:
    text = (
        "sequenceDiagram\n"
        "participant A\n"
        "participant B\n"
        "Note over A: outside, before\n"
        "loop retry\n"
        "Note over A: first of loop\n"
        "A->>B: ping\n"
        "alt ok\n"
        "A->>B: yes\n"
        "Note right of B: last of ok\n"
        "else failed\n"
        "Note over A,B: opens else\n"
        "B->>A: no\n"
        "end\n"
        "Note left of A: last of loop\n"
        "end\n"
        "opt only a note\n"
        "Note over B: alone\n"
        "end\n"
        "critical c\n"
        "A->>B: x\n"
        "option notes only\n"
        "Note over A: just me\n"
        "end\n"
        "Note over B: outside, after\n"
    )
    ast = roundtrip(text)
    assert export_sequence(ast) == text  # written back exactly where it was
    loop, opt, critical = ast.blocks
    (alt,) = loop.blocks
    assert loop.sections[0].note_ids == ("note:0002", "note:0003", "note:0004", "note:0005")
    assert [s.note_ids for s in alt.sections] == [("note:0003",), ("note:0004",)]
    assert [s.note_ids for s in opt.sections] == [("note:0006",)]
    assert [(s.message_ids, s.note_ids) for s in critical.sections] == [
        (("m:0004",), ()),
        ((), ("note:0007",)),
    ]
    outside = {"note:0001", "note:0008"}
    members = {n for b in (loop, alt, opt, critical) for s in b.sections for n in s.note_ids}
    assert not outside & members


def test_a_section_of_an_activation_only_is_still_empty() -> None:
    err = error("sequenceDiagram\nA->>B: x\nloop l\nactivate A\nend")
    assert (err.kind, err.line) == ("EmptyBlockSection", 5)
