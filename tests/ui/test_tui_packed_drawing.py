"""The render worker's drawing, packed and rebuilt in steps, reads back equal, and no step
rebuilds much more than `SPANS_PER_STEP` spans (what keeps the event loop answering)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.refs import FLOW_EDGE, FLOW_NODE, ObjectRef
from nereid.offload.packed_drawing import (
    SPANS_PER_STEP,
    pack_drawing,
    unpack_drawing,
    unpack_steps,
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
            cols = st.tuples(st.integers(-3, 2**40), st.integers(0, 40))
            picked = draw(st.lists(st.tuples(rows, cols), max_size=4))
            spans[ref] = tuple(Span(row, start, start + length) for row, (start, length) in picked)
    width = max((text_width(line) for line in lines), default=0)
    return Rendered(text="\n".join(lines), lines=lines, spans=spans, width=width, height=len(lines))


@settings(max_examples=150, deadline=None)
@given(_drawings())
def test_a_packed_drawing_reads_back_equal(rendered: Rendered) -> None:
    assert unpack_drawing(pack_drawing(rendered)) == rendered


def test_a_big_drawing_is_rebuilt_a_bounded_number_of_spans_at_a_time() -> None:
    ast = parse_flowchart(flowchart(300))
    diagram = Diagram(diagram_id="big", name="big", kind="flowchart", ast=ast, rev=3)
    rendered = render_diagram(diagram, RenderOptions(show_notes=True, flowchart_extra_col_gap=2))
    steps = unpack_steps(pack_drawing(rendered))
    count = 0
    while True:
        try:
            next(steps)
        except StopIteration as done:
            assert done.value == rendered
            break
        count += 1
    total = sum(len(spans) for spans in rendered.spans.values())
    widest = max(len(spans) for spans in rendered.spans.values())
    assert total > 4 * SPANS_PER_STEP  # several steps, each about SPANS_PER_STEP spans
    assert total // (SPANS_PER_STEP + widest) <= count <= total // SPANS_PER_STEP + 2


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64), _drawings(), st.integers(0, 200))
def test_bytes_that_are_not_a_packed_drawing_are_refused(
    junk: bytes, rendered: Rendered, cut: int
) -> None:
    packed = pack_drawing(rendered)
    for payload in (junk, packed[: min(cut, len(packed) - 1)]):
        with pytest.raises((ValueError, msgspec.DecodeError)):
            unpack_drawing(payload)


def test_mismatched_span_arrays_are_refused() -> None:
    ref = ObjectRef("d", FLOW_NODE, "n:a")
    rendered = Rendered(text="ab", lines=["ab"], spans={ref: (Span(0, 0, 1),)}, width=2, height=1)
    text, width, height, refs, counts, cells = msgspec.msgpack.decode(pack_drawing(rendered))
    for bad in (
        (text, width, height, [*refs, ["d", list(FLOW_EDGE), "e:1"]], counts, cells),
        (text, width, height, refs, counts, cells[:-4]),
        (text, width, height, refs, counts, cells[:-1]),
        (text, width, 2, refs, counts, cells),
    ):
        with pytest.raises(ValueError):
            unpack_drawing(msgspec.msgpack.encode(bad))
