"""Inline conflict markers: resolving by keeping one's own version gives it back exactly,
and a text is unresolved exactly while a marker line is left."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.ui.conflict_marks import mark_conflicts, unresolved

_LINE = st.text(alphabet="ab -[]>x%", max_size=6).filter(lambda s: not s.lstrip().startswith("%%"))
_LINES = st.lists(_LINE, max_size=8)


@settings(max_examples=60, deadline=None)
@given(yours=_LINES, theirs=_LINES)
def test_keeping_yours_gives_yours_back_and_markers_show_while_unresolved(
    yours: list[str], theirs: list[str]
) -> None:
    text_yours = "".join(f"{line}\n" for line in yours)
    marked, count = mark_conflicts(text_yours, "".join(f"{line}\n" for line in theirs))
    kept = [line for line in marked.splitlines() if not line.lstrip().startswith("%%")]
    assert kept == yours
    assert (count > 0) == (yours != theirs)
    assert bool(unresolved(marked)) == (count > 0)
    assert len(unresolved(marked)) == 3 * count
    assert not unresolved(text_yours)
