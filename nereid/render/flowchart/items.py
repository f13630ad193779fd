"""Ranking and the layer items: which layer every node takes, and what else takes room in a
layer (long edges' waypoints, edge labels, subgraph fillers), with every item's size."""

from __future__ import annotations

import msgspec

from nereid.render.budget import MAX_LAYOUT_ITEMS, check_budget
from nereid.render.display import display_text
from nereid.render.flowchart.cluster_ranks import ClusterEnd, rank_edges
from nereid.render.flowchart.stages import (
    DUMMY,
    FILLER,
    LABEL,
    NODE,
    STUB,
    Graph,
    Items,
    Ranked,
)
from nereid.render.flowchart.stubs import end_names, stub_span
from nereid.render.glyphs import glyph_set
from nereid.render.text import text_width, wrap_text

__all__ = ["build_items", "rank"]


def rank(graph: Graph) -> Ranked:
    """Layers (cycles broken, subgraph ends resolved to members), and the longest edge drawn
    in full (stubs.py). Refuses, before any waypoint exists, a graph whose nodes, edges and
    waypoints are too many."""
    members: dict[str, ClusterEnd] = {}
    for n, c in enumerate(graph.node_cluster):
        for p in graph.cluster_path[c] if c != -1 else ():
            sid = graph.cluster_ids[p]
            found = members.get(sid)
            members[sid] = ClusterEnd(p, (found.members if found else ()) + (n,))

    def end(node_id: str) -> int | ClusterEnd:
        n = graph.node_index.get(node_id)
        return n if n is not None else members[node_id]

    written = [graph.ast.edges[edge_id] for edge_id in graph.edge_ids]
    ranked = rank_edges(
        len(graph.node_ids),
        [
            # A labelled edge spans at least two layers: its label sits in the middle one.
            (end(e.from_node_id), end(e.to_node_id), max(1, e.length) + (1 if e.label else 0))
            for e in written
        ],
    )
    node_ids = graph.node_ids
    edges = [
        e
        if (node_ids[a], node_ids[b]) == (e.from_node_id, e.to_node_id)
        else msgspec.structs.replace(e, from_node_id=node_ids[a], to_node_id=node_ids[b])
        for e, (a, b) in zip(written, ranked.ends, strict=True)
    ]
    layer = ranked.layers
    spans = [abs(layer[a] - layer[b]) for a, b in ranked.ends]
    # What the graph would cost drawn in full: a waypoint per layer an edge crosses (the
    # long edges of a big graph are drawn as stubs, but the count is the graph's size).
    waypoints = sum(span - 1 for span in spans if span > 1)
    items = len(node_ids) + len(edges) + waypoints
    check_budget("layout items (nodes, edges, edge waypoints)", items, MAX_LAYOUT_ITEMS)
    return Ranked(
        graph=graph,
        node_layer=ranked.layers,
        reversed=ranked.reversed,
        pairs=ranked.ends,
        edges=edges,
        full_span=stub_span(spans),
    )


class _Lists:
    """The item lists while the stage builds them."""

    def __init__(self, graph: Graph) -> None:
        self.cluster_path = graph.cluster_path
        self.kind: list[int] = []
        self.layer: list[int] = []
        self.paths: list[tuple[int, ...]] = []
        self.breadth: list[int] = []
        self.depth: list[int] = []
        self.up: list[list[int]] = []
        self.down: list[list[int]] = []

    def new(self, kind: int, layer: int, cluster: int) -> int:
        item = len(self.kind)
        self.kind.append(kind)
        self.layer.append(layer)
        self.paths.append(self.cluster_path[cluster] if cluster != -1 else ())
        self.breadth.append(1)
        self.depth.append(1 if kind == NODE or kind == LABEL else 0)
        self.up.append([])
        self.down.append([])
        return item


def build_items(ranked: Ranked) -> Items:
    """Nodes, waypoints, labels and fillers with their sizes, in the starting order."""
    graph = ranked.graph
    lists = _Lists(graph)
    for n in range(len(graph.node_ids)):
        lists.new(NODE, ranked.node_layer[n], graph.node_cluster[n])
    chains: list[list[int]] = []
    label_item: dict[int, int] = {}
    self_loops: dict[int, list[int]] = {}
    stub_lines: dict[int, list[str]] = {}
    longest = ranked.full_span if ranked.full_span is not None else 1 << 30
    names = end_names(graph, glyph_set(graph.options.ascii).ellipsis) if longest < 1 << 30 else {}
    for i, (src, dst) in enumerate(ranked.pairs):
        if src == dst:
            self_loops.setdefault(src, []).append(i)
            chains.append([])
            continue
        upper, lower = (dst, src) if ranked.reversed[i] else (src, dst)
        cluster = graph.common_cluster(graph.node_cluster[upper], graph.node_cluster[lower])
        top, bottom = ranked.node_layer[upper], ranked.node_layer[lower]
        if bottom - top > longest:
            chains.append(_stubs(ranked, lists, i, (upper, lower), cluster, names, stub_lines))
            continue
        chain = [upper]
        label_layer = top + (bottom - top) // 2 if ranked.edges[i].label else -1
        for layer in range(top + 1, bottom):
            kind = LABEL if layer == label_layer else DUMMY
            item = lists.new(kind, layer, cluster)
            if kind == LABEL:
                label_item[i] = item
            chain.append(item)
        chain.append(lower)
        for a, b in zip(chain, chain[1:], strict=False):
            lists.down[a].append(b)
            lists.up[b].append(a)
        chains.append(chain)
    layer_count = max(lists.layer, default=-1) + 1
    label_lines = _label_sizes(ranked, lists, label_item)
    cluster_span = _fillers(graph, lists, layer_count)
    if layer_count == 0 and lists.kind:
        layer_count = 1
    layers: list[list[int]] = [[] for _ in range(layer_count)]
    for item in _initial_order(lists):
        layers[lists.layer[item]].append(item)
    box_w, box_h = _size_nodes(ranked, lists, self_loops)
    return Items(
        ranked=ranked,
        kind=lists.kind,
        layer=lists.layer,
        paths=lists.paths,
        breadth=lists.breadth,
        depth=lists.depth,
        up=lists.up,
        down=lists.down,
        chains=chains,
        label_item=label_item,
        label_lines=label_lines,
        stub_lines=stub_lines,
        self_loops=self_loops,
        layer_count=layer_count,
        cluster_span=cluster_span,
        box_w=box_w,
        box_h=box_h,
        layers=layers,
    )


def _stubs(
    ranked: Ranked,
    lists: _Lists,
    edge: int,
    ends: tuple[int, int],
    cluster: int,
    names: dict[str, str],
    stub_lines: dict[int, list[str]],
) -> list[int]:
    """A long edge as two connectors (stubs.py): one in the layer under its upper end naming
    the lower end (under the edge's label), one in the layer over its lower end naming the
    upper end. Returns the chain: upper node, both connectors, lower node."""
    graph = ranked.graph
    upper, lower = ends
    written = graph.ast.edges[graph.edge_ids[edge]]
    source, target = written.from_node_id, written.to_node_id
    # The upper end is the written target when the edge runs against the layers.
    towards, back = (source, target) if ranked.reversed[edge] else (target, source)
    word_down, word_up = ("from", "to") if ranked.reversed[edge] else ("to", "from")
    label = written.label
    above = wrap_text(display_text(label), graph.options.max_label_width) if label else []
    first = lists.new(STUB, ranked.node_layer[upper] + 1, cluster)
    second = lists.new(STUB, ranked.node_layer[lower] - 1, cluster)
    stub_lines[first] = [*above, f"{word_down} {names[towards]}"]
    stub_lines[second] = [f"{word_up} {names[back]}"]
    for item in (first, second):
        lines = stub_lines[item]
        width = max(text_width(line) for line in lines)
        if graph.horizontal:
            lists.breadth[item], lists.depth[item] = len(lines), width + 2
        else:
            lists.breadth[item], lists.depth[item] = width, len(lines)
    lists.down[upper].append(first)
    lists.up[first].append(upper)
    lists.down[second].append(lower)
    lists.up[lower].append(second)
    return [upper, first, second, lower]


def _label_sizes(ranked: Ranked, lists: _Lists, label_item: dict[int, int]) -> dict[int, list[str]]:
    options = ranked.graph.options
    label_lines: dict[int, list[str]] = {}
    for edge, item in label_item.items():
        lines = wrap_text(display_text(ranked.edges[edge].label or ""), options.max_label_width)
        label_lines[edge] = lines
        width = max((text_width(line) for line in lines), default=1)
        if ranked.graph.horizontal:
            lists.breadth[item], lists.depth[item] = len(lines), width + 2
        else:
            lists.breadth[item], lists.depth[item] = width, len(lines)
    return label_lines


def _fillers(graph: Graph, lists: _Lists, layer_count: int) -> list[tuple[int, int]]:
    """Give every subgraph an item in every layer it spans, so its borders exist there;
    returns each subgraph's first and last layer."""
    count = len(graph.cluster_ids)
    cluster_span: list[tuple[int, int]] = [(1 << 30, -1)] * count
    present: set[tuple[int, int]] = set()
    for item in range(len(lists.kind)):
        layer = lists.layer[item]
        for c in lists.paths[item]:
            low, high = cluster_span[c]
            cluster_span[c] = (min(low, layer), max(high, layer))
            present.add((c, layer))
    for c in range(count):
        low, high = cluster_span[c]
        if high < 0:
            # An empty subgraph: give it a layer of its own at the top.
            cluster_span[c] = (0, 0)
            low = high = 0
        for layer in range(low, high + 1):
            if (c, layer) not in present:
                lists.new(FILLER, layer, c)
                for p in graph.cluster_path[c]:
                    present.add((p, layer))
    return cluster_span


def _initial_order(lists: _Lists) -> list[int]:
    """Depth-first from nodes in document order, so related items start side by side."""
    kind, down = lists.kind, lists.down
    seen = [False] * len(kind)
    order: list[int] = []
    for start in range(len(kind)):
        if seen[start] or kind[start] == DUMMY or kind[start] == LABEL:
            continue
        stack = [start]
        while stack:
            item = stack.pop()
            if seen[item]:
                continue
            seen[item] = True
            order.append(item)
            stack.extend(reversed(down[item]))
    order.extend(item for item in range(len(kind)) if not seen[item])
    return order


def _size_nodes(
    ranked: Ranked, lists: _Lists, self_loops: dict[int, list[int]]
) -> tuple[list[int], list[int]]:
    """Grow boxes for their ports and self-loops; a node item's breadth and depth also
    hold its self-loops and their labels. Returns the box widths and heights."""
    graph = ranked.graph
    options = graph.options
    box_w = [box.width for box in graph.boxes]
    box_h = [box.height for box in graph.boxes]
    for n in range(len(graph.node_ids)):
        ports = max(len(lists.up[n]), len(lists.down[n]))
        loops = self_loops.get(n, [])
        margin = 2 if graph.boxes[n].style.corners is not None else 1
        if graph.horizontal:
            # Ports sit on the side rows between the lid (if any) and the bottom border.
            low = graph.boxes[n].label_top
            box_h[n] = max(box_h[n], low + 2 * ports)
            if loops:
                box_w[n] = max(box_w[n], 2 * len(loops) + 3)
        else:
            need = 2 * ports - 1 + 2 * margin
            if box_w[n] < need:
                box_w[n] = need + (1 - need % 2)
            if loops:
                box_h[n] = max(box_h[n], 2 * len(loops) + 2)
        loop_lines: list[str] = []
        for edge in loops:
            if ranked.edges[edge].label:
                if loop_lines:
                    loop_lines.append("")  # a blank line between two loops' labels
                loop_lines.extend(
                    wrap_text(display_text(ranked.edges[edge].label or ""), options.max_label_width)
                )
        label_w = max((text_width(line) for line in loop_lines), default=0)
        loop_room = 2 * len(loops) + 1 if loops else 0
        if graph.horizontal:
            breadth, depth = box_h[n], box_w[n]
            if loops:
                breadth += loop_room + (len(loop_lines) + 1 if loop_lines else 0)
                depth = max(depth, label_w)
        else:
            breadth, depth = box_w[n], box_h[n]
            if loops:
                breadth += loop_room + (label_w + 1 if loop_lines else 0)
                depth = max(depth, len(loop_lines) + 1)
        lists.breadth[n], lists.depth[n] = breadth, depth
    return box_w, box_h
