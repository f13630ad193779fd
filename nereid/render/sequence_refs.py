"""The refs a sequence drawing keys its span map by: one per object, kept between renders.

A drawing owns a ref per participant, message, frame, section, note and activation (about
350 at 200 messages), and making one (`make_ref`: its text, the str, its parts) costs about
as much as laying its message out. A diagram being edited is drawn again after every change
with nearly the same ids, so each (diagram, category) keeps its refs in a `RefTable`, for
the last few diagrams drawn. Refs are immutable and `make_ref` is pure, so the tables are a
memo (bounded like the row painter's shapes): they never change what is drawn, only how
often the same ref is made.
"""

from __future__ import annotations

from functools import lru_cache

from nereid.model.refs import ObjectRef, make_ref

__all__ = ["RefTable", "ref_table"]

#: A table past this many refs starts again (a diagram holds far fewer objects of a kind).
_REFS_KEPT = 1 << 16
#: Tables kept: six categories for each of the last few diagrams drawn.
_TABLES_KEPT = 6 * 8


class RefTable:
    """The refs of one diagram's objects of one category, by object id (`refs`: read it
    directly in a hot loop, falling back to `ref` for an id it lacks)."""

    __slots__ = ("category", "diagram_id", "refs")

    def __init__(self, diagram_id: str, category: tuple[str, ...]) -> None:
        self.diagram_id = diagram_id
        self.category = category
        self.refs: dict[str, ObjectRef] = {}

    def ref(self, object_id: str) -> ObjectRef:
        """`make_ref(diagram_id, category, object_id)`, made once."""
        refs = self.refs
        found = refs.get(object_id)
        if found is None:
            if len(refs) >= _REFS_KEPT:
                refs.clear()
            found = refs[object_id] = make_ref(self.diagram_id, self.category, object_id)
        return found


@lru_cache(maxsize=_TABLES_KEPT)
def ref_table(diagram_id: str, category: tuple[str, ...]) -> RefTable:
    """The table of `diagram_id`'s refs of `category` (the same one while it is kept)."""
    return RefTable(diagram_id, category)
