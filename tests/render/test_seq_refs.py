"""The sequence renderers' ref tables: the memo gives the ref `make_ref` makes, parts and all."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.model.refs import CATEGORIES, SEQ_MESSAGE, ObjectRef, make_ref
from nereid.render import sequence_refs
from nereid.render.sequence_refs import RefTable, ref_table

ids = st.text(st.characters(blacklist_characters="/", blacklist_categories=("Cs",)), min_size=1)


@settings(max_examples=100)
@given(st.lists(st.tuples(ids, st.sampled_from(list(CATEGORIES)), ids), max_size=20))
def test_table_refs_are_the_refs_make_ref_makes(
    parts: list[tuple[str, tuple[str, ...], str]],
) -> None:
    for diagram_id, category, object_id in parts:
        for _ in range(2):  # made, then found
            ref = ref_table(diagram_id, category).ref(object_id)
            made = make_ref(diagram_id, category, object_id)
            assert type(ref) is ObjectRef
            assert ref == made and str(ref) == str(made)
            assert (ref.diagram_id, ref.category, ref.object_id) == (
                diagram_id,
                category,
                object_id,
            )


def test_a_full_table_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sequence_refs, "_REFS_KEPT", 3)
    table = RefTable("d", SEQ_MESSAGE)
    for n in range(10):
        assert table.ref(f"m{n}") == make_ref("d", SEQ_MESSAGE, f"m{n}")
        assert len(table.refs) <= 3
