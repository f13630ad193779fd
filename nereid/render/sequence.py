"""Sequence diagram rendering: draws a `SequenceLayout` on a canvas and records the span map.

`render_sequence` gives the common diagrams to the row painter (`sequence_rows`), which
builds each row as a string and draws the same; the canvas painter here draws the rest.

Drawing order matters because line cells merge and text replaces: heads and lifelines first,
then block frames (their lines cross lifelines as `┼`), message lines with their inline label
and arrowheads, notes (which blank the lifelines they cover), activation bars (the lifeline
turns heavy `┃` where it still shows as a lifeline, not where a border crosses it), and the
remaining text last; participant boxes (rounded frames) go in last, behind the rest: their
sides take only cells nothing else uses. Lifeline and activation spans are read back from the finished canvas, so
they hold exactly the cells that still show those lines.

Span categories (render.md §11, with Nereid's additions): `seq/participant` (head and visible
lifeline cells), `seq/message` (line, heads and label), `seq/block` (frame and labels),
`seq/section` (its band of the frame), `seq/note` (the note box), `seq/activation` (the bar of
an `activate` statement, also owned by the `deactivate` that ends it; bars opened by a `+`
marker belong to the participant only, as they have no object of their own).
"""

from __future__ import annotations

from nereid.model.refs import (
    SEQ_ACTIVATION,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    ObjectRef,
)
from nereid.model.sequence import SequenceAst
from nereid.render.canvas import Canvas
from nereid.render.glyphs import (
    DOWN,
    LEFT,
    RIGHT,
    STYLE_DOTTED,
    STYLE_HEAVY,
    STYLE_LIGHT,
    STYLE_ROUND,
    UP,
    GlyphSet,
    glyph_set,
)
from nereid.render.options import Rendered, RenderOptions
from nereid.render.sequence_arrows import draw_message_line, head_glyph, label_room
from nereid.render.sequence_heads import draw_head
from nereid.render.sequence_layout import (
    SELF_LOOP,
    FramePlan,
    MessagePlan,
    NotePlan,
    SequenceLayout,
    layout_sequence,
)
from nereid.render.sequence_refs import ref_table
from nereid.render.sequence_rows import paint_rows
from nereid.render.text import text_width

__all__ = ["paint_canvas", "render_sequence"]


def render_sequence(ast: SequenceAst, diagram_id: str, options: RenderOptions) -> Rendered:
    """Render `ast` as text art with a span map keyed by `d:<diagram_id>/seq/...` refs.

    Raises RenderError when the AST refers to unknown participants or messages.
    """
    layout = layout_sequence(ast, options)
    if not layout.heads and not layout.title:
        return Rendered.from_lines([], {})
    glyphs = glyph_set(options.ascii)
    return paint_rows(layout, diagram_id, glyphs) or paint_canvas(layout, diagram_id, glyphs)


def paint_canvas(layout: SequenceLayout, diagram_id: str, glyphs: GlyphSet) -> Rendered:
    """Draw `layout` on a canvas: everything a sequence diagram may hold (the row painter,
    `sequence_rows`, draws the common diagrams faster and the same)."""
    canvas = Canvas(layout.width, layout.height, glyphs)
    _Painter(canvas, layout, diagram_id).paint()
    return Rendered.from_canvas(canvas)


class _Painter:
    def __init__(self, canvas: Canvas, layout: SequenceLayout, diagram_id: str) -> None:
        self.canvas = canvas
        self.glyphs: GlyphSet = canvas.glyphs
        self.layout = layout
        self.diagram_id = diagram_id
        #: Where destroyed participants' lifelines end: (row, column, owner).
        self._crosses: list[tuple[int, int, ObjectRef]] = []

    def ref(self, category: tuple[str, str], object_id: str) -> ObjectRef:
        return ref_table(self.diagram_id, category).ref(object_id)

    def message_ref(self, plan: MessagePlan) -> ObjectRef:
        return self.ref(SEQ_MESSAGE, plan.message.message_id)

    def paint(self) -> None:
        layout = self.layout
        canvas = self.canvas
        if layout.title:
            col = (layout.width - text_width(layout.title)) // 2
            canvas.put_text(layout.title_row, col, layout.title)
        starts = self._heads_and_lifelines()
        for frame in layout.frames:
            self._frame(frame)
        for message in layout.messages:
            self._message_lines(message)
        for row, col, owner in self._crosses:  # over the destroying message's line end
            canvas.put_char(row, col, self.glyphs.cross, owner)
        for note in layout.notes:
            self._note(note)
        for bar in layout.activations:
            self._activation_bar(bar.x, bar.top, bar.bottom)
        for message in layout.messages:
            self._message_label(message)
        for frame in layout.frames:
            canvas.put_text(frame.top, frame.label_col, frame.label)
            # A wrapped tab's further lines belong to the section they head.
            first = self.ref(SEQ_SECTION, frame.sections[0].section.section_id)
            for k, line in enumerate(frame.more):
                canvas.put_text(frame.top + 1 + k, frame.label_col, line, first)
            for section in frame.sections[1:]:
                canvas.put_text(section.start, section.label_col, section.label)
                owner = self.ref(SEQ_SECTION, section.section.section_id)
                for k, line in enumerate(section.more):
                    canvas.put_text(section.start + 1 + k, section.label_col, line, owner)
        self._boxes()
        self._lifeline_spans(starts)

    # -- heads, lifelines, activations -------------------------------------------------------

    def _heads_and_lifelines(self) -> list[int]:
        layout = self.layout
        rows = {plan.message.message_id: plan.head_row for plan in layout.messages}
        starts: list[int] = []
        for head in layout.heads:
            owner = self.ref(SEQ_PARTICIPANT, head.participant_id)
            top = layout.head_top + layout.head_height - head.shape.height
            if head.top is not None:  # created: the box stands where the participant begins
                top = head.top
            start = draw_head(self.canvas, head.shape, top, head.x, owner)
            # A created participant's lifeline starts at its creating message; a destroyed
            # one's ends at its destroying message, with a cross.
            first = (
                start
                if head.top is not None
                else max(start, rows.get(head.created_by or "", start))
            )
            last = rows.get(head.destroyed_by or "", layout.bottom + 1) - 1
            if first <= min(last, layout.bottom):
                self.canvas.vline(head.x, first, min(last, layout.bottom))
            if head.destroyed_by in rows:
                self._crosses.append((last + 1, head.x, owner))
            starts.append(start)
        return starts

    def _activation_bar(self, x: int, top: int, bottom: int) -> None:
        """Make the lifeline heavy over `top..bottom`, where it shows as a lifeline: frame
        and note borders crossing it keep their own look."""
        canvas = self.canvas
        for row in range(top, bottom + 1):
            arms = canvas.arms(row, x)
            if arms & (UP | DOWN) and (arms & (LEFT | RIGHT)) != (LEFT | RIGHT):
                canvas.add_arms(row, x, 0, STYLE_HEAVY, force_style=True)

    def _lifeline_spans(self, starts: list[int]) -> None:
        canvas = self.canvas
        bottom = self.layout.bottom
        for head, start in zip(self.layout.heads, starts, strict=True):
            owner = self.ref(SEQ_PARTICIPANT, head.participant_id)
            for first, last in canvas.line_runs(head.x, start, bottom):
                canvas.spans.add_column(owner, head.x, first, last)
        for bar in self.layout.activations:
            for aid in bar.activation_ids:
                owner = self.ref(SEQ_ACTIVATION, aid)
                for first, last in canvas.line_runs(bar.x, bar.top, bar.bottom):
                    canvas.spans.add_column(owner, bar.x, first, last)

    # -- participant boxes -------------------------------------------------------------------

    def _boxes(self) -> None:
        """Box frames go behind everything: their sides only take cells nothing else uses and
        no message or note covers, so crossing lines and labels stay whole."""
        layout = self.layout
        canvas = self.canvas
        if not layout.boxes:
            return
        covered: set[tuple[int, int]] = set()
        for plan in layout.messages:
            a, b = plan.extent()
            for row in range(plan.top, plan.top + plan.rows):
                covered.update((row, col) for col in range(a, b + 1))
        for note in layout.notes:
            for row in range(note.top, note.bottom + 1):
                covered.update((row, col) for col in range(note.left, note.right + 1))
        top, bottom = layout.head_top - 1, layout.bottom + 1
        for box in layout.boxes:
            canvas.hline(top, box.left, box.right, STYLE_ROUND)
            canvas.hline(bottom, box.left, box.right, STYLE_ROUND)
            for col, corner in ((box.left, RIGHT), (box.right, LEFT)):
                canvas.add_arms(top, col, corner | DOWN, STYLE_ROUND)
                canvas.add_arms(bottom, col, corner | UP, STYLE_ROUND)
                for row in range(top + 1, bottom):
                    if (row, col) not in covered and canvas.is_blank(row, col):
                        canvas.add_arms(row, col, UP | DOWN, STYLE_ROUND)
            if box.label:
                canvas.put_text(top, box.label_col, box.label)

    # -- frames ------------------------------------------------------------------------------

    def _frame(self, frame: FramePlan) -> None:
        canvas = self.canvas
        block = self.ref(SEQ_BLOCK, frame.block.block_id)
        canvas.box(frame.top, frame.left, frame.bottom, frame.right, STYLE_LIGHT, block)
        for section in frame.sections[1:]:
            canvas.hline(section.start, frame.left, frame.right, STYLE_DOTTED, block)
        for section in frame.sections:
            owner = self.ref(SEQ_SECTION, section.section.section_id)
            canvas.claim(owner, section.start, frame.left, frame.right)
            canvas.claim(owner, section.end, frame.left, frame.right)
            for row in range(section.start + 1, section.end):
                canvas.claim(owner, row, frame.left, frame.left)
                canvas.claim(owner, row, frame.right, frame.right)

    # -- messages ----------------------------------------------------------------------------

    def _message_lines(self, plan: MessagePlan) -> None:
        owner = self.message_ref(plan)
        if not plan.is_self:
            draw_message_line(
                self.canvas,
                plan.arrow_row,
                (plan.from_x, plan.to_x),
                plan.look,
                plan.lines[-1] if plan.lines else None,
                label_room(plan, self.layout.heads),
                self.glyphs,
                owner,
            )
            return
        canvas = self.canvas
        look = plan.look
        style = STYLE_DOTTED if look.dashed else STYLE_LIGHT
        row = plan.arrow_row
        x = plan.from_x
        corner = x + SELF_LOOP
        bottom = plan.head_row
        canvas.hline(row, x + 1 if look.tail != "none" else x, corner, style, owner)
        canvas.vline(corner, row, bottom, style, owner)
        canvas.hline(bottom, x + 1 if look.head != "none" else x, corner, style, owner)
        if look.head != "none":
            canvas.put_char(bottom, x + 1, head_glyph(self.glyphs, look.head, "left"), owner)
        if look.tail != "none":
            canvas.put_char(row, x + 1, head_glyph(self.glyphs, look.tail, "left"), owner)

    def _message_label(self, plan: MessagePlan) -> None:
        if not plan.lines:
            return
        canvas = self.canvas
        owner = self.message_ref(plan)
        if plan.is_self:
            col = plan.from_x + SELF_LOOP + 2
            for k, line in enumerate(plan.lines):
                if line:
                    canvas.put_text(plan.top + k, col, line)
                    canvas.claim(owner, plan.top + k, col, col + text_width(line) - 1)
            return
        lo, hi = label_room(plan, self.layout.heads)
        room = hi - lo + 1
        for k, line in enumerate(plan.lines[:-1]):  # the last one is on the line
            width = text_width(line)
            if width:
                col = lo + (room - width) // 2
                canvas.put_text(plan.top + k, col, line)
                canvas.claim(owner, plan.top + k, col, col + width - 1)

    # -- notes -------------------------------------------------------------------------------

    def _note(self, plan: NotePlan) -> None:
        canvas = self.canvas
        owner = self.ref(SEQ_NOTE, plan.note.note_id)
        left, right = plan.left, plan.right
        canvas.box(plan.top, left, plan.bottom, right, STYLE_ROUND, owner)
        inner = right - left - 1
        blank = " " * inner
        for k, line in enumerate(plan.lines):
            row = plan.top + 1 + k
            canvas.put_text(row, left + 1, blank)
            canvas.claim(owner, row, left + 1, right - 1)
            canvas.put_text(row, left + 1 + (inner - text_width(line)) // 2, line)
