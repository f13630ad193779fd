"""The row painter: the common sequence diagrams drawn row by row as strings.

Most diagrams are heads, lifelines, messages between two lifelines and block frames. Every
row below the heads then holds one thing (a message's line, a label line, a frame's top,
separator or bottom, a tab's further line) on a background of lifelines and the sides of the
frames around it; rows that look alike differ only in their label. So each row is the
background string with one segment spliced in, and a segment is drawn once per shape: with
the same drawing calls as the canvas painter (`draw_message_line`), on a one-row `_RowCells`
that joins lines as `Canvas` does, then reused with the next label of the same width.
Segments, frame rows and the head rows are pure functions of their geometry, memoised
(bounded), so a diagram re-rendered after an edit redraws only the shapes it did not have.

`paint_rows` returns None for what it does not draw, and `sequence.py` then uses the canvas
painter: notes, activation bars, participant boxes, self messages, created or destroyed
lifelines, and text that is not one cell per character (wide or combining characters). Its
output (text and span map) equals the canvas painter's; a property test checks this.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import lru_cache
from itertools import chain, repeat
from operator import attrgetter

from nereid.model.refs import (
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    ObjectRef,
)
from nereid.render.budget import MAX_CANVAS_CELLS, check_budget
from nereid.render.canvas import Canvas
from nereid.render.glyphs import (
    DOWN,
    LEFT,
    RIGHT,
    STYLE_DOTTED,
    STYLE_LIGHT,
    UP,
    GlyphSet,
    glyph_set,
)
from nereid.render.options import Rendered
from nereid.render.sequence_arrows import ArrowLook, draw_message_line, label_room
from nereid.render.sequence_heads import HeadShape, draw_head
from nereid.render.sequence_layout import FramePlan, MessagePlan, SequenceLayout
from nereid.render.sequence_refs import ref_table
from nereid.render.spans import Span, SpanMap, merge_runs
from nereid.render.text import char_width, text_width

__all__ = ["paint_rows"]

_MASK = 0x0F
_STYLE_SHIFT = 4
_VERTICAL = UP | DOWN
_HORIZONTAL = LEFT | RIGHT
_LIFELINE = (STYLE_LIGHT << _STYLE_SHIFT) | _VERTICAL
_CORNERS = frozenset({RIGHT | DOWN, LEFT | DOWN, RIGHT | UP, LEFT | UP})
_ARM_COUNT = tuple(bin(mask).count("1") for mask in range(16))
_new_span = tuple.__new__
#: Any owner: `_segment` records its cells, not whose they are.
_SEGMENT_OWNER = ObjectRef(diagram_id="segment", category=SEQ_MESSAGE, object_id="m")
_REF_ORDER = attrgetter("category", "object_id")


_TEXT, _TOP, _SEPARATOR, _BOTTOM = range(4)  # what a body row holds, besides an arrow
#: An arrow row's shape: (from index, to index, the arrow look's id, label width or -1 for
#: none); the looks live as long as the layout that holds them.
_ArrowKey = tuple[int, int, int, int]


class _Declined(Exception):
    """Something the row painter does not draw: the canvas painter takes the diagram."""


def _simple(text: str) -> bool:
    """One cell per character, as the canvas lays out ASCII."""
    if text.isascii() and text.isprintable():
        return True
    return all(char_width(ch) == 1 for ch in text)


def paint_rows(layout: SequenceLayout, diagram_id: str, glyphs: GlyphSet) -> Rendered | None:
    """The drawing of `layout`, or None if it holds something only the canvas draws.

    Raises TooLargeToRender over the canvas budget, as the canvas painter's canvas does."""
    check_budget("canvas cells", layout.width * layout.height, MAX_CANVAS_CELLS)
    if layout.notes or layout.activations or layout.boxes or not layout.heads:
        return None
    for head in layout.heads:
        if head.top is not None or head.created_by is not None or head.destroyed_by is not None:
            return None
    if layout.self_messages:
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
            self._index(col_start)
            self._index(col_end)
            fresh = (style << _STYLE_SHIFT) | LEFT | RIGHT
            for i in range(col_start + 1 - self.lo, col_end - self.lo):
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
                if mask in (_HORIZONTAL, _VERTICAL):
                    # a straight cell shows its glyph whichever arms join (as one arm does)
                    out.append(lines[code >> _STYLE_SHIFT][mask])
                    continue
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

    __slots__ = ("arrows", "codes", "sides", "text", "trimmed")

    def __init__(self, width: int, lifelines: list[int], sides: tuple[int, ...], v: str) -> None:
        codes = [0] * (width + 2)  # one margin column each side: index = col + 1
        chars = [" "] * width
        for col in (*lifelines, *sides):
            codes[col + 1] = _LIFELINE
            chars[col] = v
        self.codes: list[int | str] = list(codes)
        self.sides = sides
        self.text = "".join(chars)
        #: `text` right-trimmed, as a row of nothing else is drawn.
        self.trimmed = self.text.rstrip(" ")
        #: Arrow rows on this background by shape: (the row left of the label, the row right
        #: of it, the message's cells).
        self.arrows: dict[_ArrowKey, tuple[str, str, list[tuple[int, int]]]] = {}

    def cells(self, row: int, first: int, last: int) -> _RowCells:
        """Columns `first..last` with a margin column either side."""
        return _RowCells(row, first - 1, self.codes[first : last + 3])


class _RowPainter:
    def __init__(self, layout: SequenceLayout, diagram_id: str, glyphs: GlyphSet) -> None:
        self.layout = layout
        self.diagram_id = diagram_id
        self.glyphs = glyphs
        self.lifelines = [head.x for head in layout.heads]
        self._backgrounds: dict[tuple[int, ...], _Background] = {}
        self.lines: list[str] = []
        self.spans: dict[ObjectRef, tuple[Span, ...]] = {}
        self.runs: dict[ObjectRef, list[tuple[int, int, int]]] = {}
        self.messages = ref_table(diagram_id, SEQ_MESSAGE)
        self.sections = ref_table(diagram_id, SEQ_SECTION)

    def ref(self, category: tuple[str, str], object_id: str) -> ObjectRef:
        return ref_table(self.diagram_id, category).ref(object_id)

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
        back = background.trimmed
        row_shapes = background.arrows
        spans = self.spans
        message_runs = self.runs
        message_refs = self.messages.refs
        message_ref = self.messages.ref
        for row, event in enumerate(slots, first_body_row):
            if event is None:
                lines.append(back)
                continue
            if isinstance(event, MessagePlan):
                labels = event.lines
                # The row's shape; a look by identity (equal looks may be two entries).
                if labels:
                    inline = labels[-1]
                    if not (inline.isascii() and inline.isprintable()) and not _simple(inline):
                        raise _Declined
                    key = (event.from_index, event.to_index, id(event.look), len(inline))
                else:
                    inline = ""
                    key = (event.from_index, event.to_index, id(event.look), -1)
                known = row_shapes.get(key)
                if known is None:
                    known = row_shapes[key] = self._arrow_row(event, inline, background)
                before, after, runs = known
                message_id = event.message.message_id
                owner = message_refs.get(message_id) or message_ref(message_id)
                if len(runs) == 1 and len(labels) < 2:
                    first, last = runs[0]
                    spans[owner] = (_new_span(Span, (row, first, last)),)
                else:
                    made = [_new_span(Span, (row, a, b)) for a, b in runs]
                    above = [_new_span(Span, run) for run in message_runs.pop(owner, ())]
                    spans[owner] = (*above, *made)
                if after:  # right-trimmed (`after` ends in a line's glyph)
                    lines.append(before + inline + after)
                else:
                    lines.append((before + inline).rstrip(" "))
                continue
            kind = event[0]
            if kind == _TEXT:
                _, col, text, text_owner = event
                assert isinstance(col, int) and isinstance(text, str)
                assert isinstance(text_owner, ObjectRef)
                lines.append(self._text_row(row, col, text, text_owner, background).rstrip(" "))
                continue
            frame = event[1]
            assert isinstance(frame, FramePlan)
            if kind == _BOTTOM:
                opened.remove(frame)
                background = self._sides(opened)
                back, row_shapes = background.trimmed, background.arrows
            label_col, label = event[2], event[3]
            assert isinstance(label_col, int) and isinstance(label, str)
            assert isinstance(kind, int)
            lines.append(self._frame_row(kind, frame, label_col, label, background).rstrip(" "))
            if kind == _TOP:
                opened.append(frame)
                background = self._sides(opened)
                back, row_shapes = background.trimmed, background.arrows
        for frame in layout.frames:
            self._frame_spans(frame)
        while lines and not lines[-1]:
            lines.pop()
        if wide:
            width = max((text_width(line) for line in lines), default=0)
        else:
            width = max(map(len, lines), default=0)
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
        """The title, the heads and the lifelines down to the first body row (`_head_rows`)
        and the participants' spans; return the first body row and whether wide characters
        were drawn."""
        layout = self.layout
        first_body_row = layout.head_top + layout.head_height + 1
        lines, starts, head_runs, wide = _head_rows(
            self.glyphs.name == "ascii",
            layout.width,
            layout.title,
            layout.title_row,
            layout.head_top,
            layout.head_height,
            tuple((head.shape, head.x) for head in layout.heads),
        )
        self.lines.extend(lines)
        bottom = layout.bottom
        for head, start, runs in zip(layout.heads, starts, head_runs, strict=True):
            owner = self.ref(SEQ_PARTICIPANT, head.participant_id)
            self.spans[owner] = runs + _column_cells(head.x, start + 1, bottom)
        return first_body_row, wide

    def _events(self, first_body_row: int) -> list[MessagePlan | tuple[object, ...] | None]:
        """What each body row holds, from `first_body_row` on (None: only the background)."""
        layout = self.layout
        slots: list[MessagePlan | tuple[object, ...] | None]
        slots = [None] * (layout.bottom + 1 - first_body_row)

        def put(row: int, event: MessagePlan | tuple[object, ...]) -> None:
            offset = row - first_body_row
            if not 0 <= offset < len(slots) or slots[offset] is not None:
                raise _Declined
            slots[offset] = event

        heads = layout.heads
        count = len(slots)
        for plan in layout.messages:
            offset = plan.arrow_row - first_body_row  # `put`, inline
            if not 0 <= offset < count or slots[offset] is not None:
                raise _Declined
            slots[offset] = plan
            if len(plan.lines) > 1:
                owner = self.messages.ref(plan.message.message_id)
                lo, hi = label_room(plan, heads)
                room = hi - lo + 1
                for k, line in enumerate(plan.lines[:-1]):
                    width = text_width(line)
                    if width:
                        put(plan.top + k, (_TEXT, lo + (room - width) // 2, line, owner))
        for frame in layout.frames:
            put(frame.top, (_TOP, frame, frame.label_col, frame.label))
            first = self.sections.ref(frame.sections[0].section.section_id)
            for k, line in enumerate(frame.more):
                put(frame.top + 1 + k, (_TEXT, frame.label_col, line, first))
            for section in frame.sections[1:]:
                put(section.start, (_SEPARATOR, frame, section.label_col, section.label))
                owner = self.sections.ref(section.section.section_id)
                for k, line in enumerate(section.more):
                    put(section.start + 1 + k, (_TEXT, section.label_col, line, owner))
            put(frame.bottom, (_BOTTOM, frame, 0, ""))
        return slots

    # -- rows ------------------------------------------------------------------------------

    def _arrow_row(
        self, plan: MessagePlan, inline: str, background: _Background
    ) -> tuple[str, str, list[tuple[int, int]]]:
        """An arrow row of this shape on `background`: (the row left of the label, the row
        right of it, the message's cells), its segment drawn by `_segment`."""
        first, last = min(plan.from_x, plan.to_x), max(plan.from_x, plan.to_x)
        lo, hi = label_room(plan, self.layout.heads)
        before, after, runs = _segment(
            self.glyphs.name == "ascii",
            tuple(background.codes[first : last + 3]),
            (plan.from_x - first, plan.to_x - first),
            plan.look,
            len(inline) if plan.lines else -1,
            (lo - first, hi - first),
        )
        back = background.text
        return (
            back[:first] + before,
            (after + back[last + 1 :]).rstrip(" "),
            [(first + a, first + b) for a, b in runs],
        )

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
        self, kind: int, frame: FramePlan, label_col: int, label: str, background: _Background
    ) -> str:
        """A frame's top, separator or bottom row, with its tab label (`_frame_segment`)."""
        left, right = frame.left, frame.right
        text = _frame_segment(
            self.glyphs.name == "ascii",
            tuple(background.codes[left : right + 3]),
            kind,
            right - left,
            label_col - left,
            label,
        )
        back = background.text
        return back[:left] + text + back[right + 1 :]

    # -- spans -----------------------------------------------------------------------------

    def _frame_spans(self, frame: FramePlan) -> None:
        """The cells of a frame (its border and separators) and of its sections (their band
        of the border), as the canvas painter records them."""
        block = self.ref(SEQ_BLOCK, frame.block.block_id)
        left, right = frame.left, frame.right
        separators = {section.start for section in frame.sections[1:]}
        self.spans[block] = _band(frame.top, frame.bottom, left, right, separators)
        for section in frame.sections:
            owner = self.sections.ref(section.section.section_id)
            text_runs = self.runs.pop(owner, None)
            if text_runs is None:
                self.spans[owner] = _band(section.start, section.end, left, right, ())
                continue
            runs = [*text_runs, (section.start, left, right), (section.end, left, right)]
            for row in range(section.start + 1, section.end):
                runs.append((row, left, left))
                runs.append((row, right, right))
            self.spans[owner] = tuple(merge_runs(runs))

    def _span_map(self) -> SpanMap:
        """Spans per object in canonical ref order (one diagram: by category, then id)."""
        spans = self.spans
        for owner, runs in self.runs.items():
            if owner not in spans:
                spans[owner] = tuple(merge_runs(runs))
        return {owner: spans[owner] for owner in sorted(spans, key=_REF_ORDER)}


@lru_cache(maxsize=256)
def _head_rows(
    ascii: bool,
    width: int,
    title: str | None,
    title_row: int,
    head_top: int,
    head_height: int,
    heads: tuple[tuple[HeadShape, int], ...],
) -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[Span, ...], ...], bool]:
    """The rows above the body (title, heads, the lifelines' first row), drawn on a canvas as
    the canvas painter draws them: (the rows, each lifeline's first row, each head's spans
    down to that row, whether wide characters were drawn). Pure, like `_segment`."""
    first_body_row = head_top + head_height + 1
    canvas = Canvas(width, first_body_row + 1, glyph_set(ascii))
    if title:
        canvas.put_text(title_row, (width - text_width(title)) // 2, title)
    owners = [
        ObjectRef(diagram_id="heads", category=SEQ_PARTICIPANT, object_id=str(index))
        for index in range(len(heads))
    ]
    starts = []
    for (shape, x), owner in zip(heads, owners, strict=True):
        start = draw_head(canvas, shape, head_top + head_height - shape.height, x, owner)
        canvas.vline(x, start, first_body_row)
        starts.append(start)
    lines = canvas.to_lines()[:first_body_row]
    if len(lines) != first_body_row:
        raise _Declined
    built = canvas.spans.build()
    head_spans = []
    for (_shape, x), owner, start in zip(heads, owners, starts, strict=True):
        runs = [(s.row, s.col_start, s.col_end) for s in built.get(owner, ())]
        if any(row > start for row, _, _ in runs):
            raise _Declined
        runs.append((start, x, x))  # the lifeline's first cell
        head_spans.append(tuple(merge_runs(runs)))
    return tuple(lines), tuple(starts), tuple(head_spans), canvas.has_wide


@lru_cache(maxsize=1024)
def _frame_segment(
    ascii: bool, cells: tuple[int | str, ...], kind: int, right: int, label_col: int, label: str
) -> str:
    """A frame's top, separator or bottom row from its left side (column 0) to its right, with
    its tab label, drawn as the canvas painter draws it on `cells` (the background's codes
    with a margin each side). Pure, like `_segment`."""
    glyphs = glyph_set(ascii)
    row = _RowCells(0, -1, list(cells))
    if kind == _SEPARATOR:
        row.pass_vertical(0)
        row.pass_vertical(right)
        row.hline(0, 0, right, STYLE_DOTTED)
    else:
        row.hline(0, 0, right, STYLE_LIGHT)
        arm = DOWN if kind == _TOP else UP
        row.add_arms(0, arm)
        row.add_arms(right, arm)
    if label:
        row.put_text(0, label_col, label)
    _check_lines(cells, row)
    return row.resolve(glyphs)


def _check_lines(cells: tuple[int | str, ...], row: _RowCells) -> None:
    """Every lifeline and frame side of the background still shows as a line: their spans
    and the rows above and below rely on it."""
    for code, drawn in zip(cells, row.cells, strict=True):
        if code and (isinstance(drawn, str) or not drawn & _VERTICAL):
            raise _Declined


@lru_cache(maxsize=4096)
def _segment(
    ascii: bool,
    cells: tuple[int | str, ...],
    ends: tuple[int, int],
    look: ArrowLook,
    width: int,
    room: tuple[int, int],
) -> tuple[str, str, list[tuple[int, int]]]:
    """An arrow row between two lifelines, drawn by `draw_message_line` on one row of cells:
    (the text left of its label, the text right of it, the message's cells), in columns from
    the segment's first. `cells` are the background's codes with a margin each side, `width`
    the label's (-1: none). Pure, so rows of the same shape are drawn once, also across
    renders of a diagram being edited."""
    glyphs = glyph_set(ascii)
    row = _RowCells(0, -1, list(cells))
    label = "x" * width if width >= 0 else None
    draw_message_line(row, 0, ends, look, label, room, glyphs, _SEGMENT_OWNER)
    _check_lines(cells, row)
    text = row.resolve(glyphs)
    runs = _merged(row.runs)
    if label is None:
        return text, "", runs
    lo, hi = room
    col = lo + (hi - lo + 1 - width - 2) // 2 + 1
    if not 0 <= col <= col + width <= len(text):
        raise _Declined
    return text[:col], text[col + width :], runs


def _band(
    top: int, bottom: int, left: int, right: int, across: Collection[int]
) -> tuple[Span, ...]:
    """Spans of a frame's border from row `top` to `bottom` (whole rows there and at the
    rows `across`, the two sides in between), merged as `merge_runs` merges them."""
    if bottom <= top or right <= left + 1:
        runs = [(top, left, right), (bottom, left, right)]
        runs += [(row, left, right) for row in range(top + 1, bottom)]
        return tuple(merge_runs(runs))
    if bottom - top <= _SHORT_BAND_ROWS:
        return _short_band(top, bottom, left, right, across)
    spans = [_new_span(Span, (top, left, right))]
    first = top + 1  # the next row of the two sides
    for row in sorted(across):
        if top < row < bottom:
            spans.extend(_sides(left, right, first, row - 1))
            spans.append(_new_span(Span, (row, left, right)))
            first = row + 1
    spans.extend(_sides(left, right, first, bottom - 1))
    spans.append(_new_span(Span, (bottom, left, right)))
    return tuple(spans)


#: A band this tall or less makes its spans one by one (`_short_band`): fewer calls than
#: taking its sides' cells from the shared columns, which pays for taller ones.
_SHORT_BAND_ROWS = 24


def _short_band(
    top: int, bottom: int, left: int, right: int, across: Collection[int]
) -> tuple[Span, ...]:
    """`_band` of a frame or section whose sides are at least two columns apart, each span
    made here."""
    spans = [_new_span(Span, (top, left, right))]
    append = spans.append
    for row in range(top + 1, bottom):
        if row in across:
            append(_new_span(Span, (row, left, right)))
        else:
            append(_new_span(Span, (row, left, left)))
            append(_new_span(Span, (row, right, right)))
    append(_new_span(Span, (bottom, left, right)))
    return tuple(spans)


def _sides(left: int, right: int, first: int, last: int) -> Iterator[Span]:
    """The cells of two vertical lines, columns `left` < `right`, rows `first..last`, in
    (row, column) order."""
    return chain.from_iterable(
        zip(_column_cells(left, first, last), _column_cells(right, first, last), strict=True)
    )


#: Columns up to this many rows are shared (`_column`); a taller one is made each time.
_SHARED_COLUMN_ROWS = 4096


def _column_cells(col: int, first: int, last: int) -> tuple[Span, ...]:
    """The spans of column `col`'s cells from row `first` to `last`: one per row, as a
    vertical line's cells are recorded (`SpanRecorder.add_column`)."""
    if last < _SHARED_COLUMN_ROWS:
        return _column(col, max(64, 1 << last.bit_length()))[first : last + 1]
    cells = zip(range(first, last + 1), repeat(col), repeat(col))
    return tuple(map(_new_span, repeat(Span), cells))


@lru_cache(maxsize=32)
def _column(col: int, rows: int) -> tuple[Span, ...]:
    """The spans of column `col`'s first `rows` cells. Spans are immutable, so every drawing
    with a line in this column takes its cells from here (a slice) instead of making one
    object per cell each time: the lifelines and frame sides are most of a drawing's spans."""
    cells = zip(range(rows), repeat(col), repeat(col))
    return tuple(map(_new_span, repeat(Span), cells))


def _merged(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Column runs of one row merged where they touch or overlap."""
    return [(span.col_start, span.col_end) for span in merge_runs([(0, a, b) for a, b in runs])]
