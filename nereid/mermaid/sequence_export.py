"""`SequenceAst` -> canonical Mermaid text (mermaid.md §7.2, extended per docs/model.md).

Canonical form: `sequenceDiagram`, then `title`, `autonumber`, one declaration per participant
in declaration order (`participant X`, `actor X`, `participant X@{ "type": "database" }`, each
with ` as <alias>` when set; the declarations of a box's participants between `box [colour]
[label]` and `end`), `links X: {...}` for participants with menu links, then the timeline
(messages, notes, activations by
`(order_key, id)`) with block lines around messages and notes: sections and openings right
before the first message or note of their run, `end` right after the last. One statement per line, no indent.

Anything that would not read back as the same AST is refused with `MermaidExportError`
(§9 texts): bad names or texts, unknown participants, and blocks whose sections are not
contiguous runs of messages that nest properly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Final

from nereid.mermaid.accessibility import acc_lines
from nereid.mermaid.errors import MermaidExportError
from nereid.mermaid.preamble import preamble_lines
from nereid.mermaid.sequence_box import BoxHeaderError, format_box_header
from nereid.mermaid.sequence_rules import participant_name_problem, sequence_text_problem
from nereid.model.lifelines import declaration_slots, lifeline_problem
from nereid.model.sequence import (
    ARROW_KINDS,
    BLOCK_KINDS,
    CANONICAL_ARROW,
    PARTICIPANT_ROLES,
    SeqActivation,
    SeqAutonumberChange,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
    SequenceAst,
)
from nereid.model.writable import link_problem

__all__ = ["export_sequence"]

_MAX_DEPTH: Final = 8
_SECTION_KIND_OF_BLOCK: Final = {
    "alt": "else",
    "par": "and",
    "par_over": "and",
    "critical": "option",
}
_PLACEMENT_WORDS: Final = {"left_of": "left of", "right_of": "right of", "over": "over"}


def export_sequence(ast: SequenceAst) -> str:
    """Write `ast` as canonical Mermaid (ends with a newline). Raises MermaidExportError."""
    names = {pid: _participant_name(pid, p.mermaid_name) for pid, p in ast.participants.items()}
    lines = [*preamble_lines(ast.front_matter, ast.directives), "sequenceDiagram"]
    if ast.title is not None:
        _check_text("title", "the diagram", ast.title)
        lines.append(f"title {ast.title}")
    lines += acc_lines(ast.acc_title, ast.acc_descr)
    if ast.autonumber is not None:
        start, step = ast.autonumber.start, ast.autonumber.step
        if start < 0 or step < 0:
            raise MermaidExportError(
                "InvalidAutonumber", f"cannot export autonumber {start} {step}: negative value"
            )
        numbers = (
            "" if (start, step) == (1, 1) else f" {start}" if step == 1 else f" {start} {step}"
        )
        lines.append("autonumber" + numbers)
    messages = sorted(ast.messages, key=lambda m: (m.order_key, m.message_id))
    before_message = _lifeline_lines(ast, names, messages)
    problem = lifeline_problem(ast)
    if problem is not None:
        raise MermaidExportError(
            "InvalidLifeline",
            f"cannot export participant {problem[0]}: {problem[1]}",
            object_id=problem[0],
        )
    slots = declaration_slots(ast)
    opens, closes = _box_positions(ast)
    slot = lines
    for index, (pid, participant) in enumerate(ast.participants.items()):
        if participant.created_by is not None:
            slot = before_message.setdefault(participant.created_by, [])
            slot.append(
                "create " + _declaration(pid, names[pid], participant.role, participant.alias)
            )
            if index in opens or index in closes:
                raise _box_error(0, f"created participant {pid} cannot be in a box")
            continue
        slot.extend(opens.get(index, ()))
        slot.append(_declaration(pid, names[pid], participant.role, participant.alias))
        slot.extend(["end"] * closes.get(index, 0))
    for pid, participant in ast.participants.items():
        if participant.links:
            link_slot = lines if pid not in slots else before_message[slots[pid]]
            link_slot.append(_links_line(pid, names[pid], participant.links))

    timeline: list[tuple[int, str, SeqMessage | SeqNote | SeqActivation]] = [
        (m.order_key, m.message_id, m) for m in messages
    ]
    timeline += [(n.order_key, n.note_id, n) for n in ast.notes]
    timeline += [(a.order_key, a.activation_id, a) for a in ast.activations]
    timeline.sort(key=lambda item: (item[0], item[1]))
    # Blocks frame messages and notes (the anchors); activations sit where their key puts them.
    anchors = [item_id for _key, item_id, item in timeline if not isinstance(item, SeqActivation)]
    layout = _BlockLayout.build(ast.blocks, anchors)
    position = 0
    for _key, _id, item in timeline:
        if isinstance(item, SeqActivation):
            name = _endpoint(names, item.participant_id, item.activation_id)
            lines.append(f"{'activate' if item.active else 'deactivate'} {name}")
            continue
        lines.extend(layout.before.get(position, ()))
        if isinstance(item, SeqMessage):
            lines.extend(before_message.get(item.message_id, ()))
            lines.append(_message_line(item, names))
        else:
            lines.append(_note_line(item, names))
        lines.extend(["end"] * layout.ends_after.get(position, 0))
        position += 1
    lines.extend(before_message.get("", ()))
    return "\n".join(lines) + "\n"


def _lifeline_lines(
    ast: SequenceAst, names: dict[str, str], messages: list[SeqMessage]
) -> dict[str, list[str]]:
    """Lines to write right before a message: `autonumber` changes anchored to it, then
    `destroy X` for the participant it ends (a creation's lines are added by the caller).

    Key "" holds the changes anchored after the last message. Refuses a `created_by` /
    `destroyed_by` that names a missing message or one that does not involve the participant.
    """
    by_id = {m.message_id: m for m in messages}
    before: dict[str, list[str]] = {}
    for change in ast.autonumber_changes:
        if change.message_id is not None and change.message_id not in by_id:
            raise MermaidExportError(
                "InvalidAutonumber",
                f"cannot export autonumber change: missing message id {change.message_id}",
            )
        before.setdefault(change.message_id or "", []).append(_autonumber_line(change))
    for pid, participant in ast.participants.items():
        for message_id, what in (
            (participant.created_by, "created"),
            (participant.destroyed_by, "destroyed"),
        ):
            if message_id is None:
                continue
            message = by_id.get(message_id)
            ends = (
                ()
                if message is None
                else (
                    (message.to_participant_id,)
                    if what == "created"
                    else (message.from_participant_id, message.to_participant_id)
                )
            )
            if pid not in ends:
                raise MermaidExportError(
                    "InvalidLifeline",
                    f"cannot export participant {pid}: it is {what} by {message_id}, which is "
                    f"not a message {'to' if what == 'created' else 'from or to'} it",
                    object_id=pid,
                )
        if participant.destroyed_by is not None:
            before.setdefault(participant.destroyed_by, []).append(f"destroy {names[pid]}")
    return before


def _autonumber_line(change: SeqAutonumberChange) -> str:
    if not change.on:
        return "autonumber off"
    values = [v for v in (change.start, change.step) if v is not None]
    if change.start is None and change.step is not None or any(v < 0 for v in values):
        raise MermaidExportError(
            "InvalidAutonumber",
            f"cannot export autonumber change {change.start} {change.step}: a step needs a "
            "start, and numbers are not negative",
        )
    return " ".join(["autonumber", *(str(v) for v in values)])


def _box_error(index: int, reason: str) -> MermaidExportError:
    return MermaidExportError("InvalidBox", f"cannot export box {index + 1}: {reason}")


def _box_header(index: int, box: SeqBox) -> str:
    if box.label is not None:
        problem = sequence_text_problem(box.label)
        if problem is not None:
            raise _box_error(index, f"label {box.label!r} ({problem})")
    try:
        return format_box_header(box.color, box.label)
    except BoxHeaderError as error:
        raise _box_error(index, str(error)) from None


def _box_positions(ast: SequenceAst) -> tuple[dict[int, list[str]], dict[int, int]]:
    """`box` lines to write before participant i, and how many `end`s after it.

    Refuses what would not read back: empty boxes, unknown participants, a participant in
    two boxes, boxes whose participants are not consecutive in participant order, and boxes
    listed out of participant order.
    """
    order = {pid: i for i, pid in enumerate(ast.participants)}
    opens: dict[int, list[str]] = {}
    closes: dict[int, int] = {}
    owner: dict[str, int] = {}
    previous = -1
    for index, box in enumerate(ast.boxes):
        header = _box_header(index, box)
        if not box.participant_ids:
            raise _box_error(index, "it has no participants")
        for pid in box.participant_ids:
            if pid not in order:
                raise _box_error(index, f"references missing participant id {pid}")
            if pid in owner:
                raise _box_error(index, f"participant {pid} is also in box {owner[pid] + 1}")
            owner[pid] = index
        positions = [order[pid] for pid in box.participant_ids]
        first, last = min(positions), max(positions)
        if positions != list(range(first, last + 1)):
            raise _box_error(
                index, "its participants are not consecutive, in order, in participant order"
            )
        if first < previous:
            raise _box_error(index, "boxes are not in participant order")
        previous = first
        opens.setdefault(first, []).append(header)
        closes[last] = closes.get(last, 0) + 1
    return opens, closes


def _participant_name(pid: str, name: str) -> str:
    problem = participant_name_problem(name)
    if problem is not None:
        raise MermaidExportError(
            "InvalidParticipantName",
            f"cannot export participant {pid}: invalid name {name!r} ({problem})",
            object_id=pid,
        )
    return name


def _declaration(pid: str, name: str, role: str | None, alias: str | None) -> str:
    if role is None:
        line = f"participant {name}"
    elif role == "actor":
        line = f"actor {name}"
    elif role in PARTICIPANT_ROLES:
        line = f'participant {name}@{{ "type": "{role}" }}'
    else:
        raise MermaidExportError(
            "InvalidParticipantRole",
            f"cannot export participant {pid}: unsupported role {role!r} "
            f"(expected one of {', '.join(PARTICIPANT_ROLES)})",
            object_id=pid,
        )
    if alias is not None:
        _check_text("alias", pid, alias)
        line += f" as {alias}"
    return line


def _links_line(pid: str, name: str, links: tuple[tuple[str, str], ...]) -> str:
    menu = dict(links)
    payload = json.dumps(menu, ensure_ascii=False)
    problem = None if len(menu) == len(links) else "duplicate labels"
    for label, url in links:
        problem = problem or link_problem(label) or link_problem(url)
    problem = problem or sequence_text_problem(payload)
    if problem is not None:
        raise MermaidExportError(
            "InvalidLink", f"cannot export links for {pid}: {payload} ({problem})", object_id=pid
        )
    return f"links {name}: {payload}"


def _check_text(what: str, object_id: str, text: str) -> None:
    problem = sequence_text_problem(text)
    if problem is not None:
        kind = "InvalidMessageText" if what == "message text" else "InvalidText"
        raise MermaidExportError(
            kind,
            f"cannot export {what} for {object_id}: contains unsupported characters: "
            f"{text!r} ({problem})",
            object_id=object_id,
        )


def _endpoint(names: dict[str, str], participant_id: str, object_id: str) -> str:
    name = names.get(participant_id)
    if name is None:
        raise MermaidExportError(
            "MissingParticipant",
            f"message references missing participant id: {participant_id}",
            object_id=object_id,
        )
    return name


def _message_line(message: SeqMessage, names: dict[str, str]) -> str:
    source = _endpoint(names, message.from_participant_id, message.message_id)
    target = _endpoint(names, message.to_participant_id, message.message_id)
    arrow = message.arrow
    if arrow is None or ARROW_KINDS.get(arrow) != message.kind:
        arrow = CANONICAL_ARROW[message.kind]
    if message.activation not in (None, "+", "-"):
        raise MermaidExportError(
            "InvalidActivation",
            f"cannot export message {message.message_id}: activation marker "
            f"{message.activation!r} (expected '+' or '-')",
            object_id=message.message_id,
        )
    _check_text("message text", message.message_id, message.text)
    # A `-` activation right after an arrow ending in `-` (`\\|-`) would lengthen the arrow.
    gap = " " if message.activation and arrow.endswith("-") else ""
    start = "()" if message.from_central else ""
    end = "()" if message.to_central else ""
    marker = message.activation or ""
    return f"{source}{start}{arrow}{gap}{marker}{end}{target}: {_wrap(message.wrap)}{message.text}"


def _wrap(flag: bool | None) -> str:
    return "" if flag is None else "wrap:" if flag else "nowrap:"


def _note_line(note: SeqNote, names: dict[str, str]) -> str:
    placement = _PLACEMENT_WORDS.get(note.placement)
    count = len(note.participant_ids)
    if placement is None or count == 0 or count > 2 or (count == 2 and note.placement != "over"):
        raise MermaidExportError(
            "InvalidNote",
            f"cannot export note {note.note_id}: placement {note.placement!r} with {count} "
            f"participant(s) (expected 'left_of'/'right_of' with one or 'over' with one or two)",
            object_id=note.note_id,
        )
    targets = ",".join(_endpoint(names, pid, note.note_id) for pid in note.participant_ids)
    _check_text("note text", note.note_id, note.text)
    return f"Note {placement} {targets}: {_wrap(note.wrap)}{note.text}"


@dataclass
class _BlockLayout:
    """Where block lines go: `before[i]` precede message i, `ends_after[i]` follow it."""

    before: dict[int, list[str]]
    ends_after: dict[int, int]

    @classmethod
    def build(cls, blocks: tuple[SeqBlock, ...], anchors: list[str]) -> _BlockLayout:
        """`anchors`: the ids of every message and note, in timeline order."""
        layout = cls({}, {})
        if not blocks:
            return layout
        if not anchors:
            raise MermaidExportError(
                "InvalidBlockMembership",
                f"cannot export block {blocks[0].block_id}: diagram contains blocks but no "
                f"messages",
                object_id=blocks[0].block_id,
            )
        positions = {item_id: i for i, item_id in enumerate(anchors)}
        splits: list[tuple[int, int, str, str]] = []
        openings: list[tuple[int, int, str, str]] = []
        layout._walk(blocks, positions, None, 1, splits, openings, "root blocks")
        for start, depth, block_id, line in sorted(splits) + sorted(openings):
            del depth, block_id
            layout.before.setdefault(start, []).append(line)
        return layout

    def _walk(
        self,
        blocks: tuple[SeqBlock, ...],
        positions: dict[str, int],
        parent: tuple[SeqBlock, list[tuple[int, int]]] | None,
        depth: int,
        splits: list[tuple[int, int, str, str]],
        openings: list[tuple[int, int, str, str]],
        scope: str,
    ) -> None:
        spans: list[tuple[int, int, str]] = []
        for block in blocks:
            ranges = _section_ranges(block, positions, depth)
            start, stop = ranges[0][0], ranges[-1][1]
            if parent is not None:
                _check_inside(block, start, stop, parent)
            spans.append((start, stop, block.block_id))
            header = f" {block.header}" if block.header else ""
            openings.append((start, depth, block.block_id, f"{block.kind}{header}"))
            for section, (first, _last) in list(zip(block.sections, ranges, strict=True))[1:]:
                section_header = f" {section.header}" if section.header else ""
                splits.append((first, depth, block.block_id, f"{section.kind}{section_header}"))
            self.ends_after[stop] = self.ends_after.get(stop, 0) + 1
            self._walk(
                block.blocks,
                positions,
                (block, ranges),
                depth + 1,
                splits,
                openings,
                "nested blocks",
            )
        spans.sort()
        for (a_start, a_stop, a_id), (b_start, b_stop, b_id) in zip(spans, spans[1:], strict=False):
            if b_start <= a_stop:
                raise MermaidExportError(
                    "InvalidBlockMembership",
                    f"cannot export block {b_id}: {scope} overlap: {a_id} [{a_start}..{a_stop}] "
                    f"and {b_id} [{b_start}..{b_stop}]",
                    object_id=b_id,
                )


def _block_error(block: SeqBlock, reason: str) -> MermaidExportError:
    return MermaidExportError(
        "InvalidBlockMembership",
        f"cannot export block {block.block_id}: {reason}",
        object_id=block.block_id,
    )


def _section_ranges(
    block: SeqBlock, positions: dict[str, int], depth: int
) -> list[tuple[int, int]]:
    """Validate one block's own shape; return each section's (first, last) message position."""
    if depth > _MAX_DEPTH:
        raise _block_error(block, f"nesting deeper than {_MAX_DEPTH} blocks")
    if block.kind not in BLOCK_KINDS:
        raise _block_error(
            block, f"unsupported block kind {block.kind!r} (expected {', '.join(BLOCK_KINDS)})"
        )
    if block.kind == "rect" and not block.header:
        raise _block_error(block, "a 'rect' block needs a colour header")
    if block.header is not None:
        _check_text("block header", block.block_id, block.header)
    if not block.sections:
        raise _block_error(block, "has no sections")
    ranges: list[tuple[int, int]] = []
    previous: str | None = None
    for index, section in enumerate(block.sections):
        expected = "main" if index == 0 else _SECTION_KIND_OF_BLOCK.get(block.kind)
        if section.kind != expected:
            raise _block_error(
                block,
                f"section {section.section_id} has kind {section.kind!r} "
                f"(expected {expected!r} here in a {block.kind!r} block)"
                if expected
                else f"section {section.section_id}: a {block.kind!r} block has one section",
            )
        if index == 0 and section.header is not None:
            raise _block_error(
                block, f"section {section.section_id}: the main section has no header"
            )
        if section.header is not None:
            _check_text("section header", section.section_id, section.header)
        members = section.member_ids
        if not members:
            raise _block_error(block, f"section {section.section_id} is empty")
        found: set[int] = set()
        for member_id in members:
            if member_id not in positions:
                what = "message" if member_id in section.message_ids else "note"
                raise _block_error(
                    block,
                    f"section {section.section_id} references missing {what} id {member_id}",
                )
            found.add(positions[member_id])
        first, last = min(found), max(found)
        if last - first + 1 != len(found) or len(found) != len(members):
            raise _block_error(
                block, f"section {section.section_id} message membership is not contiguous"
            )
        if ranges and first != ranges[-1][1] + 1:
            raise _block_error(
                block,
                f"section {section.section_id} does not start immediately after previous "
                f"section {previous}",
            )
        ranges.append((first, last))
        previous = section.section_id
    return ranges


def _check_inside(
    child: SeqBlock, start: int, stop: int, parent: tuple[SeqBlock, list[tuple[int, int]]]
) -> None:
    block, ranges = parent
    if start < ranges[0][0] or stop > ranges[-1][1]:
        raise _block_error(block, f"nested block {child.block_id} is outside parent message range")
    if not any(first <= start and stop <= last for first, last in ranges):
        raise _block_error(
            block, f"nested block {child.block_id} is not contained within a single parent section"
        )
