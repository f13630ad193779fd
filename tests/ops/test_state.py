"""Revisions, propose vs apply, conflicts, history window and diff (ops.md §2, §8-10)."""

from __future__ import annotations

import pytest

from nereid.errors import NereidError
from nereid.model import FlowchartAst, FlowNode
from nereid.ops import (
    HISTORY_LIMIT,
    DiagramState,
    ast_digest,
    convert_diagram_ops,
    stat_digest,
)
from tests.ops.ops_testkit import auth_flow


def add_node(node_id: str, label: str = "X") -> list:
    return convert_diagram_ops([{"type": "flow_add_node", "node_id": node_id, "label": label}])


def auth_state() -> DiagramState:
    return DiagramState(diagram_id="auth", ast=auth_flow(), rev=2)


def test_apply_bumps_rev_once_per_batch_and_records_history() -> None:
    state, outcome = auth_state().apply(2, add_node("n:a") + add_node("n:b"))
    assert (outcome.new_rev, outcome.applied, state.rev) == (3, 2, 3)
    (entry,) = state.history.entries
    assert (entry.from_rev, entry.to_rev, entry.added) == (
        2, 3, ("d:auth/flow/node/n:a", "d:auth/flow/node/n:b")
    )  # fmt: skip


def test_empty_batch_changes_nothing() -> None:
    state = auth_state()
    same, outcome = state.apply(2, [])
    assert same is state
    assert outcome.to_json() == {
        "new_rev": 2, "applied": 0, "delta": {"added": [], "removed": [], "updated": []}
    }  # fmt: skip


def test_batch_without_net_effect_still_bumps_rev() -> None:
    ops = convert_diagram_ops([{"type": "flow_update_node", "node_id": "n:ok"}])
    state, outcome = auth_state().apply(2, ops)
    assert outcome.new_rev == 3 and outcome.delta.is_empty()
    assert state.ast == auth_flow()


def test_propose_returns_what_apply_would_and_commits_nothing() -> None:
    state = auth_state()
    proposal = state.propose(2, add_node("n:a"))
    applied_state, outcome = state.apply(2, add_node("n:a"))
    assert proposal == outcome
    assert state.rev == 2 and "n:a" not in state.ast.nodes  # type: ignore[union-attr]
    assert applied_state.ast == proposal.ast


def test_stale_base_rev_is_a_conflict_with_digest() -> None:
    state = auth_state()
    for base_rev in (1, 3):
        for call in (state.apply, state.propose):
            with pytest.raises(NereidError) as caught:
                call(base_rev, add_node("n:a"))
            error = caught.value
            assert (error.category, error.message) == ("conflict", "conflict: stale base_rev")
            assert error.data == {
                "base_rev": base_rev,
                "current_rev": 2,
                "snapshot_tool": "diagram.stat",
                "digest": {
                    "rev": 2,
                    "counts": {"participants": 0, "messages": 0, "nodes": 4, "edges": 3},
                    "key_names": ["Check token", "Deny", "Allow", "Start"],
                },
                "ast_digest": ast_digest(state.ast),
            }


def test_ids_are_checked_before_the_revision() -> None:
    with pytest.raises(NereidError) as caught:
        auth_state().apply(0, add_node("a/b"))
    assert caught.value.message == "invalid object id: id must not contain '/'"


def test_failed_batch_changes_nothing() -> None:
    state = auth_state()
    ops = add_node("n:a") + convert_diagram_ops([{"type": "flow_remove_node", "node_id": "n:zz"}])
    with pytest.raises(NereidError):
        state.apply(2, ops)
    assert state.rev == 2 and state.ast == auth_flow() and state.history.entries == ()


def test_diff_contract_example() -> None:
    state, _ = auth_state().apply(
        2,
        convert_diagram_ops([
            {"type": "flow_add_node", "node_id": "n:audit", "label": "Audit"},
            {"type": "flow_add_edge", "edge_id": "e:0004", "from_node_id": "n:deny",
             "to_node_id": "n:audit"},
        ]),
    )  # fmt: skip
    state, _ = state.apply(
        3,
        convert_diagram_ops(
            [{"type": "flow_update_node", "node_id": "n:audit", "label": "Audit log"}]
        ),
    )
    assert state.diff(2).to_json() == {
        "from_rev": 2,
        "to_rev": 4,
        "changes": [
            {"kind": "added", "refs": ["d:auth/flow/edge/e:0004", "d:auth/flow/node/n:audit"]},
            {"kind": "updated", "refs": ["d:auth/flow/node/n:audit"]},
        ],
    }
    assert state.diff(4).to_json() == {"from_rev": 4, "to_rev": 4, "changes": []}
    assert state.diff(3).to_json()["changes"] == [
        {"kind": "updated", "refs": ["d:auth/flow/node/n:audit"]}
    ]


def test_diff_errors() -> None:
    state = auth_state()
    with pytest.raises(NereidError) as caught:
        state.diff(3)
    assert (caught.value.category, caught.value.message, caught.value.data) == (
        "invalid_params", "since_rev must be <= current rev", {"since_rev": 3, "current_rev": 2}
    )  # fmt: skip
    with pytest.raises(NereidError) as caught:
        state.diff(1)
    assert (caught.value.category, caught.value.message, caught.value.data) == (
        "invalid_request",
        "delta unavailable; use diagram.read",
        {"since_rev": 1, "current_rev": 2, "supported_since_rev": 2,
         "snapshot_tool": "diagram.read"},
    )  # fmt: skip


def test_history_window_keeps_64_entries() -> None:
    state = DiagramState(diagram_id="auth", ast=FlowchartAst())
    for i in range(HISTORY_LIMIT + 6):
        state, _ = state.apply(i, add_node(f"n:x{i}"))
    assert len(state.history.entries) == HISTORY_LIMIT
    assert state.history.entries[0].from_rev == 6
    with pytest.raises(NereidError) as caught:
        state.diff(5)
    assert caught.value.data["supported_since_rev"] == 6
    assert len(state.diff(6).changes[0].refs) == HISTORY_LIMIT


def test_replace_ast_bumps_only_on_change() -> None:
    state = auth_state()
    same, delta = state.replace_ast(auth_flow())
    assert same is state and delta.is_empty()
    nodes = dict(auth_flow().nodes)
    nodes["n:ok"] = FlowNode(label="Permit", shape="round")
    del nodes["n:deny"]
    edges = {k: v for k, v in auth_flow().edges.items() if v.to_node_id != "n:deny"}
    new, delta = state.replace_ast(FlowchartAst(nodes=nodes, edges=edges))
    assert new.rev == 3
    assert delta.to_json() == {
        "added": [],
        "removed": ["d:auth/flow/edge/e:0003", "d:auth/flow/node/n:deny"],
        "updated": ["d:auth/flow/node/n:ok"],
    }


def test_digests() -> None:
    assert stat_digest(auth_flow(), 2)["key_names"] == ["Check token", "Deny", "Allow", "Start"]
    assert ast_digest(auth_flow()) == ast_digest(auth_flow())
    assert len(ast_digest(auth_flow())) == 16
    assert ast_digest(auth_flow()) != ast_digest(FlowchartAst())
