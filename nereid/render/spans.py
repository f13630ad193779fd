"""The span map: which screen cells each drawn object owns (render.md §11, §18 #22).

A span is one run of cells on one row, inclusive at both ends, in terminal *cell* columns
(a wide character takes two columns; `nereid.render.text.slice_cells` maps a span back onto
a line's string). Drawing calls record the cells they paint for an owner; `build()` turns the
records into sorted, merged, non-overlapping spans per object.

A drawing holds tens of thousands of spans (200,000 at 3000 nodes), so they are kept as
integers, never as one object each: a span is one `int` key, `row`, `col_start` and
`col_end` in bit fields, so keys sort as the spans do. The recorder appends keys (a vertical
line's cells are one `range`), `build()` sorts and merges them in C-level steps and packs
them into one `array`: the collector never walks them (a tuple per span was walked by every
collection after a render), and the worker sends the array as it is. `PackedSpans` is the
span map over the array: an object's `Span`s are made when they are asked for.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import compress, repeat
from operator import and_, attrgetter, eq, rshift, sub
from typing import Final, NamedTuple

from nereid.model.refs import ObjectRef

__all__ = [
    "PackedSpans",
    "Span",
    "SpanLayout",
    "SpanMap",
    "SpanRecorder",
    "merge_runs",
    "spans_on_rows",
]


class Span(NamedTuple):
    """Cells `col_start..col_end` (inclusive) of `row`."""

    row: int
    col_start: int
    col_end: int


SpanMap = dict[ObjectRef, tuple[Span, ...]]
"""A span map built by hand (`PackedSpans` is the one a canvas builds)."""

_new = tuple.__new__
_sort_key: Final = attrgetter("diagram_id", "category", "object_id")
"""`ObjectRef.sort_key` without a Python call per ref."""
_KEY_LIMIT: Final = 1 << 63
"""Keys are stored as signed 64-bit integers."""


class SpanLayout:
    """Where a span's fields lie in its key: `(row << row_shift) + ((col_start + bias) <<
    col_shift) + col_end + bias`, so that keys sort as (row, col_start, col_end) do. Columns
    from `-bias` to `bias - 1` fit (a canvas's columns and as many to its left)."""

    __slots__ = ("bias", "col_shift", "key_bias", "mask", "row_shift", "row_step")

    def __init__(self, col_shift: int) -> None:
        self.col_shift = col_shift
        self.row_shift = 2 * col_shift
        self.row_step = 1 << self.row_shift
        self.mask = (1 << col_shift) - 1
        self.bias = 1 << (col_shift - 1)
        self.key_bias = (self.bias << col_shift) + self.bias
        """What a key adds to `(row << row_shift) + (col_start << col_shift) + col_end`."""

    @classmethod
    def for_columns(cls, low: int, high: int) -> SpanLayout:
        """The narrowest layout whose columns reach from `low` to `high`."""
        return cls(max(high + 1, -low, 1).bit_length() + 1)

    def key(self, row: int, col_start: int, col_end: int) -> int:
        return (row << self.row_shift) + (col_start << self.col_shift) + col_end + self.key_bias

    def fits(self, row_low: int, row_high: int) -> bool:
        """Whether every key of rows `row_low..row_high` is a signed 64-bit integer."""
        limit = _KEY_LIMIT >> self.row_shift
        return -limit <= row_low and row_high < limit

    def rows(self, keys: Iterable[int]) -> Iterator[int]:
        return map(rshift, keys, repeat(self.row_shift))

    def spans(self, keys: Iterable[int]) -> Iterator[Span]:
        """The spans of `keys`, decoded in C-level steps."""
        keys = keys if isinstance(keys, (array, list, tuple)) else list(keys)
        mask, bias = repeat(self.mask), repeat(self.bias)
        starts = map(sub, map(and_, map(rshift, keys, repeat(self.col_shift)), mask), bias)
        ends = map(sub, map(and_, keys, mask), bias)
        return map(_new, repeat(Span), zip(self.rows(keys), starts, ends, strict=True))


class SpanRecorder:
    """Collects raw cell runs (keys of `layout`) per owner while a canvas is drawn; cheap to
    append to (`runs_of` for drawing calls that append keys themselves).

    Drawing calls for one owner come in a row (a node's box and label, an edge's lines,
    heads and labels), so the last owner's run list is kept at hand: most calls then hash no
    ref."""

    __slots__ = ("_last", "_last_runs", "_runs", "layout")

    def __init__(self, width: int = 0) -> None:
        self.layout = SpanLayout.for_columns(-width, width)
        self._runs: dict[ObjectRef, list[int]] = {}
        self._last: ObjectRef | None = None
        self._last_runs: list[int] = []

    def widen(self, width: int) -> None:
        """Make room for columns up to `width` (a canvas grew): recorded keys are re-encoded."""
        if width < self.layout.bias:
            return
        old, new = self.layout, SpanLayout.for_columns(-width, width)
        for runs in self._runs.values():
            runs[:] = [new.key(*span) for span in old.spans(runs)]
        self.layout = new

    def add(self, owner: ObjectRef, row: int, col_start: int, col_end: int) -> None:
        """Record that `owner` painted `row`, columns `col_start..col_end` (any order)."""
        if col_end < col_start:
            col_start, col_end = col_end, col_start
        layout = self.layout
        runs = self._last_runs if owner is self._last else self.runs_of(owner)
        runs.append(
            (row << layout.row_shift) + (col_start << layout.col_shift) + col_end + layout.key_bias
        )

    def add_column(self, owner: ObjectRef, col: int, row_start: int, row_end: int) -> None:
        """Record the cells of column `col` from `row_start` to `row_end` (inclusive)."""
        layout = self.layout
        runs = self._last_runs if owner is self._last else self.runs_of(owner)
        first = layout.key(row_start, col, col)
        runs.extend(
            range(first, first + ((row_end - row_start + 1) << layout.row_shift), layout.row_step)
        )

    def add_rows(self, owner: ObjectRef, top: int, bottom: int, left: int, right: int) -> None:
        """Record columns `left..right` of every row from `top` to `bottom`."""
        if right < left:
            left, right = right, left
        layout = self.layout
        first = layout.key(top, left, right)
        self.runs_of(owner).extend(
            range(first, first + ((bottom - top + 1) << layout.row_shift), layout.row_step)
        )

    def runs_of(self, owner: ObjectRef) -> list[int]:
        """The keys recorded for `owner`, to append keys of `layout` to directly (a drawing
        call that records many)."""
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

    def build(self) -> PackedSpans:
        """Spans per owner: sorted by (row, col), touching or overlapping runs merged.

        Each owner's runs are dropped once they are packed, so a big drawing does not hold
        both at once."""
        runs, layout = self._runs, self.layout
        self._runs, self._last, self._last_runs = {}, None, []
        owners = sorted(runs, key=_sort_key)
        keys = array("q")
        starts = array("I", [0])
        pop, extend, mark = runs.pop, keys.fromlist, starts.append
        for owner in owners:
            extend(_merge(pop(owner), layout))
            mark(len(keys))
        return PackedSpans(owners, starts, keys, layout)


def merge_runs(runs: list[tuple[int, int, int]]) -> list[Span]:
    """Merge (row, start, end) runs that overlap or touch on the same row."""
    if not runs:
        return []
    layout = _layout_of(runs)
    keys = [layout.key(row, min(a, b), max(a, b)) for row, a, b in runs]
    return list(layout.spans(_merge(keys, layout)))


def _layout_of(spans: Iterable[tuple[int, int, int]]) -> SpanLayout:
    """A layout for spans of any columns; ValueError if their keys would not fit 64 bits."""
    spans = list(spans)
    if not spans:
        return SpanLayout.for_columns(0, 0)
    rows, starts, ends = zip(*spans, strict=True)
    layout = SpanLayout.for_columns(min(min(starts), min(ends)), max(max(starts), max(ends)))
    if not layout.fits(min(rows), max(rows)):
        raise ValueError(
            f"spans too far apart to pack: rows {min(rows)}..{max(rows)} with columns "
            f"{min(starts)}..{max(ends)}"
        )
    return layout


def _merge(keys: list[int], layout: SpanLayout) -> list[int]:
    """The keys sorted (in place), the runs of each row merged where they touch.

    Keys sort as (row, start, end) in C; only the runs of a row that holds several (found
    with C-level maps) are looked at one by one."""
    if len(keys) < 2:
        return keys
    keys.sort()
    rows = list(map(rshift, keys, repeat(layout.row_shift)))
    # Indices i where run i shares its row with run i + 1: only those rows need merging.
    shared = list(compress(range(len(rows) - 1), map(eq, rows, rows[1:])))
    if not shared:
        return keys
    col_shift, mask, row_shift = layout.col_shift, layout.mask, layout.row_shift
    out: list[int] = []
    done = 0  # keys[:done] are in `out`
    k, count = 0, len(shared)
    while k < count:
        first = last = shared[k]
        k += 1
        while k < count and shared[k] == last + 1:
            last += 1
            k += 1
        last += 1  # the group is keys[first..last], all on one row, sorted
        out.extend(keys[done:first])
        # Merged on the biased columns as they are (the bias keeps their order and gaps).
        base = rows[first] << row_shift
        start, end = (keys[first] >> col_shift) & mask, keys[first] & mask
        for key in keys[first + 1 : last + 1]:
            s, e = (key >> col_shift) & mask, key & mask
            if s <= end + 1:
                if e > end:
                    end = e
                continue
            out.append(base + (start << col_shift) + end)
            start, end = s, e
        out.append(base + (start << col_shift) + end)
        done = last + 1
    out.extend(keys[done:])
    return out


class PackedSpans(Mapping[ObjectRef, tuple[Span, ...]]):
    """A drawing's span map over one array of keys: read-only, each object's spans made
    when asked for. `replaced` gives the map with one object's spans changed (a label patch
    grows a box), sharing the arrays; `on_rows` finds the spans of a band of rows from a row
    index made once (`row_index`)."""

    __slots__ = ("_index", "_keys", "_layout", "_refs", "_replaced", "_row_index", "_starts")

    def __init__(
        self,
        refs: list[ObjectRef],
        starts: array[int],
        keys: array[int],
        layout: SpanLayout,
        row_index: tuple[array[int], array[int]] | None = None,
        *,
        index: dict[ObjectRef, int] | None = None,
        replaced: dict[ObjectRef, tuple[Span, ...]] | None = None,
    ) -> None:
        """`index` (refs' positions) and `replaced` are for `replaced`, which shares them."""
        self._refs = refs
        self._index = dict(zip(refs, range(len(refs)), strict=True)) if index is None else index
        self._starts = starts  # first key of each object, and the total at the end
        self._keys = keys
        self._layout = layout
        self._row_index = row_index
        self._replaced: dict[ObjectRef, tuple[Span, ...]] = {} if replaced is None else replaced

    @classmethod
    def from_mapping(cls, spans: Mapping[ObjectRef, Iterable[Span]]) -> PackedSpans:
        """Any span map, packed (each object's spans in their order). ValueError if its
        spans are too far apart for 64-bit keys."""
        if isinstance(spans, PackedSpans) and not spans._replaced:
            return spans
        owned = {ref: list(runs) for ref, runs in spans.items()}
        layout = _layout_of(span for runs in owned.values() for span in runs)
        key = layout.key
        keys = array("q", [key(*span) for runs in owned.values() for span in runs])
        starts = array("I", [0])
        for runs in owned.values():
            starts.append(starts[-1] + len(runs))
        return cls(list(owned), starts, keys, layout)

    # -- the packed form (nereid.offload.packed_drawing) ----------------------------------

    @property
    def refs(self) -> list[ObjectRef]:
        return self._refs

    @property
    def keys_array(self) -> array[int]:
        return self._keys

    @property
    def starts(self) -> array[int]:
        return self._starts

    @property
    def layout(self) -> SpanLayout:
        return self._layout

    @property
    def is_replaced(self) -> bool:
        """Whether some object's spans were replaced (they are not in the arrays)."""
        return bool(self._replaced)

    def row_index(self) -> tuple[array[int], array[int]]:
        """(the spans' indices ordered by row, their rows in that order), made on first
        use: the spans of rows `low..high` are a slice of it found by bisection."""
        if self._row_index is None:
            rows = array("q", self._layout.rows(self._keys))
            by_row = array("I", sorted(range(len(rows)), key=rows.__getitem__))
            self._row_index = (by_row, array("q", sorted(rows)))
        return self._row_index

    # -- the mapping ----------------------------------------------------------------------

    def __getitem__(self, ref: ObjectRef) -> tuple[Span, ...]:
        replaced = self._replaced.get(ref) if self._replaced else None
        if replaced is not None:
            return replaced
        index = self._index[ref]
        return tuple(self._layout.spans(self._keys[self._starts[index] : self._starts[index + 1]]))

    def __contains__(self, ref: object) -> bool:
        return ref in self._index or ref in self._replaced

    def __iter__(self) -> Iterator[ObjectRef]:
        yield from self._refs
        yield from (ref for ref in self._replaced if ref not in self._index)

    def __len__(self) -> int:
        return len(self._refs) + sum(1 for ref in self._replaced if ref not in self._index)

    def __repr__(self) -> str:
        return f"PackedSpans({dict(self)!r})"

    def replaced(self, ref: ObjectRef, spans: tuple[Span, ...]) -> PackedSpans:
        """This map with `ref`'s spans replaced by `spans` (or added)."""
        # Through __init__, not __new__ and slot stores: a compiled class (docs/native.md)
        # cannot be made without its constructor's arguments.
        return PackedSpans(
            self._refs,
            self._starts,
            self._keys,
            self._layout,
            self._row_index,
            index=self._index,
            replaced={**self._replaced, ref: spans},
        )

    def regrouped(self, owner_of: Callable[[ObjectRef], ObjectRef]) -> PackedSpans:
        """The map with each object's spans given to `owner_of(ref)`: the spans of objects
        given to one owner are joined, sorted and de-duplicated (not merged)."""
        grouped: dict[ObjectRef, list[int]] = {}
        keys, starts = self._keys, self._starts
        for index, ref in enumerate(self._refs):
            owner = owner_of(ref)
            found = grouped.get(owner)
            run = keys[starts[index] : starts[index + 1]]
            if found is None:
                grouped[owner] = list(run)
            else:
                found.extend(run)
        packed = array("q")
        made = array("I", [0])
        for owned in grouped.values():
            packed.extend(sorted(set(owned)))
            made.append(len(packed))
        result = PackedSpans(list(grouped), made, packed, self._layout)
        for ref, spans in self._replaced.items():
            result = result.replaced(owner_of(ref), spans)
        return result

    def on_rows(self, low: int, high: int) -> Iterator[tuple[ObjectRef, Span]]:
        """Every (object, span) with the span on a row from `low` to `high` (from 0)."""
        by_row, rows = self.row_index()
        low = max(low, 0)
        replaced = self._replaced
        first, last = bisect_left(rows, low), bisect_right(rows, high)
        if first < last:
            refs, starts, keys = self._refs, self._starts, self._keys
            indices = by_row[first:last]
            owners = [refs[bisect_right(starts, index) - 1] for index in indices]
            spans = self._layout.spans([keys[index] for index in indices])
            for ref, span in zip(owners, spans, strict=True):
                if ref not in replaced:
                    yield ref, span
        for ref, owned in replaced.items():
            for span in owned:
                if low <= span.row <= high:
                    yield ref, span


def spans_on_rows(
    spans: Mapping[ObjectRef, tuple[Span, ...]], low: int, high: int
) -> Iterator[tuple[ObjectRef, Span]]:
    """Every (object, span) of a span map with the span on a row from `low` to `high`:
    from a packed map's row index, else by looking at every span."""
    if isinstance(spans, PackedSpans):
        yield from spans.on_rows(low, high)
        return
    for ref, owned in spans.items():
        for span in owned:
            if low <= span.row <= high:
                yield ref, span
