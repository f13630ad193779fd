"""Layer assignment for the layered layout: cycle breaking and ranking.

Cycles and self-loops are never refused (spec decision 2): inside each strongly connected
component, edges against a breadth-first order are laid out reversed and drawn with their
true direction.
Ranks start as longest paths from the sources and are then balanced: a node whose outgoing
edges outnumber its incoming ones moves towards its successors (and vice versa), which
shortens edges the way network simplex would, at a fraction of the cost.
"""

from __future__ import annotations

__all__ = ["assign_layers", "find_reversed_edges"]


def find_reversed_edges(node_count: int, edges: list[tuple[int, int]]) -> list[bool]:
    """Which edges to reverse so the graph becomes acyclic.

    Only edges inside a strongly connected component can be on a cycle, so only those are
    candidates. Inside a component, nodes are ordered by breadth-first depth from its first
    node (document order), then by discovery; edges going against that order are reversed.
    Breadth-first depth keeps the remaining paths short (a depth-first order can turn one big
    cycle-rich component into a single very long chain). Self-loops are never reversed (the
    caller draws them apart). Deterministic: everything follows node and edge order.
    """
    out: list[list[int]] = [[] for _ in range(node_count)]
    back: list[list[int]] = [[] for _ in range(node_count)]
    for src, dst in edges:
        if src != dst:
            out[src].append(dst)
            back[dst].append(src)
    component = _components(node_count, out, back)
    key = [(0, 0)] * node_count
    seen = [False] * node_count
    discovered = 0
    for root in range(node_count):
        if seen[root]:
            continue
        seen[root] = True
        key[root] = (0, discovered)
        discovered += 1
        queue = [root]
        head = 0
        while head < len(queue):
            node = queue[head]
            head += 1
            depth = key[node][0] + 1
            for succ in out[node]:
                if not seen[succ] and component[succ] == component[root]:
                    seen[succ] = True
                    key[succ] = (depth, discovered)
                    discovered += 1
                    queue.append(succ)
    return [
        src != dst and component[src] == component[dst] and key[dst] < key[src]
        for src, dst in edges
    ]


def _components(node_count: int, out: list[list[int]], back: list[list[int]]) -> list[int]:
    """Strongly connected components (Kosaraju, iterative): a component id per node."""
    finished: list[int] = []
    visited = [False] * node_count
    for root in range(node_count):
        if visited[root]:
            continue
        visited[root] = True
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            node, pos = stack[-1]
            succ = out[node]
            if pos == len(succ):
                finished.append(node)
                stack.pop()
                continue
            stack[-1] = (node, pos + 1)
            nxt = succ[pos]
            if not visited[nxt]:
                visited[nxt] = True
                stack.append((nxt, 0))
    component = [-1] * node_count
    count = 0
    for root in reversed(finished):
        if component[root] != -1:
            continue
        component[root] = count
        todo = [root]
        while todo:
            node = todo.pop()
            for prev in back[node]:
                if component[prev] == -1:
                    component[prev] = count
                    todo.append(prev)
        count += 1
    return component


def assign_layers(
    node_count: int, edges: list[tuple[int, int, int]], balance_passes: int = 4
) -> list[int]:
    """Layers for an acyclic graph given as (src, dst, minimum length) edges.

    Every edge ends at least `minimum length` layers below its source. Returns a layer per
    node, the smallest being 0.
    """
    preds: list[list[tuple[int, int]]] = [[] for _ in range(node_count)]
    succs: list[list[tuple[int, int]]] = [[] for _ in range(node_count)]
    indegree = [0] * node_count
    for src, dst, minlen in edges:
        succs[src].append((dst, minlen))
        preds[dst].append((src, minlen))
        indegree[dst] += 1
    order: list[int] = [n for n in range(node_count) if indegree[n] == 0]
    layer = [0] * node_count
    head = 0
    while head < len(order):
        node = order[head]
        head += 1
        base = layer[node]
        for dst, minlen in succs[node]:
            if layer[dst] < base + minlen:
                layer[dst] = base + minlen
            indegree[dst] -= 1
            if indegree[dst] == 0:
                order.append(dst)
    if len(order) != node_count:
        raise ValueError("assign_layers needs an acyclic graph")

    # Only a node with more edges on one side than on the other ever moves.
    uneven = [node for node in order if len(preds[node]) != len(succs[node])]
    uneven_up = uneven[::-1]
    for _ in range(balance_passes):
        moved = False
        for sweep in (uneven_up, uneven):
            for node in sweep:
                if _balance(node, layer, preds[node], succs[node]):
                    moved = True
        if not moved:
            break
    low = min(layer, default=0)
    return [value - low for value in layer]


def _balance(
    node: int,
    layer: list[int],
    ins: list[tuple[int, int]],
    outs: list[tuple[int, int]],
) -> bool:
    """Move `node` as close to the side with more edges as that side's ends allow."""
    if len(outs) > len(ins):
        target = min([layer[dst] - minlen for dst, minlen in outs])
    else:
        target = max([layer[src] + minlen for src, minlen in ins])
    if target == layer[node]:
        return False
    layer[node] = target
    return True
