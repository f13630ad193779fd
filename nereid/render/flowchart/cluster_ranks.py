"""Ranking with subgraph ends: an edge to a subgraph puts the whole subgraph after its source.

Mermaid draws `core --> data` (both subgraphs) as an arrow from frame to frame; a reader
expects `data` below `core` in TD (right of it in LR), not beside it. Ranking therefore sees
such an edge as a constraint between hubs: every member of the source subgraph ranks at or
above its `out` hub, every member of the target at or below its `in` hub, and the edge keeps
its minimum length between the two hubs. After ranking, the edge is laid out between two
members (a lowest member of the source, a highest of the target: the line then leaves the
source frame through its far border and enters the target through its near one) and
`frame_ends` cuts it at the frames.

Cycles through hubs are broken like any other (`find_reversed_edges`); a hub constraint that
would have to be reversed is dropped, and the edge's direction follows from the members'
ranks. When members' ranks do not allow a clean pair (a dropped constraint left them on one
rank), the edge is ranked again as a plain edge between first members, which always works.
"""

from __future__ import annotations

from typing import NamedTuple

from nereid.render.flowchart.layers import assign_layers, find_reversed_edges

__all__ = ["ClusterEnd", "RankedEdges", "rank_edges"]

_PASSES = 3


class ClusterEnd(NamedTuple):
    """A subgraph end: its index and its member nodes (document order, never empty)."""

    cluster: int
    members: tuple[int, ...]


End = int | ClusterEnd


class RankedEdges(NamedTuple):
    layers: list[int]  # a layer per node, the smallest 0
    ends: list[tuple[int, int]]  # per edge: the (from, to) nodes it is laid out between
    reversed: list[bool]  # per edge: laid out from `to` down to `from`


def _members(end: End) -> tuple[int, ...]:
    return end.members if isinstance(end, ClusterEnd) else (end,)


def _first(end: End) -> int:
    """The node a plain edge is laid out at: the end itself, or a subgraph's first member."""
    return end if isinstance(end, int) else end.members[0]


def rank_edges(node_count: int, edges: list[tuple[End, End, int]]) -> RankedEdges:
    """Layers and laid-out ends for `edges` given as (from, to, minimum length)."""
    plain = [
        isinstance(a, int) and isinstance(b, int) or bool(set(_members(a)) & set(_members(b)))
        for a, b, _ in edges
    ]
    for attempt in range(_PASSES):
        result, bad = _rank_once(node_count, edges, plain)
        if not bad:
            return result
        for i in bad if attempt < _PASSES - 2 else range(len(edges)):
            plain[i] = True
    raise AssertionError("plain edges always rank")  # pragma: no cover


def _rank_once(
    node_count: int, edges: list[tuple[End, End, int]], plain: list[bool]
) -> tuple[RankedEdges, list[int]]:
    """One ranking: edges marked `plain` between first members, the others through hubs."""
    hubs: dict[tuple[int, str], int] = {}
    graph: list[tuple[int, int, int]] = []  # (src, dst, minlen)
    owner: list[int] = []  # the edge a graph edge stands for, -1 for a hub's own edges

    def hub(end: ClusterEnd, side: str) -> int:
        key = (end.cluster, side)
        found = hubs.get(key)
        if found is None:
            found = node_count + len(hubs)
            hubs[key] = found
            for m in end.members:
                graph.append((m, found, 0) if side == "out" else (found, m, 0))
                owner.append(-1)
        return found

    for i, (a, b, minlen) in enumerate(edges):
        if plain[i]:
            src, dst = _first(a), _first(b)
        else:
            src = hub(a, "out") if isinstance(a, ClusterEnd) else a
            dst = hub(b, "in") if isinstance(b, ClusterEnd) else b
        graph.append((src, dst, minlen))
        owner.append(i)
    total = node_count + len(hubs)
    flip = find_reversed_edges(total, [(s, d) for s, d, _ in graph])
    ranked: list[tuple[int, int, int]] = []
    edge_reversed = [False] * len(edges)
    for k, (src, dst, minlen) in enumerate(graph):
        if src == dst:
            continue
        i = owner[k]
        if flip[k]:
            if i == -1 or not plain[i]:
                continue  # a hub constraint against the cycle order: dropped
            edge_reversed[i] = True
            src, dst = dst, src
        ranked.append((src, dst, minlen))
    layer = assign_layers(total, ranked)[:node_count]
    low = min(layer, default=0)
    layer = [value - low for value in layer]

    ends: list[tuple[int, int]] = []
    bad: list[int] = []
    for i, (a, b, minlen) in enumerate(edges):
        if plain[i]:
            ends.append((_first(a), _first(b)))
            continue
        source, target = _members(a), _members(b)
        down = (_extreme(source, layer, lowest=True), _extreme(target, layer, lowest=False))
        up = (_extreme(source, layer, lowest=False), _extreme(target, layer, lowest=True))
        if layer[down[1]] - layer[down[0]] >= minlen:
            ends.append(down)
        elif layer[up[0]] - layer[up[1]] >= minlen:
            ends.append(up)
            edge_reversed[i] = True
        else:
            ends.append(down)
            bad.append(i)
    return RankedEdges(layer, ends, edge_reversed), bad


def _extreme(members: tuple[int, ...], layer: list[int], *, lowest: bool) -> int:
    """The first member on the lowest (largest) or highest layer among `members`."""
    ranks = [layer[m] for m in members]
    best = max(ranks) if lowest else min(ranks)
    return next(m for m in members if layer[m] == best)
