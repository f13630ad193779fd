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

from bisect import bisect_right

__all__ = ["assign_tracks"]


def assign_tracks(
    segments: list[tuple[int, int, int, int]],
    busy: set[int],
    ends: dict[tuple[int, int], tuple[int, int]] | None = None,
) -> tuple[int, dict[tuple[int, int], list[tuple[int, int]]]]:
    """Give every segment (edge, index in its chain, upper column, lower column) that
    changes column a track; `busy` holds columns a dogleg must not use (frame sides);
    `ends` maps (edge, index) to the (upper, lower) items the segment joins, so runs of a
    fan-out or fan-in are stacked without crossings.

    Returns the number of tracks and, per bent segment keyed by (edge, index), its bend
    points as (column, track) pairs from top to bottom: two points, or four for a dogleg.
    """
    if not any(a != b for _, _, a, b in segments):
        return 0, {}
    if ends is None or len(segments) > _GLOBAL_LIMIT:
        return _assign(segments, busy, ends)
    # Stacking every overlapping pair removes more crossings, at the price of tracks:
    # worth it while the channel grows by at most a quarter. No assignment takes fewer
    # tracks than the most runs over one column, so when the stacked one is within a
    # quarter of that, the other need not be worked out.
    wide_tracks, wide_bends = _assign(segments, busy, None)
    least = _density(segments)
    if wide_tracks <= least + max(1, least // 4):
        return wide_tracks, wide_bends
    tracks, bends = _assign(segments, busy, ends)
    if wide_tracks <= tracks + max(1, tracks // 4):
        return wide_tracks, wide_bends
    return tracks, bends


def _density(segments: list[tuple[int, int, int, int]]) -> int:
    """The most bent runs over one column (runs on one track never share a column)."""
    events: list[tuple[int, int]] = []
    for _, _, a, b in segments:
        if a != b:
            events.append((min(a, b), 0))  # opens before any run closing there closes
            events.append((max(a, b), 1))
    events.sort()
    most = depth = 0
    for _, closing in events:
        if closing:
            depth -= 1
        else:
            depth += 1
            if depth > most:
                most = depth
    return most


_GLOBAL_LIMIT = 64


def _assign(
    segments: list[tuple[int, int, int, int]],
    busy: set[int],
    ends: dict[tuple[int, int], tuple[int, int]] | None,
) -> tuple[int, dict[tuple[int, int], list[tuple[int, int]]]]:
    # part: 0 whole segment, 1 first half of a dogleg, 2 second half
    parts: list[tuple[int, int, int, int, int]] = [
        (edge, j, a, b, 0) for edge, j, a, b in segments if a != b
    ]
    busy = busy | {a for _, _, a, _ in segments} | {b for _, _, _, b in segments}
    placed: dict[int, int] = {}
    track = 0
    state = _Pending(parts, placed, ends)
    while state.remaining:
        taken = state.fill(use_preferences=True)
        if not taken:
            taken = state.fill(use_preferences=False)
        if not taken:
            whole = [s for s in state.remaining if parts[s][4] == 0]
            if not whole:  # cannot happen: halves of a dogleg are ordered
                taken = [state.remaining[0]]
            else:
                _dogleg(parts, whole[0], busy)
                state = _Pending(parts, placed, ends)
                continue
        for s in taken:
            placed[s] = track
        state.placed_now(taken)
        track += 1
    bends: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for s, (edge, j, a, b, _) in enumerate(parts):
        bends.setdefault((edge, j), []).extend(((a, placed[s]), (b, placed[s])))
    return track, bends


class _Pending:
    """The parts still without a track, in left-end order, with how many of the parts that
    must (or should) take a higher track are still unplaced: left-edge packing of a track
    then skips, by bisection, every part that overlaps the last one taken, and checks a
    part's constraints in constant time, so a channel costs about its parts times tracks
    over the parts per track instead of parts times tracks."""

    __slots__ = (
        "_high",
        "_lows",
        "_taken_at",
        "_waiting_above",
        "_waiting_prefer",
        "_watchers",
        "remaining",
    )

    def __init__(
        self,
        parts: list[tuple[int, int, int, int, int]],
        placed: dict[int, int],
        ends: dict[tuple[int, int], tuple[int, int]] | None,
    ) -> None:
        above = _vertical_constraints(parts)
        prefer = _stacking_preferences(parts, ends)
        count = len(parts)
        low = [a if a < b else b for _, _, a, b, _ in parts]
        self._high = high = [b if a < b else a for _, _, a, b, _ in parts]
        order = [(low[s], high[s], s) for s in range(count) if s not in placed]
        order.sort()
        self.remaining = [s for _, _, s in order]
        self._lows = [first for first, _, _ in order]
        self._taken_at: list[int] = []
        # watchers[p]: (part, which) for every constraint of `part` naming p (0 above, 1 prefer)
        watchers: list[list[tuple[int, int]]] = [[] for _ in parts]
        self._watchers = watchers
        self._waiting_above = waiting_above = [0] * count
        self._waiting_prefer = waiting_prefer = [0] * count
        for which, constraints, waiting in ((0, above, waiting_above), (1, prefer, waiting_prefer)):
            for s, group in enumerate(constraints):
                if not group:
                    continue
                if placed:
                    group = [p for p in group if p not in placed]
                waiting[s] += len(group)
                entry = (s, which)
                for p in group:
                    watchers[p].append(entry)

    def fill(self, *, use_preferences: bool) -> list[int]:
        """Left-edge packing of one track: parts whose constraints (and preferences, when
        asked) are met, left to right, a blank cell apart."""
        remaining, lows, high = self.remaining, self._lows, self._high
        waiting_above, waiting_prefer = self._waiting_above, self._waiting_prefer
        taken: list[int] = []
        self._taken_at = []
        count = len(remaining)
        index = 0
        last_end = -(1 << 30)
        while True:
            index = bisect_right(lows, last_end + 1, index)
            if index >= count:
                return taken
            s = remaining[index]
            if not (waiting_above[s] or (use_preferences and waiting_prefer[s])):
                taken.append(s)
                self._taken_at.append(index)
                last_end = high[s]
            index += 1

    def placed_now(self, taken: list[int]) -> None:
        """`taken` got the track just filled: drop them, release what waited on them."""
        for p in taken:
            for s, which in self._watchers[p]:
                if which:
                    self._waiting_prefer[s] -= 1
                else:
                    self._waiting_above[s] -= 1
        # Few parts per track, far apart: deleting them in place (a memmove each) beats
        # rebuilding the lists.
        if len(self._taken_at) != len(taken):  # not what the last fill() took
            self._taken_at = sorted(self.remaining.index(s) for s in taken)
        for index in reversed(self._taken_at):
            del self.remaining[index]
            del self._lows[index]
        self._taken_at = []


def _stacking_preferences(
    parts: list[tuple[int, int, int, int, int]],
    ends: dict[tuple[int, int], tuple[int, int]] | None,
) -> list[list[int]]:
    """For each part, the parts that should take a higher track so the two do not cross:
    runs bending the same way over overlapping spans that leave the same item or enter the
    same item (a fan-out or fan-in; see the module docstring). Limiting this to shared ends
    keeps the chains short, so dense channels do not grow extra tracks."""
    prefer: list[list[int]] = [[] for _ in parts]
    groups: dict[tuple[int, int], list[int]] = {}
    for s, (edge, j, a, b, _) in enumerate(parts):
        if a == b:
            continue
        direction = 1 if b > a else -1
        if ends is None:
            groups.setdefault((direction, 0), []).append(s)
        elif (edge, j) in ends:
            upper, lower = ends[(edge, j)]
            groups.setdefault((direction, upper), []).append(s)
            groups.setdefault((direction, -1 - lower), []).append(s)
    for (direction, _), members in groups.items():
        if len(members) < 2:
            continue
        # (low end, high end, part), by low end (stable: ties keep the parts' order)
        spans = [
            (a, b, s) if a < b else (b, a, s) for s in members for _, _, a, b, _ in (parts[s],)
        ]
        spans.sort(key=_low_end)
        lows = [span[0] for span in spans]
        for x, (s_low, s_high, s) in enumerate(spans):
            # The spans that start inside s's span, further along than s starts, and end
            # beyond it (the others nest apart): o turns first rightwards, s leftwards.
            start = bisect_right(lows, s_low, x + 1)
            stop = bisect_right(lows, s_high, start)
            if start == stop:
                continue
            later = [o for _, o_high, o in spans[start:stop] if o_high > s_high]
            if direction > 0:
                prefer[s].extend(later)
            else:
                for o in later:
                    prefer[o].append(s)
    return prefer


def _low_end(span: tuple[int, int, int]) -> int:
    return span[0]


def _vertical_constraints(parts: list[tuple[int, int, int, int, int]]) -> list[list[int]]:
    """For each part, the parts that must take a higher track."""
    enters_at: dict[int, list[int]] = {}
    for index, (_, _, _, b, part) in enumerate(parts):
        if part != 1:
            enters_at.setdefault(b, []).append(index)
    firsts = {(p[0], p[1]): k for k, p in enumerate(parts) if p[4] == 1}
    above: list[list[int]] = [[] for _ in parts]
    for index, (edge, j, a, _, part) in enumerate(parts):
        if part != 2:
            for other in enters_at.get(a, ()):
                if other != index:
                    above[other].append(index)
        else:
            above[index].append(firsts[(edge, j)])
    return above


def _dogleg(parts: list[tuple[int, int, int, int, int]], index: int, busy: set[int]) -> None:
    edge, j, a, b, _ = parts[index]
    step = 1
    while True:
        for c in (b + step, b - step):
            if c >= 0 and c not in busy:
                busy.add(c)
                parts[index] = (edge, j, a, c, 1)
                parts.append((edge, j, c, b, 2))
                return
        step += 1
