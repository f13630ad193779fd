"""Subgraph ops: membership moves, nesting, removal of the frame, and their errors."""

from __future__ import annotations

from typing import Any

from ops_testkit import auth_flow, refuse, run

from nereid.model import FlowchartAst

A = "d:auth/flow/subgraph"


def grouped() -> FlowchartAst:
    ast, _ = run(
        auth_flow(),
        {"type": "flow_add_subgraph", "subgraph_id": "sg:outer", "mermaid_id": "outer",
         "title": "Outer", "direction": "LR", "node_ids": ["n:start"]},
        {"type": "flow_add_subgraph", "subgraph_id": "sg:inner", "mermaid_id": "inner",
         "parent_subgraph_id": "sg:outer", "node_ids": ["n:check", "n:ok"]},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    return ast


def test_add_nested_subgraphs() -> None:
    ast = grouped()
    outer, inner = ast.subgraphs["sg:outer"], ast.subgraphs["sg:inner"]
    assert (outer.title, outer.direction, outer.node_ids, outer.subgraph_ids) == (
        "Outer", "LR", ("n:start",), ("sg:inner",)
    )  # fmt: skip
    assert inner.node_ids == ("n:check", "n:ok")


def test_adding_moves_nodes_out_of_their_old_subgraph() -> None:
    ast, delta = run(
        grouped(),
        {"type": "flow_add_subgraph", "subgraph_id": "sg:new", "mermaid_id": "new",
         "node_ids": ["n:ok"]},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert ast.subgraphs["sg:inner"].node_ids == ("n:check",)
    assert delta.to_json() == {"added": [f"{A}/sg:new"], "removed": [],
                               "updated": [f"{A}/sg:inner"]}  # fmt: skip


def test_set_members_and_nesting_loop_refused() -> None:
    ast, delta = run(
        grouped(),
        {"type": "flow_set_subgraph_members", "subgraph_id": "sg:outer",
         "node_ids": ["n:ok"], "subgraph_ids": []},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert ast.subgraphs["sg:outer"].node_ids == ("n:ok",)
    assert ast.subgraphs["sg:outer"].subgraph_ids == ()
    assert ast.subgraphs["sg:inner"].node_ids == ("n:check",)
    error = refuse(
        grouped(),
        {"type": "flow_set_subgraph_members", "subgraph_id": "sg:inner", "node_ids": [],
         "subgraph_ids": ["sg:outer"]},
    )  # fmt: skip
    assert error.message == (
        "invalid subgraph_ids: subgraph 'sg:outer' contains 'sg:inner': nesting would loop"
    )
    error = refuse(
        grouped(),
        {"type": "flow_set_subgraph_members", "subgraph_id": "sg:outer",
         "node_ids": ["n:ok", "n:ok"]},
    )  # fmt: skip
    assert error.message == "invalid node_ids: lists node 'n:ok' twice"


def test_remove_subgraph_hands_members_to_parent() -> None:
    ast, delta = run(grouped(), {"type": "flow_remove_subgraph", "subgraph_id": "sg:inner"})
    assert isinstance(ast, FlowchartAst)
    assert ast.subgraphs["sg:outer"].node_ids == ("n:start", "n:check", "n:ok")
    assert ast.subgraphs["sg:outer"].subgraph_ids == ()
    assert set(ast.nodes) == set(auth_flow().nodes)
    assert delta.to_json() == {"added": [], "removed": [f"{A}/sg:inner"],
                               "updated": [f"{A}/sg:outer"]}  # fmt: skip


def test_update_subgraph_null_clears_absent_keeps() -> None:
    ast, _ = run(grouped(), {"type": "flow_update_subgraph", "subgraph_id": "sg:outer",
                             "title": None, "mermaid_id": "top"})  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    outer = ast.subgraphs["sg:outer"]
    assert (outer.title, outer.direction, outer.mermaid_id) == (None, "LR", "top")


def test_subgraph_errors() -> None:
    cases: list[tuple[dict[str, Any], tuple[str, dict[str, Any]]]] = [
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:outer", "mermaid_id": "x"},
         ("object already exists", {"kind": "FlowSubgraph", "object_id": "sg:outer"})),
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "a b"},
         ("invalid flow node Mermaid id",
          {"mermaid_id": "a b", "reason": "must not contain whitespace"})),
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "x",
          "parent_subgraph_id": "sg:nope"},
         ("object not found", {"kind": "FlowSubgraph", "object_id": "sg:nope"})),
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "x",
          "node_ids": ["n:nope"]},
         ("object not found", {"kind": "FlowNode", "object_id": "n:nope"})),
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "x", "title": ""},
         ("invalid title: must not be empty", {"title": ""})),
        ({"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "inner"},
         ("flow node Mermaid id already in use",
          {"mermaid_id": "inner", "subgraph_id": "sg:inner"})),
        ({"type": "flow_update_subgraph", "subgraph_id": "sg:nope"},
         ("object not found", {"kind": "FlowSubgraph", "object_id": "sg:nope"})),
        ({"type": "flow_update_subgraph", "subgraph_id": "sg:outer", "direction": "up"},
         ("invalid direction: must be one of TD, TB, BT, LR, RL", {"direction": "up"})),
        ({"type": "flow_set_subgraph_members", "subgraph_id": "sg:nope", "node_ids": []},
         ("object not found", {"kind": "FlowSubgraph", "object_id": "sg:nope"})),
        ({"type": "flow_set_subgraph_members", "subgraph_id": "sg:outer", "node_ids": [],
          "subgraph_ids": ["sg:nope"]},
         ("object not found", {"kind": "FlowSubgraph", "object_id": "sg:nope"})),
        ({"type": "flow_remove_subgraph", "subgraph_id": "sg:nope"},
         ("object not found", {"kind": "FlowSubgraph", "object_id": "sg:nope"})),
    ]  # fmt: skip
    for op, (message, data) in cases:
        error = refuse(grouped(), op)
        assert (error.message, error.data) == (message, data), op
