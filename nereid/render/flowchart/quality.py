"""Mechanical measures of a drawn flowchart: where edges cross, and how much room it takes.

Used by the render-quality tests and `scripts/bench render`, so a change to layout or
routing shows up as a number, not only as a different picture.
"""

from __future__ import annotations

from nereid.model.flowchart import FlowchartAst
from nereid.render.flowchart.geometry import Geometry

__all__ = ["drawn_crossings", "edge_cells", "frame_crossings", "u_turns"]

Rect = tuple[int, int, int, int]


def _runs(
    geometry: Geometry,
) -> tuple[list[tuple[int, int, int, int]], list[tuple[int, int, int, int]]]:
    """(edge index, fixed coordinate, low, high) of every horizontal and vertical run."""
    horizontal: list[tuple[int, int, int, int]] = []
    vertical: list[tuple[int, int, int, int]] = []
    for index, edge in enumerate(geometry.edges):
        if edge.line == "invisible":
            continue
        for piece in edge.pieces:
            for (r0, c0), (r1, c1) in zip(piece, piece[1:], strict=False):
                if r0 == r1 and c0 != c1:
                    horizontal.append((index, r0, min(c0, c1), max(c0, c1)))
                elif c0 == c1 and r0 != r1:
                    vertical.append((index, c0, min(r0, r1), max(r0, r1)))
    return horizontal, vertical


def drawn_crossings(geometry: Geometry) -> int:
    """Cells where a run of one edge passes straight through a run of another edge.

    A run that ends on another edge's line (a junction) is not a crossing; two edges sharing
    cells along a line are not counted here either (the router never merges edges).
    """
    horizontal, vertical = _runs(geometry)
    crossings = 0
    for h_edge, row, c0, c1 in horizontal:
        for v_edge, col, r0, r1 in vertical:
            if h_edge != v_edge and c0 < col < c1 and r0 < row < r1:
                crossings += 1
    return crossings


def edge_cells(geometry: Geometry) -> set[tuple[int, int]]:
    """Every (row, col) a visible edge line passes through."""
    horizontal, vertical = _runs(geometry)
    cells: set[tuple[int, int]] = set()
    for _, row, c0, c1 in horizontal:
        cells.update((row, c) for c in range(c0, c1 + 1))
    for _, col, r0, r1 in vertical:
        cells.update((r, col) for r in range(r0, r1 + 1))
    return cells


def _within(inner: Rect, outer: Rect) -> bool:
    return (
        outer[0] < inner[0] and outer[1] < inner[1] and inner[2] < outer[2] and inner[3] < outer[3]
    )


def _path(pieces: list[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """The cells of an edge's pieces, in order from its first end."""
    cells: list[tuple[int, int]] = []
    for piece in pieces:
        cells.append(piece[0])
        for (r0, c0), (r1, c1) in zip(piece, piece[1:], strict=False):
            dr, dc = (r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0)
            r, c = r0, c0
            while (r, c) != (r1, c1):
                r, c = r + dr, c + dc
                cells.append((r, c))
    return cells


def frame_crossings(ast: FlowchartAst, geometry: Geometry) -> int:
    """Needless passes of edges through subgraph frames (issue 15 / 17 point 7).

    An edge needs to cross the border of a frame holding exactly one of its ends once, and
    no other frame at all; every pass beyond that (through a frame holding neither end, or
    out of a frame and back in) counts one. An edge that ends at a frame stops on its border,
    which is not a pass.
    """
    frames = {frame.subgraph_id: frame.rect for frame in geometry.frames}
    boxes = {node.node_id: node.rect for node in geometry.nodes}
    boxes.update(frames)
    excess = 0
    for draw in geometry.edges:
        edge = ast.edges.get(draw.edge_id)
        if edge is None or draw.line == "invisible" or not frames:
            continue
        ends = [boxes.get(edge.from_node_id), boxes.get(edge.to_node_id)]
        cells = _path(draw.pieces)
        for sid, rect in frames.items():
            holding = sum(1 for end in ends if end is not None and _within(end, rect))
            # An edge ending at this frame stops on its border: it never needs a pass.
            needed = 1 if holding == 1 and sid not in (edge.from_node_id, edge.to_node_id) else 0
            passes = 0
            state: bool | None = None
            top, left, bottom, right = rect
            for row, col in cells:
                if row in (top, bottom) and left <= col <= right:
                    continue
                if col in (left, right) and top <= row <= bottom:
                    continue
                inside = top < row < bottom and left < col < right
                if state is not None and inside != state:
                    passes += 1
                state = inside
            excess += max(0, passes - needed)
    return excess


def u_turns(ast: FlowchartAst, geometry: Geometry) -> int:
    """Edges whose route turns back on itself: along one axis it goes one way, then the
    other (a detour around a neighbour, a dogleg past the target, a jog aside and back).
    Self-loops are loops. Parallel long edges between the same two nodes count too where
    they bulge apart and come back together (their labels or waypoints need more room side
    by side than their ports have): a reader follows a detour, whatever forced it."""
    count = 0
    for draw in geometry.edges:
        edge = ast.edges.get(draw.edge_id)
        if edge is None or edge.from_node_id == edge.to_node_id or draw.line == "invisible":
            continue
        for points in _lines(draw.pieces):
            if not _monotone([p[0] for p in points]) or not _monotone([p[1] for p in points]):
                count += 1
                break
    return count


def _lines(pieces: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """The corner points of the lines a reader follows: pieces join where the next one goes
    on along a row or a column (across a label), not across a gap that moves both ways (a
    stubbed edge's two connectors)."""
    lines: list[list[tuple[int, int]]] = []
    for piece in pieces:
        if lines and (lines[-1][-1][0] == piece[0][0] or lines[-1][-1][1] == piece[0][1]):
            lines[-1].extend(piece)
        else:
            lines.append(list(piece))
    return lines


def _monotone(values: list[int]) -> bool:
    steps = [b - a for a, b in zip(values, values[1:], strict=False) if b != a]
    return all(step > 0 for step in steps) or all(step < 0 for step in steps)
