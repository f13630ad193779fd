"""A drawing (`Rendered`) as the render worker sends it back: compact, and kept packed.

Decoding a 1000-node flowchart's `Rendered` from plain msgpack took 13-30 ms in one C call
on the event loop, most of it making its ~19,000 `Span`s, and every agent's request waited
behind it (issue 18); `Span` is a tuple subclass, which CPython never untracks, so every
collection would walk them for as long as the drawing is kept.

A canvas's span map is already packed (`nereid.render.spans.PackedSpans`: one array of span
keys), so the drawing is sent as its text, its size, the list of objects and the arrays
(where each object's keys start; the keys; the row index, made in the worker), and it stays
packed on the other side: an object's spans are made when they are asked for (the few the
screen marks), and `spans_on_rows` finds the spans of a band of rows from the row index.
"""

from __future__ import annotations

from array import array
from collections.abc import Generator
from itertools import islice
from operator import le
from typing import Final

import msgspec

from nereid.model.refs import ObjectRef, ref_enc_hook, ref_from_text
from nereid.render import Rendered
from nereid.render.spans import PackedSpans, SpanLayout, spans_on_rows

__all__ = [
    "PackedSpans",
    "pack_drawing",
    "spans_on_rows",
    "unpack_drawing",
    "unpack_steps",
]


class _Packed(msgspec.Struct, array_like=True, frozen=True):
    text: str
    width: int
    height: int
    refs: msgspec.Raw  # list[str]: each ObjectRef's text, decoded in a step of its own (`_refs`)
    col_shift: int  # the keys' layout (`SpanLayout`)
    starts: bytes  # array("I"): where each object's keys start, and their total
    keys: bytes  # array("q"): each span's key, object after object
    by_row: bytes  # array("I"): the spans' indices ordered by row (stable)
    rows: bytes  # array("q"): their rows, in that order


_decoder: Final = msgspec.msgpack.Decoder(_Packed)
_refs: Final = msgspec.msgpack.Decoder(list[str])
_encoder: Final = msgspec.msgpack.Encoder(enc_hook=ref_enc_hook)


def pack_drawing(rendered: Rendered) -> bytes:
    """`rendered` as bytes for `unpack_steps` (run in the worker). ValueError for spans
    too far apart to pack (no renderer makes them)."""
    spans = PackedSpans.from_mapping(rendered.spans)
    by_row, rows = spans.row_index()
    packed = _Packed(
        rendered.text,
        rendered.width,
        rendered.height,
        msgspec.Raw(_encoder.encode(spans.refs)),
        spans.layout.col_shift,
        spans.starts.tobytes(),
        spans.keys_array.tobytes(),
        by_row.tobytes(),
        rows.tobytes(),
    )
    return _encoder.encode(packed)


CHECK_STEP: Final = 8192
"""Row index entries `unpack_steps` checks per event-loop step (about half a millisecond)."""

REFS_STEP: Final = 384
"""Object refs `unpack_steps` makes per event-loop step (about half a millisecond: a ref is
a Python-made `str` with its parts)."""


def unpack_steps(payload: bytes) -> Generator[None, None, Rendered]:
    """Rebuild the drawing `pack_drawing` packed, yielding between its decode, the checks
    of its row index (`CHECK_STEP` entries at a time), its lines, its objects' refs
    (`REFS_STEP` at a time) and its span map, so that no step holds the event loop for
    more than about a millisecond (a 1000-node flowchart has ~19,000 spans of ~2,900
    objects); the generator's return value is the `Rendered` (spans: a `PackedSpans`).
    Raises `ValueError` (or `msgspec.DecodeError`) for bytes that are not a packed drawing."""
    packed = _decoder.decode(payload)
    yield
    starts, keys, by_row, rows = array("I"), array("q"), array("I"), array("q")
    try:
        starts.frombytes(packed.starts)
        keys.frombytes(packed.keys)
        by_row.frombytes(packed.by_row)
        rows.frombytes(packed.rows)
    except ValueError as err:
        raise ValueError(f"packed drawing: span arrays of a bad length ({err})") from err
    if not 1 < packed.col_shift < 32:
        raise ValueError(f"packed drawing: a span key layout of {packed.col_shift} bits")
    total = len(keys)
    if not starts or starts[0] != 0 or starts[-1] != total or not _ascending(starts):
        raise ValueError(
            f"packed drawing: {len(starts)} span starts and {total} span keys do not match"
        )
    if len(by_row) != total or len(rows) != total:
        raise ValueError("packed drawing: the row index does not match its spans")
    for low in range(0, total, CHECK_STEP):
        high = low + CHECK_STEP
        if max(by_row[low:high]) >= total or not _ascending(rows[low : high + 1]):
            raise ValueError("packed drawing: the row index does not match its spans")
        yield
    lines = packed.text.split("\n") if packed.height else []
    if len(lines) != packed.height:
        raise ValueError(f"packed drawing: {len(lines)} lines, height {packed.height}")
    texts = _refs.decode(packed.refs)
    if len(starts) != len(texts) + 1:
        raise ValueError(f"packed drawing: {len(texts)} objects and {len(starts)} span starts")
    if len(set(texts)) != len(texts):
        raise ValueError("packed drawing: an object is listed twice")
    refs: list[ObjectRef] = []
    for low in range(0, len(texts), REFS_STEP):
        yield
        refs += map(ref_from_text, texts[low : low + REFS_STEP])  # the worker's own: unchecked
    yield
    layout = SpanLayout(packed.col_shift)
    spans = PackedSpans(refs, starts, keys, layout, (by_row, rows))
    return Rendered(
        text=packed.text, lines=lines, spans=spans, width=packed.width, height=packed.height
    )


def _ascending(values: array[int]) -> bool:
    """Whether `values` never decrease (in C: no Python frame per pair)."""
    return all(map(le, values, islice(values, 1, None)))


def unpack_drawing(payload: bytes) -> Rendered:
    """`unpack_steps` in one go (for callers with nothing to interleave)."""
    steps = unpack_steps(payload)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            rendered: Rendered = done.value
            return rendered
