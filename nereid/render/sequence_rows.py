"""The row painter: the common sequence diagrams drawn row by row as strings.

Most diagrams are heads, lifelines, messages between two lifelines and block frames. Every
row below the heads then holds one thing (a message's line, a label line, a frame's top,
separator or bottom, a tab's further line) on a background of lifelines and the sides of the
frames around it; rows that look alike differ only in their label. So each row is the
background string with one segment spliced in, and a segment is drawn once per shape: with
the same drawing calls as the canvas painter (`draw_message_line`), on a one-row `_RowCells`
that joins lines as `Canvas` does, then reused with the next label of the same width.

`paint_rows` returns None for what it does not draw, and `sequence.py` then uses the canvas
painter: notes, activation bars, participant boxes, self messages, created or destroyed
lifelines, and text that is not one cell per character (wide or combining characters). Its
output (text and span map) equals the canvas painter's; a property test checks this.
"""

from __future__ import annotations

from itertools import repeat

from nereid.model.refs import (
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    ObjectRef,
)
from nereid.render.canvas import Canvas
from nereid.render.glyphs import (
    DOWN,
    LEFT,
    RIGHT,
    STYLE_DOTTED,
    STYLE_LIGHT,
    UP,
    GlyphSet,
)
from nereid.render.options import Rendered
from nereid.render.sequence_arrows import draw_message_line, label_room
from nereid.render.sequence_heads import draw_head
from nereid.render.sequence_layout import FramePlan, MessagePlan, SequenceLayout
from nereid.render.spans import Span, SpanMap, merge_runs
from nereid.render.text import char_width, text_width

__all__ = ["paint_rows"]

_MASK = 0x0F
_STYLE_SHIFT = 4
_VERTICAL = UP | DOWN
_LIFELINE = (STYLE_LIGHT << _STYLE_SHIFT) | _VERTICAL
_CORNERS = frozenset({RIGHT | DOWN, LEFT | DOWN, RIGHT | UP, LEFT | UP})
_ARM_COUNT = tuple(bin(mask).count("1") for mask in range(16))
_new_span = tuple.__new__


_ARROW, _TEXT, _TOP, _SEPARATOR, _BOTTOM = range(5)  # what a body row holds


class _Declined(Exception):
    """Something the row painter does not draw: the canvas painter takes the diagram."""


def _simple(text: str) -> bool:
    """One cell per character, as the canvas lays out ASCII."""
    if text.isascii() and text.isprintable():
        return True
    return all(char_width(ch) == 1 for ch in text)


def paint_rows(layout: SequenceLayout, diagram_id: str, glyphs: GlyphSet) -> Rendered | None:
    """The drawing of `layout`, or None if it holds something only the canvas draws."""
    if layout.notes or layout.activations or layout.boxes or not layout.heads:
        return None
    for head in layout.heads:
        if head.top is not None or head.created_by is not None or head.destroyed_by is not None:
            return None
    for plan in layout.messages:
        if plan.is_self:
            return None
    try:
        return _RowPainter(layout, diagram_id, glyphs).paint()
    except _Declined:
        return None


class _RowCells:
    """Columns `lo..hi` of one row, drawn as `Canvas` draws (the same calls, one row).

    A cell is 0 (blank), a line code (style << 4 | arms) or a text character. Vertical arms
    count as joined: in the rows this painter draws, every lifeline and frame side runs on
    through the rows above and below. `lo` and `hi` are margins: read, never drawn on.
    """

    __slots__ = ("cells", "hi", "lo", "row", "runs")

    def __init__(self, row: int, lo: int, cells: list[int | str]) -> None:
        self.row = row
        self.lo = lo
        self.hi = lo + len(cells) - 1
        self.cells = cells
        self.runs: list[tuple[int, int]] = []  # the owner's cells, one owner per row

    def _index(self, col: int) -> int:
        if not self.lo < col < self.hi:
            raise _Declined
        return col - self.lo

    def add_arms(self, col: int, arms: int, style: int = STYLE_LIGHT) -> None:
        i = self._index(col)
        code = self.cells[i]
        if isinstance(code, str) or not code & _MASK:
            code = style << _STYLE_SHIFT
        self.cells[i] = code | arms

    def pass_vertical(self, col: int, style: int = STYLE_LIGHT) -> None:
        """A vertical line crossing this row (`Canvas.vline` between its ends)."""
        i = self._index(col)
        code = self.cells[i]
        if isinstance(code, str) or not code & _MASK:
            self.cells[i] = (style << _STYLE_SHIFT) | _VERTICAL
        else:
            self.cells[i] = code | _VERTICAL

    def hline(
        self,
        row: int,
        col_start: int,
        col_end: int,
        style: int = STYLE_LIGHT,
        owner: ObjectRef | None = None,
    ) -> None:
        if row != self.row:
            raise _Declined
        if col_end < col_start:
            col_start, col_end = col_end, col_start
        if col_start == col_end:
            self.add_arms(col_start, LEFT | RIGHT, style)
        else:
            cells = self.cells
            fresh = (style << _STYLE_SHIFT) | LEFT | RIGHT
            for col in range(col_start + 1, col_end):
                i = self._index(col)
                code = cells[i]
                if isinstance(code, str) or not code & _MASK:
                    cells[i] = fresh
                else:
                    cells[i] = code | LEFT | RIGHT
            self.add_arms(col_start, RIGHT, style)
            self.add_arms(col_end, LEFT, style)
        if owner is not None:
            self.runs.append((col_start, col_end))

    def put_text(self, row: int, col: int, text: str, owner: ObjectRef | None = None) -> int:
        if row != self.row or not _simple(text):
            raise _Declined
        run_start = -1
        for k, ch in enumerate(text):
            i = self._index(col + k)
            self.cells[i] = 0 if ch == " " else ch
            if owner is not None:
                if ch == " ":
                    if run_start >= 0:
                        self.runs.append((run_start, col + k - 1))
                        run_start = -1
                elif run_start < 0:
                    run_start = col + k
        if owner is not None and run_start >= 0:
            self.runs.append((run_start, col + len(text) - 1))
        return len(text)

    def put_char(self, row: int, col: int, char: str, owner: ObjectRef | None = None) -> None:
        if row != self.row or len(char) != 1 or char_width(char) != 1:
            raise _Declined
        self.cells[self._index(col)] = 0 if char == " " else char
        if owner is not None and char != " ":
            self.runs.append((col, col))

    def claim(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        if row != self.row:
            raise _Declined
        self.runs.append((min(col_start, col_end), max(col_start, col_end)))

    def resolve(self, glyphs: GlyphSet) -> str:
        """Columns `lo + 1 .. hi - 1` as text: each line arm shows if its neighbour joins it
        (a corner keeps its shape), as `Canvas.to_lines` resolves them."""
        cells, lines = self.cells, glyphs.lines
        out: list[str] = []
        for i in range(1, len(cells) - 1):
            code = cells[i]
            if isinstance(code, str):
                out.append(code)
            elif not code:
                out.append(" ")
            else:
                mask = code & _MASK
                connected = mask & _VERTICAL
                left, right = cells[i - 1], cells[i + 1]
                if mask & LEFT and not isinstance(left, str) and left & RIGHT:
                    connected |= LEFT
                if mask & RIGHT and not isinstance(right, str) and right & LEFT:
                    connected |= RIGHT
                if connected != mask and _ARM_COUNT[connected] < 2 and mask in _CORNERS:
                    connected = mask
                out.append(lines[code >> _STYLE_SHIFT][connected or mask])
        return "".join(out)


class _Background:
    """A body row with nothing of its own: lifelines and the sides of the frames around it."""

    __slots__ = ("codes", "sides", "text")

    def __init__(self, width: int, lifelines: list[int], sides: tuple[int, ...], v: str) -> None:
        codes = [0] * (width + 2)  # one margin column each side: index = col + 1
        chars = [" "] * width
        for col in (*lifelines, *sides):
            codes[col + 1] = _LIFELINE
            chars[col] = v
        self.codes: list[int | str] = list(codes)
        self.sides = sides
        self.text = "".join(chars)

    def cells(self, row: int, first: int, last: int) -> _RowCells:
        """Columns `first..last` with a margin column either side."""
        return _RowCells(row, first - 1, self.codes[first : last + 3])

    def near_side(self, first: int, last: int, own: tuple[int, ...] = ()) -> bool:
        """A frame side (other than `own`) in or next to columns `first..last`: the segment
        then depends on this background, so it is not reused."""
        for side in self.sides:
            if first - 1 <= side <= last + 1 and side not in own:
                return True
        return False


class _RowPainter:
    def __init__(self, layout: SequenceLayout, diagram_id: str, glyphs: GlyphSet) -> None:
        self.layout = layout
        self.diagram_id = diagram_id
        self.glyphs = glyphs
        self.lifelines = [head.x for head in layout.heads]
        self._backgrounds: dict[tuple[int, ...], _Background] = {}
        #: Message arrow rows by shape: (text left of the label, text right of it, the
        #: message's cells relative to the segment's first column).
        self._arrows: dict[tuple[int, int, str, int], tuple[str, str, list[tuple[int, int]]]] = {}
        self._frame_rows: dict[tuple[object, ...], str] = {}
        self.lines: list[str] = []
        self.spans: dict[ObjectRef, tuple[Span, ...]] = {}
        self.runs: dict[ObjectRef, list[tuple[int, int, int]]] = {}

    def ref(self, category: tuple[str, str], object_id: str) -> ObjectRef:
        return ObjectRef(diagram_id=self.diagram_id, category=category, object_id=object_id)

    def background(self, sides: tuple[int, ...]) -> _Background:
        found = self._backgrounds.get(sides)
        if found is None:
            v = self.glyphs.lines[STYLE_LIGHT][_VERTICAL]
            found = _Background(self.layout.width, self.lifelines, sides, v)
            self._backgrounds[sides] = found
        return found

    # -- the whole drawing -----------------------------------------------------------------

    def paint(self) -> Rendered:
        layout = self.layout
        first_body_row, wide = self._heads()
        slots = self._events(first_body_row)
        opened: list[FramePlan] = []
        lines = self.lines
        background = self.background(())
        back = background.text
        arrows = self._arrows
        spans = self.spans
        message_runs = self.runs
        for offset, event in enumerate(slots):
            if event is None:
                lines.append(back)
                continue
            row = first_body_row + offset
            kind = event[0]
            if kind == _ARROW:
                plan = event[1]
                owner = event[2]
                assert isinstance(plan, MessagePlan) and isinstance(owner, ObjectRef)
                labels = plan.lines
                inline = labels[-1] if labels else ""
                if not (inline.isascii() and inline.isprintable()) and not _simple(inline):
                    raise _Declined
                first, last = plan.from_x, plan.to_x
                if first > last:
                    first, last = last, first
                if background.sides and background.near_side(first, last):
                    shape = self._arrow_shape(row, plan, owner, inline, background)
                else:
                    key = (plan.from_index, plan.to_index, plan.message.token, len(inline))
                    if not labels:
                        key = (plan.from_index, plan.to_index, plan.message.token, -1)
                    known = arrows.get(key)
                    if known is None:
                        known = arrows[key] = self._arrow_shape(
                            row, plan, owner, inline, background
                        )
                    shape = known
                before, after, runs = shape
                if len(runs) == 1 and len(labels) < 2:
                    a, b = runs[0]
                    spans[owner] = (_new_span(Span, (row, first + a, first + b)),)
                else:
                    made = [_new_span(Span, (row, first + a, first + b)) for a, b in runs]
                    above = [_new_span(Span, run) for run in message_runs.pop(owner, ())]
                    spans[owner] = (*above, *made)
                lines.append(back[:first] + before + inline + after + back[last + 1 :])
                continue
            if kind == _TEXT:
                _, col, text, owner = event
                assert isinstance(col, int) and isinstance(text, str)
                assert isinstance(owner, ObjectRef)
                lines.append(self._text_row(row, col, text, owner, background))
                continue
            frame = event[1]
            assert isinstance(frame, FramePlan)
            if kind == _BOTTOM:
                opened.remove(frame)
                background = self._sides(opened)
                back = background.text
            label_col, label = event[2], event[3]
            assert isinstance(label_col, int) and isinstance(label, str)
            lines.append(self._frame_row(row, kind, frame, label_col, label, background))
            if kind == _TOP:
                opened.append(frame)
                background = self._sides(opened)
                back = background.text
        for frame in layout.frames:
            self._frame_spans(frame)
        for index, line in enumerate(lines):
            lines[index] = line.rstrip(" ")
        while lines and not lines[-1]:
            lines.pop()
        if wide:
            width = max((text_width(line) for line in lines), default=0)
        else:
            width = max((len(line) for line in lines), default=0)
        return Rendered(
            text="\n".join(lines),
            lines=lines,
            spans=self._span_map(),
            width=width,
            height=len(lines),
        )

    def _sides(self, opened: list[FramePlan]) -> _Background:
        return self.background(tuple(col for frame in opened for col in (frame.left, frame.right)))

    def _heads(self) -> tuple[int, bool]:
        """Draw the title, the heads and the lifelines' first row on a canvas (few rows, any
        shape); return the first body row and whether wide characters were drawn."""
        layout = self.layout
        first_body_row = layout.head_top + layout.head_height + 1
        canvas = Canvas(layout.width, first_body_row + 1, self.glyphs)
        if layout.title:
            col = (layout.width - text_width(layout.title)) // 2
            canvas.put_text(layout.title_row, col, layout.title)
        starts = []
        for head in layout.heads:
            owner = self.ref(SEQ_PARTICIPANT, head.participant_id)
            top = layout.head_top + layout.head_height - head.shape.height
            start = draw_head(canvas, head.shape, top, head.x, owner)
            canvas.vline(head.x, start, first_body_row)
            starts.append(start)
        self.lines.extend(canvas.to_lines()[:first_body_row])
        if len(self.lines) != first_body_row:
            raise _Declined
        heads_spans = canvas.spans.build()
        bottom = layout.bottom
        for head, start in zip(layout.heads, starts, strict=True):
            owner = self.ref(SEQ_PARTICIPANT, head.participant_id)
            x = head.x
            runs = [(s.row, s.col_start, s.col_end) for s in heads_spans.get(owner, ())]
            if any(row > start for row, _, _ in runs):
                raise _Declined
            runs.append((start, x, x))
            spans = merge_runs(runs)
            spans.extend(
                map(
                    _new_span, repeat(Span), zip(range(start + 1, bottom + 1), repeat(x), repeat(x))
                )
            )
            self.spans[owner] = tuple(spans)
        return first_body_row, canvas.has_wide

    def _events(self, first_body_row: int) -> list[tuple[object, ...] | None]:
        """What each body row holds, from `first_body_row` on (None: only the background)."""
        layout = self.layout
        slots: list[tuple[object, ...] | None] = [None] * (layout.bottom + 1 - first_body_row)

        def put(row: int, event: tuple[object, ...]) -> None:
            offset = row - first_body_row
            if not 0 <= offset < len(slots) or slots[offset] is not None:
                raise _Declined
            slots[offset] = event

        heads = layout.heads
        diagram_id = self.diagram_id
        for plan in layout.messages:
            owner = ObjectRef(
                diagram_id=diagram_id, category=SEQ_MESSAGE, object_id=plan.message.message_id
            )
            put(plan.arrow_row, (_ARROW, plan, owner))
            if len(plan.lines) > 1:
                lo, hi = label_room(plan, heads)
                room = hi - lo + 1
                for k, line in enumerate(plan.lines[:-1]):
                    width = text_width(line)
                    if width:
                        put(plan.top + k, (_TEXT, lo + (room - width) // 2, line, owner))
        for frame in layout.frames:
            put(frame.top, (_TOP, frame, frame.label_col, frame.label))
            first = self.ref(SEQ_SECTION, frame.sections[0].section.section_id)
            for k, line in enumerate(frame.more):
                put(frame.top + 1 + k, (_TEXT, frame.label_col, line, first))
            for section in frame.sections[1:]:
                put(section.start, (_SEPARATOR, frame, section.label_col, section.label))
                owner = self.ref(SEQ_SECTION, section.section.section_id)
                for k, line in enumerate(section.more):
                    put(section.start + 1 + k, (_TEXT, section.label_col, line, owner))
            put(frame.bottom, (_BOTTOM, frame, 0, ""))
        return slots

    # -- rows ------------------------------------------------------------------------------

    def _arrow_shape(
        self, row: int, plan: MessagePlan, owner: ObjectRef, inline: str, background: _Background
    ) -> tuple[str, str, list[tuple[int, int]]]:
        """A message's arrow row drawn on one row of cells: (the text left of its label, the
        text right of it, its cells relative to its first column)."""
        first, last = min(plan.from_x, plan.to_x), max(plan.from_x, plan.to_x)
        cells = background.cells(row, first, last)
        draw_message_line(cells, plan, self.layout.heads, self.glyphs, owner)
        self._keeps_lifelines(cells, first, last)
        text = cells.resolve(self.glyphs)
        runs = [(a - first, b - first) for a, b in _merged(cells.runs)]
        if not plan.lines:
            return text, "", runs
        lo, hi = label_room(plan, self.layout.heads)
        col = lo + (hi - lo + 1 - len(inline) - 2) // 2 + 1 - first
        if not 0 <= col <= col + len(inline) <= len(text):
            raise _Declined
        return text[:col], text[col + len(inline) :], runs

    def _text_row(
        self, row: int, col: int, text: str, owner: ObjectRef, background: _Background
    ) -> str:
        """A label line on the background (a wrapped label's first lines, a tab's further
        lines); it never covers a lifeline or a frame side."""
        if not _simple(text):
            raise _Declined
        width = len(text)
        if col < 0 or col + width > self.layout.width:
            raise _Declined
        if any(background.codes[col + 1 : col + width + 1]):
            raise _Declined
        if owner.category == SEQ_MESSAGE:
            # a message's label line: the whole width is the message's
            self._run(owner, row, col, col + width - 1)
        else:
            start = -1
            for k, ch in enumerate(text + " "):
                if ch != " " and start < 0:
                    start = k
                elif ch == " " and start >= 0:
                    self._run(owner, row, col + start, col + k - 1)
                    start = -1
        back = background.text
        return back[:col] + text + back[col + width :]

    def _run(self, owner: ObjectRef, row: int, first: int, last: int) -> None:
        runs = self.runs.get(owner)
        if runs is None:
            runs = self.runs[owner] = []
        runs.append((row, first, last))

    def _frame_row(
        self,
        row: int,
        kind: object,
        frame: FramePlan,
        label_col: int,
        label: str,
        background: _Background,
    ) -> str:
        """A frame's top, separator or bottom row, with its tab label."""
        left, right = frame.left, frame.right
        key = (kind, left, right, label_col, label)
        near = background.near_side(left, right, (left, right))
        text = None if near else self._frame_rows.get(key)
        if text is None:
            cells = background.cells(row, left, right)
            if kind == _SEPARATOR:
                cells.pass_vertical(left)
                cells.pass_vertical(right)
                cells.hline(row, left, right, STYLE_DOTTED)
            else:
                cells.hline(row, left, right, STYLE_LIGHT)
                arm = DOWN if kind == _TOP else UP
                cells.add_arms(left, arm)
                cells.add_arms(right, arm)
            if label:
                cells.put_text(row, label_col, label)
            self._keeps_lifelines(cells, left, right)
            text = cells.resolve(self.glyphs)
            if not near:
                self._frame_rows[key] = text
        back = background.text
        return back[:left] + text + back[right + 1 :]

    def _keeps_lifelines(self, cells: _RowCells, first: int, last: int) -> None:
        """Every lifeline still shows as a line in `first..last` (its span is the whole
        column: nothing here may cover it)."""
        for x in self.lifelines:
            if first <= x <= last:
                code = cells.cells[x - cells.lo]
                if isinstance(code, str) or not code & _MASK:
                    raise _Declined

    # -- spans -----------------------------------------------------------------------------

    def _frame_spans(self, frame: FramePlan) -> None:
        """The cells of a frame (its border and separators) and of its sections (their band
        of the border), as the canvas painter records them."""
        block = self.ref(SEQ_BLOCK, frame.block.block_id)
        left, right = frame.left, frame.right
        self._run(block, frame.top, left, right)
        self._run(block, frame.bottom, left, right)
        runs = self.runs[block]
        for col in (left, right):
            runs.extend(zip(range(frame.top, frame.bottom + 1), repeat(col), repeat(col)))
        for section in frame.sections[1:]:
            runs.append((section.start, left, right))
        for section in frame.sections:
            owner = self.ref(SEQ_SECTION, section.section.section_id)
            self._run(owner, section.start, left, right)
            self._run(owner, section.end, left, right)
            runs = self.runs[owner]
            for row in range(section.start + 1, section.end):
                runs.append((row, left, left))
                runs.append((row, right, right))

    def _span_map(self) -> SpanMap:
        """Spans per object in canonical ref order (one diagram: by category, then id)."""
        spans = self.spans
        for owner, runs in self.runs.items():
            if owner not in spans:
                spans[owner] = tuple(merge_runs(runs))
        by_category: dict[tuple[str, ...], list[ObjectRef]] = {}
        for owner in spans:
            by_category.setdefault(owner.category, []).append(owner)
        ordered: SpanMap = {}
        for category in sorted(by_category):
            for owner in sorted(by_category[category], key=_object_id):
                ordered[owner] = spans[owner]
        return ordered


def _object_id(ref: ObjectRef) -> str:
    return ref.object_id


def _merged(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Column runs of one row merged where they touch or overlap."""
    return [(span.col_start, span.col_end) for span in merge_runs([(0, a, b) for a, b in runs])]
