"""The routing stage: tracks in the channels between layers, then the position along the
layers (`v`) of every layer's band, channel and frame border."""

from __future__ import annotations

from nereid.render.flowchart.channels import assign_tracks
from nereid.render.flowchart.stages import STUB, Placed, Routed

__all__ = ["route"]


def route(placed: Placed) -> Routed:
    """Give every bent edge segment a track in its channel and lay the rows out along `v`:
    bands of items, arrowhead rows, tracks, frame tops and bottoms."""
    ordered = placed.ordered
    items = ordered.items
    ranked = items.ranked
    graph = ranked.graph
    options = graph.options
    horizontal = graph.horizontal
    layer_count = items.layer_count
    item_layer = items.layer
    # segment: (edge, index in chain, upper col, lower col)
    per_channel: list[list[tuple[int, int, int, int]]] = [[] for _ in range(layer_count)]
    upper_heads = [False] * layer_count
    lower_heads = [False] * layer_count
    ends: dict[tuple[int, int], tuple[int, int]] = {}
    cut_ends = [False] * layer_count  # channels an edge to or from a subgraph runs in
    subgraphs = graph.ast.subgraphs
    x, breadth, port, kind = placed.x, items.breadth, placed.port, items.kind
    for i, chain in enumerate(items.chains):
        if not chain:
            continue
        written = graph.ast.edges[graph.edge_ids[i]]
        if subgraphs and subgraphs.keys() & (written.from_node_id, written.to_node_id):
            for item in chain[:-1]:
                cut_ends[item_layer[item]] = True
        up_head, low_head = ranked.heads(i)
        if low_head != "none":
            lower_heads[item_layer[chain[-2]]] = True
        if up_head != "none":
            upper_heads[item_layer[chain[0]]] = True
        # A chain's ends are nodes (ports), its inner items waypoints and labels (centres).
        last = len(chain) - 1
        a = port[(i, "down")]
        for j in range(last):
            q = chain[j + 1]
            b = port[(i, "up")] if j + 1 == last else x[q] + breadth[q] // 2
            if kind[q] == STUB and kind[chain[j]] == STUB:
                a = b  # a stubbed edge's two connectors: no segment between them
                continue
            per_channel[item_layer[chain[j]]].append((i, j, a, b))
            ends[(i, j)] = (chain[j], q)
            a = b
    track_of: dict[tuple[int, int], list[tuple[int, int]]] = {}
    track_count = [0] * layer_count
    frame_columns = set(placed.cluster_left) | set(placed.cluster_right)
    breadth_limit = placed.u_extent
    u_extent = breadth_limit
    packed = placed.packed
    for channel, segments in enumerate(per_channel):
        known = packed.get(channel)
        if known is not None and known[0] == segments:  # packed by the unturn pass already
            track_count[channel], bends = known[1], known[2]
        else:
            track_count[channel], bends = assign_tracks(
                segments, frame_columns, ends, breadth_limit
            )
        track_of.update(bends)
        for points in bends.values():
            if len(points) > 2:  # a dogleg: past the breadth only if every column was taken
                u_extent = max(u_extent, points[1][0] + 1)

    # frames: rows they need above their first layer and below their last
    span = items.cluster_span
    path = graph.cluster_path
    tops: dict[int, int] = {}
    bottoms: dict[int, int] = {}
    frame_top_rank: list[int] = []
    frame_bottom_rank: list[int] = []
    for c in range(len(graph.cluster_ids)):
        low, high = span[c]
        rank_top = sum(1 + placed.title_rows(p) for p in path[c][:-1] if span[p][0] == low)
        frame_top_rank.append(rank_top)
        tops[low] = max(tops.get(low, 0), rank_top + 1 + placed.title_rows(c))
    for c in range(len(graph.cluster_ids)):
        high = span[c][1]
        frame_bottom_rank.append(_bottom_height(placed, c, high))
        bottoms[high] = max(bottoms.get(high, 0), frame_bottom_rank[c] + 1)

    band_depth = [0] * layer_count
    for item in range(len(items.kind)):
        layer = item_layer[item]
        if items.depth[item] > band_depth[layer]:
            band_depth[layer] = items.depth[item]

    v = 0
    band_start = [0] * layer_count
    track_row: list[int] = [0] * layer_count
    frame_top_row: dict[int, int] = {}  # layer -> first frame-top row above it
    frame_bottom_row: dict[int, int] = {}  # layer -> first frame-bottom row below it
    if tops.get(0):
        frame_top_row[0] = v
        v += tops[0] + 1
    for layer in range(layer_count):
        band_start[layer] = v
        v += band_depth[layer]
        if layer == layer_count - 1:
            if bottoms.get(layer):
                frame_bottom_row[layer] = v + 1
                v += bottoms[layer] + 1
            break
        if upper_heads[layer]:
            v += 1
        if bottoms.get(layer):
            if not upper_heads[layer]:
                v += 1
            frame_bottom_row[layer] = v
            v += bottoms[layer]
            if tops.get(layer + 1) and not track_count[layer]:
                v += 1  # a gap between a frame that ends and one that starts
            if horizontal and cut_ends[layer] and not track_count[layer]:
                v += 1  # an edge cut at the frame keeps a shaft (`├─▶│`, not `├▶│`)
        if track_count[layer] and not upper_heads[layer]:
            v += 1  # a straight cell under the upper layer before any bend
        elif (
            horizontal
            and lower_heads[layer]
            and not (upper_heads[layer] and track_count[layer])
            and not bottoms.get(layer)
            and not options.flowchart_extra_col_gap
        ):
            v += 1  # a visible shaft before the arrowhead (`├─▶│`, `◀─▶`, not `├▶│`)
        v += options.flowchart_extra_col_gap  # the TUI asks for roomier gaps
        track_row[layer] = v
        v += track_count[layer]
        if tops.get(layer + 1):
            if horizontal and cut_ends[layer] and not track_count[layer]:
                v += 1  # an edge cut at the frame it enters keeps a shaft (`├─▶│`)
            if v == band_start[layer] + band_depth[layer] and (
                band_depth[layer] or not track_count[layer - 1] if layer else band_depth[0]
            ):
                v += 1  # keep a frame's border off the boxes and labels above it
            frame_top_row[layer + 1] = v
            v += tops[layer + 1]
        if (
            track_count[layer]
            or band_depth[layer + 1]
            or lower_heads[layer]
            or (tops.get(layer + 1))
        ):
            v += 1  # the row right above the next layer: arrowheads, or a gap
    return Routed(
        placed=placed,
        track_of=track_of,
        band_start=band_start,
        band_depth=band_depth,
        track_row=track_row,
        frame_top_row=frame_top_row,
        frame_bottom_row=frame_bottom_row,
        frame_top_rank=frame_top_rank,
        frame_bottom_rank=frame_bottom_rank,
        v_extent=v,
        u_extent=u_extent,
    )


def _bottom_height(placed: Placed, c: int, layer: int) -> int:
    """Rows of nested frames ending at `layer` inside subgraph c's bottom border."""
    items = placed.ordered.items
    graph = items.ranked.graph
    children = [
        d
        for d in range(len(graph.cluster_ids))
        if graph.cluster_parent[d] == c and items.cluster_span[d][1] == layer
    ]
    return max((_bottom_height(placed, d, layer) + 1 for d in children), default=0)
