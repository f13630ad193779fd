"""Edges that end at a subgraph: cut the routed line where it meets the frame (decision 23).

The layout routes such an edge to a member of the subgraph (Mermaid's dagre wrapper does the
same); here the line is cut at the first frame border cell it reaches, coming from its other
end, so the arrow stops on the frame (or leaves from it) and never runs inside to the member.
An edge whose other end is inside the frame itself is left as routed.
"""

from __future__ import annotations

from nereid.model.flowchart import FlowchartAst, FlowEdge, Head
from nereid.render.flowchart.geometry import EdgeDraw, FrameDraw, NodeDraw

__all__ = ["cut_at_frames"]

Cell = tuple[int, int]
Rect = tuple[int, int, int, int]


def cut_at_frames(
    ast: FlowchartAst,
    laid: dict[str, FlowEdge],
    edges: list[EdgeDraw],
    nodes: list[NodeDraw],
    frames: list[FrameDraw],
) -> list[EdgeDraw]:
    """`edges` with every subgraph end cut at its frame (`laid`: the edges as laid out)."""
    if not frames:
        return edges
    frame_rect = {frame.subgraph_id: frame.rect for frame in frames}
    node_rect = {node.node_id: node.rect for node in nodes}
    result: list[EdgeDraw] = []
    for draw in edges:
        edge = ast.edges.get(draw.edge_id)
        stand_in = laid.get(draw.edge_id)
        if edge is None or stand_in is None or stand_in.from_node_id == stand_in.to_node_id:
            result.append(draw)
            continue
        for end, member in (
            (edge.to_node_id, stand_in.to_node_id),
            (edge.from_node_id, stand_in.from_node_id),
        ):
            rect = frame_rect.get(end)
            if rect is not None and member in node_rect:
                draw = _cut(draw, rect, node_rect[member])
        result.append(draw)
    return result


def _near(cell: Cell, rect: Rect) -> int:
    top, left, bottom, right = rect
    row, col = cell
    return max(top - row, row - bottom, 0) + max(left - col, col - right, 0)


def _inside(cell: Cell, rect: Rect) -> bool:
    top, left, bottom, right = rect
    return top < cell[0] < bottom and left < cell[1] < right


def _on_border(cell: Cell, rect: Rect) -> bool:
    top, left, bottom, right = rect
    row, col = cell
    inside_rows, inside_cols = top <= row <= bottom, left <= col <= right
    return (row in (top, bottom) and inside_cols) or (col in (left, right) and inside_rows)


def _cells(piece: list[Cell]) -> list[Cell]:
    """Every cell of an orthogonal polyline, in order."""
    cells = [piece[0]]
    for (r0, c0), (r1, c1) in zip(piece, piece[1:], strict=False):
        dr, dc = (r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0)
        r, c = r0, c0
        while (r, c) != (r1, c1):
            r, c = r + dr, c + dc
            cells.append((r, c))
    return cells


def _corners(cells: list[Cell]) -> list[Cell]:
    """The corner points of a run of adjacent cells (its ends and every turn)."""
    if len(cells) < 3:
        return list(cells)
    corners = [cells[0]]
    for before, here, after in zip(cells, cells[1:], cells[2:], strict=False):
        if (here[0] - before[0], here[1] - before[1]) != (after[0] - here[0], after[1] - here[1]):
            corners.append(here)
    corners.append(cells[-1])
    return corners


def _travel(before: Cell, after: Cell) -> str:
    if after[0] != before[0]:
        return "down" if after[0] > before[0] else "up"
    return "right" if after[1] > before[1] else "left"


def _cut(draw: EdgeDraw, frame: Rect, member: Rect) -> EdgeDraw:
    """Cut the end of `draw` that reaches `member` at `frame`'s border."""
    first, last = draw.pieces[0][0], draw.pieces[-1][-1]
    at_end = _near(last, member) <= _near(first, member)
    far = first if at_end else last
    if _inside(far, frame) or _on_border(far, frame):
        return draw  # the other end is in the frame: the edge stays inside
    pieces = [list(p) for p in draw.pieces]
    if not at_end:
        pieces = [list(reversed(p)) for p in reversed(pieces)]
    # Walk from the far end; the first border cell is where the line meets the frame.
    for index, piece in enumerate(pieces):
        cells = _cells(piece)
        hit = next((k for k, cell in enumerate(cells) if _on_border(cell, frame)), None)
        if hit is None:
            continue
        if hit == 0:
            return draw
        kept = [*pieces[:index], _corners(cells[: hit + 1])]
        border, before = cells[hit], cells[hit - 1]
        old_end = last if at_end else first
        kind = _end_head(draw, old_end)
        heads = [h for h in draw.heads if _distance((h[0], h[1]), old_end) > 1]
        if kind is not None:
            heads.append((before[0], before[1], _travel(before, border), kind))
        anchors = [a for a in draw.anchors if a != old_end] + [border]
        if not at_end:
            kept = [list(reversed(p)) for p in reversed(kept)]
        return draw._replace(pieces=kept, heads=heads, anchors=anchors)
    return draw


def _distance(a: Cell, b: Cell) -> int:
    return abs(a[0] - b[0]) + abs(a[1] - b[1])


def _end_head(draw: EdgeDraw, end: Cell) -> Head | None:
    """The head drawn next to a line end, if any."""
    for row, col, _travel_dir, kind in draw.heads:
        if _distance((row, col), end) <= 1:
            return kind
    return None
