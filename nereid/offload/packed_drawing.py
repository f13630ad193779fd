"""A drawing (`Rendered`) as the render worker sends it back: compact, and rebuilt in steps.

Decoding a 1000-node flowchart's `Rendered` from plain msgpack took 13-30 ms in one C call
on the event loop, most of it making its ~19,000 `Span`s, and every agent's request waited
behind it (issue 18). Packed, the drawing is its text, its size, the list of objects and two
flat integer arrays (spans per object; row, first and last column per span): the bytes
decode in ~1 ms (one string, a few small lists), and `unpack_steps` makes the `Span`s a few
thousand at a time, so the caller can let other tasks run between the steps
(`nereid.offload.dispatch.render_diagram_drawing`).
"""

from __future__ import annotations

from array import array
from collections.abc import Generator
from itertools import chain, islice, repeat
from typing import Final

import msgspec

from nereid.model.refs import ObjectRef
from nereid.render import Rendered, Span, SpanMap

__all__ = ["SPANS_PER_STEP", "pack_drawing", "unpack_drawing", "unpack_steps"]

SPANS_PER_STEP: Final = 1024
"""Spans made per step of `unpack_steps` (well under a millisecond on a quiet 2-core machine)."""

_new = tuple.__new__


class _Packed(msgspec.Struct, array_like=True, frozen=True):
    text: str
    width: int
    height: int
    refs: list[ObjectRef]
    counts: bytes  # array("I"): spans per object, in `refs` order
    cells: bytes  # array("q"): row, first column, last column of each span, in order


_decoder: Final = msgspec.msgpack.Decoder(_Packed)


def pack_drawing(rendered: Rendered) -> bytes:
    """`rendered` as bytes for `unpack_steps` (run in the worker)."""
    spans = rendered.spans
    counts = array("I", map(len, spans.values()))
    cells = array("q", chain.from_iterable(chain.from_iterable(spans.values())))
    packed = _Packed(
        rendered.text,
        rendered.width,
        rendered.height,
        list(spans),
        counts.tobytes(),
        cells.tobytes(),
    )
    return msgspec.msgpack.encode(packed)


def unpack_steps(payload: bytes) -> Generator[None, None, Rendered]:
    """Rebuild the drawing `pack_drawing` packed, yielding after every `SPANS_PER_STEP`
    spans; the generator's return value is the `Rendered`. Raises `ValueError` (or
    `msgspec.DecodeError`) for bytes that are not a packed drawing."""
    packed = _decoder.decode(payload)
    counts, cells = array("I"), array("q")
    try:
        counts.frombytes(packed.counts)
        cells.frombytes(packed.cells)
    except ValueError as err:
        raise ValueError(f"packed drawing: span arrays of a bad length ({err})") from err
    if len(counts) != len(packed.refs) or 3 * sum(counts) != len(cells):
        raise ValueError(
            f"packed drawing: {len(packed.refs)} objects, {len(counts)} span counts and "
            f"{len(cells)} span cells do not match"
        )
    yield
    lines = packed.text.split("\n") if packed.height else []
    if len(lines) != packed.height:
        raise ValueError(f"packed drawing: {len(lines)} lines, height {packed.height}")
    numbers = iter(cells)
    all_spans = map(_new, repeat(Span), zip(numbers, numbers, numbers, strict=False))
    spans: SpanMap = {}
    made = 0
    for ref, count in zip(packed.refs, counts, strict=True):
        spans[ref] = tuple(islice(all_spans, count))
        made += count
        if made >= SPANS_PER_STEP:
            made = 0
            yield
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
