"""A drawing (`Rendered`) as the render worker sends it back: compact, and kept packed.

Decoding a 1000-node flowchart's `Rendered` from plain msgpack took 13-30 ms in one C call
on the event loop, most of it making its ~19,000 `Span`s, and every agent's request waited
behind it (issue 18). Rebuilding those spans in steps still left ~22,000 objects that the
garbage collector tracks for as long as the drawing is kept (`Span` is a tuple subclass,
which CPython never untracks): every young collection after a layout walked them
(10-20 ms on the loop), every full one walked each kept drawing, and dropping a drawing
freed them one by one (3-6 ms).

So the drawing stays packed: its text, its size, the list of objects and flat integer
arrays (spans per object; row, first and last column of each span; the spans ordered by
row). `PackedSpans` is the span map over those arrays: an object's spans are made when
they are asked for (the few the screen marks), and `spans_on_rows` finds the spans of a
band of rows without looking at the others (a label patch's neighbours, a click).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Generator, Iterator, Mapping
from itertools import accumulate, chain, repeat
from typing import Final

import msgspec

from nereid.model.refs import ObjectRef
from nereid.render import Rendered, Span

__all__ = [
    "PackedSpans",
    "pack_drawing",
    "spans_on_rows",
    "unpack_drawing",
    "unpack_steps",
]

_new = tuple.__new__


class _Packed(msgspec.Struct, array_like=True, frozen=True):
    text: str
    width: int
    height: int
    refs: msgspec.Raw  # list[ObjectRef], decoded in a step of its own (`_refs`)
    counts: bytes  # array("I"): spans per object, in `refs` order
    cells: bytes  # array("q"): row, first column, last column of each span, in order
    by_row: bytes  # array("I"): the spans on rows 0..height-1, by row (stable)
    row_starts: bytes  # array("I"): where each row's spans start in `by_row` (height + 1)


_decoder: Final = msgspec.msgpack.Decoder(_Packed)
_refs: Final = msgspec.msgpack.Decoder(list[ObjectRef])


def pack_drawing(rendered: Rendered) -> bytes:
    """`rendered` as bytes for `unpack_steps` (run in the worker)."""
    spans = rendered.spans
    counts = array("I", map(len, spans.values()))
    cells = array("q", chain.from_iterable(chain.from_iterable(spans.values())))
    height = rendered.height
    rows = cells[0::3]
    on_lines = [i for i, row in enumerate(rows) if 0 <= row < height]  # spans lie on lines
    on_lines.sort(key=rows.__getitem__)
    per_row = array("I", repeat(0, height + 1))
    for index in on_lines:
        per_row[rows[index] + 1] += 1
    packed = _Packed(
        rendered.text,
        rendered.width,
        height,
        msgspec.Raw(msgspec.msgpack.encode(list(spans))),
        counts.tobytes(),
        cells.tobytes(),
        array("I", on_lines).tobytes(),
        array("I", accumulate(per_row)).tobytes(),
    )
    return msgspec.msgpack.encode(packed)


class PackedSpans(Mapping[ObjectRef, tuple[Span, ...]]):
    """A drawing's span map over the packed arrays: read-only, each object's spans made
    when asked for. `replaced` gives the map with one object's spans changed (a label
    patch grows a box), sharing the arrays."""

    __slots__ = ("_by_row", "_cells", "_index", "_refs", "_replaced", "_row_starts", "_starts")

    def __init__(
        self,
        refs: list[ObjectRef],
        starts: array[int],
        cells: array[int],
        by_row: array[int],
        row_starts: array[int],
        replaced: Mapping[ObjectRef, tuple[Span, ...]] | None = None,
    ) -> None:
        self._refs = refs
        self._index = dict(zip(refs, range(len(refs)), strict=True))
        self._starts = starts  # first span of each object, and the total at the end
        self._cells = cells
        self._by_row = by_row
        self._row_starts = row_starts
        self._replaced = dict(replaced or {})

    def __getitem__(self, ref: ObjectRef) -> tuple[Span, ...]:
        replaced = self._replaced.get(ref)
        if replaced is not None:
            return replaced
        index = self._index[ref]
        numbers = iter(self._cells[3 * self._starts[index] : 3 * self._starts[index + 1]])
        return tuple(map(_new, repeat(Span), zip(numbers, numbers, numbers, strict=False)))

    def __contains__(self, ref: object) -> bool:
        return ref in self._index or ref in self._replaced

    def __iter__(self) -> Iterator[ObjectRef]:
        yield from self._refs
        yield from (ref for ref in self._replaced if ref not in self._index)

    def __len__(self) -> int:
        return len(self._refs) + sum(1 for ref in self._replaced if ref not in self._index)

    def replaced(self, ref: ObjectRef, spans: tuple[Span, ...]) -> PackedSpans:
        """This map with `ref`'s spans replaced by `spans` (or added)."""
        made = PackedSpans.__new__(PackedSpans)
        made._refs, made._index, made._starts = self._refs, self._index, self._starts
        made._cells, made._by_row, made._row_starts = self._cells, self._by_row, self._row_starts
        made._replaced = {**self._replaced, ref: spans}
        return made

    def on_rows(self, low: int, high: int) -> Iterator[tuple[ObjectRef, Span]]:
        """Every (object, span) with the span on a row from `low` to `high`."""
        height = len(self._row_starts) - 1
        low, high = max(low, 0), min(high, height - 1)
        if low <= high:
            refs, starts, cells, replaced = self._refs, self._starts, self._cells, self._replaced
            first, last = self._row_starts[low], self._row_starts[high + 1]
            for index in self._by_row[first:last]:
                ref = refs[bisect_right(starts, index) - 1]
                if ref not in replaced:
                    at = 3 * index
                    yield ref, _new(Span, (cells[at], cells[at + 1], cells[at + 2]))
        for ref, spans in self._replaced.items():
            for span in spans:
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


def unpack_steps(payload: bytes) -> Generator[None, None, Rendered]:
    """Rebuild the drawing `pack_drawing` packed, yielding between its decode, its lines
    and objects, and its span map (each about a millisecond for a 1000-node flowchart);
    the generator's return value is the `Rendered` (spans: a `PackedSpans`). Raises
    `ValueError` (or `msgspec.DecodeError`) for bytes that are not a packed drawing."""
    packed = _decoder.decode(payload)
    counts, cells, by_row, row_starts = array("I"), array("q"), array("I"), array("I")
    try:
        counts.frombytes(packed.counts)
        cells.frombytes(packed.cells)
        by_row.frombytes(packed.by_row)
        row_starts.frombytes(packed.row_starts)
    except ValueError as err:
        raise ValueError(f"packed drawing: span arrays of a bad length ({err})") from err
    total = sum(counts)
    if 3 * total != len(cells):
        raise ValueError(
            f"packed drawing: {len(counts)} span counts and {len(cells)} span cells do not match"
        )
    if (
        len(row_starts) != packed.height + 1
        or row_starts[0] != 0
        or row_starts[-1] != len(by_row)
        or any(a > b for a, b in zip(row_starts, row_starts[1:], strict=False))
        or (by_row and max(by_row) >= total)
    ):
        raise ValueError("packed drawing: the row index does not match its spans")
    yield
    lines = packed.text.split("\n") if packed.height else []
    if len(lines) != packed.height:
        raise ValueError(f"packed drawing: {len(lines)} lines, height {packed.height}")
    refs = _refs.decode(packed.refs)
    if len(counts) != len(refs):
        raise ValueError(f"packed drawing: {len(refs)} objects and {len(counts)} span counts")
    yield
    if len(set(refs)) != len(refs):
        raise ValueError("packed drawing: an object is listed twice")
    starts = array("I", accumulate(counts, initial=0))
    spans = PackedSpans(refs, starts, cells, by_row, row_starts)
    return Rendered(
        text=packed.text, lines=lines, spans=spans, width=packed.width, height=packed.height
    )


def unpack_drawing(payload: bytes) -> Rendered:
    """`unpack_steps` in one go (for callers with nothing to interleave)."""
    steps = unpack_steps(payload)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            rendered: Rendered = done.value
            return rendered
