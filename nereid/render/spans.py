"""The span map: which screen cells each drawn object owns (render.md §11, §18 #22).

A span is one run of cells on one row, inclusive at both ends, in terminal *cell* columns
(a wide character takes two columns; `nereid.render.text.slice_cells` maps a span back onto
a line's string). Drawing calls record the cells they paint for an owner; `build()` turns the
records into sorted, merged, non-overlapping spans per object.

Runs are recorded as the `Span`s they most likely are (a vertical line's cells through one
C-level map), so `build()` sorts them and merges only the runs of rows that hold several
(corners, box rows), found with C-level maps; the rest are handed over as they are.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import attrgetter, eq, itemgetter
from typing import Final, NamedTuple

from nereid.model.refs import ObjectRef

__all__ = ["Span", "SpanMap", "SpanRecorder", "merge_runs"]


class Span(NamedTuple):
    """Cells `col_start..col_end` (inclusive) of `row`."""

    row: int
    col_start: int
    col_end: int


SpanMap = dict[ObjectRef, tuple[Span, ...]]

_new = tuple.__new__
_row: Final = itemgetter(0)
_sort_key: Final = attrgetter("diagram_id", "category", "object_id")
"""`ObjectRef.sort_key` without a Python call per ref."""


class SpanRecorder:
    """Collects raw cell runs per owner while a canvas is drawn; cheap to append to.

    Drawing calls for one owner come in a row (a node's box and label, an edge's lines,
    heads and labels), so the last owner's run list is kept at hand: a ref's hash is a
    Python-level computation over its fields, and most calls then need none."""

    __slots__ = ("_last", "_last_runs", "_runs")

    def __init__(self) -> None:
        self._runs: dict[ObjectRef, list[Span]] = {}
        self._last: ObjectRef | None = None
        self._last_runs: list[Span] = []

    def add(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        """Record that `owner` painted `row`, columns `col_start..col_end` (any order)."""
        if col_end < col_start:
            col_start, col_end = col_end, col_start
        runs = self._last_runs if owner is self._last else self.runs_of(owner)
        runs.append(_new(Span, (row, col_start, col_end)))

    def add_column(self, owner: ObjectRef, col: int, row_start: int, row_end: int) -> None:
        """Record the cells of column `col` from `row_start` to `row_end` (inclusive)."""
        runs = self._last_runs if owner is self._last else self.runs_of(owner)
        cells = zip(range(row_start, row_end + 1), repeat(col), repeat(col))
        runs.extend(map(_new, repeat(Span), cells))

    def runs_of(self, owner: ObjectRef) -> list[Span]:
        """The runs recorded for `owner`, to append `Span`s to directly (a drawing call
        that records many)."""
        if owner is self._last:
            return self._last_runs
        runs = self._runs.get(owner)
        if runs is None:
            runs = self._runs[owner] = []
        self._last, self._last_runs = owner, runs
        return runs

    def add_cell(self, owner: ObjectRef, row: int, col: int) -> None:
        self.add(owner, row, col, col)

    def owners(self) -> list[ObjectRef]:
        return list(self._runs)

    def build(self) -> SpanMap:
        """Spans per owner: sorted by (row, col), touching or overlapping runs merged.

        The recorded runs are replaced by the merged ones as it goes (the same spans), so a
        big drawing does not hold both at once."""
        result: SpanMap = {}
        runs = self._runs
        self._last, self._last_runs = None, []
        for owner in sorted(runs, key=_sort_key):
            merged = _merge(runs[owner])
            runs[owner] = merged
            result[owner] = tuple(merged)
        return result


def merge_runs(runs: list[tuple[int, int, int]]) -> list[Span]:
    """Merge (row, start, end) runs that overlap or touch on the same row."""
    return _merge([_new(Span, (row, min(a, b), max(a, b))) for row, a, b in runs])


def _merge(runs: list[Span]) -> list[Span]:
    """The runs sorted (in place), the runs of each row merged where they touch.

    Sorted by row alone first (int keys compare in C without a rich comparison per pair,
    and most rows hold one run); only the runs of a row that holds several are sorted by
    their columns, where they are merged."""
    if len(runs) == 1:
        return runs
    runs.sort(key=_row)
    rows = list(map(_row, runs))
    # Indices i where run i shares its row with run i + 1: only those rows need merging.
    shared = list(compress(range(len(rows) - 1), map(eq, rows, rows[1:])))
    if not shared:
        return runs
    out: list[Span] = []
    done = 0  # runs[:done] are in `out`
    k, count = 0, len(shared)
    while k < count:
        first = last = shared[k]
        k += 1
        while k < count and shared[k] == last + 1:
            last += 1
            k += 1
        last += 1  # the group is runs[first..last], all on one row
        out.extend(runs[done:first])
        group = sorted(runs[first : last + 1])
        row, start, end = group[0]
        for _, s, e in group[1:]:
            if s <= end + 1:
                if e > end:
                    end = e
                continue
            out.append(_new(Span, (row, start, end)))
            start, end = s, e
        out.append(_new(Span, (row, start, end)))
        done = last + 1
    out.extend(runs[done:])
    return out
