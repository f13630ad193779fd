"""The records the flowchart layout passes from stage to stage (layout.py).

Each stage is a function from one record to the next, and each record holds the one before
it, so a stage cannot run before the ones it depends on:

    prepare -> Graph -> rank -> Ranked -> build_items -> Items -> order -> Ordered
            -> place -> Placed -> route -> Routed -> draw -> Drawn

Coordinates are abstract: layers run along `v` (downwards), the order inside a layer along
`u` (rightwards); `Routed.cell` maps them onto screen cells for the diagram's direction.
Records are immutable (their lists are never changed after the stage that builds them).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from nereid.model.flowchart import FlowchartAst, FlowEdge, Head
from nereid.render.flowchart.channels import Packing
from nereid.render.flowchart.geometry import Geometry
from nereid.render.flowchart.shapes import ShapeStyle
from nereid.render.options import RenderOptions

__all__ = [
    "DUMMY",
    "FILLER",
    "LABEL",
    "NODE",
    "STUB",
    "Box",
    "Drawn",
    "Graph",
    "Items",
    "Ordered",
    "Placed",
    "Ranked",
    "Routed",
    "TitleFit",
]

# Item kinds: a node's box, a long edge's waypoint, an edge label, a subgraph's stand-in in a
# layer it spans without a member there, a long edge's connector naming its other end (stubs.py).
NODE: Final = 0
DUMMY: Final = 1
LABEL: Final = 2
FILLER: Final = 3
STUB: Final = 4

#: Ports sit two cells apart: the items between layers (dummies, labels) need a cell between
#: them too, so edges leaving one side run straight instead of jogging a row.
PORT_GAP: Final = 2

Side = tuple[int, str]  # (edge, "up" | "down")


class Box(NamedTuple):
    """A node's box before layout: size and text (labels are wrapped first)."""

    width: int  # screen columns
    height: int  # screen rows
    lines: list[str]
    note: str | None  # note lines joined by newlines; None when notes are off
    style: ShapeStyle
    label_top: int  # first label row inside the box


class Graph(NamedTuple):
    """The diagram as the layout sees it: nodes (with a stand-in for every empty subgraph
    an edge ends at), their boxes, edges as written, and the subgraph nesting."""

    ast: FlowchartAst
    options: RenderOptions
    direction: str  # TD, TB, BT, LR or RL
    horizontal: bool  # LR or RL
    node_ids: list[str]
    node_index: dict[str, int]
    edge_ids: list[str]
    boxes: list[Box]
    cluster_ids: list[str]  # subgraph ids, document order
    cluster_parent: list[int]  # -1 at the top level
    cluster_path: list[tuple[int, ...]]  # outermost first, the subgraph itself last
    node_cluster: list[int]  # innermost subgraph per node, -1 for none
    placeholders: frozenset[str]  # stand-in node ids (never drawn)

    @property
    def item_gap(self) -> int:
        """Cells between neighbours in a layer."""
        return 1 if self.horizontal else 2

    def common_cluster(self, a: int, b: int) -> int:
        """The innermost subgraph holding both subgraphs `a` and `b` (-1 for none)."""
        if a == -1 or b == -1:
            return -1
        common = -1
        for x, y in zip(self.cluster_path[a], self.cluster_path[b], strict=False):
            if x != y:
                break
            common = x
        return common


class Ranked(NamedTuple):
    """Layers per node; every edge runs between two nodes (an edge to a subgraph now ends
    at one of its members) and, when `reversed`, against the layer order."""

    graph: Graph
    node_layer: list[int]
    reversed: list[bool]
    pairs: list[tuple[int, int]]  # (from, to) node per edge
    edges: list[FlowEdge]  # edges with the ends ranking picked
    full_span: int | None  # edges spanning more layers are drawn as stubs (None: no stubs)

    def heads(self, edge: int) -> tuple[Head, Head]:
        """(head at the upper end, head at the lower end) in layout order."""
        e = self.edges[edge]
        if self.reversed[edge]:
            return e.head_end, e.head_start
        return e.head_start, e.head_end


class Items(NamedTuple):
    """Everything that takes room in a layer: nodes first (item = node index), then the
    waypoints and labels of long edges and the subgraph fillers, with their sizes; `layers`
    is the starting order (depth-first from nodes in document order)."""

    ranked: Ranked
    kind: list[int]
    layer: list[int]
    paths: list[tuple[int, ...]]  # subgraphs holding each item, outermost first
    breadth: list[int]  # cross-axis size (with a node's self-loops and their labels)
    depth: list[int]  # size along the layers
    up: list[list[int]]  # neighbours in the layer above
    down: list[list[int]]  # neighbours in the layer below
    # Per edge: upper node, waypoints, lower node ([] for self-loops); a stubbed edge's chain
    # is upper node, its connector, the other connector, lower node: the middle pair is no
    # segment (nothing joins the two connectors).
    chains: list[list[int]]
    label_item: dict[int, int]  # edge -> its label item
    label_lines: dict[int, list[str]]  # edge -> wrapped label
    stub_lines: dict[int, list[str]]  # connector item -> its text (the edge label, then the name)
    self_loops: dict[int, list[int]]  # node -> its self-loop edges
    layer_count: int
    cluster_span: list[tuple[int, int]]  # first and last layer per subgraph
    box_w: list[int]  # per node, grown for ports and self-loops
    box_h: list[int]
    layers: list[list[int]]

    def box_breadth(self, n: int) -> int:
        return self.box_h[n] if self.ranked.graph.horizontal else self.box_w[n]

    def box_depth(self, n: int) -> int:
        return self.box_w[n] if self.ranked.graph.horizontal else self.box_h[n]

    def side_rows(self, n: int) -> tuple[int, int]:
        """First and last row (offsets from the box top) an LR/RL edge may attach at: the
        rows between the top border (and a cylinder's lid) and the bottom border, i.e. the
        label rows, never a corner or a lid."""
        low = self.ranked.graph.boxes[n].label_top
        return low, max(low, self.box_h[n] - 2)

    def port_span(self, n: int) -> tuple[int, int]:
        """First and last offset (from the box's left edge, or its top in LR/RL) a port on
        a side of node `n` may take: the label rows in LR/RL, clear of the corners in TD/BT."""
        graph = self.ranked.graph
        if graph.horizontal:
            return self.side_rows(n)
        margin = 2 if graph.boxes[n].style.corners is not None else 1
        return margin, self.box_breadth(n) - 1 - margin


class Ordered(NamedTuple):
    """The order of items in every layer after crossing reduction, and the port of every
    edge end on its box side (an offset from the box's left edge)."""

    items: Items
    layers: list[list[int]]
    port_offset: dict[Side, int]

    def attach_offset(self, edge: int, item: int, side: str) -> int:
        if self.items.kind[item] == NODE:
            return self.port_offset[(edge, side)]
        return self.items.breadth[item] // 2


class TitleFit(NamedTuple):
    """Per subgraph: extra width for a TD/BT border title that edges crossed, and the wrap
    width of an LR/RL title (changed between layout attempts)."""

    extra: tuple[int, ...]
    wrap: tuple[int, ...]


class Placed(NamedTuple):
    """Cross-axis coordinates: every item's left `u`, every frame's border columns, every
    port's column (long edges straightened under their ports)."""

    ordered: Ordered
    cluster_titles: list[list[str]]
    x: list[int]
    cluster_left: list[int]
    cluster_right: list[int]
    u_extent: int
    port: dict[Side, int]
    #: channel -> its packing as the unturn pass left it (the router reuses it while its
    #: segments for the channel are the same)
    packed: dict[int, Packing]

    def centre(self, item: int) -> int:
        """The cross-axis column edges aim at: a node's box centre, else the item's middle."""
        items = self.ordered.items
        if items.kind[item] == NODE:
            return self.x[item] + (items.box_breadth(item) - 1) // 2
        return self.x[item] + items.breadth[item] // 2

    def end_col(self, edge: int, item: int, side: str) -> int:
        if self.ordered.items.kind[item] == NODE:
            return self.port[(edge, side)]
        return self.centre(item)

    def title_rows(self, c: int) -> int:
        """Rows a TD/BT frame's wrapped title takes under its top border."""
        if self.ordered.items.ranked.graph.horizontal:
            return 0
        return max(0, len(self.cluster_titles[c]) - 1)


class Routed(NamedTuple):
    """Positions along the layers: where every layer's band, every channel's tracks and
    every frame border run, and the tracks each bent edge segment takes."""

    placed: Placed
    track_of: dict[tuple[int, int], list[tuple[int, int]]]  # (edge, j) -> (col, track) bends
    band_start: list[int]
    band_depth: list[int]
    track_row: list[int]  # first track row per channel
    frame_top_row: dict[int, int]  # layer -> first frame-top row above it
    frame_bottom_row: dict[int, int]  # layer -> first frame-bottom row below it
    frame_top_rank: list[int]  # per subgraph: rows of enclosing frames above its top
    frame_bottom_rank: list[int]
    v_extent: int
    u_extent: int  # the placement's breadth, or wider for a dogleg that found no column inside

    def item_v0(self, item: int) -> int:
        items = self.placed.ordered.items
        layer = items.layer[item]
        return self.band_start[layer] + (self.band_depth[layer] - items.depth[item]) // 2

    def cell(self, u: int, v: int) -> tuple[int, int]:
        """Abstract (u, v) -> screen (row, col)."""
        d = self.placed.ordered.items.ranked.graph.direction
        if d == "LR":
            return u, v
        if d == "RL":
            return u, self.v_extent - 1 - v
        if d == "BT":
            return self.v_extent - 1 - v, u
        return v, u


class Drawn(NamedTuple):
    """The screen geometry, and per subgraph how many edges cross its border title."""

    geometry: Geometry
    title_hits: list[int]
