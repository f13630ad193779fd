"""Unknown keys inside ops: ignored as the contract says, and named (decision 22)."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.ops import (
    DiagramOp,
    FlowAddNode,
    WalkthroughOp,
    convert_diagram_ops,
    convert_walkthrough_ops,
    ignored_fields,
)

BLOCK = {
    "type": "seq_add_block",
    "block_id": "b",
    "kind": "alt",
    "sections": [{"section_id": "s", "message_ids": ["m"], "hedaer": "x"}],
    "colour": 1,
}


def test_extras_decode_as_if_absent_and_are_listed_by_path() -> None:
    raw = [
        {"type": "flow_add_node", "node_id": "n", "label": "x", "colour": "red"},
        {"type": "flow_remove_node", "node_id": "n"},
        BLOCK,
    ]
    ops = convert_diagram_ops(raw)
    assert ops[0] == FlowAddNode(node_id="n", label="x")
    assert ignored_fields(raw, DiagramOp) == [
        "ops[0].colour",
        "ops[2].sections[0].hedaer",
        "ops[2].colour",
    ]
    walk = [{"type": "add_node", "node_id": "a", "title": "A", "priority": 1}]
    assert convert_walkthrough_ops(walk)
    assert ignored_fields(walk, WalkthroughOp) == ["ops[0].priority"]


def test_nothing_is_listed_for_what_does_not_decode_or_for_clean_ops() -> None:
    assert ignored_fields(None, DiagramOp) == []
    assert ignored_fields("ops", DiagramOp) == []
    assert ignored_fields([{"type": "nope", "x": 1}, 3], DiagramOp) == []
    assert ignored_fields([{"type": "flow_remove_node", "node_id": "n"}], DiagramOp) == []


names = st.text(min_size=1, max_size=12)
values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))


@settings(max_examples=60, deadline=None)
@given(extras=st.dictionaries(names, values, max_size=4))
def test_any_extra_keys_change_nothing_and_are_each_named(extras: dict[str, object]) -> None:
    base = {"type": "flow_add_node", "node_id": "n", "label": "x", "shape": "round"}
    extra = {k: v for k, v in extras.items() if k not in base}
    ops = convert_diagram_ops([{**base, **extra}])
    assert ops == convert_diagram_ops([base])
    assert ignored_fields([{**base, **extra}], DiagramOp) == [f"ops[0].{k}" for k in extra]
    assert msgspec.to_builtins(ops[0])["label"] == "x"


def _reference(value: object, info: object, path: str) -> list[str]:
    """The walk `ignored_fields` made before its member and field tables were kept per
    type (the oracle: same paths, same order)."""
    import msgspec.inspect as mi

    found: list[str] = []
    if isinstance(info, mi.ListType | mi.VarTupleType) and isinstance(value, list):
        for index, item in enumerate(value):
            found += _reference(item, info.item_type, f"{path}[{index}]")
    elif isinstance(info, mi.UnionType) and isinstance(value, dict):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        chosen = next(
            (s for s in structs if s.tag_field is not None and value.get(s.tag_field) == s.tag),
            None,
        )
        if chosen is None:
            untagged = [t for t in structs if t.tag_field is None]
            chosen = untagged[0] if len(untagged) == 1 else None
        if chosen is not None:
            found += _reference(value, chosen, path)
    elif isinstance(info, mi.StructType) and isinstance(value, dict):
        known = {field.encode_name: field for field in info.fields}
        for key, item in value.items():
            if key == info.tag_field:
                continue
            field = known.get(key)
            if field is None:
                found.append(f"{path}.{key}")
            else:
                found += _reference(item, field.type, f"{path}.{key}")
    return found


_OP_TYPES = ["flow_add_node", "seq_add_block", "state_add_state", "add_node", "nope"]
_KEYS = ["type", "node_id", "label", "sections", "section_id", "message_ids", "colour", "x"]
_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.sampled_from(_OP_TYPES)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(_KEYS), st.text(max_size=6)), inner, max_size=5),
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(raw=st.one_of(_json, st.lists(_json, max_size=4)))
def test_the_paths_named_are_those_of_the_full_walk(raw: object) -> None:
    """Hostile JSON (any nesting, unhashable or wrong-typed tags): the same paths, in the
    same order, as the walk that looked every member and field up afresh."""
    import msgspec.inspect as mi

    for union in (DiagramOp, WalkthroughOp):
        expected = _reference(raw, mi.type_info(list[union]), "ops")  # type: ignore[valid-type]
        assert ignored_fields(raw, union) == expected
