"""Properties of sequence rendering over generated diagrams (small, via hypothesis)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.model.refs import SEQ_BLOCK, SEQ_MESSAGE, SEQ_PARTICIPANT, ObjectRef
from nereid.model.sequence import (
    ARROW_KINDS,
    SeqAutonumber,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
)
from nereid.render import Rendered, RenderOptions, render_sequence, slice_cells, text_width
from nereid.render.sequence_arrows import arrow_look
from nereid.render.sequence_layout import layout_sequence

DIAGRAM = "d-seq"
FRAME_CHARS = "─│┌┐└┘├┤┬┴┼╭╮╰╯║═╤◁ "
LINE_GLYPHS = set("─┄│┆┌┐└┘├┤┬┴┼┠┨┃▶◀▷◁✕")
ROLES = (None, None, "actor", "database", "collections", "queue", "boundary", "control", "entity")
WORDS = ("hello", "ok", "x", "request the thing", "données", "日本語", "a-rather-long-token", "")


@dataclass
class _Msg:
    source: int
    target: int
    token: str
    text: str
    activation: str | None


@dataclass
class _Note:
    placement: Literal["left_of", "right_of", "over"]
    text: str


@dataclass
class _Blk:
    kind: str
    header: str | None
    sections: list[list[object]]


def _items(draw: st.DrawFn, depth: int) -> list[object]:
    count = draw(st.integers(1, 3 if depth else 5))
    items: list[object] = []
    for _ in range(count):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            kind = draw(st.sampled_from(("alt", "opt", "loop", "par", "critical", "break", "rect")))
            n_sections = draw(st.integers(1, 3)) if kind in ("alt", "par", "critical") else 1
            header = draw(st.sampled_from((None, "cond", "a much longer header text")))
            items.append(_Blk(kind, header, [_items(draw, depth + 1) for _ in range(n_sections)]))
        elif draw(st.integers(0, 5)) == 0:
            items.append(
                _Note(
                    draw(st.sampled_from(("left_of", "right_of", "over"))),
                    draw(st.sampled_from(WORDS[:5])),
                )
            )
        else:
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
            text = " ".join(w for w in words if w) or "m"
            items.append(
                _Msg(
                    draw(st.integers(0, 3)),
                    draw(st.integers(0, 3)),
                    draw(st.sampled_from(sorted(ARROW_KINDS))),
                    text,
                    draw(st.sampled_from((None, None, "+", "-"))),
                )
            )
    return items


@st.composite
def sequences(draw: st.DrawFn) -> SequenceAst:
    count = draw(st.integers(1, 4))
    participants = {}
    for i in range(count):
        name = f"P{i}"
        alias = draw(st.sampled_from((None, f"Alias {i}", "a very long participant alias here")))
        participants[f"p:{name}"] = SeqParticipant(
            mermaid_name=name, alias=alias, role=draw(st.sampled_from(ROLES))
        )
    pids = list(participants)
    tree = _items(draw, 0)
    messages: list[SeqMessage] = []
    notes: list[SeqNote] = []
    key = [0]

    def build(items: list[object]) -> tuple[list[str], list[str], list[SeqBlock]]:
        """Message ids, note ids (members of the enclosing section) and blocks of `items`."""
        ids: list[str] = []
        note_ids: list[str] = []
        blocks: list[SeqBlock] = []
        for item in items:
            key[0] += 1000
            if isinstance(item, _Msg):
                mid = f"m:{len(messages) + 1:04d}"
                messages.append(
                    SeqMessage(
                        message_id=mid,
                        from_participant_id=pids[item.source % count],
                        to_participant_id=pids[item.target % count],
                        kind=ARROW_KINDS[item.token],
                        text=item.text,
                        order_key=key[0],
                        arrow=item.token,
                        activation=item.activation,  # type: ignore[arg-type]
                    )
                )
                ids.append(mid)
            elif isinstance(item, _Blk):
                number = len(blocks_all) + 1
                blocks_all.append(None)
                sections = []
                children: list[SeqBlock] = []
                for s, content in enumerate(item.sections):
                    s_ids, s_notes, s_blocks = build(content)
                    kind = (
                        "main" if s == 0 else {"alt": "else", "par": "and"}.get(item.kind, "option")
                    )
                    sections.append(
                        SeqSection(
                            section_id=f"sec:{number:04d}:{s:02d}",
                            kind=kind,
                            header=item.header if s else None,
                            message_ids=tuple(s_ids),
                            note_ids=tuple(s_notes),
                        )
                    )
                    ids.extend(s_ids)
                    note_ids.extend(s_notes)
                    children.extend(s_blocks)
                blocks.append(
                    SeqBlock(
                        block_id=f"b:{number:04d}",
                        kind=item.kind,
                        header=item.header,
                        sections=tuple(sections),
                        blocks=tuple(children),
                    )
                )
            else:
                assert isinstance(item, _Note)
                placement, text = item.placement, item.text
                targets = (pids[0],) if placement != "over" or count == 1 else (pids[0], pids[-1])
                note_ids.append(f"note:{len(notes) + 1:04d}")
                notes.append(
                    SeqNote(
                        note_id=note_ids[-1],
                        placement=placement,
                        participant_ids=targets,
                        text=text,
                        order_key=key[0],
                    )
                )
        return ids, note_ids, blocks

    blocks_all: list[None] = []
    _, _, blocks = build(tree)
    # Sections must hold messages or notes: drop blocks whose sections came out empty.
    blocks = [b for b in blocks if _all_sections_filled(b)]
    autonumber = draw(st.sampled_from((None, SeqAutonumber(), SeqAutonumber(start=10, step=5))))
    return SequenceAst(
        participants=participants,
        messages=tuple(messages),
        notes=tuple(notes),
        blocks=tuple(blocks),
        autonumber=autonumber,
        boxes=_boxes(draw, pids),
    )


def _boxes(draw: st.DrawFn, pids: list[str]) -> tuple[SeqBox, ...]:
    """Participant boxes over consecutive runs of participants (often none)."""
    boxes = []
    start = 0
    while start < len(pids) and draw(st.integers(0, 2)) == 0:
        start += draw(st.integers(0, 1))
        stop = min(len(pids), start + draw(st.integers(1, 2)))
        if start < stop:
            label = draw(st.sampled_from((None, "G", "a rather long box label")))
            boxes.append(SeqBox(participant_ids=tuple(pids[start:stop]), label=label))
        start = stop
    return tuple(boxes)


def _box_cells(ast: SequenceAst) -> set[tuple[int, int]]:
    """Cells of participant box frames and labels: drawn but owned by no object."""
    layout = layout_sequence(ast, RenderOptions(max_label_width=16))
    top, bottom = layout.head_top - 1, layout.bottom + 1
    cells: set[tuple[int, int]] = set()
    for box in layout.boxes:
        for col in range(box.left, box.right + 1):
            cells.update({(top, col), (bottom, col)})
        for row in range(top, bottom + 1):
            cells.update({(row, box.left), (row, box.right)})
    return cells


def _all_sections_filled(block: SeqBlock) -> bool:
    return all(s.member_ids for s in block.sections) and all(
        _all_sections_filled(child) for child in block.blocks
    )


def _cells(rendered: Rendered, ref: ObjectRef) -> dict[int, list[tuple[int, int]]]:
    rows: dict[int, list[tuple[int, int]]] = {}
    for span in rendered.spans.get(ref, ()):
        rows.setdefault(span.row, []).append((span.col_start, span.col_end))
    return rows


def _text_of(rendered: Rendered, rows: dict[int, list[tuple[int, int]]], only: list[int]) -> str:
    return "".join(
        slice_cells(rendered.lines[row], a, b) for row in only for a, b in sorted(rows[row])
    )


def _squash(text: str) -> str:
    return "".join(text.split())


def _lifeline_col(rendered: Rendered, pid: str) -> int:
    spans = rendered.spans[ObjectRef(diagram_id=DIAGRAM, category=SEQ_PARTICIPANT, object_id=pid)]
    return spans[-1].col_start


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _render(ast: SequenceAst, ascii_only: bool = False) -> Rendered:
    return render_sequence(ast, DIAGRAM, RenderOptions(ascii=ascii_only, max_label_width=16))


def _numbered_text(ast: SequenceAst, index: int, message: SeqMessage) -> str:
    if ast.autonumber is None:
        return message.text
    return f"{ast.autonumber.start + index * ast.autonumber.step}. {message.text}"


@SETTINGS
@given(sequences())
def test_every_message_label_is_fully_visible(ast: SequenceAst) -> None:
    rendered = _render(ast)
    for index, message in enumerate(ast.messages):
        ref = ObjectRef(diagram_id=DIAGRAM, category=SEQ_MESSAGE, object_id=message.message_id)
        rows = _cells(rendered, ref)
        shown = "".join(
            ch for ch in _text_of(rendered, rows, sorted(rows)) if ch not in LINE_GLYPHS
        )
        assert _squash(shown) == _squash(_numbered_text(ast, index, message))


@SETTINGS
@given(sequences())
def test_every_participant_box_shows_its_label(ast: SequenceAst) -> None:
    rendered = _render(ast)
    for pid, participant in ast.participants.items():
        rows = _cells(
            rendered, ObjectRef(diagram_id=DIAGRAM, category=SEQ_PARTICIPANT, object_id=pid)
        )
        head_rows = [r for r in sorted(rows) if any(b > a for a, b in rows[r])]
        label = participant.alias or participant.mermaid_name
        shown = "".join(_text_of(rendered, rows, [r]).strip(FRAME_CHARS) for r in head_rows)
        assert _squash(label) in _squash(shown)


@SETTINGS
@given(sequences(), st.booleans())
def test_every_arrowed_message_shows_its_head_at_the_target(
    ast: SequenceAst, ascii_only: bool
) -> None:
    rendered = _render(ast, ascii_only)
    heads = {"▶", "◀", "▷", "◁", "✕"} if not ascii_only else {">", "<", "(", ")", "x"}
    for message in ast.messages:
        look = arrow_look(message)
        if look.head == "none":
            continue
        rows = _cells(
            rendered,
            ObjectRef(diagram_id=DIAGRAM, category=SEQ_MESSAGE, object_id=message.message_id),
        )
        target = _lifeline_col(rendered, message.to_participant_id)
        source = _lifeline_col(rendered, message.from_participant_id)
        if source == target:
            row = max(rows)
            col = target + 1
        else:
            row = max(rows)
            col = target - 1 if source < target else target + 1
        assert slice_cells(rendered.lines[row], col, col) in heads


def _frame_box(rendered: Rendered, ref: ObjectRef) -> tuple[int, int, int, int]:
    spans = rendered.spans[ref]
    return (
        min(s.row for s in spans),
        max(s.row for s in spans),
        min(s.col_start for s in spans),
        max(s.col_end for s in spans),
    )


@SETTINGS
@given(sequences())
def test_frames_enclose_their_messages(ast: SequenceAst) -> None:
    rendered = _render(ast)
    layout = layout_sequence(ast, RenderOptions(max_label_width=16))
    notes = {plan.note.note_id: plan for plan in layout.notes}
    for frame in layout.frames:  # a note stays in its section: below its tab, above the next
        for section in frame.sections:
            for note_id in section.section.note_ids:
                note = notes[note_id]
                assert section.start < note.top and note.bottom < section.end, note_id
                assert frame.left < note.left and note.right < frame.right, note_id

    def check(block: SeqBlock) -> None:
        top, bottom, left, right = _frame_box(
            rendered, ObjectRef(diagram_id=DIAGRAM, category=SEQ_BLOCK, object_id=block.block_id)
        )
        for section in block.sections:
            for mid in section.message_ids:
                for span in rendered.spans[
                    ObjectRef(diagram_id=DIAGRAM, category=SEQ_MESSAGE, object_id=mid)
                ]:
                    assert top < span.row < bottom
                    assert left < span.col_start and span.col_end < right
        for child in block.blocks:
            inner = _frame_box(
                rendered,
                ObjectRef(diagram_id=DIAGRAM, category=SEQ_BLOCK, object_id=child.block_id),
            )
            assert top < inner[0] and inner[1] < bottom and left < inner[2] and inner[3] < right
            check(child)

    for block in ast.blocks:
        check(block)


@SETTINGS
@given(sequences())
def test_spans_cover_exactly_the_drawn_cells(ast: SequenceAst) -> None:
    rendered = _render(ast)
    covered: set[tuple[int, int]] = set()
    for ref, spans in rendered.spans.items():
        previous = None
        for span in spans:
            assert 0 <= span.row < rendered.height
            assert 0 <= span.col_start <= span.col_end < text_width(rendered.lines[span.row])
            if previous is not None:
                assert (previous.row, previous.col_end + 1) < (span.row, span.col_start)
            previous = span
            covered.update((span.row, c) for c in range(span.col_start, span.col_end + 1))
        if ref.category == SEQ_MESSAGE:
            # Message cells are exactly its line, heads and label: never blank.
            for span in spans:
                assert slice_cells(rendered.lines[span.row], span.col_start, span.col_start).strip()
                assert slice_cells(rendered.lines[span.row], span.col_end, span.col_end).strip()
    covered |= _box_cells(ast)
    for row, line in enumerate(rendered.lines):
        col = 0
        for ch in line:
            width = text_width(ch)
            if width and ch != " ":
                assert (row, col) in covered, (
                    f"unowned cell {ch!r} at {(row, col)}\n{rendered.text}"
                )
            col += width
    for message in ast.messages:
        rows = _cells(
            rendered,
            ObjectRef(diagram_id=DIAGRAM, category=SEQ_MESSAGE, object_id=message.message_id),
        )
        source = _lifeline_col(rendered, message.from_participant_id)
        target = _lifeline_col(rendered, message.to_participant_id)
        if source == target:
            continue
        look = arrow_look(message)
        step = 1 if target > source else -1
        first = source + step if look.tail != "none" else source
        last = target - step if look.head != "none" else target
        assert rows[max(rows)] == [(min(first, last), max(first, last))]


@SETTINGS
@given(sequences())
def test_rendering_is_deterministic(ast: SequenceAst) -> None:
    first = _render(ast)
    second = _render(ast)
    assert first.text == second.text
    assert first.spans == second.spans
    label_chars = set("".join(m.text for m in ast.messages))
    label_chars |= set("".join(p.alias or p.mermaid_name for p in ast.participants.values()))
    label_chars |= set("".join(n.text for n in ast.notes))
    drawn = {ch for ch in _render(ast, True).text if not ch.isascii()}
    assert drawn <= label_chars
