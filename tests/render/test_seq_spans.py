"""The sequence span map on one worked example: every category, exact cells."""

from __future__ import annotations

import pytest

from nereid.mermaid import parse_sequence
from nereid.model.refs import ObjectRef
from nereid.model.sequence import SeqBox, SeqMessage, SeqParticipant, SequenceAst
from nereid.render import Rendered, RenderError, RenderOptions, render_sequence, slice_cells

SOURCE = """sequenceDiagram
participant A
participant B
A->>B: Hi
alt ok
activate B
B-->>A: Yo
else no
Note over A: hmm
A-xB: Bye
end
deactivate B"""

PICTURE = """\
   ┌───┐       ┌───┐
   │ A │       │ B │
   └─┬─┘       └─┬─┘
     │           │
     ├─── Hi ───▶│
┌────┤ alt [ok] ─┼─┐
│    │◀┄┄┄ Yo ┄┄┄┨ │
├┄┄┄┄┤ else [no] ├┄┤
│ ╭──┴──╮        ┃ │
│ │ hmm │        ┃ │
│ ╰──┬──╯        ┃ │
│    ├── Bye ───✕┃ │
└────┼───────────┼─┘
     │           │"""


def ref(category: str, object_id: str) -> ObjectRef:
    return ObjectRef(diagram_id="d-seq", category=("seq", category), object_id=object_id)


@pytest.fixture(scope="module")
def rendered() -> Rendered:
    return render_sequence(parse_sequence(SOURCE), "d-seq")


def test_picture(rendered: Rendered) -> None:
    assert rendered.text == PICTURE


def test_every_object_has_its_category(rendered: Rendered) -> None:
    assert set(rendered.spans) == {
        ref("participant", "p:A"),
        ref("participant", "p:B"),
        ref("message", "m:0001"),
        ref("message", "m:0002"),
        ref("message", "m:0003"),
        ref("block", "b:0001"),
        ref("section", "sec:0001:00"),
        ref("section", "sec:0001:01"),
        ref("note", "note:0001"),
        ref("activation", "act:0001"),
        ref("activation", "act:0002"),
    }


def test_exact_cells(rendered: Rendered) -> None:
    spans = {k: [tuple(s) for s in v] for k, v in rendered.spans.items()}
    # A message is its whole line, heads and label included.
    assert spans[ref("message", "m:0001")] == [(4, 5, 16)]
    assert spans[ref("message", "m:0002")] == [(6, 6, 17)]
    # A participant: the box, then the lifeline cells still showing (not under the note).
    assert spans[ref("participant", "p:A")] == [(0, 3, 7), (1, 3, 7), (2, 3, 7)] + [
        (row, 5, 5) for row in (3, 4, 5, 6, 7, 8, 10, 11, 12, 13)
    ]
    # The activation bar, owned by both the activate and the deactivate statement.
    bar = [(row, 17, 17) for row in range(6, 12)]
    assert spans[ref("activation", "act:0001")] == bar
    assert spans[ref("activation", "act:0002")] == bar
    # The note opens the `else` branch, so it is drawn below that branch's divider.
    assert spans[ref("note", "note:0001")] == [(8, 2, 8), (9, 2, 8), (10, 2, 8)]
    # Block: its frame; sections: their band, sharing the separator row.
    frame = spans[ref("block", "b:0001")]
    assert frame[0] == (5, 0, 19) and frame[-1] == (12, 0, 19)
    assert spans[ref("section", "sec:0001:00")][0] == (5, 0, 19)
    assert spans[ref("section", "sec:0001:00")][-1] == (7, 0, 19)
    assert spans[ref("section", "sec:0001:01")] == [
        (7, 0, 19),
        *[(row, col, col) for row in (8, 9, 10, 11) for col in (0, 19)],
        (12, 0, 19),
    ]


def test_highlighted_text(rendered: Rendered) -> None:
    def text(r: ObjectRef) -> str:
        return "".join(
            slice_cells(rendered.lines[s.row], s.col_start, s.col_end) for s in rendered.spans[r]
        )

    assert "alt [ok]" in text(ref("block", "b:0001"))
    assert "else [no]" in text(ref("section", "sec:0001:01"))
    assert "hmm" in text(ref("note", "note:0001"))
    assert text(ref("message", "m:0003")) == "├── Bye ───✕"


def test_unknown_participant_is_an_error() -> None:
    ast = SequenceAst(
        participants={"p:A": SeqParticipant(mermaid_name="A")},
        messages=(
            SeqMessage(
                message_id="m:0001",
                from_participant_id="p:A",
                to_participant_id="p:Z",
                kind="sync",
                text="x",
                order_key=1000,
            ),
        ),
    )
    with pytest.raises(RenderError, match="message m:0001 references unknown participant p:Z"):
        render_sequence(ast, "d")


def test_empty_diagram_renders_nothing() -> None:
    assert render_sequence(SequenceAst(), "d").text == ""


def test_a_box_naming_a_removed_participant_still_draws() -> None:
    ast = SequenceAst(
        participants={"p:A": SeqParticipant(mermaid_name="A")},
        boxes=(
            SeqBox(participant_ids=("p:A", "p:gone"), label="G"),
            SeqBox(participant_ids=("p:x",)),
        ),
    )
    lines = render_sequence(ast, "d", RenderOptions()).lines
    assert lines[0].startswith("╭─ G ")
    assert lines[-1].startswith("╰") and lines[-1].endswith("╯")
