"""Long edges that turn back, straightened after placement (issue 17 point 8).

Placement pulls every item towards the weighted mean of its neighbours, so a long edge's
waypoints can end up past both of its ports: the route goes one way across the layers and
comes back (a U-turn), or leaves a port, jogs a column aside and returns. This pass reads each
long edge's columns, from its upper port through its waypoints to its lower port; where they
turn back it works out the nearest columns that do not, with every waypoint inside its free
slot in its layer and every port inside its free cells on the box side, and moves them there.
A waypoint may push a few waypoints beside it along (never a box or a frame border) when
their own edges do not turn back for it. A move is kept only when the runs it changes meet
no more runs in their channels than before (the local stand-in for crossings: only the edges
between the affected layers are looked at).

Nothing moves past a neighbour, a frame border or the drawing's edge, so the order in every
layer and the width stay as they were. The cost is one look at every long edge, plus a few
bisections per segment of an edge that turns back.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from typing import Final

from nereid.render.flowchart.stages import DUMMY, LABEL, PORT_GAP, STUB, Placed

__all__ = ["room", "unturn"]

#: How many waypoints beside a moved one it may push along, on each side.
_PUSH: Final = 4
#: The most cells an edge's columns may have to move in all for the pass to try it.
_REACH: Final = 16
_FAR: Final = 1 << 30

Segment = tuple[int, int, int]  # (channel, upper column, lower column)


def room(placed: Placed, item: int, position: list[int]) -> tuple[int, int]:
    """The left positions `item` may take without touching its layer neighbours or
    crossing a frame border (`position`: every item's index in its layer)."""
    return _Layer(placed, position).room(item, 0)


class _Layer:
    """Where items may go in their layer: the bounds their frames and the drawing set,
    and the walls their neighbours make, with or without pushing waypoints along."""

    __slots__ = ("placed", "position")

    def __init__(self, placed: Placed, position: list[int]) -> None:
        self.placed = placed
        self.position = position

    def room(self, item: int, push: int) -> tuple[int, int]:
        """Left positions `item` may take, pushing up to `push` waypoints on each side."""
        placed = self.placed
        items = placed.ordered.items
        gap = items.ranked.graph.item_gap
        breadth = items.breadth
        layer = placed.ordered.layers[items.layer[item]]
        low, high = self._framed(item)
        at = self.position[item]
        # rightwards: every pushed waypoint must still fit, then the first wall
        cur, offset, p = item, 0, at + 1
        while p < len(layer):
            right = layer[p]
            if p - at > push or not self._pushable(right, cur):
                high = min(high, self._wall_right(cur, right) - offset)
                break
            offset += breadth[cur] + gap
            high = min(high, self._framed(right)[1] - offset)
            cur, p = right, p + 1
        cur, offset, p = item, 0, at - 1
        while p >= 0:
            left = layer[p]
            if at - p > push or not self._pushable(left, cur):
                low = max(low, self._wall_left(cur, left) + offset)
                break
            offset += breadth[left] + gap
            low = max(low, self._framed(left)[0] + offset)
            cur, p = left, p - 1
        return low, high

    def _pushable(self, other: int, beside: int) -> bool:
        items = self.placed.ordered.items
        kind = items.kind[other]
        return (kind == DUMMY or kind == LABEL) and items.paths[other] == items.paths[beside]

    def _framed(self, item: int) -> tuple[int, int]:
        """Left positions inside `item`'s frames and the drawing."""
        placed = self.placed
        items = placed.ordered.items
        horizontal = items.ranked.graph.horizontal
        breadth = items.breadth[item]
        low, high = 0, placed.u_extent - breadth
        for c in items.paths[item]:
            inset = len(placed.cluster_titles[c]) if horizontal else 0
            low = max(low, placed.cluster_left[c] + inset + 2)
            high = min(high, placed.cluster_right[c] - 1 - breadth)
        return low, high

    def _wall_right(self, item: int, right: int) -> int:
        """The rightmost left position of `item` with `right` where it is."""
        placed = self.placed
        items = placed.ordered.items
        high = placed.x[right] - items.ranked.graph.item_gap - items.breadth[item]
        path = items.paths[item]
        for c in items.paths[right]:
            if c not in path:
                high = min(high, placed.cluster_left[c] - 1 - items.breadth[item])
        return high

    def _wall_left(self, item: int, left: int) -> int:
        """The leftmost left position of `item` with `left` where it is."""
        placed = self.placed
        items = placed.ordered.items
        low = placed.x[left] + items.breadth[left] + items.ranked.graph.item_gap
        path = items.paths[item]
        for c in items.paths[left]:
            if c not in path:
                low = max(low, placed.cluster_right[c] + 2)
        return low

    def pushes(self, item: int, new_x: int) -> list[tuple[int, int]]:
        """(waypoint, new left position) for the neighbours `item` at `new_x` pushes."""
        placed = self.placed
        items = placed.ordered.items
        gap = items.ranked.graph.item_gap
        x, breadth = placed.x, items.breadth
        layer = placed.ordered.layers[items.layer[item]]
        moved: list[tuple[int, int]] = []
        at = self.position[item]
        if new_x > x[item]:
            edge, p = new_x + breadth[item] + gap, at + 1
            while p < len(layer) and x[layer[p]] < edge:
                moved.append((layer[p], edge))
                edge += breadth[layer[p]] + gap
                p += 1
        else:
            edge, p = new_x - gap, at - 1
            while p >= 0 and x[layer[p]] + breadth[layer[p]] > edge:
                moved.append((layer[p], edge - breadth[layer[p]]))
                edge -= breadth[layer[p]] + gap
                p -= 1
        return moved


def unturn(placed: Placed) -> None:
    """Move the waypoints and ports of long edges that turn back so they do not, where
    the slots are free (see the module docstring). Part of `place`: it changes `placed.x`
    and `placed.port` before the record leaves the stage."""
    items = placed.ordered.items
    x, port, breadth, kind = placed.x, placed.port, items.breadth, items.kind
    turning: list[int] = []
    for i, chain in enumerate(items.chains):
        if len(chain) < 3 or kind[chain[1]] == STUB:
            continue  # one segment cannot turn back (nor can a stubbed edge's two)
        previous = port[(i, "down")]
        step = 0
        for item in chain[1:-1]:
            col = x[item] + breadth[item] // 2
            if col != previous:
                if step * (col - previous) < 0:
                    break
                step = col - previous
                previous = col
        else:
            if step * (port[(i, "up")] - previous) >= 0:
                continue
        if _overshoot(placed, chain) <= _REACH:
            turning.append(i)
    if turning:
        _Unturn(placed).run(turning)


def _overshoot(placed: Placed, chain: list[int]) -> int:
    """How far, in all, the waypoints of `chain` lie outside the columns its two ports can
    take: a least bound on the movement any route that does not turn back needs."""
    items = placed.ordered.items
    x, breadth = placed.x, items.breadth
    upper, lower = chain[0], chain[-1]
    upper_span, lower_span = items.port_span(upper), items.port_span(lower)
    low = min(x[upper] + upper_span[0], x[lower] + lower_span[0])
    high = max(x[upper] + upper_span[1], x[lower] + lower_span[1])
    total = 0
    for item in chain[1:-1]:
        col = x[item] + breadth[item] // 2
        if col < low:
            total += low - col
        elif col > high:
            total += col - high
    return total


class _Unturn:
    """The state of one pass: layer positions, the edges at every box side and through
    every waypoint, and the runs of the channels looked at so far (built when needed)."""

    def __init__(self, placed: Placed) -> None:
        self.placed = placed
        ordered = placed.ordered
        items = ordered.items
        position = [0] * len(items.kind)
        for layer in ordered.layers:
            for p, item in enumerate(layer):
                position[item] = p
        self.layer = _Layer(placed, position)
        nodes = len(items.ranked.graph.node_ids)
        # per node: the edges leaving its lower side, entering its upper side
        self.lower_edges: list[list[int]] = [[] for _ in range(nodes)]
        self.upper_edges: list[list[int]] = [[] for _ in range(nodes)]
        self.edge_of = [-1] * len(items.kind)  # waypoint -> its edge
        edge_of = self.edge_of
        for i, chain in enumerate(items.chains):
            if chain:
                self.lower_edges[chain[0]].append(i)
                self.upper_edges[chain[-1]].append(i)
                for item in chain[1:-1]:
                    edge_of[item] = i
        self.runs: dict[int, _Runs] = {}

    def run(self, turning: list[int]) -> None:
        for i in turning:
            self._unturn_edge(i)

    def columns(self, i: int, x: dict[int, int] | None = None) -> list[int]:
        """The columns edge `i` passes layer by layer: upper port, waypoints, lower port
        (with the left positions in `x` instead of the placed ones)."""
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        breadth = items.breadth
        at = placed.x if x is None else _Overlay(placed.x, x)
        inner = [at[item] + breadth[item] // 2 for item in chain[1:-1]]
        return [placed.port[(i, "down")], *inner, placed.port[(i, "up")]]

    def _unturn_edge(self, i: int) -> None:
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        cols = self.columns(i)
        first = self._port_span(i, chain[0], "down", cols[0])
        last = self._port_span(i, chain[-1], "up", cols[-1])
        # Waypoints anywhere: the least movement that removes the turn. A wider detour is
        # no local move (the waypoints sit in dense layers); skip it before any room.
        inner = len(cols) - 2
        lows = [first[0], *[-_FAR] * inner, last[0]]
        highs = [first[1], *[_FAR] * inner, last[1]]
        least = min(
            _movement(cols, target)
            for rising in (True, False)
            for forward in (True, False)
            if (target := _monotone(cols, lows, highs, rising=rising, forward=forward))
        )
        if least > _REACH:
            return
        lows, highs = [first[0]], [first[1]]
        for item, col in zip(chain[1:-1], cols[1:-1], strict=True):
            low, high = self.layer.room(item, _PUSH)
            half = items.breadth[item] // 2
            if low <= placed.x[item] <= high:
                lows.append(low + half)
                highs.append(high + half)
            else:
                lows.append(col)
                highs.append(col)
        lows.append(last[0])
        highs.append(last[1])
        options = []
        for rising in (True, False):
            for forward in (True, False):
                target = _monotone(cols, lows, highs, rising=rising, forward=forward)
                if target is not None:
                    _straight_ends(target, lows, highs)
                    options.append((_bends(target), _movement(cols, target), target))
        options.sort()
        tried: list[list[int]] = []
        for _, _, target in options:
            if target not in tried and self._try(i, cols, target):
                return
            tried.append(target)

    def _port_span(self, i: int, node: int, side: str, col: int) -> tuple[int, int]:
        """The columns edge `i`'s port on `node`'s `side` may take: on the side's port
        cells, a port gap away from the ports beside it."""
        placed = self.placed
        items = placed.ordered.items
        low_off, high_off = items.port_span(node)
        low, high = placed.x[node] + low_off, placed.x[node] + high_off
        for other in (self.lower_edges if side == "down" else self.upper_edges)[node]:
            if other == i:
                continue
            at = placed.port[(other, side)]
            if at < col:
                low = max(low, at + PORT_GAP)
            elif at > col:
                high = min(high, at - PORT_GAP)
        if not low <= col <= high:
            return col, col
        return low, high

    def _try(self, i: int, cols: list[int], target: list[int]) -> bool:
        """Move edge `i` to `target` (pushing waypoints beside it along) unless an edge it
        pushes would turn back or the changed runs would meet more runs than before."""
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        breadth = items.breadth
        new_x: dict[int, int] = {}
        for item, col in zip(chain[1:-1], target[1:-1], strict=True):
            left = col - breadth[item] // 2
            if left != placed.x[item]:
                new_x[item] = left
                new_x.update(self.layer.pushes(item, left))
        pushed = {self.edge_of[item] for item in new_x} - {i}
        old: list[Segment] = []
        new: list[Segment] = []
        _changed_segments(items.layer, chain, cols, target, old, new)
        for other in sorted(pushed):
            before = self.columns(other)
            after = self.columns(other, new_x)
            if _turns(after) and not _turns(before):
                return False
            _changed_segments(items.layer, items.chains[other], before, after, old, new)
        if not new:
            return False
        if any(_grows(was, now) for was, now in zip(old, new, strict=True)):
            for channel, a, b in old:
                self._runs(channel).remove(a, b)
            accept = _meetings(self.runs, new) <= _meetings(self.runs, old)
            for channel, a, b in new if accept else old:
                self.runs[channel].add(a, b)
        else:
            # Every changed run lies within the span it had: it meets no run it did not
            # meet before, so there is nothing to count (the channels seen are kept up).
            accept = True
            for (channel, a, b), (_, c, d) in zip(old, new, strict=True):
                runs = self.runs.get(channel)
                if runs is not None:
                    runs.remove(a, b)
                    runs.add(c, d)
        if accept:
            placed.port[(i, "down")] = target[0]
            placed.port[(i, "up")] = target[-1]
            for item, left in new_x.items():
                placed.x[item] = left
        return accept

    def _runs(self, layer: int) -> _Runs:
        runs = self.runs.get(layer)
        if runs is None:
            runs = _Runs()
            placed = self.placed
            items = placed.ordered.items
            x, port, breadth, chains = placed.x, placed.port, items.breadth, items.chains
            edge_of = self.edge_of
            top = items.layer
            for item in placed.ordered.layers[layer]:
                if item < len(self.lower_edges):
                    segments = [(i, 0) for i in self.lower_edges[item]]
                elif items.kind[item] == STUB:
                    i = edge_of[item]  # a stubbed edge: its second connector's segment only
                    segments = [(i, 2)] if item == chains[i][2] else []
                elif edge_of[item] >= 0:
                    i = edge_of[item]
                    segments = [(i, layer - top[chains[i][0]])]
                else:
                    continue  # a subgraph filler
                for i, j in segments:
                    chain = chains[i]
                    upper, lower = chain[j], chain[j + 1]
                    a = port[(i, "down")] if j == 0 else x[upper] + breadth[upper] // 2
                    if j + 2 == len(chain):
                        b = port[(i, "up")]
                    else:
                        b = x[lower] + breadth[lower] // 2
                    if a == b:
                        runs.straight.append(a)
                    else:
                        runs.lows.append(min(a, b))
                        runs.highs.append(max(a, b))
            runs.lows.sort()
            runs.highs.sort()
            runs.straight.sort()
            self.runs[layer] = runs
        return runs


class _Overlay:
    """Left positions with some replaced (a move being weighed)."""

    __slots__ = ("base", "changes")

    def __init__(self, base: list[int], changes: dict[int, int]) -> None:
        self.base = base
        self.changes = changes

    def __getitem__(self, item: int) -> int:
        return self.changes.get(item, self.base[item])


def _changed_segments(
    layer: list[int],
    chain: list[int],
    before: list[int],
    after: list[int],
    old: list[Segment],
    new: list[Segment],
) -> None:
    """Append the segments of `chain` whose columns differ, as they were and will be."""
    for j in range(len(chain) - 1):
        if before[j] != after[j] or before[j + 1] != after[j + 1]:
            old.append((layer[chain[j]], before[j], before[j + 1]))
            new.append((layer[chain[j]], after[j], after[j + 1]))


def _grows(was: Segment, now: Segment) -> bool:
    """Whether segment `now` reaches a column outside the span of segment `was`."""
    return min(now[1:]) < min(was[1:]) or max(now[1:]) > max(was[1:])


def _meetings(runs: dict[int, _Runs], segments: list[Segment]) -> int:
    """Meetings of `segments` with the runs of their channels and with each other."""
    total = sum(runs[channel].meets(a, b) for channel, a, b in segments)
    for k, (channel, a, b) in enumerate(segments):
        for other_channel, c, d in segments[k + 1 :]:
            if other_channel == channel:
                total += _meet(a, b, c, d)
    return total


def _meet(a: int, b: int, c: int, d: int) -> int:
    """Whether segment a->b and segment c->d could cross (as `_Runs.meets` counts)."""
    low, high, other_low, other_high = min(a, b), max(a, b), min(c, d), max(c, d)
    if low == high:
        return int(other_low < low < other_high)
    if other_low == other_high:
        return int(low < other_low < high)
    return int(other_low < high and other_high > low)


class _Runs:
    """The segments of one channel: the spans of the bent ones (sorted lows and highs) and
    the columns of the straight ones, so counting the runs a segment meets is bisection."""

    __slots__ = ("highs", "lows", "straight")

    def __init__(self) -> None:
        self.lows: list[int] = []
        self.highs: list[int] = []
        self.straight: list[int] = []

    def add(self, a: int, b: int) -> None:
        if a == b:
            insort(self.straight, a)
        else:
            insort(self.lows, min(a, b))
            insort(self.highs, max(a, b))

    def remove(self, a: int, b: int) -> None:
        if a == b:
            del self.straight[bisect_left(self.straight, a)]
        else:
            del self.lows[bisect_left(self.lows, min(a, b))]
            del self.highs[bisect_left(self.highs, max(a, b))]

    def meets(self, a: int, b: int) -> int:
        """Segments a segment from column a to column b could cross: the bent ones whose
        spans overlap its span, and the straight ones inside it (or, for a straight one,
        the bent ones over its column)."""
        if a == b:
            return bisect_left(self.lows, a) - bisect_right(self.highs, a)
        low, high = min(a, b), max(a, b)
        bent = bisect_left(self.lows, high) - bisect_right(self.highs, low)
        return bent + bisect_left(self.straight, high) - bisect_right(self.straight, low)


def _turns(cols: list[int]) -> bool:
    steps = [b - a for a, b in zip(cols, cols[1:], strict=False) if b != a]
    return any(s * t < 0 for s, t in zip(steps, steps[1:], strict=False))


def _monotone(
    cols: list[int], lows: list[int], highs: list[int], *, rising: bool, forward: bool
) -> list[int] | None:
    """Columns inside [lows[k], highs[k]] that never turn back, kept as close to `cols` as a
    greedy sweep allows (`forward`: keep the earlier ones, else the later ones); None when
    the intervals allow none."""
    if not rising:
        flipped = _monotone(
            [-c for c in cols],
            [-h for h in highs],
            [-low for low in lows],
            rising=True,
            forward=forward,
        )
        return None if flipped is None else [-c for c in flipped]
    count = len(cols)
    floor = lows[:]  # the least each may take, given the ones before it
    for k in range(1, count):
        floor[k] = max(floor[k], floor[k - 1])
    ceiling = highs[:]  # the most each may take, given the ones after it
    for k in range(count - 2, -1, -1):
        ceiling[k] = min(ceiling[k], ceiling[k + 1])
    if any(f > c for f, c in zip(floor, ceiling, strict=True)):
        return None
    target = cols[:]
    if forward:
        for k in range(count):
            low = max(floor[k], target[k - 1]) if k else floor[k]
            target[k] = min(max(cols[k], low), ceiling[k])
    else:
        for k in range(count - 1, -1, -1):
            high = min(ceiling[k], target[k + 1]) if k + 1 < count else ceiling[k]
            target[k] = max(min(cols[k], high), floor[k])
    return target


def _straight_ends(target: list[int], lows: list[int], highs: list[int]) -> None:
    """Slide each port under the waypoint next to it where its free cells allow, so the
    edge leaves and enters its boxes straight."""
    if lows[0] <= target[1] <= highs[0]:
        target[0] = target[1]
    if lows[-1] <= target[-2] <= highs[-1]:
        target[-1] = target[-2]


def _bends(cols: list[int]) -> int:
    return sum(1 for a, b in zip(cols, cols[1:], strict=False) if a != b)


def _movement(cols: list[int], target: list[int]) -> int:
    return sum(abs(a - b) for a, b in zip(cols, target, strict=True))
