"""Walkthrough rendering: the steps as a column of boxes, every edge drawn and labelled.

Layout (render.md §10, improved): the title on top, then one box per node in stored order,
stacked top to bottom, all as wide as the widest (title wrapped at `max_label_width`, the
status under it as `[status]`). The first edge from a node to the next one is a straight
arrow down the middle of the gap, its `kind: label` text beside it. Every other edge (skipping
nodes, going back, self loops, further edges between neighbours) runs in a lane of its own
right of the boxes: out of the source's right side, along the lane, into the target's right
side with an arrowhead; its text sits next to the lane on the exit row. Shorter edges take the
inner lanes; each box end of a lane edge gets a row of its own, and a box grows to have enough.

Span keys: walkthroughs are not diagrams, so their refs are ObjectRef-shaped with the
walkthrough id in the diagram slot: `d:<walkthrough id>/wt/node/<node id>` (the box) and
`d:<walkthrough id>/wt/edge/<from>-><to>:<kind>` (line, arrowhead and text), see `node_ref`
and `edge_ref`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from nereid.model.refs import ObjectRef
from nereid.model.walkthrough import Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.render.canvas import Canvas
from nereid.render.errors import RenderError
from nereid.render.glyphs import DOWN, LEFT, STYLE_LIGHT, UP, glyph_set
from nereid.render.options import Rendered, RenderOptions
from nereid.render.text import text_width, wrap_text

__all__ = ["WT_EDGE", "WT_NODE", "edge_ref", "node_ref", "render_walkthrough"]

WT_NODE: Final = ("wt", "node")
WT_EDGE: Final = ("wt", "edge")
MIN_BOX_WIDTH: Final = 7
LANE_GAP: Final = 2  # cells between the box side (or the previous lane's text) and a lane


def node_ref(walkthrough_id: str, node_id: str) -> ObjectRef:
    """The span key of a walkthrough node's box."""
    return ObjectRef(diagram_id=walkthrough_id, category=WT_NODE, object_id=node_id)


def edge_ref(walkthrough_id: str, edge: WalkthroughEdge) -> ObjectRef:
    """The span key of a walkthrough edge (its identity is from, to and kind)."""
    object_id = f"{edge.from_node_id}->{edge.to_node_id}:{edge.kind}"
    return ObjectRef(diagram_id=walkthrough_id, category=WT_EDGE, object_id=object_id)


def _edge_text(edge: WalkthroughEdge) -> str:
    label = (edge.label or "").strip()
    return f"{edge.kind}: {label}" if label and edge.kind else label or edge.kind


@dataclass(slots=True)
class _Box:
    node: WalkthroughNode
    lines: list[str]
    ports: list[int] = field(default_factory=list)  # lane edges ending here, in port order
    top: int = 0
    height: int = 0


@dataclass(slots=True)
class _Lane:
    edge: WalkthroughEdge
    source: int
    target: int
    text: str
    col: int = 0


def render_walkthrough(walkthrough: Walkthrough, options: RenderOptions) -> Rendered:
    """Render `walkthrough` as text art; raises RenderError for an edge to an unknown node."""
    if not walkthrough.nodes:
        return Rendered.from_lines([], {})
    width_limit = options.max_label_width
    index = {node.node_id: i for i, node in enumerate(walkthrough.nodes)}
    boxes = []
    for node in walkthrough.nodes:
        lines = wrap_text(node.title or node.node_id, width_limit)
        if node.status:
            lines.append(f"[{node.status}]")
        boxes.append(_Box(node, lines))
    down: dict[int, WalkthroughEdge] = {}
    lanes: list[_Lane] = []
    for edge in walkthrough.edges:
        for end in (edge.from_node_id, edge.to_node_id):
            if end not in index:
                raise RenderError(f"missing node {end} in walkthrough")
        source, target = index[edge.from_node_id], index[edge.to_node_id]
        if target == source + 1 and source not in down:
            down[source] = edge
        else:
            lanes.append(_Lane(edge, source, target, _edge_text(edge)))
    lanes.sort(key=lambda lane: abs(lane.target - lane.source))
    for number, lane in enumerate(lanes):
        boxes[lane.source].ports.append(number)
        boxes[lane.target].ports.append(number)

    box_width = max(MIN_BOX_WIDTH, max(text_width(ln) for b in boxes for ln in b.lines) + 4)
    box_width += 1 - box_width % 2
    centre = box_width // 2
    title_rows = 2 if walkthrough.title else 0
    row = title_rows
    down_text: dict[int, list[str]] = {}
    for i, box in enumerate(boxes):
        box.top = row
        box.height = max(len(box.lines), len(box.ports)) + 2
        row += box.height
        if i in down:
            text = wrap_text(_edge_text(down[i]), width_limit) if _edge_text(down[i]) else []
            down_text[i] = text
            row += max(len(text), 1) + 1
        elif i + 1 < len(boxes):
            row += 1
    height = row
    # Lanes start right of the boxes and of the text beside the straight arrows.
    col = box_width + LANE_GAP
    for text in down_text.values():
        col = max(col, centre + 2 + max((text_width(t) for t in text), default=0) + LANE_GAP)
    for lane in lanes:
        lane.col = col
        col += text_width(lane.text) + 2 + LANE_GAP if lane.text else 1 + LANE_GAP
    width = max(col, box_width, text_width(walkthrough.title) if walkthrough.title else 0)
    for text in down_text.values():
        width = max(width, centre + 2 + max((text_width(t) for t in text), default=0))

    canvas = Canvas(width, height, glyph_set(options.ascii))
    wt_id = walkthrough.walkthrough_id
    if walkthrough.title:
        canvas.put_text(0, 0, walkthrough.title)
    for box in boxes:
        owner = node_ref(wt_id, box.node.node_id)
        bottom = box.top + box.height - 1
        canvas.box(box.top, 0, bottom, box_width - 1, STYLE_LIGHT, owner)
        for r in range(box.top + 1, bottom):
            canvas.claim(owner, r, 1, box_width - 2)
        for k, line in enumerate(box.lines):
            canvas.put_text(box.top + 1 + k, 2, line)
    for i, edge in down.items():
        owner = edge_ref(wt_id, edge)
        start = boxes[i].top + boxes[i].height - 1
        head = boxes[i + 1].top - 1
        canvas.vline(centre, start, head, STYLE_LIGHT, owner)
        canvas.put_char(head, centre, canvas.glyphs.arrow["down"], owner)
        for k, line in enumerate(down_text[i]):
            canvas.put_text(start + 1 + k, centre + 2, line, owner)
    for number, lane in enumerate(lanes):
        _draw_lane(canvas, lane, number, boxes, box_width, edge_ref(wt_id, lane.edge))
    return Rendered.from_canvas(canvas)


def _port_row(box: _Box, number: int, skip: int = 0) -> int:
    """The row of lane `number`'s end at `box` (the `skip`-th one, for a self loop)."""
    slot = [k for k, port in enumerate(box.ports) if port == number][skip]
    return box.top + 1 + slot


def _draw_lane(
    canvas: Canvas, lane: _Lane, number: int, boxes: list[_Box], box_width: int, owner: ObjectRef
) -> None:
    right = box_width - 1
    exit_row = _port_row(boxes[lane.source], number)
    entry_row = _port_row(boxes[lane.target], number, 1 if lane.source == lane.target else 0)
    canvas.hline(exit_row, right, lane.col, STYLE_LIGHT, owner)
    canvas.add_arms(exit_row, lane.col, DOWN if entry_row > exit_row else UP, STYLE_LIGHT, owner)
    canvas.vline(lane.col, exit_row, entry_row, STYLE_LIGHT, owner)
    canvas.hline(entry_row, right + 1, lane.col, STYLE_LIGHT, owner)
    canvas.add_arms(entry_row, lane.col, LEFT, STYLE_LIGHT, owner)
    canvas.add_arms(entry_row, lane.col, UP if entry_row > exit_row else DOWN, STYLE_LIGHT)
    canvas.put_char(entry_row, right + 1, canvas.glyphs.arrow["left"], owner)
    if lane.text:
        canvas.put_text(exit_row, lane.col + 2, lane.text, owner)
