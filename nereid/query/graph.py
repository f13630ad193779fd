"""Directed-graph algorithms over string vertices, shared by the flowchart and route queries.

Adjacency is `Mapping[str, Sequence[str]]` with every vertex present as a key. Everything is
iterative (no recursion limit on long chains) and deterministic: neighbours are visited in the
order the adjacency lists give, which callers keep sorted.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

__all__ = [
    "StepBudget",
    "bfs_distances",
    "closure",
    "shortest_simple_paths",
    "strongly_connected_components",
    "within_hops",
]

Adjacency = Mapping[str, Sequence[str]]
Vertex = TypeVar("Vertex", bound=Hashable)


class StepBudget:
    """A countdown of work units shared by one query, so enumeration cannot run away."""

    __slots__ = ("left", "exhausted")

    def __init__(self, steps: int) -> None:
        self.left = steps
        self.exhausted = False

    def spend(self, steps: int = 1) -> bool:
        """Take `steps`; False (and `exhausted` set) once the budget is gone."""
        if self.left < steps:
            self.left = 0
            self.exhausted = True
            return False
        self.left -= steps
        return True


def closure(adjacency: Mapping[Vertex, Iterable[Vertex]], starts: Iterable[Vertex]) -> set[Vertex]:
    """Every vertex reachable from `starts` (the starts included)."""
    seen = set(starts)
    queue = deque(seen)
    while queue:
        vertex = queue.popleft()
        for neighbour in adjacency.get(vertex, ()):
            if neighbour not in seen:
                seen.add(neighbour)
                queue.append(neighbour)
    return seen


def within_hops(
    adjacency: Mapping[Vertex, Iterable[Vertex]], starts: Iterable[Vertex], hops: int
) -> set[Vertex]:
    """Every vertex at most `hops` arcs from a start (all starts at distance 0)."""
    distances = dict.fromkeys(starts, 0)
    queue = deque(distances)
    while queue:
        vertex = queue.popleft()
        distance = distances[vertex]
        if distance >= hops:
            continue
        for neighbour in adjacency.get(vertex, ()):
            if neighbour not in distances:
                distances[neighbour] = distance + 1
                queue.append(neighbour)
    return set(distances)


def bfs_distances(
    adjacency: Mapping[Vertex, Iterable[Vertex]], source: Vertex
) -> dict[Vertex, int]:
    """Hop distance from `source` to every vertex it reaches (source at 0)."""
    distances = {source: 0}
    queue = deque([source])
    while queue:
        vertex = queue.popleft()
        next_distance = distances[vertex] + 1
        for neighbour in adjacency.get(vertex, ()):
            if neighbour not in distances:
                distances[neighbour] = next_distance
                queue.append(neighbour)
    return distances


def strongly_connected_components(
    vertices: Iterable[str], successors: Adjacency
) -> list[list[str]]:
    """Tarjan's algorithm, iterative; components in discovery order, members unsorted."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in vertices:
        if root in index:
            continue
        index[root] = lowlink[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            vertex, position = work[-1]
            neighbours = successors.get(vertex, ())
            if position < len(neighbours):
                work[-1] = (vertex, position + 1)
                neighbour = neighbours[position]
                if neighbour not in index:
                    index[neighbour] = lowlink[neighbour] = counter
                    counter += 1
                    stack.append(neighbour)
                    on_stack.add(neighbour)
                    work.append((neighbour, 0))
                elif neighbour in on_stack:
                    lowlink[vertex] = min(lowlink[vertex], index[neighbour])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[vertex])
            if lowlink[vertex] == index[vertex]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == vertex:
                        break
                components.append(component)
    return components


def shortest_simple_paths(
    successors: Adjacency,
    source: str,
    target: str,
    *,
    limit: int,
    max_extra_hops: int,
    budget: StepBudget,
) -> list[list[str]]:
    """Simple paths source→target of at most (shortest + extra) hops, by (hops, vertex sequence).

    The target appears only at the end of a path. Successor lists must be sorted: a
    depth-first walk in that order yields the paths of one length in lexicographic order, so
    the lengths are enumerated one after the other, each walk pruned by the hop distance
    still needed to reach the target. Memory stays O(longest path); every extension tried and
    every vertex copied into a result spends one step of `budget`, and when it runs out the
    paths found so far (a prefix of the full answer) are returned.
    """
    if limit <= 0:
        return []
    if source == target:
        return [[source]]
    predecessors: dict[str, list[str]] = {}
    for vertex, neighbours in successors.items():
        for neighbour in neighbours:
            predecessors.setdefault(neighbour, []).append(vertex)
    to_target = bfs_distances(predecessors, target)
    shortest = to_target.get(source)
    if shortest is None:
        return []
    longest = min(shortest + max_extra_hops, max(len(successors) - 1, shortest))
    found: list[list[str]] = []
    for hops in range(shortest, longest + 1):
        _paths_of_length(successors, source, target, hops, to_target, limit, found, budget)
        if len(found) >= limit or budget.exhausted:
            break
    return found


def _paths_of_length(
    successors: Adjacency,
    source: str,
    target: str,
    hops: int,
    to_target: Mapping[str, int],
    limit: int,
    found: list[list[str]],
    budget: StepBudget,
) -> None:
    """Append to `found` the simple paths of exactly `hops` hops, in lexicographic order."""
    path = [source]
    on_path = {source}
    pending = [iter(successors.get(source, ()))]
    while pending:
        neighbour = next(pending[-1], None)
        if neighbour is None:
            pending.pop()
            on_path.discard(path.pop())
            continue
        if not budget.spend():
            return
        depth = len(path)  # hops of the path once `neighbour` is appended
        if neighbour == target:
            if depth == hops:
                if not budget.spend(depth + 1):
                    return
                found.append([*path, target])
                if len(found) >= limit:
                    return
            continue
        if neighbour in on_path:
            continue
        remaining = to_target.get(neighbour)
        if remaining is None or depth + remaining > hops:
            continue
        path.append(neighbour)
        on_path.add(neighbour)
        pending.append(iter(successors.get(neighbour, ())))
