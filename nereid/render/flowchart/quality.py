"""Mechanical measures of a drawn flowchart: where edges cross, and how much room it takes.

Used by the render-quality tests and `scripts/bench render`, so a change to layout or
routing shows up as a number, not only as a different picture.
"""

from __future__ import annotations

from nereid.render.flowchart.geometry import Geometry

__all__ = ["drawn_crossings", "edge_cells"]


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
