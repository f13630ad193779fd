"""The ordering sweeps' fast paths give exactly what the plain code gives: a layer sorted
from a plan made once (`_sort_planned`) against `_sort_layer`, and the one-pass crossing
count (`_crossings_small`) against `_pair_count`, over random layered graphs with fans,
parallel edges and items without neighbours."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.render.flowchart.order import (
    _crossings_small,
    _index,
    _pair_count,
    _plans,
    _sort_layer,
    _sort_planned,
)


@st.composite
def layered(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """(layers in a shuffled order, up, down) of a random graph whose edges join
    consecutive layers; some items have no neighbour on a side, some share several edges."""
    sizes = draw(st.lists(st.integers(1, 9), min_size=2, max_size=6))
    layers: list[list[int]] = []
    item = 0
    for size in sizes:
        layers.append(list(range(item, item + size)))
        item += size
    up: list[list[int]] = [[] for _ in range(item)]
    down: list[list[int]] = [[] for _ in range(item)]
    for upper, lower in zip(layers, layers[1:], strict=False):
        for a in upper:
            for _ in range(draw(st.integers(0, 3))):
                b = draw(st.sampled_from(lower))
                down[a].append(b)
                up[b].append(a)
    shuffled = [draw(st.permutations(layer)) for layer in layers]
    return shuffled, up, down


@settings(max_examples=150, deadline=None)
@given(layered(), st.booleans())
def test_planned_sort_is_the_plain_sort(
    graph: tuple[list[list[int]], list[list[int]], list[list[int]]], downward: bool
) -> None:
    layers, up, down = graph
    neighbours = up if downward else down
    plans = _plans(layers, neighbours)
    pos = [0] * sum(map(len, layers))
    _index(layers, pos)
    for index, layer in enumerate(layers):
        other = index - 1 if downward else index + 1
        if not 0 <= other < len(layers):
            continue
        plain, plain_pos = list(layer), list(pos)
        _sort_layer(plain, neighbours, plain_pos, len(layers[other]), [()] * len(pos), None)
        for p, item in enumerate(plain):
            plain_pos[item] = p
        fast, fast_pos = list(layer), list(pos)
        _sort_planned(fast, plans[index], fast_pos, len(layers[other]))
        assert fast == plain
        assert fast_pos == plain_pos


@settings(max_examples=150, deadline=None)
@given(layered())
def test_one_pass_crossings_are_the_pair_counts(
    graph: tuple[list[list[int]], list[list[int]], list[list[int]]],
) -> None:
    layers, _up, down = graph
    pos = [0] * sum(map(len, layers))
    _index(layers, pos)
    for index in range(len(layers) - 1):
        assert _crossings_small(layers[index], down, pos) == _pair_count(layers, index, down, pos)
