"""Crossing reduction: the order of items inside each layer.

Alternating down/up barycenter sweeps over the layered graph (dummy nodes included, so long
edges take part), then adjacent transposition on small graphs; the ordering with the fewest
crossings seen is kept. Members of a subgraph stay contiguous in every layer and sibling
subgraphs keep one left-to-right order in all layers, so their frames can be rectangles.
Work is bounded: the sweep count shrinks as the graph grows (12 up to 5000 items, 2 from
30 000: about linear in the items).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import repeat
from operator import add, truediv

__all__ = ["count_crossings", "order_layers"]

_Pos = list[int]  # item -> its index in its layer

_MAX_SWEEPS = 12
_SWEEP_BUDGET = 60_000  # item visits across all sweeps: 12 sweeps up to 5000 items, then fewer
_TRANSPOSE_LIMIT = 600  # items; transposition is quadratic in degree per pair
_TRANSPOSE_EVERY_SWEEP = 120  # items; small graphs also transpose after every sweep
_PATIENCE = 3  # sweeps without improvement before giving up
_FRAME_BUDGET = 2_000_000  # items x clusters^2: when moving whole subgraphs is tried
_FRAME_PASS_COST = 4  # an edge through a frame holding neither end, in crossings
_CLUSTER_ROUNDS = 3


def order_layers(
    layers: list[list[int]],
    up: list[list[int]],
    down: list[list[int]],
    paths: list[tuple[int, ...]],
    cluster_count: int,
) -> list[list[int]]:
    """Reorder `layers` (lists of item ids) to reduce edge crossings.

    `up[i]` / `down[i]` are item i's neighbours in the layer above / below; `paths[i]` the
    subgraph indices containing item i, outermost first.
    """
    item_count = len(paths)
    pos: _Pos = [0] * item_count
    layers = [list(layer) for layer in layers]
    _index(layers, pos)
    if item_count == 0:
        return layers
    if cluster_count:
        # Make every subgraph contiguous before anything else (sweeps keep it so).
        initial = _group_keys(layers, paths, pos, cluster_count)
        no_neighbours: list[list[int]] = [[] for _ in range(item_count)]
        for layer in layers:
            _sort_layer(layer, no_neighbours, pos, max(len(layer), 1), paths, initial)
        _index(layers, pos)
    sweeps = max(2, min(_MAX_SWEEPS, _SWEEP_BUDGET // max(item_count, 1)))
    best = [list(layer) for layer in layers]
    crossings_of = _Crossings(layers, down)
    best_crossings = crossings_of.count(layers, pos)
    plans = None if cluster_count else (_plans(layers, up), _plans(layers, down))
    stale = 0
    for sweep in range(sweeps):
        if best_crossings == 0 or stale >= _PATIENCE:
            break
        downward = sweep % 2 == 0
        groups = _group_keys(layers, paths, pos, cluster_count) if cluster_count else None
        span = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for index in span:
            other = layers[index - 1] if downward else layers[index + 1]
            if plans is not None:
                _sort_planned(layers[index], plans[0 if downward else 1][index], pos, len(other))
                continue
            neighbours = up if downward else down
            _sort_layer(layers[index], neighbours, pos, len(other), paths, groups)
            _index_layer(layers[index], pos)
        if item_count <= _TRANSPOSE_EVERY_SWEEP:
            _transpose(layers, up, down, pos, paths)
        crossings = crossings_of.count(layers, pos)
        if crossings < best_crossings:
            best_crossings = crossings
            best = [list(layer) for layer in layers]
            stale = 0
        else:
            stale += 1
    if item_count <= _TRANSPOSE_LIMIT and best_crossings:
        _index(best, pos)
        _transpose(best, up, down, pos, paths)
    if cluster_count and item_count * (cluster_count + 1) ** 2 <= _FRAME_BUDGET:
        best = _place_clusters(best, down, pos, paths, cluster_count)
    return best


def _cost(
    layers: list[list[int]],
    down: list[list[int]],
    pos: _Pos,
    paths: list[tuple[int, ...]],
    cluster_count: int,
) -> int:
    """Crossings plus a heavy price for every edge passing through a frame holding neither
    of its ends (the router can only go around a frame the order puts out of the way)."""
    _index(layers, pos)
    spans: list[dict[int, tuple[int, int]]] = []
    for layer in layers:
        span: dict[int, tuple[int, int]] = {}
        for p, item in enumerate(layer):
            for c in paths[item]:
                low, _ = span.get(c, (p, p))
                span[c] = (low, p)
        spans.append(span)
    passes = 0
    for index in range(len(layers) - 1):
        here, below = spans[index], spans[index + 1]
        shared = [c for c in here if c in below]
        if not shared:
            continue
        for a in layers[index]:
            for b in down[a]:
                for c in shared:
                    if c in paths[a] or c in paths[b]:
                        continue
                    first, _ = here[c]
                    low, _ = below[c]
                    if (pos[a] < first) != (pos[b] < low):
                        passes += 1
    return count_crossings(layers, down, pos) + _FRAME_PASS_COST * passes


def _place_clusters(
    layers: list[list[int]],
    down: list[list[int]],
    pos: _Pos,
    paths: list[tuple[int, ...]],
    cluster_count: int,
) -> list[list[int]]:
    """Move whole subgraphs among their siblings (keeping every inner order) where that
    lowers `_cost`: a subgraph between two others that link to each other moves aside."""
    parent = [-1] * cluster_count
    for path in paths:
        for outer, inner in zip(path, path[1:], strict=False):
            parent[inner] = outer
    best = [list(layer) for layer in layers]
    best_cost = _cost(best, down, pos, paths, cluster_count)
    no_neighbours: list[list[int]] = [[] for _ in paths]
    for _round in range(_CLUSTER_ROUNDS):
        if best_cost == 0:
            break
        improved = False
        for c in range(cluster_count):
            _index(best, pos)
            groups = _group_keys(best, paths, pos, cluster_count)
            siblings = [d for d in range(cluster_count) if d != c and parent[d] == parent[c]]
            keys = {min(groups, default=0.0) - 1.0, max(groups, default=1.0) + 1.0}
            keys.update(groups[d] + delta for d in siblings for delta in (-1e-6, 1e-6))
            for key in sorted(keys):
                trial = [list(layer) for layer in best]
                _index(trial, pos)
                moved = list(groups)
                moved[c] = key
                for layer in trial:
                    _sort_layer(layer, no_neighbours, pos, max(len(layer), 1), paths, moved)
                cost = _cost(trial, down, pos, paths, cluster_count)
                if cost < best_cost:
                    best, best_cost, improved = trial, cost, True
        if not improved:
            break
    _index(best, pos)
    return best


def count_crossings(layers: list[list[int]], down: list[list[int]], pos: _Pos) -> int:
    """Edge crossings between all pairs of consecutive layers (inversion counting).

    `pos[i]` must be item i's index in its layer.
    """
    return sum(_pair_count(layers, index, down, pos) for index in range(len(layers) - 1))


class _Crossings:
    """`count_crossings` for the sweeps, remembering each pair of layers it counted: the
    count depends only on the two layers' orders, and after the first sweeps most layers
    keep theirs, so only the pairs with a layer that moved are counted again."""

    __slots__ = ("_counts", "_down", "_edges", "_seen")

    def __init__(self, layers: list[list[int]], down: list[list[int]]) -> None:
        self._down = down
        self._edges = [sum(len(down[a]) for a in layer) for layer in layers]
        self._seen: list[tuple[list[int], list[int]] | None] = [None] * len(layers)
        self._counts = [0] * len(layers)

    def count(self, layers: list[list[int]], pos: _Pos) -> int:
        total = 0
        seen, counts, down = self._seen, self._counts, self._down
        for index in range(len(layers) - 1):
            upper, lower = layers[index], layers[index + 1]
            last = seen[index]
            if last is None or last[0] != upper or last[1] != lower:
                if self._edges[index] <= _INSORT_LIMIT:
                    counts[index] = _crossings_small(upper, down, pos)
                else:
                    counts[index] = _pair_count(layers, index, down, pos)
                seen[index] = (list(upper), list(lower))
            total += counts[index]
        return total


def _crossings_small(upper: list[int], down: list[list[int]], pos: _Pos) -> int:
    """`_pair_count` for up to `_INSORT_LIMIT` edges in one pass: each lower end, as the
    edges come, counts the earlier ones not right of it (`bisect_right` in a sorted list
    of them); all the other earlier ones cross it."""
    seen: list[int] = []
    insert = seen.insert
    not_right = 0
    for a in upper:
        below = down[a]
        if len(below) == 1:
            target = pos[below[0]]
            place = bisect_right(seen, target)
            insert(place, target)
            not_right += place
        elif below:
            for target in sorted([pos[b] for b in below]):
                place = bisect_right(seen, target)
                insert(place, target)
                not_right += place
    count = len(seen)
    return count * (count - 1) // 2 - not_right


def _pair_count(layers: list[list[int]], index: int, down: list[list[int]], pos: _Pos) -> int:
    """Crossings between layer `index` and the next: the edges, in order of their upper
    end (the layer's own order) and then of their lower end, cross once per pair whose
    lower ends come in the other order."""
    targets: list[int] = []
    for a in layers[index]:
        below = down[a]
        if len(below) == 1:
            targets.append(pos[below[0]])
        elif below:
            targets.extend(sorted([pos[b] for b in below]))
    if len(targets) < 2:
        return 0
    if len(targets) <= _INSORT_LIMIT:
        return _inversions_small(targets)
    return _inversions(targets, len(layers[index + 1]))


_INSORT_LIMIT = 2000  # edges between two layers: insertion into a sorted list is C-fast


def _inversions_small(targets: list[int]) -> int:
    """Pairs i < j with targets[i] > targets[j]: each value counts the earlier ones right
    of it in a sorted list of what came before (memmove-cheap for short lists)."""
    seen: list[int] = []
    total = 0
    count = 0
    for target in targets:
        place = bisect_right(seen, target)
        total += count - place
        seen.insert(place, target)
        count += 1
    return total


def _inversions(targets: list[int], size: int) -> int:
    """Like `_inversions_small`, with a Fenwick tree over the `size` lower positions."""
    tree = [0] * (size + 1)
    total = 0
    seen = 0
    for target in targets:
        # count earlier pairs whose lower end is right of `target`
        i = target + 1
        not_greater = 0
        while i > 0:
            not_greater += tree[i]
            i -= i & -i
        total += seen - not_greater
        i = target + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
        seen += 1
    return total


def _index(layers: list[list[int]], pos: _Pos) -> None:
    for layer in layers:
        for p, item in enumerate(layer):
            pos[item] = p


def _index_layer(layer: list[int], pos: _Pos) -> None:
    for p, item in enumerate(layer):
        pos[item] = p


#: What a layer's barycentres are taken over in one sweep direction: (items with one
#: neighbour, that neighbour each, (item, neighbours) with more, items with none).
_Plan = tuple[list[int], list[int], list[tuple[int, list[int]]], list[int]]


def _plans(layers: list[list[int]], neighbours: list[list[int]]) -> list[_Plan]:
    """`_Plan` per layer, made once: the layers' members and edges never change."""
    plans: list[_Plan] = []
    for layer in layers:
        singles: list[int] = []
        their: list[int] = []
        multis: list[tuple[int, list[int]]] = []
        lonely: list[int] = []
        for item in layer:
            adjacent = neighbours[item]
            if len(adjacent) == 1:
                singles.append(item)
                their.append(adjacent[0])
            elif adjacent:
                multis.append((item, adjacent))
            else:
                lonely.append(item)
        plans.append((singles, their, multis, lonely))
    return plans


def _sort_planned(layer: list[int], plan: _Plan, pos: _Pos, other_size: int) -> None:
    """`_sort_layer` without subgraphs, then `pos` updated if the order changed. The keys
    are the same floats by the same operations (the single-neighbour ones in C, through
    `map`); a stable sort of the layer, which is in position order, breaks ties as the
    (key, position) tuples do."""
    singles, their, multis, lonely = plan
    at = pos.__getitem__
    key = dict(
        zip(
            singles,
            map(truediv, map(add, map(at, their), repeat(0.5)), repeat(other_size)),
            strict=True,
        )
    )
    for item, adjacent in multis:
        key[item] = (sum(map(at, adjacent)) / len(adjacent) + 0.5) / other_size
    if lonely:
        size = len(layer)
        for item in lonely:
            key[item] = (pos[item] + 0.5) / size
    ordered = sorted(layer, key=key.__getitem__)
    if ordered != layer:
        layer[:] = ordered
        for p, item in enumerate(ordered):
            pos[item] = p


def _group_keys(
    layers: list[list[int]], paths: list[tuple[int, ...]], pos: _Pos, cluster_count: int
) -> list[float]:
    """Mean relative position of every subgraph's items: one global order per subgraph."""
    sums = [0.0] * cluster_count
    counts = [0] * cluster_count
    for layer in layers:
        size = len(layer)
        for item in layer:
            rel = (pos[item] + 0.5) / size
            for cluster in paths[item]:
                sums[cluster] += rel
                counts[cluster] += 1
    return [sums[c] / counts[c] if counts[c] else 0.5 for c in range(cluster_count)]


def _sort_layer(
    layer: list[int],
    neighbours: list[list[int]],
    pos: _Pos,
    other_size: int,
    paths: list[tuple[int, ...]],
    groups: list[float] | None,
) -> None:
    size = len(layer)
    keys: list[tuple[float, int, int]] = []  # (barycenter, position now, item)
    for item in layer:
        adjacent = neighbours[item]
        here = pos[item]
        if len(adjacent) == 1:
            keys.append(((pos[adjacent[0]] + 0.5) / other_size, here, item))
        elif adjacent:
            total = 0
            for n in adjacent:
                total += pos[n]
            keys.append(((total / len(adjacent) + 0.5) / other_size, here, item))
        else:
            keys.append(((here + 0.5) / size, here, item))
    if groups is None:
        # Positions in a layer are distinct, so ties on the key never reach the item.
        keys.sort()
        layer[:] = [item for _, _, item in keys]
        return
    key_of = {item: key for key, _, item in keys}

    def hierarchical(item: int) -> tuple[tuple[float, int], ...]:
        path = paths[item]
        return (*((groups[c], c) for c in path), (key_of[item], -1 - pos[item]))

    # Items of the same subgraph compare equal on the outer levels, so they stay together;
    # a plain item sorts among subgraphs by its own key.
    layer.sort(key=lambda item: _flatten(hierarchical(item), pos[item]))


def _flatten(key: tuple[tuple[float, int], ...], position: int) -> tuple[object, ...]:
    return (*key, position)


def _transpose(
    layers: list[list[int]],
    up: list[list[int]],
    down: list[list[int]],
    pos: _Pos,
    paths: list[tuple[int, ...]],
) -> None:
    # A layer is scanned again only when its last scan swapped something or a swap in a
    # neighbouring layer moved what its pairs are compared against: otherwise the scan
    # would see exactly what its last, swap-free, scan saw.
    dirty = [True] * len(layers)
    for _ in range(4):
        improved = False
        for index, layer in enumerate(layers):
            if not dirty[index]:
                continue
            swapped = False
            for p in range(len(layer) - 1):
                a, b = layer[p], layer[p + 1]
                if paths[a] != paths[b]:
                    continue  # swapping across subgraph borders would split a subgraph
                # Crossings between the two items' edges as they stand (`before`) and
                # swapped (`after`), towards both neighbouring layers.
                before = after = 0
                for neighbours in (up, down):
                    left, right = neighbours[a], neighbours[b]
                    if not left or not right:
                        continue
                    for x in left:
                        px = pos[x]
                        for y in right:
                            py = pos[y]
                            if py < px:
                                before += 1
                            elif px < py:
                                after += 1
                if after < before:
                    layer[p], layer[p + 1] = b, a
                    pos[a], pos[b] = p + 1, p
                    swapped = True
            dirty[index] = swapped
            if swapped:
                improved = True
                if index:
                    dirty[index - 1] = True
                if index + 1 < len(layers):
                    dirty[index + 1] = True
        if not improved:
            break
