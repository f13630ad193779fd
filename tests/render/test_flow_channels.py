"""Channel routing: vertical runs of different edges never overlap inside a channel."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.render.flowchart.channels import assign_tracks, channel_crossings


def _vertical_cells(
    segments: list[tuple[int, int, int, int]],
    bends: dict[tuple[int, int], list[tuple[int, int]]],
    tracks: int,
) -> dict[tuple[int, int], set[int]]:
    """(column, row) -> edges with a vertical run there; row -1 is the upper layer's edge,
    row `tracks` the lower one's."""
    cells: dict[tuple[int, int], set[int]] = {}
    for edge, j, a, b in segments:
        points = [(a, -1), *bends.get((edge, j), []), (b, tracks)]
        for (c0, r0), (c1, r1) in zip(points, points[1:], strict=False):
            if c0 == c1:
                for row in range(min(r0, r1), max(r0, r1) + 1):
                    cells.setdefault((c0, row), set()).add(edge)
    return cells


def test_swapping_columns_get_a_dogleg() -> None:
    segments = [(0, 0, 2, 6), (1, 0, 6, 2)]
    tracks, bends = assign_tracks(segments, set())
    assert len(bends[(0, 0)]) + len(bends[(1, 0)]) == 6  # one of them has four bend points
    cells = _vertical_cells(segments, bends, tracks)
    assert all(len(owners) == 1 for owners in cells.values())


def test_a_dogleg_stays_inside_the_drawing_while_a_column_there_is_free() -> None:
    """The nearest free column to the lower end is past the drawing's last column (8); the
    one on the other side is free, so the dogleg takes it instead of leaving the canvas."""
    segments = [(0, 0, 5, 8), (1, 0, 8, 5)]
    _, bends = assign_tracks(segments, set(), None, 9)
    middles = [points[1][0] for points in bends.values() if len(points) == 4]
    assert middles == [7]
    busy = set(range(9)) - {5, 8}  # every other column inside is a frame side
    _, bends = assign_tracks(segments, busy, None, 9)
    assert [points[1][0] for points in bends.values() if len(points) == 4] == [9]


def test_straight_segments_need_no_track() -> None:
    assert assign_tracks([(0, 0, 3, 3), (1, 0, 7, 7)], set()) == (0, {})


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True),
    st.randoms(use_true_random=False),
)
def test_vertical_runs_never_overlap(uppers: list[int], rnd: random.Random) -> None:
    lowers = rnd.sample(range(0, 14), len(uppers))
    segments = [(edge, 0, a, b) for edge, (a, b) in enumerate(zip(uppers, lowers, strict=True))]
    tracks, bends = assign_tracks(segments, set())
    for owners in _vertical_cells(segments, bends, tracks).values():
        assert len(owners) == 1
    # Runs sharing a track keep a blank cell between them.
    by_track: dict[int, list[tuple[int, int]]] = {}
    for points in bends.values():
        for (c0, t0), (c1, t1) in zip(points, points[1:], strict=False):
            if t0 == t1:
                by_track.setdefault(t0, []).append((min(c0, c1), max(c0, c1)))
    for runs in by_track.values():
        runs.sort()
        for (_, end), (start, _) in zip(runs, runs[1:], strict=False):
            assert start > end + 1


def _crossings_cell_by_cell(
    segments: list[tuple[int, int, int, int]],
    tracks: int,
    bends: dict[tuple[int, int], list[tuple[int, int]]],
) -> int:
    """Every (horizontal run, vertical run of another edge) pair that cross, checked one by one."""
    horizontal, vertical = [], []
    for edge, j, a, b in segments:
        points = [(a, -1), *bends.get((edge, j), []), (b, tracks)]
        for (c0, t0), (c1, t1) in zip(points, points[1:], strict=False):
            if t0 == t1 and c0 != c1:
                horizontal.append((edge, t0, min(c0, c1), max(c0, c1)))
            elif c0 == c1 and t0 != t1:
                vertical.append((edge, c0, min(t0, t1), max(t0, t1)))
    return sum(
        1
        for h_edge, track, c0, c1 in horizontal
        for v_edge, col, t0, t1 in vertical
        if h_edge != v_edge and c0 < col < c1 and t0 < track < t1
    )


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=1, max_size=20, unique=True),
    st.randoms(use_true_random=False),
    st.booleans(),
)
def test_channel_crossings_counts_every_crossing_of_the_tracks(
    uppers: list[int], rnd: random.Random, fans: bool
) -> None:
    """The sweep in `channel_crossings` counts what a pair-by-pair check of the routes
    finds, doglegs and straight segments included."""
    lowers = [rnd.choice([rnd.randrange(32), a, rnd.choice(uppers)]) for a in uppers]
    segments = [(edge, 0, a, b) for edge, (a, b) in enumerate(zip(uppers, lowers, strict=True))]
    ends = {(edge, 0): (rnd.randrange(3), rnd.randrange(3)) for edge in range(len(uppers))}
    tracks, bends = assign_tracks(segments, set(), ends if fans else None)
    assert channel_crossings(segments, tracks, bends) == _crossings_cell_by_cell(
        segments, tracks, bends
    )
