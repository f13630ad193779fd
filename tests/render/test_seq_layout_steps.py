"""The layout's column searches (`_too_close`, `_label_col`) against their plain definitions.

Both search the sorted lifeline columns by bisection; the plain forms here walk every
lifeline, as the definitions in their docstrings say.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.render.sequence_layout import LIFELINE_CLEARANCE, _label_col, _too_close

lifelines = st.lists(st.integers(-50, 200), max_size=12, unique=True).map(sorted)
SETTINGS = settings(max_examples=300, deadline=None)


def _plain_too_close(col: int, lines: list[int], box_sides: set[int]) -> bool:
    if any(-LIFELINE_CLEARANCE < col - line < LIFELINE_CLEARANCE for line in lines):
        return True
    return any(abs(col - side) < 2 for side in box_sides)


def _plain_label_col(start: int, width: int, lines: list[int]) -> int:
    col = start
    while any(col <= line <= col + width - 1 for line in lines):
        col = min(line for line in lines if col <= line <= col + width - 1) + 1
    return col


@SETTINGS
@given(st.integers(-60, 210), lifelines, st.sets(st.integers(-60, 210), max_size=4))
def test_too_close_is_any_lifeline_or_box_side_near(
    col: int, lines: list[int], sides: set[int]
) -> None:
    assert _too_close(col, lines, sides) == _plain_too_close(col, lines, sides)


@SETTINGS
@given(st.integers(-60, 210), st.integers(0, 40), lifelines)
def test_label_col_is_the_first_column_clear_of_lifelines(
    start: int, width: int, lines: list[int]
) -> None:
    assert _label_col(start, width, lines) == _plain_label_col(start, width, lines)
