"""Walkthrough ops, their errors, net deltas, revisions and diff (mcp-tools.md §8.6, §16)."""

from __future__ import annotations

from typing import Any

import pytest

from nereid.errors import NereidError
from nereid.model import Walkthrough, WalkthroughEdge, WalkthroughNode, parse_ref
from nereid.ops import (
    WalkthroughState,
    apply_walkthrough_ops,
    convert_walkthrough_ops,
)

W = "w:wt:tour"


def tour() -> Walkthrough:
    """`wt:tour` of mcp-tools.md §0 at rev 1."""
    return Walkthrough(
        walkthrough_id="wt:tour",
        title="Login tour",
        rev=1,
        nodes=(
            WalkthroughNode(node_id="wn:1", title="Entry",
                            refs=(parse_ref("d:login/seq/message/m:0001"),)),
            WalkthroughNode(node_id="wn:2", title="Token check",
                            refs=(parse_ref("d:auth/flow/node/n:check"),)),
        ),
        edges=(WalkthroughEdge(from_node_id="wn:1", to_node_id="wn:2", kind="next"),),
    )  # fmt: skip


def apply(walkthrough: Walkthrough, *ops: dict[str, Any]) -> tuple[Walkthrough, dict]:
    new, delta = apply_walkthrough_ops(walkthrough, convert_walkthrough_ops(list(ops)))
    return new, delta.to_json()


def refuse(walkthrough: Walkthrough, *ops: dict[str, Any]) -> NereidError:
    with pytest.raises(NereidError) as caught:
        apply(walkthrough, *ops)
    return caught.value


def test_contract_example_and_diff() -> None:
    state = WalkthroughState(walkthrough=tour())
    ops = convert_walkthrough_ops([
        {"type": "set_title", "title": "Login tour (v2)"},
        {"type": "add_node", "node_id": "wn:3", "title": "Issue token",
         "refs": ["d:login/seq/message/m:0004"], "tags": ["happy-path"]},
        {"type": "add_edge", "from_node_id": "wn:2", "to_node_id": "wn:3", "kind": "next"},
    ])  # fmt: skip
    state, outcome = state.apply(1, ops)
    assert outcome.to_json() == {
        "new_rev": 2,
        "applied": 3,
        "delta": {"added": [f"{W}/edge/wn:2/wn:3/next", f"{W}/node/wn:3"], "removed": [],
                  "updated": [f"{W}/meta"]},
    }  # fmt: skip
    assert state.rev == 2 and state.walkthrough.rev == 2
    assert state.diff(1).to_json() == {
        "from_rev": 1,
        "to_rev": 2,
        "changes": [{"kind": "added", "refs": [f"{W}/edge/wn:2/wn:3/next", f"{W}/node/wn:3"]},
                    {"kind": "updated", "refs": [f"{W}/meta"]}],
    }  # fmt: skip
    # Second contract example: update wn:1, remove wn:2 (cascading both its edges).
    state, outcome = state.apply(2, convert_walkthrough_ops([
        {"type": "update_node", "node_id": "wn:1", "body_md": "Client posts credentials.",
         "tags": ["entry"]},
        {"type": "remove_node", "node_id": "wn:2"},
    ]))  # fmt: skip
    assert outcome.to_json()["delta"] == {
        "added": [],
        "removed": [f"{W}/edge/wn:1/wn:2/next", f"{W}/edge/wn:2/wn:3/next", f"{W}/node/wn:2"],
        "updated": [f"{W}/node/wn:1"],
    }


def test_conflict_and_empty_batch() -> None:
    state = WalkthroughState(walkthrough=tour())
    with pytest.raises(NereidError) as caught:
        state.apply(0, [])
    error = caught.value
    assert (error.category, error.message) == ("conflict", "conflict: stale base_rev")
    assert {k: v for k, v in error.data.items() if k != "ast_digest"} == {
        "base_rev": 0, "current_rev": 1, "snapshot_tool": "walkthrough.stat",
        "digest": {"rev": 1, "counts": {"nodes": 2, "edges": 1}},
    }  # fmt: skip
    same, outcome = state.apply(1, [])
    assert same is state and outcome.new_rev == 1 and outcome.delta.is_empty()


def test_update_null_clears_absent_keeps() -> None:
    walkthrough, _ = apply(tour(), {"type": "update_node", "node_id": "wn:1", "body_md": "b",
                                    "status": "todo"})  # fmt: skip
    walkthrough, delta = apply(walkthrough, {"type": "update_node", "node_id": "wn:1",
                                             "title": None})  # fmt: skip
    assert delta == {"added": [], "removed": [], "updated": []}
    node = walkthrough.nodes[0]
    assert (node.title, node.body_md, node.status) == ("Entry", "b", "todo")
    walkthrough, delta = apply(walkthrough, {"type": "update_node", "node_id": "wn:1",
                                             "body_md": None, "refs": None})  # fmt: skip
    node = walkthrough.nodes[0]
    assert (node.body_md, node.status, node.refs) == (None, "todo", ())
    walkthrough, _ = apply(walkthrough, {"type": "update_edge", "from_node_id": "wn:1",
                                         "to_node_id": "wn:2", "kind": "next", "label": "then"})  # fmt: skip
    assert walkthrough.edges[0].label == "then"
    walkthrough, _ = apply(walkthrough, {"type": "update_edge", "from_node_id": "wn:1",
                                         "to_node_id": "wn:2", "kind": "next", "label": None})  # fmt: skip
    assert walkthrough.edges[0].label is None


def test_net_delta_add_then_remove_is_nothing() -> None:
    walkthrough, delta = apply(
        tour(),
        {"type": "add_node", "node_id": "wn:9", "title": "tmp"},
        {"type": "add_edge", "from_node_id": "wn:9", "to_node_id": "wn:9", "kind": "self"},
        {"type": "remove_node", "node_id": "wn:9"},
    )
    assert delta == {"added": [], "removed": [], "updated": []}
    assert walkthrough == tour()


EDGE = {"from_node_id": "wn:1", "to_node_id": "wn:2", "kind": "next"}


@pytest.mark.parametrize(
    ("op", "code", "message", "data"),
    [
        ({"type": "add_node", "node_id": "", "title": "x"},
         "invalid_params", "invalid node_id: id must not be empty", {"node_id": ""}),
        ({"type": "add_node", "node_id": "wn:1", "title": "x"},
         "invalid_params", "node_id already exists", {"walkthrough_id": "wt:tour", "node_id": "wn:1"}),
        ({"type": "add_node", "node_id": "wn:9", "title": "x", "refs": ["x:nope"]},
         "invalid_params", "invalid object_ref: object ref must start with 'd:'", {"object_ref": "x:nope"}),
        ({"type": "update_node", "node_id": "a/b"},
         "invalid_params", "invalid node_id: id must not contain '/'", {"node_id": "a/b"}),
        ({"type": "update_node", "node_id": "wn:9"},
         "not_found", "walkthrough node not found", {"walkthrough_id": "wt:tour", "node_id": "wn:9"}),
        ({"type": "update_node", "node_id": "wn:1", "refs": ["d:x/seq"]},
         "invalid_params", "invalid object_ref: object ref is missing object id", {"object_ref": "d:x/seq"}),
        ({"type": "remove_node", "node_id": "wn:9"},
         "not_found", "walkthrough node not found", {"walkthrough_id": "wt:tour", "node_id": "wn:9"}),
        ({"type": "add_edge", "from_node_id": "wn:1", "to_node_id": "wn:2", "kind": "a/b"},
         "invalid_params", "invalid edge kind (must be non-empty and not contain '/')", {"kind": "a/b"}),
        ({"type": "add_edge", "from_node_id": "", "to_node_id": "wn:2", "kind": "k"},
         "invalid_params", "invalid node_id: id must not be empty", {"node_id": ""}),
        ({"type": "add_edge", "from_node_id": "wn:8", "to_node_id": "wn:9", "kind": "k"},
         "not_found", "walkthrough node not found", {"walkthrough_id": "wt:tour", "node_id": "wn:8"}),
        ({"type": "add_edge", "from_node_id": "wn:1", "to_node_id": "wn:9", "kind": "k"},
         "not_found", "walkthrough node not found", {"walkthrough_id": "wt:tour", "node_id": "wn:9"}),
        ({"type": "add_edge", **EDGE},
         "invalid_params", "edge already exists", {"walkthrough_id": "wt:tour", **EDGE}),
        ({"type": "update_edge", **EDGE, "kind": ""},
         "invalid_params", "invalid edge kind (must be non-empty and not contain '/')", {"kind": ""}),
        ({"type": "update_edge", **EDGE, "kind": "other"},
         "not_found", "walkthrough edge not found", {"walkthrough_id": "wt:tour", **EDGE, "kind": "other"}),
        ({"type": "remove_edge", **EDGE, "to_node_id": "wn:1"},
         "not_found", "walkthrough edge not found", {"walkthrough_id": "wt:tour", **EDGE, "to_node_id": "wn:1"}),
    ],
)  # fmt: skip
def test_walkthrough_errors(op: dict, code: str, message: str, data: dict) -> None:
    error = refuse(tour(), {"type": "set_title", "title": "changed"}, op)
    assert (error.category, error.message, error.data) == (code, message, data)


def test_failing_batch_changes_nothing() -> None:
    state = WalkthroughState(walkthrough=tour())
    ops = convert_walkthrough_ops(
        [{"type": "set_title", "title": "x"}, {"type": "remove_node", "node_id": "wn:9"}]
    )
    with pytest.raises(NereidError):
        state.apply(1, ops)
    assert state.walkthrough == tour() and state.history.entries == ()
