"""Draw a laid-out flowchart onto a canvas and return text plus span map."""

from __future__ import annotations

from typing import Final

from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import FLOW_EDGE, FLOW_NODE, FLOW_NOTE, FLOW_SUBGRAPH, make_ref
from nereid.render.budget import MAX_LINE_CELLS, check_budget
from nereid.render.canvas import Canvas
from nereid.render.flowchart.geometry import EdgeDraw, FrameDraw, NodeDraw
from nereid.render.flowchart.layout import layout_flowchart
from nereid.render.flowchart.shapes import draw_shape
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
from nereid.render.text import text_width

__all__ = ["render_flowchart"]

_BACK: Final = {"down": UP, "up": DOWN, "right": LEFT, "left": RIGHT}
_LINE_STYLE: Final = {"solid": STYLE_LIGHT, "dotted": STYLE_DOTTED, "thick": STYLE_HEAVY}


def render_flowchart(ast: FlowchartAst, diagram_id: str, options: RenderOptions) -> Rendered:
    """Render a flowchart as text with a span per node, edge (path, heads, label) and
    subgraph frame. Raises RenderError if an edge names an unknown node."""
    geometry = layout_flowchart(ast, options)
    # A segment lies inside the canvas, so it takes at most its width plus its height: the
    # exact sum is only needed when that bound is over the limit.
    longest = geometry.width + geometry.height
    if _segment_count(geometry.edges) * longest > MAX_LINE_CELLS:
        check_budget("line cells", _line_cells(geometry.edges), MAX_LINE_CELLS)
    glyphs = glyph_set(options.ascii)
    canvas = Canvas(geometry.width, geometry.height, glyphs)
    for frame in geometry.frames:
        subgraph = ast.subgraphs.get(frame.subgraph_id)
        dashed = subgraph is not None and "stroke-dasharray" in (subgraph.style or "")
        _draw_frame(canvas, frame, diagram_id, frame.title_col, dashed)
    for node in geometry.nodes:
        _draw_node(canvas, node, diagram_id, options.ascii)
    for edge in geometry.edges:
        _draw_edge(canvas, edge, diagram_id, glyphs)
    for frame in geometry.frames:
        _draw_title(canvas, frame, diagram_id, frame.title_col)
    return Rendered.from_canvas(canvas)


def _segment_count(edges: list[EdgeDraw]) -> int:
    return sum(len(piece) - 1 for edge in edges for piece in edge.pieces)


def _line_cells(edges: list[EdgeDraw]) -> int:
    """The summed length of every edge line: what drawing them and their spans costs."""
    total = 0
    for edge in edges:
        for piece in edge.pieces:
            r0, c0 = piece[0]
            for r1, c1 in piece:
                total += abs(r1 - r0) + abs(c1 - c0)
                r0, c0 = r1, c1
    return total


def _draw_frame(
    canvas: Canvas, frame: FrameDraw, diagram_id: str, start: int, dashed: bool = False
) -> None:
    """The frame's border (dashed for a `stroke-dasharray` style, as Mermaid draws it); on a
    TD/BT frame the top border leaves room for the title (starting at column `start`, with a
    blank either side)."""
    owner = make_ref(diagram_id, FLOW_SUBGRAPH, frame.subgraph_id)
    top, left, bottom, right = frame.rect
    line = STYLE_DOTTED if dashed else STYLE_ROUND
    if not (frame.title_on_border and frame.title):
        canvas.box(top, left, bottom, right, line, owner)
        return
    gap_start, gap_end = start - 1, start + text_width(frame.title[0])
    canvas.vline(left, top, bottom, line, owner)
    canvas.vline(right, top, bottom, line, owner)
    canvas.hline(bottom, left, right, line, owner)
    if gap_start - 1 > left:
        canvas.hline(top, left, gap_start - 1, line, owner)
    else:
        canvas.add_arms(top, left, RIGHT, line)
    if gap_end + 1 < right:
        canvas.hline(top, gap_end + 1, right, line, owner)
    else:
        canvas.add_arms(top, right, LEFT, line)


def _draw_title(canvas: Canvas, frame: FrameDraw, diagram_id: str, start: int) -> None:
    owner = make_ref(diagram_id, FLOW_SUBGRAPH, frame.subgraph_id)
    top, left, _, _ = frame.rect
    if frame.title_on_border:
        for k, line in enumerate(frame.title):
            canvas.put_text(top + k, start, line, owner)
    else:
        for k, line in enumerate(frame.title):
            canvas.put_text(top + 1 + k, left + 2, line, owner)


def _draw_node(canvas: Canvas, node: NodeDraw, diagram_id: str, ascii: bool) -> None:
    owner = make_ref(diagram_id, FLOW_NODE, node.node_id)
    top, left, bottom, right = node.rect
    draw_shape(canvas, node.style, top, left, bottom, right, owner, ascii)
    width = right - left + 1
    row = top + 1 + (1 if node.style.lid else 0)
    note_lines = node.note.split("\n") if node.note is not None else []
    rows = len(node.lines) + len(note_lines)
    row += max(0, (bottom - row - rows) // 2)
    for line in node.lines:  # inside the box: its cells are claimed by draw_shape
        canvas.put_text(row, left + (width - text_width(line)) // 2, line)
        row += 1
    if not note_lines:
        return
    note_owner = make_ref(diagram_id, FLOW_NOTE, node.node_id)
    for line in note_lines:
        canvas.put_text(row, left + (width - text_width(line)) // 2, line, note_owner)
        row += 1


def _draw_edge(canvas: Canvas, edge: EdgeDraw, diagram_id: str, glyphs: GlyphSet) -> None:
    owner = make_ref(diagram_id, FLOW_EDGE, edge.edge_id)
    if edge.line != "invisible":
        style = _LINE_STYLE.get(edge.line, STYLE_LIGHT)
        for piece in edge.pieces:
            canvas.path(_trim_to_lines(canvas, piece, edge.anchors), style, owner)
        for row, col, travel, kind in edge.heads:
            if kind == "arrow":
                glyph = glyphs.arrow[travel]
            elif kind == "circle":
                glyph = glyphs.circle
            else:
                glyph = glyphs.cross
            canvas.put_char(row, col, glyph, owner, joins=_BACK[travel])
    for label in edge.labels:
        canvas.put_text(label.row, label.col, label.text, owner)


def _trim_to_lines(
    canvas: Canvas, piece: list[tuple[int, int]], anchors: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Stop a piece one cell short of an anchor that is a marker glyph, not a line cell, so
    the line does not erase a shape's side marker."""
    if len(piece) < 2:
        return piece
    first, last = piece[0], piece[-1]
    if not (
        (first in anchors and canvas.arms(*first) == 0 and not canvas.is_blank(*first))
        or (last in anchors and canvas.arms(*last) == 0 and not canvas.is_blank(*last))
    ):
        return piece  # neither end is a marker: the piece as it is (`path` copies it)
    points = list(piece)
    for index, neighbour in ((0, 1), (-1, -2)):
        if len(points) < 2:
            break
        cell = points[index]
        if cell in anchors and canvas.arms(*cell) == 0 and not canvas.is_blank(*cell):
            other = points[neighbour]
            step_r = (other[0] > cell[0]) - (other[0] < cell[0])
            step_c = (other[1] > cell[1]) - (other[1] < cell[1])
            points[index] = (cell[0] + step_r, cell[1] + step_c)
    return points
