"""The render worker's drawing, packed, reads back equal; it stays packed (its spans are made
when asked for, so the collector does not track them), and its row index finds the spans
of any band of rows."""

from __future__ import annotations

import gc

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.refs import FLOW_EDGE, FLOW_NODE, ObjectRef
from nereid.offload.packed_drawing import (
    PackedSpans,
    pack_drawing,
    spans_on_rows,
    unpack_drawing,
)
from nereid.render import Rendered, RenderOptions, Span, render_diagram
from nereid.render.text import text_width
from nereid.testing.big_diagrams import flowchart

IDS = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=8)
REFS = st.builds(
    ObjectRef,
    diagram_id=IDS,
    category=st.lists(IDS, min_size=1, max_size=3).map(tuple),
    object_id=IDS,
)
LINE = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=12).map(str.rstrip)


@st.composite
def _drawings(draw: st.DrawFn) -> Rendered:
    lines = draw(st.lists(LINE, max_size=6))
    spans: dict[ObjectRef, tuple[Span, ...]] = {}
    if lines:
        for ref in draw(st.lists(REFS, max_size=5, unique=True)):
            rows = st.integers(0, len(lines) - 1)
            # Columns from a little left of the canvas to past any canvas (40 M cells).
            cols = st.tuples(st.integers(-3, 2**26), st.integers(0, 40))
            picked = draw(st.lists(st.tuples(rows, cols), max_size=4))
            spans[ref] = tuple(Span(row, start, start + length) for row, (start, length) in picked)
    width = max((text_width(line) for line in lines), default=0)
    return Rendered(text="\n".join(lines), lines=lines, spans=spans, width=width, height=len(lines))


@settings(max_examples=150, deadline=None)
@given(_drawings())
def test_a_packed_drawing_reads_back_equal(rendered: Rendered) -> None:
    assert unpack_drawing(pack_drawing(rendered)) == rendered


def test_a_big_drawing_stays_packed_until_its_spans_are_asked_for() -> None:
    ast = parse_flowchart(flowchart(300))
    diagram = Diagram(diagram_id="big", name="big", kind="flowchart", ast=ast, rev=3)
    rendered = render_diagram(diagram, RenderOptions(show_notes=True, flowchart_extra_col_gap=2))
    payload = pack_drawing(rendered)
    total = sum(len(spans) for spans in rendered.spans.values())
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = len(gc.get_objects())
        unpacked = unpack_drawing(payload)
        tracked = len(gc.get_objects()) - before
    finally:
        if enabled:
            gc.enable()
    assert isinstance(unpacked.spans, PackedSpans)
    # The objects' refs and a few containers; not one tracked tuple per span.
    assert total > 4 * len(rendered.spans)
    assert tracked < 2 * len(rendered.spans) + 50
    assert unpacked == rendered


@settings(max_examples=150, deadline=None)
@given(_drawings(), st.integers(-2, 8), st.integers(-2, 8), st.data())
def test_the_row_index_finds_the_spans_of_a_band_of_rows(
    rendered: Rendered, low: int, high: int, data: st.DataObject
) -> None:
    unpacked = unpack_drawing(pack_drawing(rendered))
    packed = unpacked.spans
    assert isinstance(packed, PackedSpans)

    def key(item: tuple[ObjectRef, Span]) -> tuple[object, ...]:
        return (item[0].sort_key(), item[1])

    # The packed row index against a look at every span (what a plain dict gets).
    assert sorted(spans_on_rows(packed, low, high), key=key) == sorted(
        spans_on_rows(dict(rendered.spans), low, high), key=key
    )
    if rendered.spans:
        ref = data.draw(st.sampled_from(list(rendered.spans)))
        grown = tuple(Span(row, 0, 3) for row in range(len(rendered.lines)))
        replaced = packed.replaced(ref, grown)
        expected = {**rendered.spans, ref: grown}
        assert (
            dict(replaced) == expected and replaced == expected and len(replaced) == len(expected)
        )
        assert sorted(spans_on_rows(replaced, low, high), key=key) == sorted(
            spans_on_rows(expected, low, high), key=key
        )
        assert packed[ref] == rendered.spans[ref]  # the map it was made from is unchanged


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64), _drawings(), st.integers(0, 200))
def test_bytes_that_are_not_a_packed_drawing_are_refused(
    junk: bytes, rendered: Rendered, cut: int
) -> None:
    packed = pack_drawing(rendered)
    for payload in (junk, packed[: min(cut, len(packed) - 1)]):
        with pytest.raises((ValueError, msgspec.DecodeError)):
            unpack_drawing(payload)


def test_spans_too_far_apart_for_64_bit_keys_are_refused() -> None:
    ref = ObjectRef("d", FLOW_NODE, "n:a")
    for span in (Span(0, 0, 2**40), Span(2**60, 0, 1), Span(0, -(2**40), 0)):
        rendered = Rendered(text="ab", lines=["ab"], spans={ref: (span,)}, width=2, height=1)
        with pytest.raises(ValueError, match="too far apart"):
            pack_drawing(rendered)


def test_mismatched_span_arrays_are_refused() -> None:
    ref = ObjectRef("d", FLOW_NODE, "n:a")
    rendered = Rendered(text="ab", lines=["ab"], spans={ref: (Span(0, 0, 1),)}, width=2, height=1)
    fields = msgspec.msgpack.decode(pack_drawing(rendered))
    text, width, height, refs, shift, starts, keys, by_row, rows = fields
    for bad in (
        (text, width, height, [*refs, ["d", list(FLOW_EDGE), "e:1"]], shift, starts, keys),
        (text, width, height, refs, shift, starts, keys[:-4]),
        (text, width, height, refs, shift, starts, keys[:-8]),
        (text, width, height, refs, shift, starts, keys + keys),
        (text, width, height, refs, shift, starts[::-1], keys),
        (text, width, height, refs, 1, starts, keys),
        (text, width, height, refs, 40, starts, keys),
        (text, width, 2, refs, shift, starts, keys),
        (text, width, height, [*refs, refs[0]], shift, starts + starts[4:], keys + keys),
        (text, width, height, refs, shift, starts, keys, by_row, rows[:-8]),
        (text, width, height, refs, shift, starts, keys, by_row + by_row, rows),
        (text, width, height, refs, shift, starts, keys, b"\x05\x00\x00\x00", rows),
    ):
        bad = bad if len(bad) == 9 else (*bad, by_row, rows)
        with pytest.raises(ValueError):
            unpack_drawing(msgspec.msgpack.encode(bad))
