"""Channel routing between two layers: a track row for every segment that changes column.

The classic left-edge algorithm with vertical constraints: a segment leaving the upper layer
at column a turns above any segment entering the lower layer at column a, so vertical runs
never overlap; a cycle of such constraints (two edges swapping columns) is broken with a
dogleg through a free column. Runs that share a track keep a blank cell between them.

Beyond those hard constraints, segments bending the same way whose runs overlap are stacked
so that they do not cross: of two rightward runs the one further right turns first (takes
the upper track), of two leftward runs the one further left. That is what makes a fan-out
or fan-in draw without crossings (the outermost end on the outermost track). These are
preferences: when they cannot all hold together with the hard constraints they are dropped
for the segment that is stuck, never a reason for a dogleg. Runs that leave or enter the same
item always get them; all overlapping runs of a channel get them when that costs at most a
quarter more tracks (a dense channel would otherwise grow much taller).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from itertools import repeat
from operator import sub

__all__ = ["Bends", "Packing", "assign_tracks", "channel_crossings"]

Segment = tuple[int, int, int, int]  # (edge, index in its chain, upper column, lower column)
Part = tuple[int, int, int, int, int]  # a segment, or half of a dogleg (the last field)
Bends = dict[tuple[int, int], list[tuple[int, int]]]
#: A channel's segments with `assign_tracks`' answer for them (tracks, bends).
Packing = tuple[list[Segment], int, Bends]


def assign_tracks(
    segments: list[Segment],
    busy: set[int],
    ends: dict[tuple[int, int], tuple[int, int]] | None = None,
    extent: int | None = None,
) -> tuple[int, Bends]:
    """Give every segment (edge, index in its chain, upper column, lower column) that
    changes column a track; `busy` holds columns a dogleg must not use (frame sides);
    a dogleg's column is taken below `extent` (the drawing's breadth) while one is free;
    `ends` maps (edge, index) to the (upper, lower) items the segment joins, so runs of a
    fan-out or fan-in are stacked without crossings.

    Returns the number of tracks and, per bent segment keyed by (edge, index), its bend
    points as (column, track) pairs from top to bottom: two points, or four for a dogleg.
    """
    # part: 0 whole segment, 1 first half of a dogleg, 2 second half
    parts: list[Part] = [(edge, j, a, b, 0) for edge, j, a, b in segments if a != b]
    if not parts:
        return 0, {}
    channel = _Channel(parts)
    if ends is None or len(segments) > _GLOBAL_LIMIT:
        return _bends(*_assign(channel, busy, segments, ends, extent))
    # Stacking every overlapping pair removes more crossings, at the price of tracks:
    # worth it while the channel grows by at most a quarter. No assignment takes fewer
    # tracks than the most runs over one column, so when the stacked one is within a
    # quarter of that, the other need not be worked out.
    wide = _assign(channel, busy, segments, None, extent)
    wide_tracks = wide[0]
    least = channel.density()
    if wide_tracks <= least + max(1, least // 4):
        return _bends(*wide)
    stacked = _assign(channel, busy, segments, ends, extent)
    tracks = stacked[0]
    if wide_tracks <= tracks + max(1, tracks // 4):
        return _bends(*wide)
    return _bends(*stacked)


_GLOBAL_LIMIT = 64


class _Channel:
    """A channel's parts and what both packings of them share: each part's ends, a number
    per part that orders like (left end, right end, part) does, and the hard constraints
    as (waiting part, part it waits for) pairs."""

    __slots__ = (
        "_sorted",
        "high",
        "keys",
        "low",
        "offset",
        "parts",
        "scale",
        "wait_hard",
        "wait_hard_for",
    )

    def __init__(self, parts: list[Part]) -> None:
        self.parts = parts
        count = len(parts)
        self.low = low = [a if a < b else b for _, _, a, b, _ in parts]
        self.high = high = [b if a < b else a for _, _, a, b, _ in parts]
        self.offset = offset = min(low)
        width = max(high) - offset + 1
        self.scale = width * count
        self.keys = [
            ((first - offset) * width + last - offset) * count + s
            for s, (first, last) in enumerate(zip(low, high, strict=True))
        ]
        # A part leaving the upper layer at column a turns above any part entering the
        # lower layer there; the second half of a dogleg below its first half.
        enters: dict[int, int] = {}
        shared: dict[int, list[int]] = {}
        halves: dict[tuple[int, int], int] = {}
        for s, (edge, j, _, b, part) in enumerate(parts):
            if part == 1:
                halves[(edge, j)] = s
            elif b in enters:
                shared.setdefault(b, [enters[b]]).append(s)
            else:
                enters[b] = s
        waiting: list[int] = []
        waited: list[int] = []
        for s, (edge, j, a, _, part) in enumerate(parts):
            if part == 2:
                waiting.append(s)
                waited.append(halves[(edge, j)])
            elif a in enters:
                for other in shared.get(a) or (enters[a],):
                    if other != s:
                        waiting.append(other)
                        waited.append(s)
        self.wait_hard, self.wait_hard_for = waiting, waited
        self._sorted: list[int] | None = None

    def in_order(self) -> list[int]:
        """Every part's key, sorted (shared by both packings: do not change it)."""
        if self._sorted is None:
            self._sorted = sorted(self.keys)
        return self._sorted

    def density(self) -> int:
        """The most bent runs over one column (runs on one track never share a column)."""
        # Runs over a run's first column: those starting there or before it, less those
        # ending before it; the most is reached at some run's first column.
        lows, highs = sorted(self.low), sorted(self.high)
        most: int = max(map(sub, range(1, len(lows) + 1), map(bisect_left, repeat(highs), lows)))
        return most

    def preferences(
        self, ends: dict[tuple[int, int], tuple[int, int]] | None
    ) -> tuple[list[int], list[int]]:
        """(waiting part, part it waits for) pairs of the stacking preferences: runs
        bending the same way over overlapping spans should not cross (see the module
        docstring). Without `ends` every such pair; with them only the runs that leave the
        same item or enter the same item (a fan-out or fan-in), which keeps the chains
        short, so dense channels do not grow extra tracks."""
        parts, low, high = self.parts, self.low, self.high
        groups: list[tuple[bool, list[int]]]
        if ends is None:
            rightward = [s for s, (_, _, a, b, _) in enumerate(parts) if a < b]
            leftward = [s for s, (_, _, a, b, _) in enumerate(parts) if a > b]
            groups = [(True, rightward), (False, leftward)]
        else:
            by_end: dict[tuple[bool, int], list[int]] = {}
            for s, (edge, j, a, b, _) in enumerate(parts):
                joined = ends.get((edge, j))
                if joined is not None:
                    rightward_run = a < b
                    by_end.setdefault((rightward_run, joined[0]), []).append(s)
                    by_end.setdefault((rightward_run, -1 - joined[1]), []).append(s)
            groups = [(key[0], members) for key, members in by_end.items()]
        waiting: list[int] = []
        waited: list[int] = []
        for rightward_run, members in groups:
            if len(members) < 2:
                continue
            members.sort(key=low.__getitem__)  # stable: ties keep the parts' order
            lows = [low[s] for s in members]
            highs = [high[s] for s in members]
            # The spans that start inside s's span, further along than s starts, and end
            # beyond it (the others nest apart): o turns first rightwards, s leftwards.
            starts = map(bisect_right, repeat(lows), lows)  # past the ones starting with s
            stops = map(bisect_right, repeat(lows), highs)  # past the ones starting in s
            for s, s_high, start, stop in zip(members, highs, starts, stops, strict=True):
                if start == stop:
                    continue
                for o in members[start:stop]:
                    if high[o] > s_high:
                        if rightward_run:
                            waiting.append(s)
                            waited.append(o)
                        else:
                            waiting.append(o)
                            waited.append(s)
        return waiting, waited


def _assign(
    channel: _Channel,
    busy: set[int],
    segments: list[Segment],
    ends: dict[tuple[int, int], tuple[int, int]] | None,
    extent: int | None,
) -> tuple[int, list[Part], dict[int, int]]:
    """Left-edge packing of the channel's parts, track after track: each track takes, left
    to right and a blank cell apart, the parts whose constraints (hard and preferred) are
    met; failing any, those whose hard constraints are; failing those (a cycle of hard
    constraints), the first part in left-end order gets a dogleg through a column that is
    not in `busy` nor an end of `segments`, and packing goes on (on copies: the caller's
    channel and `busy` are kept). Returns the tracks taken, the parts (with the doglegs'
    halves) and each part's track.

    The parts free to go are kept in left-end order (`free`: hard constraints met, `ready`:
    all), so packing a track only bisects a list, and a placed part releases the ones
    waiting on it: a channel costs about its parts and constraints times a logarithm."""
    placed: dict[int, int] = {}
    track = 0
    copied = False
    while True:
        parts, keys, high = channel.parts, channel.keys, channel.high
        count, offset, scale = len(parts), channel.offset, channel.scale
        waiting_above = [0] * count
        waiting_prefer = [0] * count
        hard_watchers: dict[int, list[int]] = {}
        prefer_watchers: dict[int, list[int]] = {}
        for waiting, waited, counts, watchers in (
            (channel.wait_hard, channel.wait_hard_for, waiting_above, hard_watchers),
            (*channel.preferences(ends), waiting_prefer, prefer_watchers),
        ):
            for s, p in zip(waiting, waited, strict=True):
                if placed and (s in placed or p in placed):
                    continue
                counts[s] += 1
                listed = watchers.get(p)
                if listed is None:
                    watchers[p] = [s]
                else:
                    listed.append(s)
        if placed:
            free = [keys[s] for s in range(count) if not waiting_above[s] and s not in placed]
            free.sort()
        elif hard_watchers:
            free = [key for key in channel.in_order() if not waiting_above[key % count]]
        else:
            free = channel.in_order()[:]
        if prefer_watchers:
            ready = [key for key in free if not waiting_prefer[key % count]]
        else:
            ready = free[:]
        left = count - len(placed)
        while left:
            chosen = ready or free
            if not chosen:
                break
            taken: list[int] = []
            end = len(chosen)
            index = 0
            bound = 0  # the least key of a part that starts past the last one taken + 1
            while True:
                index = bisect_left(chosen, bound, index)
                if index >= end:
                    break
                s = chosen[index] % count
                taken.append(s)
                bound = (high[s] + 2 - offset) * scale
                index += 1
            for s in taken:
                placed[s] = track
                key = keys[s]
                del free[bisect_left(free, key)]
                if not waiting_prefer[s]:
                    del ready[bisect_left(ready, key)]
            for p in taken:
                for s in hard_watchers.get(p, ()):
                    waiting_above[s] -= 1
                    if not waiting_above[s] and s not in placed:
                        insort(free, keys[s])
                        if not waiting_prefer[s]:
                            insort(ready, keys[s])
                for s in prefer_watchers.get(p, ()):
                    waiting_prefer[s] -= 1
                    if not waiting_prefer[s] and not waiting_above[s] and s not in placed:
                        insort(ready, keys[s])
            left -= len(taken)
            track += 1
        if not left:
            break
        # Every part left waits on another: break the cycle at the first whole one.
        in_order = [key % count for key in sorted(keys) if key % count not in placed]
        whole = [s for s in in_order if parts[s][4] == 0]
        if not whole:  # cannot happen: halves of a dogleg are ordered
            raise AssertionError("a cycle of hard constraints without a whole segment")
        parts = parts[:]
        if not copied:
            busy = busy | {a for _, _, a, _ in segments} | {b for _, _, _, b in segments}
            copied = True
        _dogleg(parts, whole[0], busy, extent)
        channel = _Channel(parts)
    return track, channel.parts, placed


def _bends(tracks: int, parts: list[Part], placed: dict[int, int]) -> tuple[int, Bends]:
    """`assign_tracks`' answer from a packing: each segment's bend points."""
    bends: Bends = {}
    for s, (edge, j, a, b, _) in enumerate(parts):
        t = placed[s]
        points = bends.get((edge, j))
        if points is None:
            bends[(edge, j)] = [(a, t), (b, t)]
        else:
            points += ((a, t), (b, t))
    return tracks, bends


def _dogleg(
    parts: list[tuple[int, int, int, int, int]], index: int, busy: set[int], extent: int | None
) -> None:
    edge, j, a, b, _ = parts[index]
    c = _free_column(b, busy, extent)
    busy.add(c)
    parts[index] = (edge, j, a, c, 1)
    parts.append((edge, j, c, b, 2))


def _free_column(b: int, busy: set[int], extent: int | None) -> int:
    """The free column nearest `b` (right first) inside the drawing's breadth `extent`;
    only when every column inside is taken, the first free one past it (the router then
    widens the drawing for it)."""
    reach = None if extent is None else max(b, extent - 1 - b)
    step = 1
    while reach is None or step <= reach:
        for c in (b + step, b - step):
            if c >= 0 and (extent is None or c < extent) and c not in busy:
                return c
        step += 1
    assert extent is not None
    c = extent
    while c in busy:
        c += 1
    return c


def channel_crossings(segments: list[Segment], tracks: int, bends: Bends) -> int:
    """Crossings of a channel's routes (`assign_tracks`' answer for `segments`): a horizontal
    run on a track through another edge's vertical run (tracks from -1, above them all, to
    `tracks`, below them all).

    A segment's run down from the upper layer is crossed by the runs on the tracks above its
    first bend, its run into the lower layer by those below its last, a straight segment's by
    every run over its column, and a dogleg's middle run by those between its two tracks. So
    the runs of each kind are swept track by track into a sorted list of columns, and each
    horizontal run counts the columns strictly inside it by bisection. (An edge's own
    vertical runs never cross its horizontal ones: they meet at its bends.)"""
    lows: list[list[int]] = [[] for _ in range(tracks)]  # per track: its runs' ends
    highs: list[list[int]] = [[] for _ in range(tracks)]
    downs: list[list[int]] = [[] for _ in range(tracks)]  # per first track: upper columns
    ups: list[list[int]] = [[] for _ in range(tracks)]  # per last track: lower columns
    middles: list[tuple[int, int, int]] = []  # (column, upper track, lower track)
    for points in bends.values():  # every bent segment: its upper column is its first point
        if len(points) == 2:
            (a, t), (b, _) = points
            downs[t].append(a)
            ups[t].append(b)
            if a < b:
                lows[t].append(a)
                highs[t].append(b)
            else:
                lows[t].append(b)
                highs[t].append(a)
        else:
            (a, t), (c, _), _, (b, u) = points
            downs[t].append(a)
            ups[u].append(b)
            middles.append((c, t, u))
            for track, one, other in ((t, a, c), (u, c, b)):
                lows[track].append(min(one, other))
                highs[track].append(max(one, other))
    total = 0
    straight = sorted(a for _, _, a, b in segments if a == b)
    if straight:
        for track_lows, track_highs in zip(lows, highs, strict=True):
            total += sum(map(bisect_left, repeat(straight), track_highs))
            total -= sum(map(bisect_right, repeat(straight), track_lows))
    for order, placed in ((range(tracks - 1, -1, -1), downs), (range(tracks), ups)):
        # runs down to the tracks below each one, then runs up from the tracks above it
        columns: list[int] = []
        for track in order:
            if columns:
                total += sum(map(bisect_left, repeat(columns), highs[track]))
                total -= sum(map(bisect_right, repeat(columns), lows[track]))
            columns += placed[track]
            columns.sort()
    for column, top, bottom in middles:
        for track in range(top + 1, bottom):
            for low, high in zip(lows[track], highs[track], strict=True):
                if low < column < high:
                    total += 1
    return total
