"""Screen geometry of a laid-out flowchart: what to draw where, in cell coordinates."""

from __future__ import annotations

from typing import NamedTuple

from nereid.model.flowchart import Head
from nereid.render.flowchart.shapes import ShapeStyle
from nereid.render.text import text_width

__all__ = ["EdgeDraw", "FrameDraw", "Geometry", "LabelDraw", "NodeDraw", "title_place"]


class NodeDraw(NamedTuple):
    node_id: str
    rect: tuple[int, int, int, int]  # top, left, bottom, right (screen cells, inclusive)
    lines: list[str]
    note: str | None  # note lines joined by newlines; None when notes are off
    style: ShapeStyle


class LabelDraw(NamedTuple):
    row: int
    col: int
    text: str


class EdgeDraw(NamedTuple):
    edge_id: str
    pieces: list[list[tuple[int, int]]]  # polylines of (row, col) corner points
    line: str
    heads: list[tuple[int, int, str, Head]]  # (row, col, travel direction, head kind)
    anchors: list[tuple[int, int]]  # node border cells the line joins (get an arm)
    labels: list[LabelDraw]


class FrameDraw(NamedTuple):
    subgraph_id: str
    rect: tuple[int, int, int, int]
    title: list[str]
    title_on_border: bool
    title_col: int  # screen column of a border title's first character


class Geometry(NamedTuple):
    width: int
    height: int
    nodes: list[NodeDraw]
    edges: list[EdgeDraw]
    frames: list[FrameDraw]


def title_place(
    rect: tuple[int, int, int, int], title: list[str], edges: list[EdgeDraw]
) -> tuple[int, int]:
    """(start column, crossings) for a title on a frame's top border: the leftmost place no
    edge crosses (keeping a blank and a border cell either side), else the place crossed
    least."""
    top, left, _, right = rect
    crossed: set[int] = set()
    for edge in edges:
        if edge.line == "invisible":
            continue
        for piece in edge.pieces:
            for (r0, c0), (r1, c1) in zip(piece, piece[1:], strict=False):
                if c0 == c1 and min(r0, r1) <= top <= max(r0, r1) and left < c0 < right:
                    crossed.add(c0)
    width = max(text_width(line) for line in title)
    best, best_hits = left + 2, -1
    for start in range(left + 2, max(right - width - 2, left + 2) + 1):
        hits = sum(1 for c in range(start - 2, start + width + 2) if c in crossed)
        if hits == 0:
            return start, 0
        if best_hits < 0 or hits < best_hits:
            best, best_hits = start, hits
    return best, max(best_hits, 0)
