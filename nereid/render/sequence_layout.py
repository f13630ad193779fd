"""Sequence layout: where every participant, message, note, frame and activation bar goes.

Rows are assigned in one pass over the timeline (messages, notes and activation statements by
`(order_key, id)`), with block frames opened, split and closed around their messages. Columns
come from spacing constraints between lifelines (labels never cut: gaps grow to fit them, long
labels wrap at `max_label_width`), solved left to right as a longest path. Frames then take the
extent of what they hold, padded 2 cells per nesting level and kept off lifelines. Everything is
finally shifted so the leftmost cell is column 0.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import count
from operator import attrgetter, itemgetter, lt

import msgspec

from nereid.model.sequence import (
    CANONICAL_ARROW,
    SeqActivation,
    SeqAutonumberChange,
    SeqBlock,
    SeqMessage,
    SeqNote,
    SeqSection,
    SequenceAst,
)
from nereid.render.display import display_text
from nereid.render.errors import RenderError
from nereid.render.options import RenderOptions
from nereid.render.sequence_arrows import ArrowLook, token_look
from nereid.render.sequence_boxes import BoxPlan, box_constraints, place_boxes, plan_boxes
from nereid.render.sequence_heads import HeadShape, head_shape
from nereid.render.text import text_width, wrap_text

__all__ = [
    "ActivationPlan",
    "FramePlan",
    "HeadPlan",
    "MessagePlan",
    "NotePlan",
    "SectionPlan",
    "SequenceLayout",
    "layout_sequence",
    "self_reach",
]

LABEL_PREFIX = "▴ "
HEAD_GAP = 3  # blank cells between neighbouring participant heads
FRAME_PAD = 2  # cells between a frame side and what it holds
LIFELINE_CLEARANCE = 2  # a frame side keeps this far from any lifeline
SELF_LOOP = 3  # the loop of a self message reaches this far right of its lifeline


@dataclass(slots=True)
class HeadPlan:
    participant_id: str
    shape: HeadShape
    x: int = 0  # lifeline column
    #: The messages that start (`create`) and end (`destroy`) the lifeline, if any.
    created_by: str | None = None
    destroyed_by: str | None = None
    #: The box's top row when it is drawn where the participant is created (just above its
    #: creating message, as Mermaid does); None: with the others at the top.
    top: int | None = None


class MessagePlan(msgspec.Struct, gc=False):
    """One message: its wrapped label, columns and rows (a Struct: one is made per message,
    and a Struct is made without a Python call; it holds no cycle, so the collector skips it).

    The last label line sits on the arrow row, inside the line (`├── text ──▶│`); earlier lines
    of a wrapped label go on the rows above it. A self message is a loop right of its lifeline
    (`├──┐` … `│◀─┘`), as tall as its label, with the label right of the loop. `plan_message`
    fills in the rows and the label's width.
    """

    message: SeqMessage
    look: ArrowLook
    lines: list[str]
    from_index: int
    to_index: int
    top: int  # first row the message takes
    is_self: bool
    rows: int  # rows the message takes
    arrow_row: int  # the row of the line (of the loop's top, for a self message)
    head_row: int  # the row where the arrow reaches its target
    label_width: int  # the widest label line, in cells
    from_x: int = 0
    to_x: int = 0

    def extent(self) -> tuple[int, int]:
        """The leftmost and rightmost column this message paints."""
        if self.is_self:
            return self.from_x, self.from_x + self_reach(self.label_width)
        return min(self.from_x, self.to_x), max(self.from_x, self.to_x)

    def span_need(self) -> int:
        """The least lifeline distance that shows this (non-self) message and its label."""
        return _span_need(self.label_width, self.look)


def plan_message(
    message: SeqMessage, look: ArrowLook, lines: list[str], from_index: int, to_index: int, top: int
) -> MessagePlan:
    """The plan of `message` from its first row `top` (rows and label width derived)."""
    is_self = from_index == to_index
    if len(lines) == 1:
        width = text_width(lines[0])
        rows = 2 if is_self else 1
    else:
        width = max((text_width(t) for t in lines), default=0)
        rows = max(2 if is_self else 1, len(lines))
    head_row = top + rows - 1
    arrow_row = top if is_self else head_row
    return MessagePlan(
        message, look, lines, from_index, to_index, top, is_self, rows, arrow_row, head_row, width
    )


def _span_need(label_width: int, look: ArrowLook) -> int:
    ends = (look.head != "none") + (look.tail != "none")
    return max(label_width + 2 + 2 + ends + 1, 5)


def self_reach(label_width: int) -> int:
    """How far right of its lifeline a self message paints (loop, gap, label)."""
    return max(SELF_LOOP, SELF_LOOP + 1 + label_width) if label_width else SELF_LOOP


@dataclass(slots=True)
class NotePlan:
    note: SeqNote
    lines: list[str]
    indexes: tuple[int, ...]
    top: int
    width: int  # box width in cells, borders included
    left: int = 0

    @property
    def bottom(self) -> int:
        return self.top + len(self.lines) + 1

    @property
    def right(self) -> int:
        return self.left + self.width - 1


@dataclass(slots=True)
class SectionPlan:
    section: SeqSection
    label: str
    start: int  # the frame top or this section's separator row
    end: int = 0  # the next separator or the frame bottom row
    label_col: int = 0
    more: list[str] = field(default_factory=list)  # a wrapped label's further lines
    label_width: int = 0  # the widest line of the label, in cells


@dataclass(slots=True)
class FramePlan:
    block: SeqBlock
    depth: int
    label: str
    top: int
    sections: list[SectionPlan] = field(default_factory=list)
    bottom: int = 0
    left: int = 0
    right: int = 0
    items: list[MessagePlan | NotePlan] = field(default_factory=list)
    children: list[FramePlan] = field(default_factory=list)
    first_index: int = 0  # leftmost participant the frame holds something of
    label_col: int = 0
    more: list[str] = field(default_factory=list)  # a wrapped label's further lines, drawn
    # inside the frame under its tab
    label_width: int = 0  # the widest line of the label, in cells

    def first_participant(self) -> int:
        indexes = [c.first_participant() for c in self.children]
        for item in self.items:
            if isinstance(item, MessagePlan):
                indexes.append(min(item.from_index, item.to_index))
            else:
                indexes.append(min(item.indexes))
        self.first_index = min(indexes, default=0)
        return self.first_index


@dataclass(slots=True)
class ActivationPlan:
    """An activation bar over rows `top..bottom` (empty when `top > bottom`)."""

    participant_index: int
    top: int
    bottom: int
    activation_ids: list[str]
    x: int = 0


@dataclass(slots=True)
class SequenceLayout:
    heads: list[HeadPlan]
    head_top: int
    head_height: int
    title: str | None
    title_row: int
    messages: list[MessagePlan]
    notes: list[NotePlan]
    frames: list[FramePlan]  # every frame, outer before inner
    activations: list[ActivationPlan]
    lifeline_top: int
    bottom: int  # last lifeline row
    width: int = 0
    #: Participant boxes: their frames take the row above the heads and the row below
    #: `bottom`.
    boxes: list[BoxPlan] = field(default_factory=list)
    #: The messages of `messages` from a lifeline to itself.
    self_messages: list[MessagePlan] = field(default_factory=list)

    @property
    def height(self) -> int:
        return self.bottom + (2 if self.boxes else 1)


#: Sort keys: the timeline by (order key, id); frames opening at one item outer first and a
#: frame before its own first separator; frames closing at one item inner first.
_TIMELINE_ORDER = itemgetter(0, 1)
_OPEN_ORDER = itemgetter(0, 1)
_ORDER_KEY = attrgetter("order_key")
_MESSAGE_ID = attrgetter("message_id")


@lru_cache(maxsize=64)
def _token_look(token: str) -> tuple[ArrowLook, int]:
    """`token_look` and how many arrowheads it draws."""
    look = token_look(token)
    return look, (look.head != "none") + (look.tail != "none")


def _close_order(entry: tuple[int, SeqBlock]) -> int:
    return -entry[0]


def _wrap(text: str, width: int) -> list[str]:
    """`wrap_text`, skipped for the common short single-line label."""
    if len(text) <= width and text.isascii() and text.isprintable() and "<br" not in text:
        return [text]
    return wrap_text(text, width)


def _err(message: str) -> RenderError:
    return RenderError(f"sequence layout error: {message}")


@lru_cache(maxsize=1024)
def _frame_label(kind: str, header: str | None, width: int) -> tuple[tuple[str, ...], int]:
    """The tab of a frame or section, `kind [header]`, wrapped like a message at `width`
    (the first line goes on the border, the others under it), and its widest line in
    cells; a `rect`'s header is its background colour, which text cannot show, so a rect
    frame has no tab. Pure: frames of one kind and header share it."""
    if kind == "rect":
        return ("",), 0
    header = display_text(header or "").strip()
    if not header:
        lines = [f" {kind} "]
    else:
        lines = [f" {line} " for line in wrap_text(f"{kind} [{header}]", width)]
    return tuple(lines), max(text_width(line) for line in lines)


def layout_sequence(ast: SequenceAst, options: RenderOptions) -> SequenceLayout:
    """Place everything of `ast`; raises RenderError if it refers to unknown objects."""
    index_of = {pid: i for i, pid in enumerate(ast.participants)}
    heads = _heads(ast, options)
    boxes = plan_boxes(ast, index_of)
    title_rows = 2 if ast.title else 0
    head_top = title_rows + (1 if boxes else 0)
    head_height = max((h.shape.height for h in heads), default=0)
    lifeline_top = head_top + head_height
    builder = _RowBuilder(ast, options, index_of, lifeline_top + 1)
    for index, head in enumerate(heads):
        if head.created_by is not None:
            builder.creations.setdefault(head.created_by, []).append((index, head.shape.height))
    builder.run()
    for index, top in builder.head_tops.items():
        heads[index].top = top
    layout = SequenceLayout(
        heads=heads,
        head_top=head_top,
        head_height=head_height,
        title=display_text(ast.title) if ast.title else ast.title,
        title_row=0,
        messages=builder.messages,
        notes=builder.notes,
        frames=builder.frames,
        activations=builder.activations,
        lifeline_top=lifeline_top - 1,
        bottom=builder.y,
        boxes=boxes,
        self_messages=builder.self_messages,
    )
    _place_columns(layout, builder.need)
    return layout


def _heads(ast: SequenceAst, options: RenderOptions) -> list[HeadPlan]:
    heads: list[HeadPlan] = []
    for pid, participant in ast.participants.items():
        name = display_text(participant.alias or participant.mermaid_name)
        if options.prefix_object_labels:
            name = LABEL_PREFIX + name
        lines = list(wrap_text(name, options.max_label_width))
        if options.show_notes:
            lines.extend(wrap_text(participant.note or "", options.max_label_width))
        heads.append(
            HeadPlan(
                pid,
                head_shape(participant.role, tuple(lines)),
                created_by=participant.created_by,
                destroyed_by=participant.destroyed_by,
            )
        )
    return heads


class _RowBuilder:
    """One pass over the timeline assigning rows; collects frames and activation bars."""

    def __init__(
        self,
        ast: SequenceAst,
        options: RenderOptions,
        index_of: dict[str, int],
        first_row: int,
    ) -> None:
        self.ast = ast
        self.options = options
        self.index_of = index_of
        self.y = first_row
        self.messages: list[MessagePlan] = []
        self.notes: list[NotePlan] = []
        self.frames: list[FramePlan] = []
        self.activations: list[ActivationPlan] = []
        self._open: list[FramePlan] = []
        self._active: dict[int, list[ActivationPlan]] = {}
        self._pending: list[ActivationPlan] = []  # `activate`d, waiting for their first row
        self._last_content_row = first_row - 1
        #: Creating message id -> (participant index, head height) of what it creates, and
        #: the head rows given to them (a created box sits right above its message).
        self.creations: dict[str, list[tuple[int, int]]] = {}
        self.head_tops: dict[int, int] = {}
        self.prefix_labels = options.prefix_object_labels
        self.max_width = options.max_label_width
        #: need[j][i] = d: lifeline j stands at least d cells right of lifeline i (i < j).
        self.need: list[dict[int, int]] = [{} for _ in index_of]
        #: The messages from a lifeline to itself (the only ones that reach past the heads).
        self.self_messages: list[MessagePlan] = []
        #: Autonumbering as it stands at the next message: shown, number, step; and the
        #: later `autonumber` statements by the message they apply to.
        self.shown = False
        self.number = 1
        self.step = 1
        self.changes: dict[str | None, SeqAutonumberChange] = {}

    def _participant(self, pid: str, what: str) -> int:
        index = self.index_of.get(pid)
        if index is None:
            raise _err(f"{what} references unknown participant {pid}")
        return index

    def _timeline(self) -> list[SeqMessage | SeqNote | SeqActivation]:
        """Messages, notes and activation statements by `(order_key, id)`."""
        ast = self.ast
        if not ast.notes and not ast.activations:
            keys = list(map(_ORDER_KEY, ast.messages))
            if all(map(lt, keys, keys[1:])):  # in order already, as the importer makes them
                return list(ast.messages)
        timeline: list[tuple[int, str, SeqMessage | SeqNote | SeqActivation]] = []
        timeline.extend((m.order_key, m.message_id, m) for m in ast.messages)
        timeline.extend((n.order_key, n.note_id, n) for n in ast.notes)
        timeline.extend((a.order_key, a.activation_id, a) for a in ast.activations)
        timeline.sort(key=_TIMELINE_ORDER)
        return [item for _, _, item in timeline]

    def run(self) -> None:
        timeline = self._timeline()
        # Frames open before the first message or note of their run and close after the last.
        before: dict[int, list[tuple[int, int, SeqBlock, SeqSection | None]]] = {}
        after: dict[int, list[tuple[int, SeqBlock]]] = {}
        ast = self.ast
        if ast.blocks:
            if ast.notes or ast.activations:
                position: dict[str, int] = {}
                for i, item in enumerate(timeline):
                    if isinstance(item, SeqMessage):
                        position[item.message_id] = i
                    elif isinstance(item, SeqNote):
                        position[item.note_id] = i
            else:  # messages only
                position = dict(zip(map(_MESSAGE_ID, timeline), count()))
            for block in ast.blocks:
                self._index_block(block, 0, position, before, after)
        if ast.autonumber is not None:
            self.number, self.step, self.shown = ast.autonumber.start, ast.autonumber.step, True
        self.changes = {c.message_id: c for c in ast.autonumber_changes}
        # Runs of items with no frame opening or closing among them, between the items that
        # have one (`marks`).
        done = 0
        for mark in sorted(before.keys() | after.keys()):
            if done < mark:
                self._items(timeline[done:mark])
            opening = before.get(mark)
            if opening is not None:
                for depth, _, block, section in sorted(opening, key=_OPEN_ORDER):
                    if section is None:
                        self._open_frame(block, depth)
                    else:
                        self._separate(block, section)
            self._items(timeline[mark : mark + 1])
            closing = after.get(mark)
            if closing is not None:
                for _, block in sorted(closing, key=_close_order):
                    self._close_frame(block)
            done = mark + 1
        self._items(timeline[done:] if done else timeline)
        last = self._last_content_row
        for bar in self._pending:  # nothing came after the `activate`: no bar
            bar.top, bar.bottom = last + 1, last
        for bars in self._active.values():
            for bar in bars:
                if bar not in self._pending:
                    bar.bottom = max(bar.top, last)
        self._pending.clear()
        self._active.clear()

    def _index_block(
        self,
        block: SeqBlock,
        depth: int,
        position: dict[str, int],
        before: dict[int, list[tuple[int, int, SeqBlock, SeqSection | None]]],
        after: dict[int, list[tuple[int, SeqBlock]]],
    ) -> None:
        if not block.sections:
            raise _err(f"invalid block membership (block_id={block.block_id}): has no sections")
        first = last = -1
        for n, section in enumerate(block.sections):
            members = section.message_ids + section.note_ids  # `member_ids`
            if not members:
                raise _err(
                    f"invalid block membership (block_id={block.block_id}): "
                    f"section {section.section_id} is empty"
                )
            try:
                spots = [position[mid] for mid in members]
            except KeyError as missing:
                raise _err(
                    f"invalid block membership (block_id={block.block_id}): section "
                    f"{section.section_id} references missing message or note id "
                    f"{missing.args[0]}"
                ) from None
            start = min(spots)
            if n > 0:
                before.setdefault(start, []).append((depth, 0, block, section))
            if first < 0 or start < first:
                first = start
            end = max(spots)
            if end > last:
                last = end
        before.setdefault(first, []).append((depth, 1, block, None))
        after.setdefault(last, []).append((depth, block))
        for child in block.blocks:
            self._index_block(child, depth + 1, position, before, after)

    # -- timeline items ----------------------------------------------------------------------

    def _add_item(self, item: MessagePlan | NotePlan) -> None:
        if self._open:
            self._open[-1].items.append(item)
        for bar in self._pending:
            bar.top = bar.bottom = item.top
        self._pending.clear()

    def _items(self, items: list[SeqMessage | SeqNote | SeqActivation]) -> None:
        """Rows for a run of timeline items, no frame opening or closing among them (so the
        innermost open frame is the same for all)."""
        index_of = self.index_of
        need = self.need
        plans = self.messages
        frame_items = self._open[-1].items if self._open else None
        max_width = self.max_width
        label_prefix = LABEL_PREFIX if self.prefix_labels else ""
        creations = self.creations
        changes = self.changes
        shown = self.shown
        number = self.number
        step = self.step
        for message in items:
            if not isinstance(message, SeqMessage):
                if isinstance(message, SeqNote):
                    self._note(message)
                else:
                    self._activation(message)
                continue
            if changes:
                change = changes.get(message.message_id)
                if change is not None:  # a later `autonumber` statement (Mermaid's rules)
                    shown = change.on
                    number = change.start if change.start is not None else number
                    step = change.step if change.step is not None else step
            source = index_of.get(message.from_participant_id)
            target = index_of.get(message.to_participant_id)
            if source is None or target is None:
                what = f"message {message.message_id}"
                source = self._participant(message.from_participant_id, what)
                target = self._participant(message.to_participant_id, what)
            text = display_text(message.text)
            if shown:
                text = f"{number}. {text}"
            number += step
            if label_prefix:
                text = label_prefix + text
            token = message.arrow
            look, ends = _token_look(token if token is not None else CANONICAL_ARROW[message.kind])
            if creations:
                created = creations.get(message.message_id, ())
                if created:  # room for the created participant's box, right above the arrow
                    for index, _height in created:
                        self.head_tops[index] = self.y
                    self.y += max(height for _index, height in created)
            top = self.y
            if (
                source != target
                and len(text) <= max_width
                and text.isascii()
                and text.isprintable()
                and "<br" not in text
                and text.strip()
            ):  # the common message: one row, a one-line label (`plan_message`'s case, inline)
                width = len(text)
                plan = MessagePlan(
                    message, look, [text], source, target, top, False, 1, top, top, width
                )
                self.y = top + 1
            else:
                lines = _wrap(text, max_width) if text.strip() else []
                plan = plan_message(message, look, lines, source, target, top)
                width = plan.label_width
                self.y = top + plan.rows
                if plan.is_self:
                    self.self_messages.append(plan)
            plans.append(plan)
            if frame_items is not None:
                frame_items.append(plan)
            if self._pending:
                for bar in self._pending:
                    bar.top = bar.bottom = top
                self._pending.clear()
            if source == target:
                if source + 1 < len(need):
                    distance = self_reach(width) + LIFELINE_CLEARANCE + FRAME_PAD
                    if distance > need[source + 1].get(source, 0):
                        need[source + 1][source] = distance
            else:
                distance = max(width + 5 + ends, 5)  # `_span_need`
                low, high = (source, target) if source < target else (target, source)
                gaps = need[high]
                if distance > gaps.get(low, 0):
                    gaps[low] = distance
                if high - low > 1:
                    # The label may have to sit in the sender's gap to keep off other lifelines.
                    low, high = (source, source + 1) if target > source else (source - 1, source)
                    if distance > need[high].get(low, 0):
                        need[high][low] = distance
            self._last_content_row = self.y - 1
            activation = message.activation
            if activation is not None:
                arrow_row = plan.head_row
                if activation == "+":
                    bar = ActivationPlan(target, arrow_row, arrow_row, [])
                    self._active.setdefault(target, []).append(bar)
                    self.activations.append(bar)
                elif activation == "-":
                    self._deactivate(source, arrow_row, None)
        self.shown, self.number, self.step = shown, number, step

    def _note(self, note: SeqNote) -> None:
        what = f"note {note.note_id}"
        if not note.participant_ids:
            raise _err(f"{what} names no participant")
        indexes = tuple(self._participant(pid, what) for pid in note.participant_ids)
        lines = wrap_text(display_text(note.text), self.options.max_label_width)
        width = max(text_width(line) for line in lines) + 4
        if note.placement == "over" and len(set(indexes)) == 1:
            width += 1 - width % 2  # odd, so it centres on the lifeline
        plan = NotePlan(note, lines, indexes, self.y, width)
        self.notes.append(plan)
        self._add_item(plan)
        self.y = plan.bottom + 1
        self._last_content_row = plan.bottom

    def _activation(self, statement: SeqActivation) -> None:
        index = self._participant(statement.participant_id, f"activation {statement.activation_id}")
        if statement.active:
            bar = ActivationPlan(index, self.y, self.y, [statement.activation_id])
            self._active.setdefault(index, []).append(bar)
            self.activations.append(bar)
            self._pending.append(bar)
        else:
            self._deactivate(index, self._last_content_row, statement.activation_id)

    def _deactivate(self, index: int, row: int, activation_id: str | None) -> None:
        bars = self._active.get(index)
        if not bars:
            return  # Mermaid ignores a deactivate of an inactive participant too
        bar = bars.pop()
        if bar in self._pending:  # activated and deactivated with nothing in between: no bar
            self._pending.remove(bar)
            bar.top, bar.bottom = row + 1, row
        else:
            bar.bottom = max(bar.top, row)
        if activation_id is not None:
            bar.activation_ids.append(activation_id)

    # -- frames ------------------------------------------------------------------------------

    def _open_frame(self, block: SeqBlock, depth: int) -> None:
        label, label_width = _frame_label(block.kind, block.header, self.max_width)
        frame = FramePlan(
            block, depth, label[0], self.y, more=list(label[1:]), label_width=label_width
        )
        first = block.sections[0]
        frame.sections.append(SectionPlan(first, "", self.y))
        if self._open:
            self._open[-1].children.append(frame)
        self._open.append(frame)
        self.frames.append(frame)
        self.y += 1 + len(frame.more)

    def _separate(self, block: SeqBlock, section: SeqSection) -> None:
        frame = self._frame_of(block)
        frame.sections[-1].end = self.y
        label, label_width = _frame_label(section.kind, section.header, self.max_width)
        frame.sections.append(
            SectionPlan(section, label[0], self.y, more=list(label[1:]), label_width=label_width)
        )
        self.y += len(label)

    def _close_frame(self, block: SeqBlock) -> None:
        frame = self._frame_of(block)
        frame.bottom = self.y
        frame.sections[-1].end = self.y
        self._open.remove(frame)
        self.y += 1

    def _frame_of(self, block: SeqBlock) -> FramePlan:
        for frame in reversed(self._open):
            if frame.block is block:
                return frame
        raise _err(f"block {block.block_id} overlaps another block")


# -- columns ---------------------------------------------------------------------------------


def _place_columns(layout: SequenceLayout, need: list[dict[int, int]]) -> None:
    """Columns from the spacing constraints (`need`: the messages' already, as the rows were
    assigned), then frames around what they hold, then everything shifted to start at 0."""
    heads = layout.heads
    count = len(heads)

    def require(i: int, j: int, distance: int) -> None:
        if i > j:
            i, j = j, i
        if i == j or j >= count:
            return
        if distance > need[j].get(i, 0):
            need[j][i] = distance

    for j in range(1, count):
        require(j - 1, j, heads[j - 1].shape.right + HEAD_GAP - heads[j].shape.left + 1)
    box_constraints(layout.boxes, [head.shape for head in heads], require)
    for note in layout.notes:
        _note_constraints(note, require)
    for frame in layout.frames:
        if frame.depth == 0:
            frame.first_participant()
    for frame in layout.frames:
        # Room for the frame's labels in the first gap, so they sit between lifelines.
        widest = max(frame.label_width, *(section.label_width for section in frame.sections))
        require(frame.first_index, frame.first_index + 1, widest + 1)
    x = [0] * count
    for j in range(1, count):
        x[j] = max(x[i] + d for i, d in need[j].items())
    for head, col in zip(heads, x, strict=True):
        head.x = col
    for note in layout.notes:
        _place_note(note, x)
    for bar in layout.activations:
        bar.x = x[bar.participant_index]
    place_boxes(layout.boxes, [head.shape for head in heads], x)
    lifelines = sorted(set(x))
    box_sides = {box.left for box in layout.boxes} | {box.right for box in layout.boxes}
    # A box drawn at its creating message lies inside the frames around that message.
    created = {
        head.created_by: (head.x + head.shape.left, head.x + head.shape.right)
        for head in heads
        if head.created_by is not None and head.top is not None
    }
    for frame in layout.frames:
        if frame.depth == 0:
            _place_frame(frame, x, lifelines, box_sides, created)
    _shift(layout, x)


def _note_constraints(note: NotePlan, require: Callable[[int, int, int], None]) -> None:
    first, last = min(note.indexes), max(note.indexes)
    if note.note.placement == "right_of":
        require(first, first + 1, note.width + 1 + LIFELINE_CLEARANCE + 1)
    elif note.note.placement == "left_of":
        if first > 0:
            require(first - 1, first, note.width + 1 + LIFELINE_CLEARANCE + 1)
    elif first == last:
        half = note.width // 2
        require(first, first + 1, half + 1 + LIFELINE_CLEARANCE)
        if first > 0:
            require(first - 1, first, half + 1 + LIFELINE_CLEARANCE)
    else:
        require(first, last, note.width - 2 * FRAME_PAD - 1)


def _place_note(note: NotePlan, x: list[int]) -> None:
    first, last = min(note.indexes), max(note.indexes)
    if note.note.placement == "right_of":
        note.left = x[first] + 2
    elif note.note.placement == "left_of":
        note.left = x[first] - 1 - note.width
    elif first == last:
        note.left = x[first] - note.width // 2
    else:
        note.left = x[first] - FRAME_PAD
        note.width = max(note.width, x[last] - x[first] + 2 * FRAME_PAD + 1)


def _place_frame(
    frame: FramePlan,
    x: list[int],
    lifelines: list[int],
    box_sides: set[int],
    created: dict[str, tuple[int, int]],
) -> None:
    """Size `frame` around its items and inner frames (post-order), off every lifeline and
    never on a participant box's side (the two lines would read as one); `created`: the
    columns of each box drawn above its creating message, by message id. `x`: the
    lifelines' columns (messages get theirs later, in `_shift`)."""
    lo, hi = 1 << 60, -(1 << 60)
    for child in frame.children:
        _place_frame(child, x, lifelines, box_sides, created)
        if child.left < lo:
            lo = child.left
        if child.right > hi:
            hi = child.right
    for item in frame.items:
        if isinstance(item, MessagePlan):
            a, b = x[item.from_index], x[item.to_index]  # `MessagePlan.extent`
            if item.is_self:
                b = a + self_reach(item.label_width)
            elif a > b:
                a, b = b, a
            if created:
                box = created.get(item.message.message_id)
                if box is not None:
                    a, b = min(a, box[0]), max(b, box[1])
        else:
            a, b = item.left, item.right
        if a < lo:
            lo = a
        if b > hi:
            hi = b
    left, right = lo - FRAME_PAD, hi + FRAME_PAD
    while _too_close(left, lifelines, box_sides):
        left -= 1
    frame.label_col = _label_col(left + 2, frame.label_width, lifelines)
    right = max(right, frame.label_col + frame.label_width + 1)
    for section in frame.sections[1:]:
        section.label_col = _label_col(left + 2, section.label_width, lifelines)
        right = max(right, section.label_col + section.label_width + 1)
    while _too_close(right, lifelines, box_sides):
        right += 1
    frame.left, frame.right = left, right


def _too_close(col: int, lifelines: list[int], box_sides: set[int]) -> bool:
    """A frame side at `col` would touch a lifeline or a participant box's side."""
    # the nearest lifeline at or right of `col - LIFELINE_CLEARANCE + 1` (`lifelines` sorted)
    near = bisect_left(lifelines, col - LIFELINE_CLEARANCE + 1)
    if near < len(lifelines) and lifelines[near] < col + LIFELINE_CLEARANCE:
        return True
    return any(abs(col - side) < 2 for side in box_sides) if box_sides else False


def _label_col(start: int, width: int, lifelines: list[int]) -> int:
    """The first column from `start` where a label of `width` cells covers no lifeline."""
    col = start
    index = bisect_left(lifelines, col)  # `lifelines` sorted
    count = len(lifelines)
    while index < count and lifelines[index] <= col + width - 1:
        col = lifelines[index] + 1
        index += 1
    return col


def _shift(layout: SequenceLayout, x: list[int]) -> None:
    """Shift everything so the leftmost cell is column 0, placing the messages (at the
    lifelines `x`) on the way, and set the width."""
    lo, hi = 0, 0
    for head in layout.heads:
        lo = min(lo, head.x + head.shape.left)
        hi = max(hi, head.x + head.shape.right)
    # A message between two lifelines lies within the heads (a head reaches at least one
    # cell either side of its lifeline): only self messages can reach further.
    for plan in layout.self_messages:
        a = x[plan.from_index]
        lo, hi = min(lo, a), max(hi, a + self_reach(plan.label_width))
    for note in layout.notes:
        lo, hi = min(lo, note.left), max(hi, note.right)
    for frame in layout.frames:
        lo, hi = min(lo, frame.left), max(hi, frame.right)
    for box in layout.boxes:
        lo, hi = min(lo, box.left), max(hi, box.right)
    shift = -lo
    for head in layout.heads:
        head.x += shift
    placed = [col + shift for col in x]
    for plan in layout.messages:
        plan.from_x = placed[plan.from_index]
        plan.to_x = placed[plan.to_index]
    for note in layout.notes:
        note.left += shift
    for frame in layout.frames:
        frame.left += shift
        frame.right += shift
        frame.label_col += shift
        for section in frame.sections:
            section.label_col += shift
    for bar in layout.activations:
        bar.x += shift
    for box in layout.boxes:
        box.left += shift
        box.right += shift
    width = hi + shift + 1
    if layout.title:
        width = max(width, text_width(layout.title))
    layout.width = width
