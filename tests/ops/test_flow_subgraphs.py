"""Subgraph ops: membership moves, nesting, removal of the frame, and their errors."""

from __future__ import annotations

from typing import Any

from nereid.mermaid import export_flowchart, parse_mermaid
from nereid.model import FlowchartAst
from tests.ops.ops_testkit import auth_flow, refuse, run

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


def test_edges_to_and_from_subgraphs_are_created_retargeted_and_exported() -> None:
    from nereid.mermaid.flowchart import export_flowchart, parse_flowchart

    ast, delta = run(
        grouped(),
        {"type": "flow_add_edge", "edge_id": "e:in", "from_node_id": "n:start",
         "to_node_id": "sg:inner", "label": "go"},
        {"type": "flow_add_edge", "edge_id": "e:out", "from_node_id": "sg:inner",
         "to_node_id": "sg:outer", "connector": "-.->"},
        {"type": "flow_update_subgraph", "subgraph_id": "sg:inner", "classes": ["hot"],
         "style": "fill:#f9f"},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert (ast.edges["e:in"].from_node_id, ast.edges["e:in"].to_node_id) == ("n:start", "sg:inner")
    text = export_flowchart(ast)
    assert "start -->|go| inner\ninner -.-> outer\n" in text
    assert "class inner hot\nstyle inner fill:#f9f\n" in text
    back = parse_flowchart(text)
    assert [(e.from_node_id, e.to_node_id) for e in back.edges.values()][-2:] == [
        ("n:start", "sg:inner"), ("sg:inner", "sg:outer")
    ]  # fmt: skip
    assert back.subgraphs["sg:inner"].classes == ("hot",)
    ast, _ = run(ast, {"type": "flow_update_edge", "edge_id": "e:in", "to_node_id": "sg:outer"})
    assert isinstance(ast, FlowchartAst)
    assert ast.edges["e:in"].to_node_id == "sg:outer"
    ast, _ = run(ast, {"type": "flow_update_subgraph", "subgraph_id": "sg:inner", "classes": None,
                       "style": None})  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert (ast.subgraphs["sg:inner"].classes, ast.subgraphs["sg:inner"].style) == ((), None)


def test_removing_a_subgraph_removes_the_edges_that_end_at_its_frame() -> None:
    ast, _ = run(
        grouped(),
        {"type": "flow_add_edge", "edge_id": "e:in", "from_node_id": "n:start",
         "to_node_id": "sg:inner"},
    )  # fmt: skip
    ast, delta = run(ast, {"type": "flow_remove_subgraph", "subgraph_id": "sg:inner"})
    assert isinstance(ast, FlowchartAst)
    assert "e:in" not in ast.edges
    assert "d:auth/flow/edge/e:in" in delta.to_json()["removed"]
    assert ast.subgraphs["sg:outer"].node_ids == ("n:start", "n:check", "n:ok")


def test_subgraph_edge_refusals() -> None:
    error = refuse(grouped(), {"type": "flow_add_edge", "edge_id": "e:x",
                               "from_node_id": "sg:nope", "to_node_id": "n:ok"})  # fmt: skip
    assert (error.category, error.data) == ("not_found", {"node_id": "sg:nope"})
    # A subgraph id a `subgraph` line can hold but an edge line cannot (`Ü--1` reads as a link).
    error = refuse(
        grouped(),
        {"type": "flow_update_subgraph", "subgraph_id": "sg:inner", "mermaid_id": "Ü--1"},
        {"type": "flow_add_edge", "edge_id": "e:x", "from_node_id": "sg:inner",
         "to_node_id": "n:ok"},
    )  # fmt: skip
    assert error.data == {"subgraph_id": "sg:inner", "edge_id": "e:x", "mermaid_id": "Ü--1"}
    ast, _ = run(grouped(), {"type": "flow_update_subgraph", "subgraph_id": "sg:inner",
                             "mermaid_id": "Ü--1"})  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    # Node-style ids (`Ü-1`, `api.gw`) are edge ends, as Mermaid reads them.
    for name in ("Ü-1", "api.gw", "a-b"):
        ast, _ = run(
            grouped(),
            {"type": "flow_update_subgraph", "subgraph_id": "sg:inner", "mermaid_id": name},
            {"type": "flow_add_edge", "edge_id": "e:x", "from_node_id": "sg:inner",
             "to_node_id": "n:ok"},
        )  # fmt: skip
        assert isinstance(ast, FlowchartAst)
        text = export_flowchart(ast)
        back = parse_mermaid(text)
        assert isinstance(back, FlowchartAst)
        assert (f"sg:{name}", "n:ok") in {
            (e.from_node_id, e.to_node_id) for e in back.edges.values()
        }, text
    error = refuse(grouped(), {"type": "flow_add_node", "node_id": "sg:inner", "label": "x"})
    assert (error.message, error.data["object_id"]) == ("object already exists", "sg:inner")
    error = refuse(grouped(), {"type": "flow_update_subgraph", "subgraph_id": "sg:inner",
                               "classes": ["bad name"]})  # fmt: skip
    assert error.category == "invalid_params"
