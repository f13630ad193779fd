"""The drawing stage: abstract coordinates onto screen cells for the diagram's direction
(TD/TB as is, BT mirrored, LR/RL transposed): boxes, edge polylines with their heads and
labels, self-loops, frames and where their titles go."""

from __future__ import annotations

from typing import Final

from nereid.model.flowchart import Head
from nereid.render.display import display_text
from nereid.render.flowchart.frame_ends import cut_at_frames
from nereid.render.flowchart.geometry import (
    EdgeDraw,
    FrameDraw,
    Geometry,
    LabelDraw,
    NodeDraw,
    title_place,
)
from nereid.render.flowchart.stages import LABEL, STUB, Drawn, Routed
from nereid.render.text import text_width, wrap_text

__all__ = ["draw"]

_FORWARD: Final = {"TD": "down", "TB": "down", "BT": "up", "LR": "right", "RL": "left"}
_BACKWARD: Final = {"down": "up", "up": "down", "right": "left", "left": "right"}
_TOWARD_BOX: Final = {"TD": "left", "TB": "left", "BT": "left", "LR": "up", "RL": "up"}

Rect = tuple[int, int, int, int]


def draw(routed: Routed) -> Drawn:
    """Screen geometry of the laid-out diagram, and how often edges cross each TD/BT
    frame's border title."""
    placed = routed.placed
    items = placed.ordered.items
    ranked = items.ranked
    graph = ranked.graph
    nodes: list[NodeDraw] = []
    box_rect: list[Rect] = []  # abstract u0, v0, u1, v1
    for n, node_id in enumerate(graph.node_ids):
        u0, v0 = placed.x[n], routed.item_v0(n)
        u1, v1 = u0 + items.box_breadth(n) - 1, v0 + items.box_depth(n) - 1
        box_rect.append((u0, v0, u1, v1))
        box = graph.boxes[n]
        nodes.append(
            NodeDraw(node_id, _rect(routed, u0, v0, u1, v1), box.lines, box.note, box.style)
        )

    edges: list[EdgeDraw] = []
    for i, chain in enumerate(items.chains):
        if chain:
            edges.append(_edge_draw(routed, i, chain, box_rect))
    for n, loops in items.self_loops.items():
        edges.extend(_loop_draws(routed, loops, box_rect[n]))
    order = {edge_id: k for k, edge_id in enumerate(graph.edge_ids)}
    edges.sort(key=lambda e: order[e.edge_id])

    frames: list[FrameDraw] = []
    title_hits = [0] * len(graph.cluster_ids)
    for c, sid in enumerate(graph.cluster_ids):
        low, high = items.cluster_span[c]
        v_top = routed.frame_top_row[low] + routed.frame_top_rank[c]
        v_bottom = routed.frame_bottom_row[high] + routed.frame_bottom_rank[c]
        rect = _rect(routed, placed.cluster_left[c], v_top, placed.cluster_right[c], v_bottom)
        on_border = not graph.horizontal
        title = placed.cluster_titles[c]
        title_col, title_hits[c] = (
            title_place(rect, title, edges) if on_border and title else (rect[1] + 2, 0)
        )
        frames.append(FrameDraw(sid, rect, title, on_border, title_col))
    if graph.horizontal:
        width, height = routed.v_extent, routed.u_extent
    else:
        width, height = routed.u_extent, routed.v_extent
    if frames:
        laid = dict(zip(graph.edge_ids, ranked.edges, strict=True))
        edges = cut_at_frames(graph.ast, laid, edges, nodes, frames)
    drawn = [node for node in nodes if node.node_id not in graph.placeholders]
    return Drawn(Geometry(width, height, drawn, edges, frames), title_hits)


def _travel(routed: Routed, along_v: int) -> str:
    """Screen direction of travel for +v (along_v=1) / -v (along_v=-1)."""
    name = _FORWARD[routed.placed.ordered.items.ranked.graph.direction]
    return name if along_v > 0 else _BACKWARD[name]


def _rect(routed: Routed, u0: int, v0: int, u1: int, v1: int) -> Rect:
    r0, c0 = routed.cell(u0, v0)
    r1, c1 = routed.cell(u1, v1)
    return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)


def _text_start(routed: Routed, u: int, v: int, width: int) -> tuple[int, int]:
    """Screen cell of the first character of a text whose cells run from (u, v) along
    the screen's horizontal axis (u in TD/BT, v in LR/RL)."""
    if routed.placed.ordered.items.ranked.graph.direction == "RL":
        return routed.cell(u, v + width - 1)
    return routed.cell(u, v)


def _edge_draw(routed: Routed, i: int, chain: list[int], box_rect: list[Rect]) -> EdgeDraw:
    placed = routed.placed
    items = placed.ordered.items
    ranked = items.ranked
    upper, lower = chain[0], chain[-1]
    up_head, low_head = ranked.heads(i)
    start_v = box_rect[upper][3]
    pieces: list[list[tuple[int, int]]] = []
    current = [(placed.port[(i, "down")], start_v)]
    labels: list[LabelDraw] = []
    x, breadth, kind = placed.x, items.breadth, items.kind
    track_of, track_row, layer = routed.track_of, routed.track_row, items.layer
    for j in range(len(chain) - 1):
        p, q = chain[j], chain[j + 1]
        bends = track_of.get((i, j))
        if bends is not None:
            first_row = track_row[layer[p]]
            current.extend((u, first_row + track) for u, track in bends)
        if q == lower:
            current.append((placed.port[(i, "up")], box_rect[lower][1]))
            pieces.append(current)
        elif kind[q] == LABEL or kind[q] == STUB:
            b = x[q] + breadth[q] // 2  # a waypoint's centre
            lv0 = routed.item_v0(q)
            if kind[p] != STUB:  # the line runs into the label (or connector) from above
                current.append((b, lv0 - 1))
                pieces.append(current)
            if kind[q] == LABEL:
                labels.extend(_label_draws(routed, items.label_lines[i], q, lv0))
            else:
                labels.extend(_label_draws(routed, items.stub_lines[q], q, lv0))
            # ... and on from under it, except out of a stubbed edge's first connector.
            current = [(b, lv0 + items.depth[q])] if kind[q] == LABEL or kind[p] == STUB else []
    heads: list[tuple[int, int, str, Head]] = []
    end_u = pieces[-1][-1][0]
    start_u = pieces[0][0][0]
    if up_head != "none":
        row, col = routed.cell(start_u, start_v + 1)
        heads.append((row, col, _travel(routed, -1), up_head))
    if low_head != "none":
        row, col = routed.cell(end_u, box_rect[lower][1] - 1)
        heads.append((row, col, _travel(routed, 1), low_head))
    direction = ranked.graph.direction
    screen_pieces = [_to_screen(direction, routed.v_extent, piece) for piece in pieces]
    anchors = [screen_pieces[0][0], screen_pieces[-1][-1]]
    edge_id = ranked.graph.edge_ids[i]
    return EdgeDraw(edge_id, screen_pieces, ranked.edges[i].line, heads, anchors, labels)


def _to_screen(
    direction: str, v_extent: int, piece: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """`Routed.cell` over a polyline."""
    if direction == "LR":
        return piece
    if direction == "RL":
        last = v_extent - 1
        return [(u, last - v) for u, v in piece]
    if direction == "BT":
        last = v_extent - 1
        return [(last - v, u) for u, v in piece]
    return [(v, u) for u, v in piece]


def _label_draws(routed: Routed, lines: list[str], item: int, lv0: int) -> list[LabelDraw]:
    placed = routed.placed
    items = placed.ordered.items
    horizontal = items.ranked.graph.horizontal
    draws = []
    for k, line in enumerate(lines):
        w = text_width(line)
        if horizontal:
            u, v = placed.x[item] + k, lv0 + 1 + (items.depth[item] - 2 - w) // 2
        else:
            u, v = placed.x[item] + (items.breadth[item] - w) // 2, lv0 + k
        row, col = _text_start(routed, u, v, w)
        draws.append(LabelDraw(row, col, line))
    return draws


def _loop_draws(routed: Routed, loops: list[int], rect: Rect) -> list[EdgeDraw]:
    ranked = routed.placed.ordered.items.ranked
    graph = ranked.graph
    u0, v0, u1, v1 = rect
    k = len(loops)
    draws = []
    label_line = 0
    for idx, edge in enumerate(loops):
        va, vb = v0 + 1 + idx, v1 - 1 - idx
        uo = u1 + 2 + 2 * (k - 1 - idx)
        piece = [(u1, va), (uo, va), (uo, vb), (u1, vb)]
        e = ranked.edges[edge]
        heads: list[tuple[int, int, str, Head]] = []
        if e.head_start != "none":
            row, col = routed.cell(u1 + 1, va)
            heads.append((row, col, _TOWARD_BOX[graph.direction], e.head_start))
        if e.head_end != "none":
            row, col = routed.cell(u1 + 1, vb)
            heads.append((row, col, _TOWARD_BOX[graph.direction], e.head_end))
        labels: list[LabelDraw] = []
        if e.label:
            label_line += 1 if label_line else 0  # apart from the previous loop's label
            for line in wrap_text(display_text(e.label), graph.options.max_label_width):
                w = text_width(line)
                if graph.horizontal:
                    u, v = u1 + 2 * k + 2 + label_line, v0
                else:
                    u, v = u1 + 2 * k + 2, v0 + 1 + label_line
                row, col = _text_start(routed, u, v, w)
                labels.append(LabelDraw(row, col, line))
                label_line += 1
        screen = [routed.cell(u, v) for u, v in piece]
        draws.append(
            EdgeDraw(graph.edge_ids[edge], [screen], e.line, heads, [screen[0], screen[-1]], labels)
        )
    return draws
