"""Text rendering of diagrams and walkthroughs, with a span map for highlighting.

Pure functions of the model (no I/O): `render_diagram(diagram, options)` dispatches on the
diagram kind; every renderer returns a `Rendered` (text, lines, spans, width, height). The
building blocks (canvas, glyph sets, spans, text measurement) are public for the renderers
and for tests; `nereid/render/README.md` describes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.model.state import StateAst as StateAstType
from nereid.render.budget import TooLargeToRender
from nereid.render.canvas import Canvas, CanvasError
from nereid.render.errors import RenderError
from nereid.render.gc_pause import without_gc
from nereid.render.glyphs import ASCII, UNICODE, GlyphSet, glyph_set
from nereid.render.options import Rendered, RenderOptions
from nereid.render.spans import Span, SpanMap, SpanRecorder
from nereid.render.text import slice_cells, text_width, truncate, wrap_text

if TYPE_CHECKING:
    from nereid.model.sequence import SequenceAst
    from nereid.model.state import StateAst
    from nereid.model.walkthrough import Walkthrough

__all__ = [
    "ASCII",
    "UNICODE",
    "Canvas",
    "CanvasError",
    "GlyphSet",
    "RenderError",
    "RenderOptions",
    "Rendered",
    "Span",
    "SpanMap",
    "SpanRecorder",
    "TooLargeToRender",
    "glyph_set",
    "render_diagram",
    "render_flowchart",
    "render_sequence",
    "render_state",
    "render_walkthrough",
    "slice_cells",
    "text_width",
    "truncate",
    "wrap_text",
]


@without_gc
def render_flowchart(
    ast: FlowchartAst, diagram_id: str, options: RenderOptions | None = None
) -> Rendered:
    """Render a flowchart (nereid.render.flowchart)."""
    from nereid.render.flowchart import render_flowchart as _render_flowchart

    return _render_flowchart(ast, diagram_id, options or RenderOptions())


@without_gc
def render_sequence(
    ast: SequenceAst, diagram_id: str, options: RenderOptions | None = None
) -> Rendered:
    """Render a sequence diagram (nereid.render.sequence)."""
    from nereid.render.sequence import render_sequence as _render_sequence

    return _render_sequence(ast, diagram_id, options or RenderOptions())


@without_gc
def render_state(ast: StateAst, diagram_id: str, options: RenderOptions | None = None) -> Rendered:
    """Render a state diagram (nereid.render.state: the flowchart layout, spans mapped back)."""
    from nereid.render.state import render_state as _render_state

    return _render_state(ast, diagram_id, options or RenderOptions())


@without_gc
def render_walkthrough(walkthrough: Walkthrough, options: RenderOptions | None = None) -> Rendered:
    """Render a walkthrough (nereid.render.walkthrough)."""
    from nereid.render.walkthrough import render_walkthrough as _render_walkthrough

    return _render_walkthrough(walkthrough, options or RenderOptions())


def render_diagram(diagram: Diagram, options: RenderOptions | None = None) -> Rendered:
    """Render a diagram of any kind; raises RenderError if the model is inconsistent."""
    options = options or RenderOptions()
    if isinstance(diagram.ast, FlowchartAst):
        return render_flowchart(diagram.ast, diagram.diagram_id, options)
    if isinstance(diagram.ast, StateAstType):
        return render_state(diagram.ast, diagram.diagram_id, options)
    return render_sequence(diagram.ast, diagram.diagram_id, options)
