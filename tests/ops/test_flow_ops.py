"""Flowchart ops: effects, deltas and every error (ops.md §5, mcp-tools.md §15.2-15.3)."""

from __future__ import annotations

import pytest

from nereid.model import FlowchartAst, SequenceAst
from nereid.model.shapes import ATTRIBUTE_SHAPES, SHAPES
from tests.ops.ops_testkit import auth_flow, refuse, run

A = "d:auth/flow"

SHAPE_LIST = ", ".join(sorted(SHAPES - frozenset(ATTRIBUTE_SHAPES)))


def test_contract_example_adds_node_and_edge() -> None:
    ast, delta = run(
        auth_flow(),
        {"type": "flow_add_node", "node_id": "n:audit", "label": "Audit"},
        {"type": "flow_add_edge", "edge_id": "e:0004", "from_node_id": "n:deny",
         "to_node_id": "n:audit", "label": "log"},
    )  # fmt: skip
    assert delta.to_json() == {
        "added": [f"{A}/edge/e:0004", f"{A}/node/n:audit"],
        "removed": [],
        "updated": [],
    }
    assert isinstance(ast, FlowchartAst)
    assert list(ast.nodes)[-1] == "n:audit"  # document order: appended
    assert ast.edges["e:0004"].label == "log"


def test_input_is_not_mutated() -> None:
    before = auth_flow()
    snapshot = FlowchartAst(
        nodes=dict(before.nodes), edges=dict(before.edges), subgraphs=dict(before.subgraphs)
    )
    run(before, {"type": "flow_remove_node", "node_id": "n:check"})
    assert before.nodes == snapshot.nodes and before.edges == snapshot.edges


def test_add_node_defaults_and_shape_alias() -> None:
    ast, _ = run(
        FlowchartAst(),
        {"type": "flow_add_node", "node_id": "n:a", "label": "  A  "},
        {"type": "flow_add_node", "node_id": "n:b", "label": "B", "shape": "cyl"},
        {"type": "flow_add_node", "node_id": "n:c", "label": "C", "shape": None},
    )
    assert isinstance(ast, FlowchartAst)
    assert ast.nodes["n:a"].label == "A" and ast.nodes["n:a"].shape == "rect"
    assert ast.nodes["n:b"].shape == "cylindrical"
    assert ast.nodes["n:c"].shape == "rect"


@pytest.mark.parametrize(
    ("op", "code", "message", "data"),
    [
        ({"type": "flow_add_node", "node_id": "n:ok", "label": "X"},
         "invalid_params", "object already exists", {"kind": "FlowNode", "object_id": "n:ok"}),
        ({"type": "flow_add_node", "node_id": "n:x", "label": "  "},
         "invalid_params", "invalid label: must not be empty", {"label": "  "}),
        ({"type": "flow_add_node", "node_id": "n:x", "label": "a\nb"},
         "invalid_params", "invalid label: must not contain a line break", {"label": "a\nb"}),
        ({"type": "flow_add_node", "node_id": "n:x", "label": 'say "hi"'},
         "invalid_params", "invalid label: contains '\"' (write it as #quot;)",
         {"label": 'say "hi"'}),
        ({"type": "flow_add_node", "node_id": "n:x", "label": "X", "shape": "blob"},
         "invalid_params", "invalid shape: unknown shape (one of " + SHAPE_LIST + "; Mermaid v11 aliases work too)", {"shape": "blob"}),
        ({"type": "flow_update_node", "node_id": "n:nope", "label": "X"},
         "not_found", "object not found", {"kind": "FlowNode", "object_id": "n:nope"}),
        ({"type": "flow_update_node", "node_id": "n:ok", "shape": "blob"},
         "invalid_params", "invalid shape: unknown shape (one of " + SHAPE_LIST + "; Mermaid v11 aliases work too)", {"shape": "blob"}),
        ({"type": "flow_set_node_note", "node_id": "n:nope", "note": "x"},
         "not_found", "object not found", {"kind": "FlowNode", "object_id": "n:nope"}),
        ({"type": "flow_remove_node", "node_id": "n:nope"},
         "not_found", "object not found", {"kind": "FlowNode", "object_id": "n:nope"}),
        ({"type": "flow_add_edge", "edge_id": "e:0001", "from_node_id": "n:ok", "to_node_id": "n:deny"},
         "invalid_params", "object already exists", {"kind": "FlowEdge", "object_id": "e:0001"}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:zz", "to_node_id": "n:yy"},
         "not_found", "flow node not found", {"node_id": "n:zz"}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:ok", "to_node_id": "n:yy"},
         "not_found", "flow node not found", {"node_id": "n:yy"}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:ok", "to_node_id": "n:deny", "label": ""},
         "invalid_params", "invalid label: must not be empty", {"label": ""}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": "<--o"},
         "invalid_params", "invalid connector: not a Mermaid link: '-->o'", {"connector": "<--o"}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": "=>"},
         "invalid_params", "invalid connector: not a Mermaid link: '=>'", {"connector": "=>"}),
        ({"type": "flow_add_edge", "edge_id": "e:9", "from_node_id": "n:ok", "to_node_id": "n:deny", "style": "a\nb"},
         "invalid_params", "invalid style: contains a line break or control character: '\\n' at 1", {"style": "a\nb"}),
        ({"type": "flow_update_edge", "edge_id": "e:nope"},
         "not_found", "object not found", {"kind": "FlowEdge", "object_id": "e:nope"}),
        ({"type": "flow_update_edge", "edge_id": "e:0001", "from_node_id": "n:zz"},
         "not_found", "flow node not found", {"node_id": "n:zz"}),
        ({"type": "flow_update_edge", "edge_id": "e:0001", "to_node_id": "n:zz"},
         "not_found", "flow node not found", {"node_id": "n:zz"}),
        ({"type": "flow_update_edge", "edge_id": "e:0001", "label": " "},
         "invalid_params", "invalid label: must not be empty", {"label": " "}),
        ({"type": "flow_remove_edge", "edge_id": "e:nope"},
         "not_found", "object not found", {"kind": "FlowEdge", "object_id": "e:nope"}),
        ({"type": "flow_set_direction", "direction": "XY"},
         "invalid_params", "invalid direction: must be one of TD, TB, BT, LR, RL", {"direction": "XY"}),
        ({"type": "flow_set_node_classes", "node_id": "n:ok", "classes": ["a-b"]},
         "invalid_params", "invalid classes: contains invalid character: '-'", {"classes": "a-b"}),
        ({"type": "flow_set_node_classes", "node_id": "n:nope", "classes": []},
         "not_found", "object not found", {"kind": "FlowNode", "object_id": "n:nope"}),
        ({"type": "flow_set_node_style", "node_id": "n:ok", "style": ""},
         "invalid_params", "invalid style: must not be empty", {"style": ""}),
        ({"type": "flow_set_class_def", "name": "end", "style": "fill:#f00"},
         "invalid_params", "invalid name: is a reserved Mermaid word", {"name": "end"}),
        ({"type": "flow_remove_class_def", "name": "hot"},
         "not_found", "object not found", {"kind": "FlowClassDef", "object_id": "hot"}),
        ({"type": "flow_set_default_edge_style", "style": "\r"},
         "invalid_params", "invalid style: must not be empty", {"style": "\r"}),
    ],
)  # fmt: skip
def test_flow_errors(op: dict, code: str, message: str, data: dict) -> None:
    error = refuse(auth_flow(), op)
    assert (error.category, error.message, error.data) == (code, message, data)


def test_kind_mismatch_both_ways() -> None:
    error = refuse(auth_flow(), {"type": "seq_remove_message", "message_id": "m:1"})
    assert (error.message, error.data) == (
        "op kind mismatch for diagram kind",
        {"diagram_kind": "Flowchart", "op_kind": "Seq"},
    )
    error = refuse(SequenceAst(), {"type": "flow_remove_node", "node_id": "n:1"})
    assert error.data == {"diagram_kind": "Sequence", "op_kind": "Flow"}


def test_invalid_object_id_checked_before_anything() -> None:
    error = refuse(
        auth_flow(),
        {"type": "flow_remove_node", "node_id": "n:nope"},
        {"type": "flow_add_node", "node_id": "a/b", "label": "X"},
    )
    assert (error.category, error.message, error.data) == (
        "invalid_params",
        "invalid object id: id must not contain '/'",
        {"object_id": "a/b"},
    )
    error = refuse(auth_flow(), {"type": "flow_set_subgraph_members", "subgraph_id": "s",
                                 "node_ids": [""]})  # fmt: skip
    assert error.message == "invalid object id: id must not be empty"


def test_remove_node_cascades_edges_and_membership() -> None:
    ast, _ = run(
        auth_flow(),
        {"type": "flow_add_subgraph", "subgraph_id": "sg:g", "mermaid_id": "g",
         "node_ids": ["n:check", "n:ok"]},
    )  # fmt: skip
    ast, delta = run(ast, {"type": "flow_remove_node", "node_id": "n:check"})
    assert delta.to_json() == {
        "added": [],
        "removed": [
            f"{A}/edge/e:0001",
            f"{A}/edge/e:0002",
            f"{A}/edge/e:0003",
            f"{A}/node/n:check",
        ],
        "updated": [f"{A}/subgraph/sg:g"],
    }
    assert isinstance(ast, FlowchartAst)
    assert ast.subgraphs["sg:g"].node_ids == ("n:ok",)


def test_connector_normalisation_and_structure() -> None:
    ast, _ = run(
        auth_flow(),
        {"type": "flow_add_edge", "edge_id": "e:a", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": " <-- "},
        {"type": "flow_add_edge", "edge_id": "e:b", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": "<-.-"},
        {"type": "flow_add_edge", "edge_id": "e:c", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": "o--o"},
        {"type": "flow_add_edge", "edge_id": "e:d", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": "===>"},
        {"type": "flow_add_edge", "edge_id": "e:e", "from_node_id": "n:ok", "to_node_id": "n:deny", "connector": ""},
    )  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert ast.edges["e:a"].connector is None
    assert ast.edges["e:a"].from_node_id == "n:ok"  # not swapped (ops.md §6.2)
    assert ast.edges["e:b"].connector == "-.->" and ast.edges["e:b"].line == "dotted"
    assert (ast.edges["e:c"].head_start, ast.edges["e:c"].head_end) == ("circle", "circle")
    assert (ast.edges["e:d"].line, ast.edges["e:d"].length) == ("thick", 2)
    assert ast.edges["e:e"].connector is None


def test_update_edge_absent_keeps_null_clears() -> None:
    ast, _ = run(
        auth_flow(),
        {"type": "flow_update_edge", "edge_id": "e:0002", "connector": "==>", "style": "stroke:#f00"},
    )  # fmt: skip
    ast, delta = run(ast, {"type": "flow_update_edge", "edge_id": "e:0002", "connector": None})
    assert isinstance(ast, FlowchartAst)
    edge = ast.edges["e:0002"]
    assert (edge.label, edge.connector, edge.style) == ("valid", "==>", "stroke:#f00")
    assert delta.is_empty()  # nothing changed: net effect is empty
    ast, delta = run(ast, {"type": "flow_update_edge", "edge_id": "e:0002", "label": None,
                           "style": None, "to_node_id": "n:deny"})  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    edge = ast.edges["e:0002"]
    assert (edge.label, edge.style, edge.to_node_id) == (None, None, "n:deny")
    assert delta.to_json()["updated"] == [f"{A}/edge/e:0002"]


def test_mermaid_id_rules() -> None:
    ast = auth_flow()
    error = refuse(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "a b"}
    )
    assert (error.message, error.data) == (
        "invalid flow node Mermaid id",
        {"mermaid_id": "a b", "reason": "must not contain whitespace"},
    )
    error = refuse(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "x-y"}
    )
    assert error.data["reason"] == "contains invalid character: '-'"
    error = refuse(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "end"}
    )
    assert error.data["reason"] == "is a reserved Mermaid word"
    error = refuse(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "deny"}
    )
    assert (error.message, error.data) == (
        "flow node Mermaid id already in use",
        {"mermaid_id": "deny", "node_id": "n:deny"},
    )
    error = refuse(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:nope", "mermaid_id": "q"}
    )
    assert error.data == {"kind": "FlowNode", "object_id": "n:nope"}
    named, _ = run(
        ast, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "okay"}
    )
    assert isinstance(named, FlowchartAst) and named.nodes["n:ok"].mermaid_id == "okay"
    cleared, _ = run(named, {"type": "flow_set_node_mermaid_id", "node_id": "n:ok"})
    # null resets to the id derived from `n:ok`, stored explicitly as the parser would
    assert isinstance(cleared, FlowchartAst) and cleared.nodes["n:ok"].mermaid_id == "ok"


def test_batch_end_mermaid_id_checks() -> None:
    # A node id without `n:` needs an explicit Mermaid id by the end of the batch.
    error = refuse(auth_flow(), {"type": "flow_add_node", "node_id": "audit", "label": "Audit"})
    assert (error.message, error.data) == (
        "invalid flow node Mermaid id",
        {"mermaid_id": None, "node_id": "audit",
         "reason": "the node id is not 'n:<Mermaid id>' and no mermaid_id is set"},
    )  # fmt: skip
    # `n:` alone derives no Mermaid id (not ""), as the side-car's stable-id map says too.
    error = refuse(auth_flow(), {"type": "flow_add_node", "node_id": "n:", "label": "X"})
    assert (error.message, error.data) == (
        "invalid flow node Mermaid id",
        {"mermaid_id": None, "node_id": "n:",
         "reason": "the node id is not 'n:<Mermaid id>' and no mermaid_id is set"},
    )  # fmt: skip
    ast, _ = run(
        auth_flow(),
        {"type": "flow_add_node", "node_id": "audit", "label": "Audit"},
        {"type": "flow_set_node_mermaid_id", "node_id": "audit", "mermaid_id": "audit"},
    )
    assert isinstance(ast, FlowchartAst) and "audit" in ast.nodes
    ast, _ = run(auth_flow(), {"type": "flow_add_node", "node_id": "n:my-node", "label": "X"})
    assert isinstance(ast, FlowchartAst) and "n:my-node" in ast.nodes  # Mermaid reads `my-node`
    error = refuse(auth_flow(), {"type": "flow_add_node", "node_id": "n:my--node", "label": "X"})
    assert error.data == {"mermaid_id": "my--node", "node_id": "n:my--node",
                          "reason": "must not have two of '-', '.', ':' in a row (they read as a "
                                    "link or a class)"}  # fmt: skip
    error = refuse(auth_flow(), {"type": "flow_add_node", "node_id": "n:end", "label": "X"})
    assert error.data["reason"] == "is a reserved Mermaid word"
    ast, _ = run(
        auth_flow(), {"type": "flow_set_node_mermaid_id", "node_id": "n:ok", "mermaid_id": "z"}
    )
    error = refuse(ast, {"type": "flow_add_node", "node_id": "n:z", "label": "Z"})
    assert (error.message, error.data) == (
        "flow node Mermaid id already in use",
        {"mermaid_id": "z", "node_id": "n:ok"},
    )
    error = refuse(
        auth_flow(), {"type": "flow_add_subgraph", "subgraph_id": "sg:x", "mermaid_id": "ok"}
    )
    assert error.data == {"mermaid_id": "ok", "node_id": "n:ok"}


def test_notes_styles_classes_and_meta() -> None:
    ast, delta = run(
        auth_flow(),
        {"type": "flow_set_node_note", "node_id": "n:ok", "note": "why"},
        {"type": "flow_set_node_style", "node_id": "n:ok", "style": "fill:#f9f"},
        {"type": "flow_set_node_classes", "node_id": "n:ok", "classes": ["hot", "big"]},
        {"type": "flow_set_class_def", "name": "hot", "style": "fill:#f00"},
        {"type": "flow_set_direction", "direction": "LR"},
        {"type": "flow_set_default_edge_style", "style": "stroke:#333"},
    )
    assert isinstance(ast, FlowchartAst)
    node = ast.nodes["n:ok"]
    assert (node.note, node.style, node.classes) == ("why", "fill:#f9f", ("hot", "big"))
    assert (ast.direction, ast.class_defs, ast.default_edge_style) == (
        "LR", {"hot": "fill:#f00"}, "stroke:#333"
    )  # fmt: skip
    assert delta.to_json()["updated"] == ["d:auth/diagram/meta", f"{A}/node/n:ok"]
    ast, delta = run(
        ast,
        {"type": "flow_set_node_note", "node_id": "n:ok"},
        {"type": "flow_set_node_style", "node_id": "n:ok", "style": None},
        {"type": "flow_remove_class_def", "name": "hot"},
        {"type": "flow_set_direction"},
        {"type": "flow_set_default_edge_style"},
    )
    assert isinstance(ast, FlowchartAst)
    assert (ast.nodes["n:ok"].note, ast.nodes["n:ok"].style) == (None, None)
    assert (ast.direction, ast.class_defs, ast.default_edge_style) == (None, {}, None)


def test_update_node_keeps_absent_and_null() -> None:
    ast, delta = run(auth_flow(), {"type": "flow_update_node", "node_id": "n:ok", "label": None})
    assert delta.is_empty()
    ast, delta = run(ast, {"type": "flow_update_node", "node_id": "n:ok", "label": "Yes",
                           "shape": "stadium"})  # fmt: skip
    assert isinstance(ast, FlowchartAst)
    assert (ast.nodes["n:ok"].label, ast.nodes["n:ok"].shape) == ("Yes", "stadium")
    assert delta.to_json()["updated"] == [f"{A}/node/n:ok"]


def test_add_then_remove_is_no_net_change() -> None:
    ast, delta = run(
        auth_flow(),
        {"type": "flow_add_node", "node_id": "n:tmp", "label": "T"},
        {"type": "flow_add_edge", "edge_id": "e:t", "from_node_id": "n:ok", "to_node_id": "n:tmp"},
        {"type": "flow_remove_node", "node_id": "n:tmp"},
    )
    assert delta.is_empty()
    assert ast == auth_flow()


def test_self_loops_and_cycles_are_accepted() -> None:
    ast, delta = run(
        auth_flow(),
        {"type": "flow_add_edge", "edge_id": "e:loop", "from_node_id": "n:ok", "to_node_id": "n:ok"},
        {"type": "flow_add_edge", "edge_id": "e:back", "from_node_id": "n:ok", "to_node_id": "n:start"},
    )  # fmt: skip
    assert len(delta.added) == 2
