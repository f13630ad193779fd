"""From a flowchart AST to geometry: items, layers, order, coordinates, channels, routes.

Everything is computed in an abstract frame where layers run along `v` (downwards) and the
order inside a layer along `u` (rightwards), i.e. a top-down layout; `Geometry.to_cell` maps
it onto screen cells for the diagram's direction (TD/TB as is, BT mirrored, LR/RL transposed).
Box sizes are known before layout (labels are wrapped first), so routes are computed on the
final cell grid: ports on box sides, tracks in the channels between layers.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

from nereid.model.flowchart import FlowchartAst, FlowEdge, Head
from nereid.render.budget import MAX_LAYOUT_ITEMS, check_budget
from nereid.render.display import display_text
from nereid.render.errors import RenderError
from nereid.render.flowchart.blocks import (
    block_id,
    direction_blocks,
    frame_size,
    inner_ast,
    merge,
    outer_ast,
)
from nereid.render.flowchart.channels import assign_tracks
from nereid.render.flowchart.cluster_ranks import ClusterEnd, rank_edges
from nereid.render.flowchart.frame_ends import cut_at_frames
from nereid.render.flowchart.geometry import (
    EdgeDraw,
    FrameDraw,
    Geometry,
    LabelDraw,
    NodeDraw,
    title_place,
)
from nereid.render.flowchart.order import order_layers
from nereid.render.flowchart.place import place_layers
from nereid.render.flowchart.shapes import ShapeStyle, shape_style
from nereid.render.options import RenderOptions
from nereid.render.text import text_width, wrap_text

__all__ = ["layout_flowchart"]

NODE: Final = 0
DUMMY: Final = 1
LABEL: Final = 2
FILLER: Final = 3

_PREFIX: Final = "▴ "
_TITLE_ATTEMPTS: Final = 4


class _Box(NamedTuple):
    width: int  # screen columns
    height: int  # screen rows
    lines: list[str]
    note: str | None  # note lines joined by newlines; None when notes are off
    style: ShapeStyle
    label_top: int  # first label row inside the box


def layout_flowchart(ast: FlowchartAst, options: RenderOptions) -> Geometry:
    """Lay out and route a flowchart. Raises RenderError for edges to unknown nodes."""
    blocks = direction_blocks(ast)
    if not blocks:
        return _Layout(ast, options, {}).run()
    # Subgraphs with a direction of their own: each laid out alone, then placed as a box.
    placed = {sid: layout_flowchart(inner_ast(ast, sid), options) for sid in blocks}
    sizes = {block_id(sid): frame_size(geometry, sid) for sid, geometry in placed.items()}
    return merge(_Layout(outer_ast(ast, blocks), options, sizes).run(), placed)


def _placeholder(subgraph_id: str) -> str:
    """The id of the invisible stand-in member of an empty subgraph that edges end at (a NUL
    byte keeps it apart from every Mermaid id)."""
    return "\0" + subgraph_id


class _Layout:
    def __init__(
        self, ast: FlowchartAst, options: RenderOptions, blocks: dict[str, tuple[int, int]]
    ) -> None:
        self.ast = ast
        self.blocks = blocks  # block node id -> (width, height) of the block's frame
        self.options = options
        direction = (ast.direction or "TD").upper()
        self.direction = direction if direction in ("TD", "TB", "BT", "LR", "RL") else "TD"
        self.horizontal = self.direction in ("LR", "RL")
        self.node_ids = list(ast.nodes)
        self.node_index = {node_id: i for i, node_id in enumerate(self.node_ids)}
        self.edge_ids: list[str] = list(ast.edges)
        # As written (ends may be subgraphs) until ranking picks the members they run between.
        self.edges: list[FlowEdge] = list(ast.edges.values())
        # Ports two cells apart: the items between layers (dummies, labels) need a cell
        # between them too, so edges leaving one side run straight instead of jogging a row.
        self.port_gap = 2
        self.item_gap = 1 if self.horizontal else 2
        self.layers: list[list[int]] = []

    # -- pipeline ---------------------------------------------------------------------------

    def run(self) -> Geometry:
        self._validate()
        self._clusters()
        self._boxes()
        self._rank()
        self._check_budget()
        self._build_items()
        self._size_nodes()
        self.layers = order_layers(
            self.layers, self.up, self.down, self.paths, len(self.cluster_ids)
        )
        self._port_offsets()
        self.title_extra = [0] * len(self.cluster_ids)
        self.title_wrap = [self.options.max_label_width] * len(self.cluster_ids)
        for _attempt in range(_TITLE_ATTEMPTS):
            self._place()
            self._ports()
            self._straighten()
            self._channels()
            geometry = self._geometry()
            retry = False
            for c, hits in enumerate(self.title_hits):
                if hits:
                    # A border title is crossed by edges: widen the frame, lay out again.
                    self.title_extra[c] += 3 * hits + 3
                    retry = True
            if self.horizontal:
                for c, frame in enumerate(geometry.frames):
                    room = max(frame.rect[3] - frame.rect[1] - 3, 4)
                    if any(text_width(line) > room for line in frame.title):
                        # An LR title wider than its frame: wrap it to fit, lay out again.
                        self.title_wrap[c] = room
                        retry = True
            if not retry:
                break
        return geometry

    def _validate(self) -> None:
        for edge_id, edge in zip(self.edge_ids, self.edges, strict=True):
            for end, node_id in (("from", edge.from_node_id), ("to", edge.to_node_id)):
                if node_id not in self.node_index and node_id not in self.ast.subgraphs:
                    raise RenderError(
                        f"flowchart layout error: edge {edge_id} references unknown {end} "
                        f"node {node_id}"
                    )

    # -- subgraphs --------------------------------------------------------------------------

    def _clusters(self) -> None:
        """Index subgraphs, their parents and each node's innermost subgraph."""
        subgraphs = self.ast.subgraphs
        self.cluster_ids = list(subgraphs)
        index = {sid: i for i, sid in enumerate(self.cluster_ids)}
        parent = [-1] * len(self.cluster_ids)
        for sid, sub in subgraphs.items():
            for child in sub.subgraph_ids:
                if child in index and parent[index[child]] == -1 and child != sid:
                    parent[index[child]] = index[sid]
        # Guard against malformed nesting loops: cut any parent chain that returns to itself.
        for c in range(len(parent)):
            seen = {c}
            p = parent[c]
            while p != -1:
                if p in seen:
                    parent[c] = -1
                    break
                seen.add(p)
                p = parent[p]
        self.cluster_parent = parent
        self.cluster_path: list[tuple[int, ...]] = []
        for c in range(len(parent)):
            chain = []
            p = c
            while p != -1:
                chain.append(p)
                p = parent[p]
            self.cluster_path.append(tuple(reversed(chain)))
        node_cluster = [-1] * len(self.node_ids)
        for sid, sub in subgraphs.items():
            c = index[sid]
            for node_id in sub.node_ids:
                n = self.node_index.get(node_id)
                if n is None:
                    continue
                current = node_cluster[n]
                if current == -1 or current in self.cluster_path[c]:
                    node_cluster[n] = c
        # An empty subgraph an edge ends at gets an invisible member to route to.
        filled = {p for c in node_cluster if c != -1 for p in self.cluster_path[c]}
        self.placeholders: set[str] = set()
        for edge in self.edges:
            for end in (edge.from_node_id, edge.to_node_id):
                c = index.get(end, -1)
                if c != -1 and c not in filled:
                    filled.add(c)
                    self.placeholders.add(_placeholder(end))
                    self.node_index[_placeholder(end)] = len(self.node_ids)
                    self.node_ids.append(_placeholder(end))
                    node_cluster.append(c)
        self.node_cluster = node_cluster
        self.cluster_index = index

    def _common_cluster(self, a: int, b: int) -> int:
        if a == -1 or b == -1:
            return -1
        pa, pb = self.cluster_path[a], self.cluster_path[b]
        common = -1
        for x, y in zip(pa, pb, strict=False):
            if x != y:
                break
            common = x
        return common

    # -- boxes ------------------------------------------------------------------------------

    def _boxes(self) -> None:
        width_cap = self.options.max_label_width
        self.boxes: list[_Box] = []
        for node_id in self.node_ids:
            node = self.ast.nodes.get(node_id)
            if node is None:  # an empty subgraph's stand-in: blank, as wide as its title in LR
                width = 3
                if self.horizontal:
                    sub = self.ast.subgraphs[node_id[1:]]
                    title = display_text(sub.title if sub.title is not None else sub.mermaid_id)
                    lines = wrap_text(title, self.options.max_label_width) if title else []
                    width = max([3] + [text_width(line) - 1 for line in lines])
                self.boxes.append(_Box(width, 1, [], None, shape_style("text"), 0))
                continue
            if node_id in self.blocks:  # a subgraph laid out on its own (blocks.py)
                width, height = self.blocks[node_id]
                self.boxes.append(_Box(width, height, [], None, shape_style("rect"), 1))
                continue
            label = display_text(node.label)
            label = (_PREFIX + label) if self.options.prefix_object_labels else label
            lines = wrap_text(label, width_cap)
            style = shape_style(node.shape)
            # With notes on, every box gets note rows (empty without a note), wrapped like
            # labels rather than cut.
            note_lines: list[str] = []
            if self.options.show_notes:
                note_lines = wrap_text(node.note, width_cap) if node.note else [""]
            text_w = max((text_width(line) for line in lines + note_lines), default=0)
            inner = max(text_w + 2, 3)
            width = inner + 2 + (2 if style.bars else 0)
            if width % 2 == 0:
                width += 1
            label_top = 1 + (1 if style.lid else 0)
            height = len(lines) + len(note_lines) + 2 + (1 if style.lid else 0)
            note = "\n".join(note_lines) if self.options.show_notes else None
            self.boxes.append(_Box(width, height, lines, note, style, label_top))

    # -- ranking ----------------------------------------------------------------------------

    def _rank(self) -> None:
        members: dict[str, ClusterEnd] = {}
        for n, c in enumerate(self.node_cluster):
            for p in self.cluster_path[c] if c != -1 else ():
                sid = self.cluster_ids[p]
                found = members.get(sid)
                members[sid] = ClusterEnd(p, (found.members if found else ()) + (n,))

        def end(node_id: str) -> int | ClusterEnd:
            n = self.node_index.get(node_id)
            return n if n is not None else members[node_id]

        ranked = rank_edges(
            len(self.node_ids),
            [
                # A labelled edge spans at least two layers: its label sits in the middle one.
                (end(e.from_node_id), end(e.to_node_id), max(1, e.length) + (1 if e.label else 0))
                for e in self.edges
            ],
        )
        self.node_layer = ranked.layers
        self.reversed = ranked.reversed
        self.pairs = ranked.ends
        self.edges = [
            e
            if (self.node_ids[a], self.node_ids[b]) == (e.from_node_id, e.to_node_id)
            else msgspec.structs.replace(
                e, from_node_id=self.node_ids[a], to_node_id=self.node_ids[b]
            )
            for e, (a, b) in zip(self.edges, ranked.ends, strict=True)
        ]

    def _check_budget(self) -> None:
        """Refuse before any waypoint exists when nodes, edges and waypoints are too many."""
        layer = self.node_layer
        waypoints = sum(abs(layer[a] - layer[b]) - 1 for a, b in self.pairs if a != b)
        items = len(self.node_ids) + len(self.edges) + waypoints
        check_budget("layout items (nodes, edges, edge waypoints)", items, MAX_LAYOUT_ITEMS)

    # -- items ------------------------------------------------------------------------------

    def _new_item(self, kind: int, layer: int, owner: int, cluster: int) -> int:
        item = len(self.kind)
        self.kind.append(kind)
        self.layer.append(layer)
        self.owner.append(owner)
        self.paths.append(self.cluster_path[cluster] if cluster != -1 else ())
        self.breadth.append(1)
        self.depth.append(1 if kind == NODE or kind == LABEL else 0)
        self.up.append([])
        self.down.append([])
        return item

    def _build_items(self) -> None:
        self.kind: list[int] = []
        self.layer: list[int] = []
        self.owner: list[int] = []
        self.paths: list[tuple[int, ...]] = []
        self.breadth: list[int] = []
        self.depth: list[int] = []
        self.up: list[list[int]] = []
        self.down: list[list[int]] = []
        for n in range(len(self.node_ids)):
            self._new_item(NODE, self.node_layer[n], n, self.node_cluster[n])
        self.chains: list[list[int]] = []
        self.label_item: dict[int, int] = {}
        self.self_loops: dict[int, list[int]] = {}
        for i, (src, dst) in enumerate(self.pairs):
            if src == dst:
                self.self_loops.setdefault(src, []).append(i)
                self.chains.append([])
                continue
            upper, lower = (dst, src) if self.reversed[i] else (src, dst)
            cluster = self._common_cluster(self.node_cluster[upper], self.node_cluster[lower])
            chain = [upper]
            top, bottom = self.node_layer[upper], self.node_layer[lower]
            label_layer = top + (bottom - top) // 2 if self.edges[i].label else -1
            for layer in range(top + 1, bottom):
                kind = LABEL if layer == label_layer else DUMMY
                item = self._new_item(kind, layer, i, cluster)
                if kind == LABEL:
                    self.label_item[i] = item
                chain.append(item)
            chain.append(lower)
            for a, b in zip(chain, chain[1:], strict=False):
                self.down[a].append(b)
                self.up[b].append(a)
            self.chains.append(chain)
        layer_count = max(self.layer, default=-1) + 1
        self.layer_count = layer_count
        self._label_sizes()
        self._fillers()
        layers: list[list[int]] = [[] for _ in range(self.layer_count)]
        for item in self._initial_order():
            layers[self.layer[item]].append(item)
        self.layers[:] = layers

    def _label_sizes(self) -> None:
        self.label_lines: dict[int, list[str]] = {}
        for edge, item in self.label_item.items():
            lines = wrap_text(
                display_text(self.edges[edge].label or ""), self.options.max_label_width
            )
            self.label_lines[edge] = lines
            width = max((text_width(line) for line in lines), default=1)
            if self.horizontal:
                self.breadth[item], self.depth[item] = len(lines), width + 2
            else:
                self.breadth[item], self.depth[item] = width, len(lines)

    def _fillers(self) -> None:
        """Give every subgraph an item in every layer it spans, so its borders exist there."""
        count = len(self.cluster_ids)
        self.cluster_span: list[tuple[int, int]] = [(1 << 30, -1)] * count
        present: set[tuple[int, int]] = set()
        for item in range(len(self.kind)):
            layer = self.layer[item]
            for c in self.paths[item]:
                low, high = self.cluster_span[c]
                self.cluster_span[c] = (min(low, layer), max(high, layer))
                present.add((c, layer))
        for c in range(count):
            low, high = self.cluster_span[c]
            if high < 0:
                # An empty subgraph: give it a layer of its own at the top.
                self.cluster_span[c] = (0, 0)
                low = high = 0
            for layer in range(low, high + 1):
                if (c, layer) not in present:
                    self._new_item(FILLER, layer, -1, c)
                    for p in self.cluster_path[c]:
                        present.add((p, layer))
        if self.layer_count == 0 and self.kind:
            self.layer_count = 1

    def _initial_order(self) -> list[int]:
        """Depth-first from nodes in document order, so related items start side by side."""
        seen = [False] * len(self.kind)
        order: list[int] = []
        for start in range(len(self.kind)):
            if seen[start] or self.kind[start] == DUMMY or self.kind[start] == LABEL:
                continue
            stack = [start]
            while stack:
                item = stack.pop()
                if seen[item]:
                    continue
                seen[item] = True
                order.append(item)
                stack.extend(reversed(self.down[item]))
        order.extend(item for item in range(len(self.kind)) if not seen[item])
        return order

    # -- node sizes (ports, self-loops) -------------------------------------------------------

    def _size_nodes(self) -> None:
        self.box_w = [box.width for box in self.boxes]
        self.box_h = [box.height for box in self.boxes]
        self.loop_label_lines: dict[int, list[str]] = {}
        for n in range(len(self.node_ids)):
            ports = max(len(self.up[n]), len(self.down[n]))
            loops = self.self_loops.get(n, [])
            margin = 2 if self.boxes[n].style.corners is not None else 1
            if self.horizontal:
                # Ports sit on the side rows between the lid (if any) and the bottom border.
                low, _ = self._side_rows(n)
                self.box_h[n] = max(self.box_h[n], low + 2 * ports)
                if loops:
                    self.box_w[n] = max(self.box_w[n], 2 * len(loops) + 3)
            else:
                need = 2 * ports - 1 + 2 * margin
                if self.box_w[n] < need:
                    self.box_w[n] = need + (1 - need % 2)
                if loops:
                    self.box_h[n] = max(self.box_h[n], 2 * len(loops) + 2)
            loop_lines: list[str] = []
            for edge in loops:
                if self.edges[edge].label:
                    if loop_lines:
                        loop_lines.append("")  # a blank line between two loops' labels
                    loop_lines.extend(
                        wrap_text(
                            display_text(self.edges[edge].label or ""), self.options.max_label_width
                        )
                    )
            self.loop_label_lines[n] = loop_lines
            label_w = max((text_width(line) for line in loop_lines), default=0)
            loop_room = 2 * len(loops) + 1 if loops else 0
            if self.horizontal:
                breadth, depth = self.box_h[n], self.box_w[n]
                if loops:
                    breadth += loop_room + (len(loop_lines) + 1 if loop_lines else 0)
                    depth = max(depth, label_w)
            else:
                breadth, depth = self.box_w[n], self.box_h[n]
                if loops:
                    breadth += loop_room + (label_w + 1 if loop_lines else 0)
                    depth = max(depth, len(loop_lines) + 1)
            self.breadth[n], self.depth[n] = breadth, depth

    # -- coordinates ----------------------------------------------------------------------------

    def _place(self) -> None:
        count = len(self.cluster_ids)
        self.cluster_titles: list[list[str]] = []
        min_width: list[int] = []
        for c, sid in enumerate(self.cluster_ids):
            sub = self.ast.subgraphs[sid]
            title = display_text(sub.title if sub.title is not None else sub.mermaid_id)
            if self.horizontal:
                lines = wrap_text(title, self.title_wrap[c]) if title else []
                self.cluster_titles.append(lines)
                min_width.append(len(lines) + 3)
            else:
                # A long title wraps like a label: the first line on the top border, the
                # others under it inside the frame.
                lines = wrap_text(title, self.options.max_label_width) if title else []
                self.cluster_titles.append(lines)
                widest = max((text_width(line) for line in lines), default=0)
                min_width.append(widest + 6 + self.title_extra[c] if title else 3)
        # In LR/RL the title lines sit inside the frame, under its top border: no item may
        # sit beside them. (TD/BT titles go on the top border, placed between crossings.)
        inset = [len(t) for t in self.cluster_titles] if self.horizontal else [0] * count
        # Neighbours carry the columns the edge attaches at on both items (twice the offset
        # from the left edge), so placement lines up ports, not just box centres.
        weighted_up: list[list[tuple[int, int, int, int]]] = [[] for _ in self.kind]
        weighted_down: list[list[tuple[int, int, int, int]]] = [[] for _ in self.kind]
        for i, chain in enumerate(self.chains):
            for a, b in zip(chain, chain[1:], strict=False):
                weight = self._weight(a, b)
                own, their = (
                    2 * self._attach_offset(i, a, "down"),
                    2 * self._attach_offset(i, b, "up"),
                )
                weighted_down[a].append((b, weight, own, their))
                weighted_up[b].append((a, weight, their, own))
        placement = place_layers(
            self.layers,
            self.breadth,
            weighted_up,
            weighted_down,
            self.paths,
            count,
            min_width,
            self.item_gap,
            inset,
        )
        self.x = placement.x
        self.cluster_left = placement.cluster_left
        self.cluster_right = placement.cluster_right
        self.u_extent = placement.extent

    def _weight(self, a: int, b: int) -> int:
        ka, kb = self.kind[a], self.kind[b]
        if ka != NODE and kb != NODE:
            return 8
        if ka != NODE or kb != NODE:
            return 2
        return 1

    # -- ports ------------------------------------------------------------------------------

    def _centre(self, item: int) -> int:
        """The cross-axis column edges aim at: a node's box centre, else the item's middle."""
        if self.kind[item] == NODE:
            return self.x[item] + (self._box_breadth(item) - 1) // 2
        return self.x[item] + self.breadth[item] // 2

    def _box_breadth(self, n: int) -> int:
        return self.box_h[n] if self.horizontal else self.box_w[n]

    def _box_depth(self, n: int) -> int:
        return self.box_w[n] if self.horizontal else self.box_h[n]

    def _port_offsets(self) -> None:
        """Distinct port cells on each box side (offsets from the box's left edge), ordered
        by where the other end sits in its layer, so edges leaving one side do not cross."""
        position = [0] * len(self.kind)
        for layer in self.layers:
            for p, item in enumerate(layer):
                position[item] = p
        sides: dict[tuple[int, str], list[tuple[int, int]]] = {}
        for i, chain in enumerate(self.chains):
            if not chain:
                continue
            sides.setdefault((chain[0], "down"), []).append((position[chain[1]], i))
            sides.setdefault((chain[-1], "up"), []).append((position[chain[-2]], i))
        self.port_offset: dict[tuple[int, str], int] = {}
        for (n, side), ends in sides.items():
            ends.sort()
            k = len(ends)
            bb = self._box_breadth(n)
            if self.horizontal:
                low, high = self._side_rows(n)
                centre = low + (high - low) // 2
            else:
                margin = 2 if self.boxes[n].style.corners is not None else 1
                low, high = margin, bb - 1 - margin
                centre = (bb - 1) // 2
            start = centre - ((k - 1) * self.port_gap) // 2
            start = max(low, min(start, high - (k - 1) * self.port_gap))
            for p, (_, edge) in enumerate(ends):
                self.port_offset[(edge, side)] = start + p * self.port_gap

    def _side_rows(self, n: int) -> tuple[int, int]:
        """First and last row (offsets from the box top) an LR/RL edge may attach at: the
        rows between the top border (and a cylinder's lid) and the bottom border, i.e. the
        label rows, never a corner or a lid."""
        low = self.boxes[n].label_top
        return low, max(low, self.box_h[n] - 2)

    def _attach_offset(self, edge: int, item: int, side: str) -> int:
        if self.kind[item] == NODE:
            return self.port_offset[(edge, side)]
        return self.breadth[item] // 2

    def _ports(self) -> None:
        """Port columns from the offsets, now that boxes are placed."""
        self.port: dict[tuple[int, str], int] = {}
        for i, chain in enumerate(self.chains):
            if chain:
                self.port[(i, "down")] = self.x[chain[0]] + self.port_offset[(i, "down")]
                self.port[(i, "up")] = self.x[chain[-1]] + self.port_offset[(i, "up")]

    def _straighten(self) -> None:
        """Slide long-edge dummies and labels under the port they come from, where the
        layer has room, so a long edge bends at most near its ends instead of at every
        layer (ports are only known after placement)."""
        position = [0] * len(self.kind)
        for layer in self.layers:
            for p, item in enumerate(layer):
                position[item] = p
        for i, chain in enumerate(self.chains):
            if len(chain) < 3:
                continue
            col = self.port[(i, "down")]
            for item in chain[1:-1]:
                half = self.breadth[item] // 2
                low, high = self._room(item, position)
                target = min(max(col - half, low), high)
                if low <= target <= high:
                    self.x[item] = target
                col = self._centre(item)

    def _room(self, item: int, position: list[int]) -> tuple[int, int]:
        """The left positions `item` may take without touching its layer neighbours or
        crossing a frame border."""
        layer = self.layers[self.layer[item]]
        p = position[item]
        path = self.paths[item]
        low, high = 0, self.u_extent - self.breadth[item]
        for c in path:
            inset = len(self.cluster_titles[c]) if self.horizontal else 0
            low = max(low, self.cluster_left[c] + inset + 2)
            high = min(high, self.cluster_right[c] - 1 - self.breadth[item])
        if p > 0:
            left = layer[p - 1]
            low = max(low, self.x[left] + self.breadth[left] + self.item_gap)
            for c in self.paths[left]:
                if c not in path:
                    low = max(low, self.cluster_right[c] + 2)
        if p + 1 < len(layer):
            right = layer[p + 1]
            high = min(high, self.x[right] - self.item_gap - self.breadth[item])
            for c in self.paths[right]:
                if c not in path:
                    high = min(high, self.cluster_left[c] - 1 - self.breadth[item])
        return low, high

    def _end_col(self, edge: int, item: int, side: str) -> int:
        if self.kind[item] == NODE:
            return self.port[(edge, side)]
        return self._centre(item)

    # -- channels and tracks ----------------------------------------------------------------

    def _heads(self, edge: int) -> tuple[Head, Head]:
        """(head at the upper end, head at the lower end) in layout order."""
        e = self.edges[edge]
        if self.reversed[edge]:
            return e.head_end, e.head_start
        return e.head_start, e.head_end

    def _channels(self) -> None:
        layer_count = self.layer_count
        # segment: (edge, index in chain, upper col, lower col)
        per_channel: list[list[tuple[int, int, int, int]]] = [[] for _ in range(layer_count)]
        upper_heads = [False] * layer_count
        lower_heads = [False] * layer_count
        ends: dict[tuple[int, int], tuple[int, int]] = {}
        cut_ends = [False] * layer_count  # channels an edge to or from a subgraph runs in
        for i, chain in enumerate(self.chains):
            if not chain:
                continue
            written = self.ast.edges[self.edge_ids[i]]
            if self.ast.subgraphs.keys() & (written.from_node_id, written.to_node_id):
                for item in chain[:-1]:
                    cut_ends[self.layer[item]] = True
            up_head, low_head = self._heads(i)
            if low_head != "none":
                lower_heads[self.layer[chain[-2]]] = True
            for j in range(len(chain) - 1):
                a = self._end_col(i, chain[j], "down")
                b = self._end_col(i, chain[j + 1], "up")
                channel = self.layer[chain[j]]
                per_channel[channel].append((i, j, a, b))
                ends[(i, j)] = (chain[j], chain[j + 1])
                if j == 0 and up_head != "none":
                    upper_heads[channel] = True
        self.track_of: dict[tuple[int, int], list[tuple[int, int]]] = {}
        track_count = [0] * layer_count
        frame_columns = set(self.cluster_left) | set(self.cluster_right)
        for channel, segments in enumerate(per_channel):
            track_count[channel], bends = assign_tracks(segments, frame_columns, ends)
            self.track_of.update(bends)

        # frames: rows they need above their first layer and below their last
        tops: dict[int, int] = {}
        bottoms: dict[int, int] = {}
        self.frame_top_rank: list[int] = []
        self.frame_bottom_rank: list[int] = []
        for c in range(len(self.cluster_ids)):
            low, high = self.cluster_span[c]
            rank_top = sum(
                1 + self._title_rows(p)
                for p in self.cluster_path[c][:-1]
                if self.cluster_span[p][0] == low
            )
            self.frame_top_rank.append(rank_top)
            tops[low] = max(tops.get(low, 0), rank_top + 1 + self._title_rows(c))
        for c in range(len(self.cluster_ids)):
            high = self.cluster_span[c][1]
            self.frame_bottom_rank.append(self._bottom_height(c, high))
            bottoms[high] = max(bottoms.get(high, 0), self.frame_bottom_rank[c] + 1)

        band_depth = [0] * layer_count
        for item in range(len(self.kind)):
            layer = self.layer[item]
            if self.depth[item] > band_depth[layer]:
                band_depth[layer] = self.depth[item]

        v = 0
        self.band_start = [0] * layer_count
        self.track_row: list[int] = [0] * layer_count
        self.frame_top_row: dict[int, int] = {}  # layer -> first frame-top row above it
        self.frame_bottom_row: dict[int, int] = {}  # layer -> first frame-bottom row below it
        if tops.get(0):
            self.frame_top_row[0] = v
            v += tops[0] + 1
        for layer in range(layer_count):
            self.band_start[layer] = v
            v += band_depth[layer]
            if layer == layer_count - 1:
                if bottoms.get(layer):
                    self.frame_bottom_row[layer] = v + 1
                    v += bottoms[layer] + 1
                break
            if upper_heads[layer]:
                v += 1
            if bottoms.get(layer):
                if not upper_heads[layer]:
                    v += 1
                self.frame_bottom_row[layer] = v
                v += bottoms[layer]
                if tops.get(layer + 1) and not track_count[layer]:
                    v += 1  # a gap between a frame that ends and one that starts
                if self.horizontal and cut_ends[layer] and not track_count[layer]:
                    v += 1  # an edge cut at the frame keeps a shaft (`├─▶│`, not `├▶│`)
            if track_count[layer] and not upper_heads[layer]:
                v += 1  # a straight cell under the upper layer before any bend
            elif (
                self.horizontal
                and lower_heads[layer]
                and not upper_heads[layer]
                and not bottoms.get(layer)
                and not self.options.flowchart_extra_col_gap
            ):
                v += 1  # a visible shaft before the arrowhead (`├─▶│`, not `├▶│`)
            v += self.options.flowchart_extra_col_gap  # the TUI asks for roomier gaps
            self.track_row[layer] = v
            v += track_count[layer]
            if tops.get(layer + 1):
                if self.horizontal and cut_ends[layer] and not track_count[layer]:
                    v += 1  # an edge cut at the frame it enters keeps a shaft (`├─▶│`)
                if v == self.band_start[layer] + band_depth[layer] and (
                    band_depth[layer] or not track_count[layer - 1] if layer else band_depth[0]
                ):
                    v += 1  # keep a frame's border off the boxes and labels above it
                self.frame_top_row[layer + 1] = v
                v += tops[layer + 1]
            if (
                track_count[layer]
                or band_depth[layer + 1]
                or lower_heads[layer]
                or (tops.get(layer + 1))
            ):
                v += 1  # the row right above the next layer: arrowheads, or a gap
        self.v_extent = v
        self.band_depth = band_depth

    def _title_rows(self, c: int) -> int:
        """Rows a TD/BT frame's wrapped title takes under its top border."""
        return 0 if self.horizontal else max(0, len(self.cluster_titles[c]) - 1)

    def _bottom_height(self, c: int, layer: int) -> int:
        children = [
            d
            for d in range(len(self.cluster_ids))
            if self.cluster_parent[d] == c and self.cluster_span[d][1] == layer
        ]
        return max((self._bottom_height(d, layer) + 1 for d in children), default=0)

    # -- geometry in screen cells -------------------------------------------------------------

    def _item_v0(self, item: int) -> int:
        layer = self.layer[item]
        return self.band_start[layer] + (self.band_depth[layer] - self.depth[item]) // 2

    def _cell(self, u: int, v: int) -> tuple[int, int]:
        """Abstract (u, v) -> screen (row, col)."""
        d = self.direction
        if d == "LR":
            return u, v
        if d == "RL":
            return u, self.v_extent - 1 - v
        if d == "BT":
            return self.v_extent - 1 - v, u
        return v, u

    def _travel(self, along_v: int) -> str:
        """Screen direction of travel for +v (along_v=1) / -v (along_v=-1)."""
        forward = {"TD": "down", "TB": "down", "BT": "up", "LR": "right", "RL": "left"}
        backward = {"down": "up", "up": "down", "right": "left", "left": "right"}
        name = forward[self.direction]
        return name if along_v > 0 else backward[name]

    def _rect(self, u0: int, v0: int, u1: int, v1: int) -> tuple[int, int, int, int]:
        r0, c0 = self._cell(u0, v0)
        r1, c1 = self._cell(u1, v1)
        return min(r0, r1), min(c0, c1), max(r0, r1), max(c0, c1)

    def _text_start(self, u: int, v: int, width: int) -> tuple[int, int]:
        """Screen cell of the first character of a text whose cells run from (u, v) along
        the screen's horizontal axis (u in TD/BT, v in LR/RL)."""
        if self.direction == "RL":
            return self._cell(u, v + width - 1)
        return self._cell(u, v)

    def _geometry(self) -> Geometry:
        nodes: list[NodeDraw] = []
        box_rect: list[tuple[int, int, int, int]] = []  # abstract u0, v0, u1, v1
        for n, node_id in enumerate(self.node_ids):
            u0, v0 = self.x[n], self._item_v0(n)
            u1, v1 = u0 + self._box_breadth(n) - 1, v0 + self._box_depth(n) - 1
            box_rect.append((u0, v0, u1, v1))
            box = self.boxes[n]
            nodes.append(
                NodeDraw(node_id, self._rect(u0, v0, u1, v1), box.lines, box.note, box.style)
            )

        edges: list[EdgeDraw] = []
        for i, chain in enumerate(self.chains):
            if chain:
                edges.append(self._edge_draw(i, chain, box_rect))
        for n, loops in self.self_loops.items():
            edges.extend(self._loop_draws(n, loops, box_rect[n]))
        order = {edge_id: k for k, edge_id in enumerate(self.edge_ids)}
        edges.sort(key=lambda e: order[e.edge_id])

        frames: list[FrameDraw] = []
        self.title_hits = [0] * len(self.cluster_ids)
        for c, sid in enumerate(self.cluster_ids):
            low, high = self.cluster_span[c]
            v_top = self.frame_top_row[low] + self.frame_top_rank[c]
            v_bottom = self.frame_bottom_row[high] + self.frame_bottom_rank[c]
            rect = self._rect(self.cluster_left[c], v_top, self.cluster_right[c], v_bottom)
            on_border = not self.horizontal
            title_col, self.title_hits[c] = (
                title_place(rect, self.cluster_titles[c], edges)
                if on_border and self.cluster_titles[c]
                else (rect[1] + 2, 0)
            )
            frames.append(FrameDraw(sid, rect, self.cluster_titles[c], on_border, title_col))
        if self.horizontal:
            width, height = self.v_extent, self.u_extent
        else:
            width, height = self.u_extent, self.v_extent
        laid = dict(zip(self.edge_ids, self.edges, strict=True))
        edges = cut_at_frames(self.ast, laid, edges, nodes, frames)
        drawn = [node for node in nodes if node.node_id not in self.placeholders]
        return Geometry(width, height, drawn, edges, frames)

    def _edge_draw(
        self, i: int, chain: list[int], box_rect: list[tuple[int, int, int, int]]
    ) -> EdgeDraw:
        upper, lower = chain[0], chain[-1]
        up_head, low_head = self._heads(i)
        a = self._end_col(i, upper, "down")
        start_v = box_rect[upper][3]
        pieces: list[list[tuple[int, int]]] = []
        current = [(a, start_v)]
        labels: list[LabelDraw] = []
        for j in range(len(chain) - 1):
            p, q = chain[j], chain[j + 1]
            a = self._end_col(i, p, "down")
            b = self._end_col(i, q, "up")
            bends = self.track_of.get((i, j))
            if bends is not None:
                first_row = self.track_row[self.layer[p]]
                current.extend((u, first_row + track) for u, track in bends)
            if q == lower:
                current.append((b, box_rect[lower][1]))
                pieces.append(current)
            elif self.kind[q] == LABEL:
                lv0 = self._item_v0(q)
                current.append((b, lv0 - 1))
                pieces.append(current)
                current = [(b, lv0 + self.depth[q])]
                labels.extend(self._label_draws(i, q, lv0))
        heads: list[tuple[int, int, str, Head]] = []
        end_u = pieces[-1][-1][0]
        start_u = pieces[0][0][0]
        if up_head != "none":
            row, col = self._cell(start_u, start_v + 1)
            heads.append((row, col, self._travel(-1), up_head))
        if low_head != "none":
            row, col = self._cell(end_u, box_rect[lower][1] - 1)
            heads.append((row, col, self._travel(1), low_head))
        screen_pieces = [[self._cell(u, v) for u, v in piece] for piece in pieces]
        anchors = [screen_pieces[0][0], screen_pieces[-1][-1]]
        return EdgeDraw(self.edge_ids[i], screen_pieces, self.edges[i].line, heads, anchors, labels)

    def _label_draws(self, edge: int, item: int, lv0: int) -> list[LabelDraw]:
        lines = self.label_lines[edge]
        draws = []
        for k, line in enumerate(lines):
            w = text_width(line)
            if self.horizontal:
                u, v = self.x[item] + k, lv0 + 1 + (self.depth[item] - 2 - w) // 2
            else:
                u, v = self.x[item] + (self.breadth[item] - w) // 2, lv0 + k
            row, col = self._text_start(u, v, w)
            draws.append(LabelDraw(row, col, line))
        return draws

    def _loop_draws(
        self, n: int, loops: list[int], rect: tuple[int, int, int, int]
    ) -> list[EdgeDraw]:
        u0, v0, u1, v1 = rect
        k = len(loops)
        draws = []
        label_line = 0
        for idx, edge in enumerate(loops):
            va, vb = v0 + 1 + idx, v1 - 1 - idx
            uo = u1 + 2 + 2 * (k - 1 - idx)
            piece = [(u1, va), (uo, va), (uo, vb), (u1, vb)]
            e = self.edges[edge]
            heads: list[tuple[int, int, str, Head]] = []
            toward_box = {"TD": "left", "TB": "left", "BT": "left", "LR": "up", "RL": "up"}
            if e.head_start != "none":
                row, col = self._cell(u1 + 1, va)
                heads.append((row, col, toward_box[self.direction], e.head_start))
            if e.head_end != "none":
                row, col = self._cell(u1 + 1, vb)
                heads.append((row, col, toward_box[self.direction], e.head_end))
            labels: list[LabelDraw] = []
            if e.label:
                label_line += 1 if label_line else 0  # apart from the previous loop's label
                for line in wrap_text(display_text(e.label), self.options.max_label_width):
                    w = text_width(line)
                    if self.horizontal:
                        u, v = u1 + 2 * k + 2 + label_line, v0
                    else:
                        u, v = u1 + 2 * k + 2, v0 + 1 + label_line
                    row, col = self._text_start(u, v, w)
                    labels.append(LabelDraw(row, col, line))
                    label_line += 1
            screen = [self._cell(u, v) for u, v in piece]
            draws.append(
                EdgeDraw(
                    self.edge_ids[edge], [screen], e.line, heads, [screen[0], screen[-1]], labels
                )
            )
        return draws
