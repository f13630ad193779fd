"""Ops on diagrams with Mermaid v11 fields: edge ids/attributes, icon/image nodes, boxes.

Every accepted batch must leave a diagram the exporter accepts (spec decision 9) and that
reads back equal; ops refuse what would break that, naming the field and the reason.
"""

from __future__ import annotations

from typing import Any

import pytest

from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.flowchart_build import KEYWORDS
from nereid.mermaid.reconcile import FlowIdHints, reconcile_flowchart
from nereid.mermaid.reconcile_sequence import SeqIdHints, reconcile_sequence
from nereid.mermaid.sequence import export_sequence, parse_sequence
from nereid.model import FlowchartAst, SeqBox, SequenceAst
from nereid.ops.rules import SUBGRAPH_KEYWORDS
from tests.ops.ops_testkit import refuse, run
from tests.ops.test_ops_roundtrip import flow_view, seq_view

F = "d:auth/flow"
S = "d:auth/seq"

FLOW_TEXT = """flowchart LR
  a[A] e1@--> b(B)
  b --> c
  u@{ icon: "fa:user", form: "square", label: "User", pos: "t", h: 60 }
  img@{ img: "https://example.com/x.png", label: "Pic", w: 60, h: 60 }
  c e2@-.-> u
  e1@{ animate: true, curve: linear }
  class e2 hot
  subgraph g [Group]
    c
  end
"""

SEQ_TEXT = """sequenceDiagram
  box Aqua Front
    participant a
    participant b
  end
  box Back
    participant c
  end
  participant d
  a->>b: hi
  c->>d: ok
"""


def flow() -> FlowchartAst:
    return parse_flowchart(FLOW_TEXT)


def seq() -> SequenceAst:
    return parse_sequence(SEQ_TEXT)


def flow_after(ast: FlowchartAst, *ops: dict[str, Any]) -> tuple[FlowchartAst, dict[str, Any]]:
    """Apply ops, then check the result exports and reads back equal."""
    after, delta = run(ast, *ops)
    assert isinstance(after, FlowchartAst)
    text = export_flowchart(after)
    back = reconcile_flowchart(parse_flowchart(text), FlowIdHints.from_ast(after))
    assert flow_view(back) == flow_view(after), text
    return after, delta.to_json()


def seq_after(ast: SequenceAst, *ops: dict[str, Any]) -> tuple[SequenceAst, dict[str, Any]]:
    after, delta = run(ast, *ops)
    assert isinstance(after, SequenceAst)
    text = export_sequence(after)
    back = reconcile_sequence(parse_sequence(text), SeqIdHints.from_ast(after))
    assert seq_view(back) == seq_view(after), text
    return after, delta.to_json()


# -- sequence boxes ------------------------------------------------------------------------


def test_removing_a_boxed_participant_leaves_its_box() -> None:
    ast, delta = seq_after(seq(), {"type": "seq_remove_participant", "participant_id": "p:a"})
    assert ast.boxes == (
        SeqBox(participant_ids=("p:b",), color="Aqua", label="Front"),
        SeqBox(participant_ids=("p:c",), label="Back"),
    )
    assert delta == {
        "added": [],
        "removed": [f"{S}/message/m:0001", f"{S}/participant/p:a"],
        "updated": ["d:auth/diagram/meta"],
    }


def test_a_box_left_empty_is_dropped() -> None:
    ast, delta = seq_after(seq(), {"type": "seq_remove_participant", "participant_id": "p:c"})
    assert ast.boxes == (SeqBox(participant_ids=("p:a", "p:b"), color="Aqua", label="Front"),)
    assert "d:auth/diagram/meta" in delta["updated"]
    ast, _ = seq_after(
        ast,
        {"type": "seq_remove_participant", "participant_id": "p:a"},
        {"type": "seq_remove_participant", "participant_id": "p:b"},
    )
    assert ast.boxes == ()
    assert list(ast.participants) == ["p:d"]


def test_removing_an_unboxed_participant_keeps_boxes_and_meta() -> None:
    before = seq()
    ast, delta = seq_after(before, {"type": "seq_remove_participant", "participant_id": "p:d"})
    assert ast.boxes is before.boxes
    assert delta["updated"] == []


def test_added_participants_go_after_the_boxes() -> None:
    ast, _ = seq_after(
        seq(),
        {"type": "seq_add_participant", "participant_id": "p:e", "mermaid_name": "e"},
        {"type": "seq_update_participant", "participant_id": "p:b", "mermaid_name": "bee"},
    )
    assert list(ast.participants)[-1] == "p:e"
    assert ast.boxes == seq().boxes


# -- icon and image nodes ------------------------------------------------------------------


@pytest.mark.parametrize("shape", ["icon", "image", " icon "])
def test_attribute_shapes_cannot_be_made_by_ops(shape: str) -> None:
    error = refuse(
        flow(), {"type": "flow_add_node", "node_id": "n:z", "label": "Z", "shape": shape}
    )
    key = "icon" if "icon" in shape else "img"
    assert error.message.startswith(f"invalid shape: an {shape.strip()} node needs its '{key}'")
    assert "Mermaid text" in error.message
    assert error.data == {"shape": shape}
    error = refuse(flow(), {"type": "flow_update_node", "node_id": "n:a", "shape": shape})
    assert error.data == {"shape": shape}


def test_unknown_shape_message_lists_the_valid_ones() -> None:
    error = refuse(flow(), {"type": "flow_add_node", "node_id": "n:z", "label": "Z", "shape": "x"})
    assert error.message.startswith("invalid shape: unknown shape (one of anchor, asymmetric, ")
    assert "cylindrical" in error.message and "v11 aliases" in error.message
    assert error.data == {"shape": "x"}


def test_changing_an_icon_node_to_another_shape_drops_its_attributes() -> None:
    ast, delta = flow_after(flow(), {"type": "flow_update_node", "node_id": "n:u", "shape": "cyl"})
    node = ast.nodes["n:u"]
    assert (node.shape, node.attrs, node.label) == ("cylindrical", None, "User")
    assert delta["updated"] == [f"{F}/node/n:u"]
    ast, _ = flow_after(flow(), {"type": "flow_update_node", "node_id": "n:img", "shape": "rect"})
    assert (ast.nodes["n:img"].shape, ast.nodes["n:img"].attrs) == ("rect", None)


def test_naming_the_nodes_own_attribute_shape_keeps_it() -> None:
    before = flow()
    ast, delta = flow_after(
        before,
        {"type": "flow_update_node", "node_id": "n:u", "shape": "icon", "label": "Person"},
    )
    assert ast.nodes["n:u"].attrs == before.nodes["n:u"].attrs
    assert (ast.nodes["n:u"].shape, ast.nodes["n:u"].label) == ("icon", "Person")
    assert delta["updated"] == [f"{F}/node/n:u"]
    error = refuse(before, {"type": "flow_update_node", "node_id": "n:u", "shape": "image"})
    assert error.data == {"shape": "image"}


def test_icon_nodes_survive_renames_and_labels() -> None:
    ast, _ = flow_after(
        flow(),
        {"type": "flow_set_node_mermaid_id", "node_id": "n:u", "mermaid_id": "user"},
        {"type": "flow_update_node", "node_id": "n:img", "label": "Picture"},
        {"type": "flow_set_node_classes", "node_id": "n:u", "classes": ["hot"]},
    )
    assert ast.nodes["n:u"].attrs is not None and ast.nodes["n:u"].mermaid_id == "user"


# -- Mermaid ids shared by nodes, subgraphs and edges --------------------------------------


def test_node_mermaid_id_cannot_take_an_edge_id() -> None:
    error = refuse(
        flow(), {"type": "flow_set_node_mermaid_id", "node_id": "n:a", "mermaid_id": "e1"}
    )
    assert (error.message, error.data) == (
        "flow node Mermaid id already in use",
        {"mermaid_id": "e1", "edge_id": "e:e1"},
    )


def test_added_node_derived_id_cannot_take_an_edge_id() -> None:
    error = refuse(flow(), {"type": "flow_add_node", "node_id": "n:e2", "label": "E"})
    assert (error.message, error.data) == (
        "flow node Mermaid id already in use",
        {"mermaid_id": "e2", "edge_id": "e:e2"},
    )


def test_reset_to_a_derived_id_that_an_edge_holds_is_refused() -> None:
    named, _ = flow_after(
        flow(),
        {"type": "flow_add_node", "node_id": "n:e1", "label": "E"},
        {"type": "flow_set_node_mermaid_id", "node_id": "n:e1", "mermaid_id": "eone"},
    )
    error = refuse(named, {"type": "flow_set_node_mermaid_id", "node_id": "n:e1"})
    assert (error.message, error.data) == (
        "flow node Mermaid id already in use",
        {"mermaid_id": "e1", "edge_id": "e:e1"},
    )


@pytest.mark.parametrize(
    "op",
    [
        {"type": "flow_add_subgraph", "subgraph_id": "sg:h", "mermaid_id": "e1"},
        {"type": "flow_update_subgraph", "subgraph_id": "sg:g", "mermaid_id": "e2"},
    ],
)
def test_subgraph_mermaid_id_cannot_take_an_edge_id(op: dict[str, Any]) -> None:
    error = refuse(flow(), op)
    assert error.message == "flow node Mermaid id already in use"
    assert error.data == {"mermaid_id": op["mermaid_id"], "edge_id": f"e:{op['mermaid_id']}"}


def test_node_mermaid_id_cannot_take_a_subgraph_id() -> None:
    error = refuse(
        flow(), {"type": "flow_set_node_mermaid_id", "node_id": "n:a", "mermaid_id": "g"}
    )
    assert error.data == {"mermaid_id": "g", "subgraph_id": "sg:g"}


def test_an_edge_id_is_free_once_its_edge_is_gone() -> None:
    ast, delta = flow_after(
        flow(),
        {"type": "flow_remove_edge", "edge_id": "e:e1"},
        {"type": "flow_add_node", "node_id": "n:e1", "label": "Was an edge"},
    )
    assert "e:e1" not in ast.edges and ast.nodes["n:e1"].mermaid_id == "e1"
    assert delta["removed"] == [f"{F}/edge/e:e1"]
    ast, _ = flow_after(
        flow(),
        {"type": "flow_remove_node", "node_id": "n:u"},
        {"type": "flow_set_node_mermaid_id", "node_id": "n:c", "mermaid_id": "e2"},
    )
    assert "e:e2" not in ast.edges


# -- edges with ids, attributes and classes ------------------------------------------------


def test_updating_a_named_edge_keeps_its_id_attributes_and_classes() -> None:
    before = flow()
    ast, delta = flow_after(
        before,
        {"type": "flow_update_edge", "edge_id": "e:e1", "from_node_id": "n:c", "to_node_id": "n:a",
         "label": "back", "connector": "==>", "style": "stroke:red"},
        {"type": "flow_update_edge", "edge_id": "e:e2", "to_node_id": "n:img", "label": None},
    )  # fmt: skip
    for edge_id in ("e:e1", "e:e2"):
        old, new = before.edges[edge_id], ast.edges[edge_id]
        assert (new.mermaid_id, new.attrs, new.classes) == (old.mermaid_id, old.attrs, old.classes)
    assert (ast.edges["e:e1"].from_node_id, ast.edges["e:e1"].line) == ("n:c", "thick")
    assert delta["updated"] == [f"{F}/edge/e:e1", f"{F}/edge/e:e2"]


def test_added_edges_have_no_v11_fields() -> None:
    ast, _ = flow_after(
        flow(),
        {"type": "flow_add_edge", "edge_id": "e:new", "from_node_id": "n:u",
         "to_node_id": "n:img"},
    )  # fmt: skip
    edge = ast.edges["e:new"]
    assert (edge.mermaid_id, edge.attrs, edge.classes) == (None, None, ())


# -- subgraph ids the exporter reads as statements -----------------------------------------


def test_subgraph_keywords_cover_the_exporters() -> None:
    assert {k for k in KEYWORDS if not k.endswith(":")} <= SUBGRAPH_KEYWORDS


@pytest.mark.parametrize("name", ["direction", "accTitle", "accDescr"])
def test_subgraph_ids_that_would_not_export_are_refused(name: str) -> None:
    for op in (
        {"type": "flow_add_subgraph", "subgraph_id": "sg:h", "mermaid_id": name},
        {"type": "flow_update_subgraph", "subgraph_id": "sg:g", "mermaid_id": name},
    ):
        error = refuse(flow(), op)
        assert (error.message, error.data) == (
            "invalid flow node Mermaid id",
            {"mermaid_id": name, "reason": "is a reserved Mermaid word"},
        )
    ast, _ = flow_after(flow(), {"type": "flow_add_node", "node_id": f"n:{name}", "label": "L"})
    assert ast.nodes[f"n:{name}"].mermaid_id == name  # a node may use the word (bracketed)
