"""State diagrams drawn with the flowchart layout (spec decision 24, render.md).

The diagram is projected onto a flowchart (`nereid.model.state_flow`): states are rounded
boxes, `[*]` starts and ends circles showing `●` / `◉`, choices diamonds, forks and joins
bars, composite states titled frames (with their own direction; each concurrency region
an untitled frame inside, its cells owned by the composite), notes the flowchart's
notes. The span map is the flowchart's with each ref mapped back to its state object
(`state/state`, `state/transition`; notes stay render-only as `state/note`), so the TUI
highlights, selects, hint-jumps and spotlights states and transitions as it does nodes.
"""

from __future__ import annotations

from nereid.model.refs import ObjectRef
from nereid.model.state import StateAst
from nereid.model.state_flow import FLOW_CATEGORY_TO_STATE, region_owner, state_as_flowchart
from nereid.render.options import Rendered, RenderOptions
from nereid.render.spans import PackedSpans

__all__ = ["render_state"]


def render_state(ast: StateAst, diagram_id: str, options: RenderOptions) -> Rendered:
    """Render a state diagram (raises what the flowchart renderer raises)."""
    from nereid.render.flowchart import render_flowchart

    drawn = render_flowchart(state_as_flowchart(ast, ascii=options.ascii), diagram_id, options)

    def owner(ref: ObjectRef) -> ObjectRef:
        category = FLOW_CATEGORY_TO_STATE.get(ref.category, ref.category)
        # A region's frame is drawn for its composite.
        return ObjectRef(
            diagram_id=ref.diagram_id, category=category, object_id=region_owner(ref.object_id)
        )

    spans = PackedSpans.from_mapping(drawn.spans).regrouped(owner)
    return Rendered(
        text=drawn.text, lines=drawn.lines, spans=spans, width=drawn.width, height=drawn.height
    )
