"""Long edges that turn back, straightened after placement (issue 17 point 8).

Placement pulls every item towards the weighted mean of its neighbours, so a long edge's
waypoints can end up past both of its ports: the route goes one way across the layers and
comes back (a U-turn), or leaves a port, jogs a column aside and returns. This pass reads each
long edge's columns, from its upper port through its waypoints to its lower port; where they
turn back it works out the nearest columns that do not and moves the edge there:

- each waypoint inside its free slot in its layer, where its line may come as close to a
  neighbour as two ports do (one blank cell), pushing up to four waypoints beside it along
  (never a box or a frame border);
- each port inside its free cells on the box side, slid under the waypoint next to it;
- failing that, an end box slid along its layer, every edge at it moving with it.

A move is kept only when no other edge that moves starts to turn back, the edges that move
bend no more in all, and the channels it changes draw no more crossings: their tracks are
worked out as the router will and counted (only the edges between the affected layers are
looked at). A channel of more than `_EXACT_SEGMENTS` segments changes only within a budget:
the pass may count `_SPARE` times the drawing's segments in such channels (up to
`_LARGE_SEGMENTS` each), and a move there must also keep the channel's tracks and breadth;
nothing moves in a fuller channel (counting there would cost as much as routing), nor for a
detour wider than `_REACH` cells in all (dense layers: no local move helps). Nothing passes a neighbour, a frame border or the drawing's
edge, so the order in every layer and the width stay as they were. The cost is one look at
every long edge, plus the tracks of a few small channels per edge that turns back.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import ChainMap
from typing import Final

from nereid.render.flowchart.channels import Bends, Packing, assign_tracks, channel_crossings
from nereid.render.flowchart.stages import DUMMY, FILLER, LABEL, PORT_GAP, STUB, Items, Placed, Side

__all__ = ["room", "unturn"]

#: How many waypoints beside a moved one it may push along, on each side.
_PUSH: Final = 4
#: The most cells an edge's columns may have to move in all for the pass to try it.
_REACH: Final = 16
_FAR: Final = 1 << 30
#: Channels up to this many segments have a move's crossings counted exactly (their tracks
#: worked out as the router will); nothing moves in a fuller one: counting there would cost
#: a large part of the layout (flow-0100's channels hold 20-60 segments), and without a count
#: the router's track order, easily upset, can draw more crossings.
_EXACT_SEGMENTS: Final = 24
#: Larger channels, up to this many segments, may change while the budget lasts: the pass
#: may count `_SPARE` times the drawing's segments in them (a move there is counted before
#: and after; the router reuses the last packing, so the budget is mostly the counts).
_LARGE_SEGMENTS: Final = 48
_SPARE: Final = 0.25

_Change = tuple[int, int, int, int, int]  # (channel, edge, index in its chain, upper, lower column)


def room(placed: Placed, item: int, position: list[int]) -> tuple[int, int]:
    """The left positions `item` may take without touching its layer neighbours or
    crossing a frame border (`position`: every item's index in its layer)."""
    return _Layer(placed, position, tight=False).room(item, 0)


class _Layer:
    """Where items may go in their layer: the bounds their frames and the drawing set,
    and the walls their neighbours make, with or without pushing waypoints along. `tight`:
    a waypoint's line keeps one blank cell to its neighbours, as ports do, instead of the
    gap between boxes (the unturn pass may take it; placement keeps the wider gap)."""

    __slots__ = ("gap", "placed", "position", "tight")

    def __init__(self, placed: Placed, position: list[int], *, tight: bool) -> None:
        self.placed = placed
        self.position = position
        self.tight = tight
        self.gap = placed.ordered.items.ranked.graph.item_gap

    def _gap(self, a: int, b: int) -> int:
        """Cells between neighbours `a` and `b`."""
        kind = self.placed.ordered.items.kind
        if self.tight and (kind[a] == DUMMY or kind[b] == DUMMY):
            return min(self.gap, PORT_GAP - 1)
        return self.gap

    def room(self, item: int, push: int) -> tuple[int, int]:
        """Left positions `item` may take, pushing up to `push` waypoints on each side."""
        placed = self.placed
        items = placed.ordered.items
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
            offset += breadth[cur] + self._gap(cur, right)
            high = min(high, self._framed(right)[1] - offset)
            cur, p = right, p + 1
        cur, offset, p = item, 0, at - 1
        while p >= 0:
            left = layer[p]
            if at - p > push or not self._pushable(left, cur):
                low = max(low, self._wall_left(cur, left) + offset)
                break
            offset += breadth[left] + self._gap(left, cur)
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
        high = placed.x[right] - self._gap(item, right) - items.breadth[item]
        path = items.paths[item]
        for c in items.paths[right]:
            if c not in path:
                high = min(high, placed.cluster_left[c] - 1 - items.breadth[item])
        return high

    def _wall_left(self, item: int, left: int) -> int:
        """The leftmost left position of `item` with `left` where it is."""
        placed = self.placed
        items = placed.ordered.items
        low = placed.x[left] + items.breadth[left] + self._gap(left, item)
        path = items.paths[item]
        for c in items.paths[left]:
            if c not in path:
                low = max(low, placed.cluster_right[c] + 2)
        return low

    def pushes(self, item: int, new_x: int) -> list[tuple[int, int]]:
        """(waypoint, new left position) for the neighbours `item` at `new_x` pushes."""
        placed = self.placed
        items = placed.ordered.items
        x, breadth = placed.x, items.breadth
        layer = placed.ordered.layers[items.layer[item]]
        moved: list[tuple[int, int]] = []
        p = self.position[item]
        cur, left = item, new_x
        if new_x > x[item]:
            while p + 1 < len(layer):
                right = layer[p + 1]
                least = left + breadth[cur] + self._gap(cur, right)
                if x[right] >= least:
                    break
                moved.append((right, least))
                cur, left, p = right, least, p + 1
        else:
            while p > 0:
                before = layer[p - 1]
                most = left - self._gap(before, cur) - breadth[before]
                if x[before] <= most:
                    break
                moved.append((before, most))
                cur, left, p = before, most, p - 1
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
    every waypoint, and the size and crossings of the channels looked at so far."""

    def __init__(self, placed: Placed) -> None:
        self.placed = placed
        ordered = placed.ordered
        items = ordered.items
        position = [0] * len(items.kind)
        for layer in ordered.layers:
            for p, item in enumerate(layer):
                position[item] = p
        self.layer = _Layer(placed, position, tight=True)
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
        # per small channel looked at: its segments as drawn now, and their crossings
        self.segments: dict[int, list[tuple[int, int, int, int]]] = {}
        self.crossings: dict[int, int] = {}
        self.ends: dict[int, dict[tuple[int, int], tuple[int, int]]] = {}  # per channel
        self.busy = set(placed.cluster_left) | set(placed.cluster_right)  # frame sides
        self.sizes: dict[int, int] = {}  # segments per channel looked at
        # segments the pass may still count in large channels, and the largest it may change
        self.spare = int(_SPARE * sum(self._size(layer) for layer in range(len(ordered.layers))))
        self.bound = max(_EXACT_SEGMENTS, min(_LARGE_SEGMENTS, self.spare))

    def run(self, turning: list[int]) -> None:
        for i in turning:
            self._unturn_edge(i)

    def columns(
        self, i: int, x: dict[int, int] | None = None, port: dict[Side, int] | None = None
    ) -> list[int]:
        """The columns edge `i` passes layer by layer: upper port, waypoints, lower port
        (with the left positions in `x` and the ports in `port` instead of the placed ones)."""
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        breadth = items.breadth
        at = placed.x if x is None else _Overlay(placed.x, x)
        ports = placed.port if port is None else ChainMap(port, placed.port)
        inner = [at[item] + breadth[item] // 2 for item in chain[1:-1]]
        return [ports[(i, "down")], *inner, ports[(i, "up")]]

    def _unturn_edge(self, i: int) -> None:
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        if all(self._size(items.layer[item]) > self.bound for item in chain[:-1]):
            return  # no channel it passes may change
        cols = self.columns(i)
        first = self._port_span(i, chain[0], "down", cols[0])
        last = self._port_span(i, chain[-1], "up", cols[-1])
        # Waypoints anywhere: the least movement that removes the turn. A wider detour is
        # no local move (the waypoints sit in dense layers); skip it before any room.
        inner = len(cols) - 2
        lows = [first[0], *[-_FAR] * inner, last[0]]
        highs = [first[1], *[_FAR] * inner, last[1]]
        least = min(
            (_movement(cols, target) for target in _monotones(cols, lows, highs)),
            default=_FAR,
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
        for target in _monotones(cols, lows, highs):
            _straight_ends(target, lows, highs)
            options.append((_bends(target), _movement(cols, target), target))
        options.sort()
        tried: list[list[int]] = []
        for _, _, target in options:
            if target not in tried and self._try(i, cols, target, {}):
                return
            tried.append(target)
        # Where no port cell will do, the end boxes may slide along their layer (every
        # edge at them moves with them).
        ends = (chain[0], chain[-1])
        shifts = [self.layer.room(n, 0) for n in ends]
        if not any(
            low < placed.x[n] or placed.x[n] < high
            for n, (low, high) in zip(ends, shifts, strict=True)
        ):
            return
        fixed = (lows[0], highs[0]), (lows[-1], highs[-1])
        lows[0] = fixed[0][0] + shifts[0][0] - placed.x[ends[0]]
        highs[0] = fixed[0][1] + shifts[0][1] - placed.x[ends[0]]
        lows[-1] = fixed[1][0] + shifts[1][0] - placed.x[ends[1]]
        highs[-1] = fixed[1][1] + shifts[1][1] - placed.x[ends[1]]
        options = []
        for target in _monotones(cols, lows, highs):
            if target not in tried:
                _straight_ends(target, lows, highs)
                options.append((_bends(target), _movement(cols, target), target))
        options.sort()
        for _, _, target in options:
            moves: dict[int, int] = {}
            for n, (low, high), col in zip(ends, fixed, (target[0], target[-1]), strict=True):
                if col < low or col > high:
                    moves[n] = col - (low if col < low else high)
            if target not in tried and self._try(i, cols, target, moves):
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

    def _try(self, i: int, cols: list[int], target: list[int], shifts: dict[int, int]) -> bool:
        """Move edge `i` to `target`, its end boxes by `shifts` (node -> cells), pushing
        waypoints beside its own along, unless another edge that moves would turn back, the
        edges that move would bend more in all, or the channels it changes would draw more
        crossings. The cheap refusals come first: a channel too full to count, then the
        edges that move, then the channels' tracks."""
        placed = self.placed
        items = placed.ordered.items
        chain = items.chains[i]
        new: list[_Change] = []
        _changed_segments(items, i, chain, cols, target, new)
        size = self._size
        if any(size(change[0]) > self.bound for change in new):
            return False  # a channel too full to count its crossings exactly: no move there
        breadth = items.breadth
        new_x: dict[int, int] = {}
        for item, col in zip(chain[1:-1], target[1:-1], strict=True):
            left = col - breadth[item] // 2
            if left != placed.x[item]:
                new_x[item] = left
                new_x.update(self.layer.pushes(item, left))
        moved = {self.edge_of[item] for item in new_x}
        new_port: dict[Side, int] = {}
        for node, shift in shifts.items():
            new_x[node] = placed.x[node] + shift
            for side, edges in (("down", self.lower_edges[node]), ("up", self.upper_edges[node])):
                for other in edges:
                    new_port[(other, side)] = placed.port[(other, side)] + shift
                    moved.add(other)
        new_port[(i, "down")], new_port[(i, "up")] = target[0], target[-1]
        moved.discard(i)
        bends = _bends(target) - _bends(cols)
        for other in sorted(moved):
            before = self.columns(other)
            after = self.columns(other, new_x, new_port)
            stubbed = items.kind[items.chains[other][1]] == STUB
            if not stubbed and _turns(after) and not _turns(before):
                return False
            bends += _bends(after) - _bends(before)
            _changed_segments(items, other, items.chains[other], before, after, new)
        if moved and bends > 0:
            return False
        if not new or any(size(change[0]) > self.bound for change in new):
            return False
        by_channel: dict[int, dict[tuple[int, int], tuple[int, int]]] = {}
        for channel, edge, j, a, b in new:
            by_channel.setdefault(channel, {})[(edge, j)] = (a, b)
        accept = self._no_more_crossings(by_channel)
        if accept:
            placed.port.update(new_port)
            for item, left in new_x.items():
                placed.x[item] = left
        return accept

    def _no_more_crossings(
        self, changes: dict[int, dict[tuple[int, int], tuple[int, int]]]
    ) -> bool:
        """Whether the channels in `changes` (channel -> (edge, index) -> new columns) draw
        no more crossings with the move than without it: their tracks are worked out as the
        router will. Each channel's segments are kept as they are drawn now, so a move only
        replaces the ones it changes; the smaller channels are counted first (a refusal
        there spares counting the larger). Counting in a large channel is charged to the
        budget (twice the first time: before and after), and it must also keep its tracks
        and the drawing's breadth."""
        cost = 0
        for channel in changes:
            size = self._size(channel)
            if size > _EXACT_SEGMENTS:
                cost += size if channel in self.crossings else 2 * size
        if cost > self.spare:
            return False
        self.spare -= cost
        self.bound = max(_EXACT_SEGMENTS, min(_LARGE_SEGMENTS, self.spare))
        after: dict[int, tuple[int, Packing]] = {}
        for channel in sorted(changes, key=self._size):
            segments = self._channel(channel)
            moves = changes[channel]
            moved = segments[:]  # in (edge, index) order: each change is found by bisection
            for (edge, j), (a, b) in moves.items():
                at = bisect_left(moved, (edge, j))
                if at < len(moved) and moved[at][0] == edge and moved[at][1] == j:
                    moved[at] = (edge, j, a, b)
            count, packing = self._crossings(channel, moved)
            if self._size(channel) > _EXACT_SEGMENTS:
                # a large channel (within the budget) also keeps its tracks and breadth
                drawn = self._drawn(channel, segments)
                _, tracks, bends = self.placed.packed[channel]
                if (
                    count > drawn
                    or packing[1] > tracks
                    or _reach(packing[2]) > max(_reach(bends), self.placed.u_extent)
                ):
                    return False
            # (no crossings after the move: no need to count the ones before it)
            elif count and count > self._drawn(channel, segments):
                return False
            after[channel] = (count, packing)
        for channel, (count, packing) in after.items():
            self.segments[channel] = packing[0]
            self.crossings[channel] = count
            self.placed.packed[channel] = packing
        return True

    def _size(self, layer: int) -> int:
        """How many segments the channel under `layer` has."""
        size = self.sizes.get(layer)
        if size is None:
            items = self.placed.ordered.items
            nodes, kind, lower = len(self.lower_edges), items.kind, self.lower_edges
            size = 0
            for item in self.placed.ordered.layers[layer]:
                if item < nodes:
                    size += len(lower[item])
                elif kind[item] != FILLER:
                    size += 1  # a waypoint, a label or a connector (a first one has none)
            self.sizes[layer] = size
        return size

    def _channel(self, layer: int) -> list[tuple[int, int, int, int]]:
        """The segments of the channel under `layer` as they are drawn now, in edge order
        (as the router takes them)."""
        segments = self.segments.get(layer)
        if segments is None:
            segments = self.segments[layer] = self._segments(layer)
            segments.sort()
        return segments

    def _drawn(self, layer: int, segments: list[tuple[int, int, int, int]]) -> int:
        """The crossings the channel under `layer` (its `segments`) draws now."""
        count = self.crossings.get(layer)
        if count is None:
            count, packing = self._crossings(layer, segments)
            self.crossings[layer] = count
            self.placed.packed[layer] = packing
        return count

    def _crossings(
        self, layer: int, segments: list[tuple[int, int, int, int]]
    ) -> tuple[int, Packing]:
        """Crossings the router's tracks draw for the segments of the channel under `layer`
        (in edge order), and the packing they come from (the router's, so it need not pack
        the channel again while its segments stay)."""
        ends = self.ends.get(layer)
        if ends is None:
            chains = self.placed.ordered.items.chains
            ends = self.ends[layer] = {
                (i, j): (chains[i][j], chains[i][j + 1]) for i, j, _, _ in segments
            }
        tracks, bends = assign_tracks(segments, self.busy, ends, self.placed.u_extent)
        return channel_crossings(segments, tracks, bends), (segments, tracks, bends)

    def _segments(self, layer: int) -> list[tuple[int, int, int, int]]:
        """(edge, index in its chain, upper column, lower column) of the segments in the
        channel under `layer`."""
        placed = self.placed
        items = placed.ordered.items
        chains, breadth, kind, top = items.chains, items.breadth, items.kind, items.layer
        at, ports = placed.x, placed.port
        edge_of = self.edge_of
        found: list[tuple[int, int, int, int]] = []
        for item in placed.ordered.layers[layer]:
            if item < len(self.lower_edges):
                pairs = [(i, 0) for i in self.lower_edges[item]]
            elif kind[item] == STUB:
                i = edge_of[item]  # a stubbed edge: its second connector's segment only
                pairs = [(i, 2)] if item == chains[i][2] else []
            elif edge_of[item] >= 0:
                i = edge_of[item]
                pairs = [(i, layer - top[chains[i][0]])]
            else:
                continue  # a subgraph filler
            for i, j in pairs:
                chain = chains[i]
                upper, lower = chain[j], chain[j + 1]
                a = ports[(i, "down")] if j == 0 else at[upper] + breadth[upper] // 2
                b = ports[(i, "up")] if j + 2 == len(chain) else at[lower] + breadth[lower] // 2
                found.append((i, j, a, b))
        return found


class _Overlay:
    """Left positions with some replaced (a move being weighed)."""

    __slots__ = ("base", "changes")

    def __init__(self, base: list[int], changes: dict[int, int]) -> None:
        self.base = base
        self.changes = changes

    def __getitem__(self, item: int) -> int:
        return self.changes.get(item, self.base[item])


def _changed_segments(
    items: Items,
    edge: int,
    chain: list[int],
    before: list[int],
    after: list[int],
    new: list[_Change],
) -> None:
    """Append the segments of `edge` (its `chain`) whose columns differ, as they will be (a
    stubbed edge's two connectors are no segment)."""
    layer, kind = items.layer, items.kind
    for j in range(len(chain) - 1):
        if before[j] != after[j] or before[j + 1] != after[j + 1]:
            if kind[chain[j]] == STUB and kind[chain[j + 1]] == STUB:
                continue
            new.append((layer[chain[j]], edge, j, after[j], after[j + 1]))


def _reach(bends: Bends) -> int:
    """The columns a channel's doglegs reach (the router widens the drawing to it)."""
    return max((points[1][0] + 1 for points in bends.values() if len(points) > 2), default=0)


def _turns(cols: list[int]) -> bool:
    steps = [b - a for a, b in zip(cols, cols[1:], strict=False) if b != a]
    return any(s * t < 0 for s, t in zip(steps, steps[1:], strict=False))


def _monotones(cols: list[int], lows: list[int], highs: list[int]) -> list[list[int]]:
    """Every way a greedy sweep finds to keep `cols` inside [lows[k], highs[k]] without
    turning back, as close to `cols` as it allows: rising forwards (keeping the earlier
    columns), rising backwards (keeping the later ones), then falling forwards and
    backwards; fewer where the intervals allow no such route. (A falling route is the
    rising one of the mirrored columns, worked out here without mirroring them.)"""
    found = []
    count = len(cols)
    last = count - 1
    for rising in (True, False):
        # floor: the least each may take, ceiling: the most, given the ones before and
        # after it (rising: floors never fall forwards, ceilings never rise backwards)
        floor = lows[:]
        ceiling = highs[:]
        if rising:
            low = floor[0]
            for k in range(1, count):
                if floor[k] < low:
                    floor[k] = low
                else:
                    low = floor[k]
            high = ceiling[last]
            for k in range(last - 1, -1, -1):
                if ceiling[k] > high:
                    ceiling[k] = high
                else:
                    high = ceiling[k]
        else:
            high = ceiling[0]
            for k in range(1, count):
                if ceiling[k] > high:
                    ceiling[k] = high
                else:
                    high = ceiling[k]
            low = floor[last]
            for k in range(last - 1, -1, -1):
                if floor[k] < low:
                    floor[k] = low
                else:
                    low = floor[k]
        if any(f > c for f, c in zip(floor, ceiling, strict=True)):
            continue
        # Forwards each stays on its side of the one before, backwards of the one after;
        # each is its column clamped to what is left.
        target = cols[:]
        previous = 0
        for k in range(count):
            low, high, col = floor[k], ceiling[k], cols[k]
            if rising:
                if k and previous > low:
                    low = previous
                if col < low:
                    col = low
                if col > high:
                    col = high
            else:
                if k and previous < high:
                    high = previous
                if col > high:
                    col = high
                if col < low:
                    col = low
            target[k] = previous = col
        found.append(target)
        target = cols[:]
        for k in range(last, -1, -1):
            low, high, col = floor[k], ceiling[k], cols[k]
            if rising:
                if k < last and previous < high:
                    high = previous
                if col > high:
                    col = high
                if col < low:
                    col = low
            else:
                if k < last and previous > low:
                    low = previous
                if col < low:
                    col = low
                if col > high:
                    col = high
            target[k] = previous = col
        found.append(target)
    return found


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
