"""The span map: which screen cells each drawn object owns (render.md §11, §18 #22).

A span is one run of cells on one row, inclusive at both ends, in terminal *cell* columns
(a wide character takes two columns; `nereid.render.text.slice_cells` maps a span back onto
a line's string). Drawing calls record the cells they paint for an owner; `build()` turns the
records into sorted, merged, non-overlapping spans per object.
"""

from __future__ import annotations

from itertools import repeat
from typing import NamedTuple

from nereid.model.refs import ObjectRef

__all__ = ["Span", "SpanMap", "SpanRecorder", "merge_runs"]


class Span(NamedTuple):
    """Cells `col_start..col_end` (inclusive) of `row`."""

    row: int
    col_start: int
    col_end: int


SpanMap = dict[ObjectRef, tuple[Span, ...]]


class SpanRecorder:
    """Collects raw cell runs per owner while a canvas is drawn; cheap to append to."""

    __slots__ = ("_runs",)

    def __init__(self) -> None:
        self._runs: dict[ObjectRef, list[tuple[int, int, int]]] = {}

    def add(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        """Record that `owner` painted `row`, columns `col_start..col_end` (any order)."""
        if col_end < col_start:
            col_start, col_end = col_end, col_start
        runs = self._runs.get(owner)
        if runs is None:
            runs = self._runs[owner] = []
        runs.append((row, col_start, col_end))

    def add_column(self, owner: ObjectRef, col: int, row_start: int, row_end: int) -> None:
        """Record the cells of column `col` from `row_start` to `row_end` (inclusive)."""
        runs = self._runs.get(owner)
        if runs is None:
            runs = self._runs[owner] = []
        runs.extend(zip(range(row_start, row_end + 1), repeat(col), repeat(col)))

    def add_cell(self, owner: ObjectRef, row: int, col: int) -> None:
        self.add(owner, row, col, col)

    def owners(self) -> list[ObjectRef]:
        return list(self._runs)

    def build(self) -> SpanMap:
        """Spans per owner: sorted by (row, col), touching or overlapping runs merged."""
        result: SpanMap = {}
        for owner in sorted(self._runs, key=ObjectRef.sort_key):
            result[owner] = tuple(merge_runs(self._runs[owner]))
        return result


def merge_runs(runs: list[tuple[int, int, int]]) -> list[Span]:
    """Merge (row, start, end) runs that overlap or touch on the same row."""
    if len(runs) == 1 and runs[0][0] >= 0:
        return [tuple.__new__(Span, runs[0])]
    merged: list[tuple[int, int, int]] = []
    last_row, last_start, last_end = -1, 0, -2
    for row, start, end in sorted(runs):
        if row == last_row and start <= last_end + 1:
            if end > last_end:
                last_end = end
            continue
        if last_row >= 0:
            merged.append((last_row, last_start, last_end))
        last_row, last_start, last_end = row, start, end
    if last_row >= 0:
        merged.append((last_row, last_start, last_end))
    make = tuple.__new__
    return [make(Span, run) for run in merged]
