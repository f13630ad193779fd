"""From a flowchart AST to geometry, in stages (the records are in stages.py):

    prepare (prepare.py)   AST -> Graph: edges checked, subgraphs indexed, boxes sized
    rank (items.py)        Graph -> Ranked: a layer per node, cycles broken
    build_items (items.py) Ranked -> Items: waypoints, labels, fillers and their sizes
    order                  Items -> Ordered: crossing reduction, ports on box sides
    place                  Ordered -> Placed: cross-axis coordinates, long edges straight
    route (bands.py)       Placed -> Routed: channel tracks, rows of bands and frames
    draw (screen.py)       Routed -> Drawn: screen geometry

Everything is computed in an abstract frame where layers run along `v` (downwards) and the
order inside a layer along `u` (rightwards), i.e. a top-down layout; the last stage maps it
onto screen cells for the diagram's direction (TD/TB as is, BT mirrored, LR/RL transposed).
Box sizes are known before layout (labels are wrapped first), so routes are computed on the
final cell grid: ports on box sides, tracks in the channels between layers. `place`, `route`
and `draw` run again when a subgraph's title does not fit (`TitleFit`).
"""

from __future__ import annotations

from typing import Final

from nereid.model.flowchart import FlowchartAst
from nereid.render.display import display_text
from nereid.render.flowchart.bands import route
from nereid.render.flowchart.blocks import (
    block_id,
    direction_blocks,
    frame_size,
    inner_ast,
    merge,
    outer_ast,
)
from nereid.render.flowchart.geometry import Geometry
from nereid.render.flowchart.items import build_items, rank
from nereid.render.flowchart.order import order_layers
from nereid.render.flowchart.place import place_layers
from nereid.render.flowchart.prepare import prepare
from nereid.render.flowchart.screen import draw
from nereid.render.flowchart.stages import (
    NODE,
    PORT_GAP,
    STUB,
    Items,
    Ordered,
    Placed,
    Side,
    TitleFit,
)
from nereid.render.flowchart.unturn import room, unturn
from nereid.render.options import RenderOptions
from nereid.render.text import text_width, wrap_text

__all__ = ["layout_flowchart", "order", "place"]

_TITLE_ATTEMPTS: Final = 4


def layout_flowchart(ast: FlowchartAst, options: RenderOptions) -> Geometry:
    """Lay out and route a flowchart. Raises RenderError for edges to unknown nodes."""
    blocks = direction_blocks(ast)
    if not blocks:
        return _layout(ast, options, {})
    # Subgraphs with a direction of their own: each laid out alone, then placed as a box.
    placed = {sid: layout_flowchart(inner_ast(ast, sid), options) for sid in blocks}
    sizes = {block_id(sid): frame_size(geometry, sid) for sid, geometry in placed.items()}
    return merge(_layout(outer_ast(ast, blocks), options, sizes), placed)


def _layout(
    ast: FlowchartAst, options: RenderOptions, blocks: dict[str, tuple[int, int]]
) -> Geometry:
    ordered = order(build_items(rank(prepare(ast, options, blocks))))
    graph = ordered.items.ranked.graph
    count = len(graph.cluster_ids)
    extra = [0] * count
    wrap = [options.max_label_width] * count
    for _attempt in range(_TITLE_ATTEMPTS):
        drawn = draw(route(place(ordered, TitleFit(tuple(extra), tuple(wrap)))))
        retry = False
        for c, hits in enumerate(drawn.title_hits):
            if hits:
                # A border title is crossed by edges: widen the frame, lay out again.
                extra[c] += 3 * hits + 3
                retry = True
        if graph.horizontal:
            for c, frame in enumerate(drawn.geometry.frames):
                room = max(frame.rect[3] - frame.rect[1] - 3, 4)
                if any(text_width(line) > room for line in frame.title):
                    # An LR title wider than its frame: wrap it to fit, lay out again.
                    wrap[c] = room
                    retry = True
        if not retry:
            break
    return drawn.geometry


def order(items: Items) -> Ordered:
    """Crossing reduction, then distinct port cells on each box side (offsets from the
    box's left edge), ordered by where the other end sits in its layer, so edges leaving
    one side do not cross."""
    graph = items.ranked.graph
    layers = order_layers(items.layers, items.up, items.down, items.paths, len(graph.cluster_ids))
    position = _positions(layers, len(items.kind))
    sides: dict[tuple[int, str], list[tuple[int, int]]] = {}
    for i, chain in enumerate(items.chains):
        if not chain:
            continue
        sides.setdefault((chain[0], "down"), []).append((position[chain[1]], i))
        sides.setdefault((chain[-1], "up"), []).append((position[chain[-2]], i))
    port_offset: dict[Side, int] = {}
    for (n, side), ends in sides.items():
        ends.sort()
        k = len(ends)
        low, high = items.port_span(n)
        centre = low + (high - low) // 2 if graph.horizontal else (items.box_breadth(n) - 1) // 2
        start = centre - ((k - 1) * PORT_GAP) // 2
        start = max(low, min(start, high - (k - 1) * PORT_GAP))
        for p, (_, edge) in enumerate(ends):
            port_offset[(edge, side)] = start + p * PORT_GAP
    return Ordered(items=items, layers=layers, port_offset=port_offset)


def _positions(layers: list[list[int]], item_count: int) -> list[int]:
    position = [0] * item_count
    for layer in layers:
        for p, item in enumerate(layer):
            position[item] = p
    return position


def place(ordered: Ordered, fit: TitleFit) -> Placed:
    """Cross-axis coordinates of items and frames, port columns, then long edges slid
    under their ports."""
    items = ordered.items
    graph = items.ranked.graph
    count = len(graph.cluster_ids)
    cluster_titles: list[list[str]] = []
    min_width: list[int] = []
    for c, sid in enumerate(graph.cluster_ids):
        sub = graph.ast.subgraphs[sid]
        title = display_text(sub.title if sub.title is not None else sub.mermaid_id)
        if graph.horizontal:
            lines = wrap_text(title, fit.wrap[c]) if title else []
            cluster_titles.append(lines)
            min_width.append(len(lines) + 3)
        else:
            # A long title wraps like a label: the first line on the top border, the
            # others under it inside the frame.
            lines = wrap_text(title, graph.options.max_label_width) if title else []
            cluster_titles.append(lines)
            widest = max((text_width(line) for line in lines), default=0)
            min_width.append(widest + 6 + fit.extra[c] if title else 3)
    # In LR/RL the title lines sit inside the frame, under its top border: no item may
    # sit beside them. (TD/BT titles go on the top border, placed between crossings.)
    inset = [len(t) for t in cluster_titles] if graph.horizontal else [0] * count
    # Neighbours carry the columns the edge attaches at on both items (twice the offset
    # from the left edge), so placement lines up ports, not just box centres.
    kind, breadth, port_offset = items.kind, items.breadth, ordered.port_offset
    weighted_up: list[list[tuple[int, int, int, int]]] = [[] for _ in kind]
    weighted_down: list[list[tuple[int, int, int, int]]] = [[] for _ in kind]
    for i, chain in enumerate(items.chains):
        if not chain:
            continue
        # `Ordered.attach_offset`, doubled: a chain's ends are its nodes (their ports),
        # its inner items waypoints, labels and connectors (their middles).
        last = len(chain) - 1
        a = chain[0]
        own = 2 * port_offset[(i, "down")]
        for j in range(1, last + 1):
            b = chain[j]
            their = 2 * port_offset[(i, "up")] if j == last else 2 * (breadth[b] // 2)
            ka, kb = kind[a], kind[b]
            if ka != STUB or kb != STUB:  # a stubbed edge's two connectors: nothing joins them
                weight = 8 if ka != NODE and kb != NODE else 2 if ka != NODE or kb != NODE else 1
                weighted_down[a].append((b, weight, own, their))
                weighted_up[b].append((a, weight, their, own))
            a, own = b, their
    placement = place_layers(
        ordered.layers,
        items.breadth,
        weighted_up,
        weighted_down,
        items.paths,
        count,
        min_width,
        graph.item_gap,
        inset,
    )
    port: dict[Side, int] = {}
    for i, chain in enumerate(items.chains):
        if chain:
            port[(i, "down")] = placement.x[chain[0]] + ordered.port_offset[(i, "down")]
            port[(i, "up")] = placement.x[chain[-1]] + ordered.port_offset[(i, "up")]
    placed = Placed(
        ordered=ordered,
        cluster_titles=cluster_titles,
        x=placement.x,
        cluster_left=placement.cluster_left,
        cluster_right=placement.cluster_right,
        u_extent=placement.extent,
        port=port,
        packed={},
    )
    _straighten(placed)
    unturn(placed)
    return placed


def _straighten(placed: Placed) -> None:
    """Slide long-edge dummies and labels under the port they come from, where the
    layer has room, so a long edge bends at most near its ends instead of at every
    layer (ports are only known after placement). Part of `place`: it moves `placed.x`
    before the record leaves the stage."""
    ordered = placed.ordered
    items = ordered.items
    position = _positions(ordered.layers, len(items.kind))
    for i, chain in enumerate(items.chains):
        if len(chain) < 3:
            continue
        col = placed.port[(i, "down")]
        for item in chain[1:-1]:
            if item == chain[-2] and items.kind[item] == STUB and len(chain) == 4:
                col = placed.port[(i, "up")]  # a stub over its lower end: under that port
            half = items.breadth[item] // 2
            low, high = room(placed, item, position)
            target = min(max(col - half, low), high)
            if low <= target <= high:
                placed.x[item] = target
            col = placed.centre(item)
