"""Coordinate assignment across the layers (the cross axis: columns in a top-down layout).

Every item and every subgraph border is a variable; consecutive entries of a layer give
separation constraints `x[b] >= x[a] + width[a] + gap`. A subgraph's left and right borders
are one variable each for all its layers, which is what makes frames rectangles that hold
their members and nothing else. The start is the leftmost packing (longest path over the
constraint graph); then a bounded number of passes moves each item towards the weighted mean
of its neighbours' centres, inside the interval its neighbours in the layer allow. Long-edge
dummies pull hardest, so long edges come out straight. The passes are bounded by a budget of
item visits: ten up to 4000 items, then fewer, two from 20 000 (after the first few passes
nearly nothing moves: on the 3000-node benchmark flowchart two passes draw within 0.1 % of the
line cells of ten).
"""

from __future__ import annotations

__all__ = ["Placement", "place_layers"]

from typing import NamedTuple

_PASSES = 10
_PASS_BUDGET = 40_000  # item visits: 10 passes up to 4000 items, then fewer, at least 2
_MIN_PASSES = 2


class Placement(NamedTuple):
    x: list[int]  # left cross-axis coordinate per item
    cluster_left: list[int]
    cluster_right: list[int]
    extent: int  # one past the largest coordinate used


def place_layers(
    layers: list[list[int]],
    widths: list[int],
    up: list[list[tuple[int, int, int, int]]],
    down: list[list[tuple[int, int, int, int]]],
    paths: list[tuple[int, ...]],
    cluster_count: int,
    cluster_min_width: list[int],
    item_gap: int,
    cluster_inset: list[int],
) -> Placement:
    """Place items (left coordinate) given their order, widths and weighted neighbours.

    `up[i]` / `down[i]` hold (neighbour item, weight, own attach, neighbour attach): the
    attach values are twice the offset, from each item's left edge, of the column the edge
    meets it at; an item moves so the two line up. Subgraph c's frame gets the columns
    `cluster_left[c]..cluster_right[c]` (inclusive), at least `cluster_min_width[c]` wide,
    with `cluster_inset[c]` extra cells kept free inside its left border (for a title).
    """
    item_count = len(widths)
    var_count = item_count + 2 * cluster_count
    width = list(widths) + [1] * (2 * cluster_count)
    for c in range(cluster_count):
        width[item_count + 2 * c] += cluster_inset[c]
    preds: list[dict[int, int]] = [{} for _ in range(var_count)]
    succs: list[dict[int, int]] = [{} for _ in range(var_count)]
    prev_in_layer = [-1] * item_count
    next_in_layer = [-1] * item_count

    def constrain(a: int, b: int, distance: int) -> None:
        if succs[a].get(b, -1) < distance:
            succs[a][b] = distance
            preds[b][a] = distance

    for layer in layers:
        sequence = _with_borders(layer, paths, item_count)
        for a, b in zip(sequence, sequence[1:], strict=False):
            both_items = a < item_count and b < item_count
            constrain(a, b, width[a] + (item_gap if both_items else 1))
        for p, item in enumerate(layer):
            if p:
                prev_in_layer[item] = layer[p - 1]
            if p + 1 < len(layer):
                next_in_layer[item] = layer[p + 1]
    for c in range(cluster_count):
        constrain(item_count + 2 * c, item_count + 2 * c + 1, max(cluster_min_width[c] - 1, 2))

    x = _leftmost(var_count, preds, succs)
    # An item sits in one layer, so it has at most one constraint on each side.
    pred_var, pred_dist = [-1] * item_count, [0] * item_count
    succ_var, succ_dist = [-1] * item_count, [0] * item_count
    for item in range(item_count):
        for p, d in preds[item].items():
            pred_var[item], pred_dist[item] = p, d
        for q, d in succs[item].items():
            succ_var[item], succ_dist[item] = q, d
    bounds = (pred_var, pred_dist, succ_var, succ_dist)
    passes = max(_MIN_PASSES, min(_PASSES, _PASS_BUDGET // max(item_count, 1)))
    # What each layer's items aim at, per direction, worked out once for all passes.
    aims_down = [_aims(layer, up, down) for layer in layers]
    aims_up = [_aims(layer, down, up) for layer in reversed(layers)]
    still = 0  # passes in a row that moved nothing
    for index in range(passes):
        # Top-down passes follow the layer above, bottom-up passes the layer below (the
        # priority method): chains line up instead of settling between their neighbours.
        moved = False
        for aims in aims_down if index % 2 == 0 else aims_up:
            if aims and _balance_layer(aims, x, bounds):
                moved = True
        still = 0 if moved else still + 1
        if still == 2:
            break  # a pass each way moved nothing: every later pass would repeat them
    _tighten_borders(x, item_count, cluster_count, preds, succs)
    low = min(x, default=0)
    if low:
        x = [value - low for value in x]
    extent = max((x[v] + width[v] for v in range(var_count)), default=0)
    left = [x[item_count + 2 * c] for c in range(cluster_count)]
    right = [x[item_count + 2 * c + 1] for c in range(cluster_count)]
    return Placement(x[:item_count], left, right, extent)


def _with_borders(layer: list[int], paths: list[tuple[int, ...]], item_count: int) -> list[int]:
    """The layer's items with subgraph border variables opened and closed around them."""
    sequence: list[int] = []
    open_path: tuple[int, ...] = ()
    for item in layer:
        path = paths[item]
        common = 0
        while common < len(open_path) and common < len(path) and open_path[common] == path[common]:
            common += 1
        for cluster in reversed(open_path[common:]):
            sequence.append(item_count + 2 * cluster + 1)
        for cluster in path[common:]:
            sequence.append(item_count + 2 * cluster)
        sequence.append(item)
        open_path = path
    for cluster in reversed(open_path):
        sequence.append(item_count + 2 * cluster + 1)
    return sequence


def _leftmost(
    var_count: int, preds: list[dict[int, int]], succs: list[dict[int, int]]
) -> list[int]:
    indegree = [len(p) for p in preds]
    queue = [v for v in range(var_count) if indegree[v] == 0]
    x = [0] * var_count
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        base = x[v]
        for w, distance in succs[v].items():
            if x[w] < base + distance:
                x[w] = base + distance
            indegree[w] -= 1
            if indegree[w] == 0:
                queue.append(w)
    if len(queue) != var_count:
        raise ValueError("inconsistent subgraph order: separation constraints form a cycle")
    return x


_Aim = tuple[int, int, int, tuple[tuple[int, int], ...], int]


def _aims(
    layer: list[int],
    leading: list[list[tuple[int, int, int, int]]],
    trailing: list[list[tuple[int, int, int, int]]],
) -> list[_Aim]:
    """Per item of `layer` with neighbours in the `leading` direction (or the `trailing`
    one when it has none there): (item, its one neighbour or -1, constant, (neighbour,
    twice its weight) pairs, weight sum), so that the position it wants is
    `x[neighbour] + constant` for one neighbour whose attach columns differ by a whole
    number of cells, else half of `(constant + sum(x[n] * w2)) / weight sum`, the weighted
    mean of the positions that line up each edge's attach columns (rounded)."""
    aims: list[_Aim] = []
    for item in layer:
        neighbours = leading[item] or trailing[item]
        if not neighbours:
            continue
        if len(neighbours) == 1 and (neighbours[0][3] - neighbours[0][2]) % 2 == 0:
            n, _, own, their = neighbours[0]
            aims.append((item, n, (their - own) // 2, (), 0))
        else:
            constant = 0
            weight_sum = 0
            for _, weight, own, their in neighbours:
                constant += (their - own) * weight
                weight_sum += weight
            pairs = tuple((n, 2 * weight) for n, weight, _, _ in neighbours)
            aims.append((item, -1, constant, pairs, weight_sum))
    return aims


def _balance_layer(
    aims: list[_Aim],
    x: list[int],
    bounds: tuple[list[int], list[int], list[int], list[int]],
) -> bool:
    """Move each item of a layer towards what it aims at (`_aims`), as far as its layer
    neighbours allow. Returns whether anything moved."""
    pred_var, pred_dist, succ_var, succ_dist = bounds
    # Items that want to go right, and those that want to go left: a rightward move only
    # changes the item itself, so what the leftward loop sees of the others is the same.
    right: list[tuple[int, int]] = []
    left: list[tuple[int, int]] = []
    for item, n, constant, pairs, weight_sum in aims:
        if n >= 0:
            want = x[n] + constant
        else:
            total = constant
            for m, w2 in pairs:
                total += x[m] * w2
            # twice the position, to stay exact for odd widths
            want = round(total / weight_sum / 2)
        here = x[item]
        if want > here:
            right.append((item, want))
        elif want < here:
            left.append((item, want))
    # Rightward moves from the right end (so a row of items can all shift right), then
    # leftward moves from the left end.
    moved = False
    for item, want in reversed(right):
        s = succ_var[item]
        hi = x[s] - succ_dist[item] if s >= 0 else want
        if hi > x[item]:
            x[item] = want if want < hi else hi
            moved = True
    for item, want in left:
        p = pred_var[item]
        lo = x[p] + pred_dist[item] if p >= 0 else 0
        if lo < 0:
            lo = 0
        if lo < x[item]:
            x[item] = want if want > lo else lo
            moved = True
    return moved


def _tighten_borders(
    x: list[int],
    item_count: int,
    cluster_count: int,
    preds: list[dict[int, int]],
    succs: list[dict[int, int]],
) -> None:
    """Pull frame borders in against their contents (innermost frames are pulled first
    because their variables come later in document order only by chance, so iterate)."""
    for _ in range(3):
        for c in range(cluster_count - 1, -1, -1):
            left, right = item_count + 2 * c, item_count + 2 * c + 1
            x[left] = max(x[left], min((x[s] - d for s, d in succs[left].items()), default=x[left]))
            x[right] = min(
                x[right], max((x[p] + d for p, d in preds[right].items()), default=x[right])
            )
