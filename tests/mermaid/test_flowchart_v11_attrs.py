"""Mermaid v11 edge ids, edge attributes and icon / image nodes: import, export, round trip,
stable ids and precise refusals."""

from __future__ import annotations

import msgspec
import pytest

from nereid.mermaid.errors import MermaidError, MermaidExportError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.reconcile import FlowEdgeHint, FlowIdHints, reconcile_flowchart
from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode
from nereid.model.shapes import SHAPES, canonical_shape


def round_trip(text: str) -> FlowchartAst:
    ast = parse_flowchart(text)
    exported = export_flowchart(ast)
    assert parse_flowchart(exported) == ast, exported
    assert export_flowchart(parse_flowchart(exported)) == exported
    return ast


def refused(text: str) -> MermaidError:
    with pytest.raises(MermaidError) as info:
        parse_flowchart(text)
    assert info.value.line is not None and info.value.column is not None
    return info.value


# ---- edge ids ---------------------------------------------------------------------------------


def test_edge_id_gives_the_object_id_and_is_written_back() -> None:
    ast = round_trip("flowchart LR\nA e1@--> B\nB --> C\nC e_2@-.->|go| A")
    assert list(ast.edges) == ["e:e1", "e:0002", "e:e_2"]
    assert ast.edges["e:e1"].mermaid_id == "e1"
    assert ast.edges["e:0002"].mermaid_id is None
    assert ast.edges["e:e_2"] == FlowEdge(
        from_node_id="n:C", to_node_id="n:A", label="go", line="dotted", mermaid_id="e_2"
    )
    lines = export_flowchart(ast).splitlines()
    assert lines[-3:] == ["A e1@--> B", "B --> C", "C e_2@-.->|go| A"]


def test_edge_id_works_with_inline_labels_reversed_links_and_heads() -> None:
    ast = round_trip("flowchart\nA e1@-- hi --> B\nB e2@<-- C\nC e3@o--o A\nA e4@~~~ C")
    assert ast.edges["e:e1"].label == "hi"
    assert (ast.edges["e:e2"].from_node_id, ast.edges["e:e2"].to_node_id) == ("n:C", "n:B")
    assert ast.edges["e:e3"].head_start == "circle"
    assert ast.edges["e:e4"].line == "invisible"


def test_edge_attributes_merge_and_round_trip() -> None:
    ast = round_trip(
        "flowchart LR\nA e1@==> B\nA e2@--> C\ne1@{ animate: true }\n"
        "e1@{ curve: linear, animation: fast }\ne2@{ curve: natural }"
    )
    assert ast.edges["e:e1"].attrs == {"animate": "true", "curve": "linear", "animation": "fast"}
    assert ast.edges["e:e2"].attrs == {"curve": "natural"}
    assert ast.nodes.keys() == {"n:A", "n:B", "n:C"}  # the attribute lines make no nodes
    assert export_flowchart(ast).splitlines()[-2:] == [
        "e1@{ animate: true, curve: linear, animation: fast }",
        "e2@{ curve: natural }",
    ]


def test_edge_classes_from_class_statements() -> None:
    ast = round_trip(
        "flowchart LR\nclassDef animate stroke-dasharray: 9\nA e1@--> B\nclass e1 animate\n"
        "class A,e1 hot"
    )
    assert ast.edges["e:e1"].classes == ("animate", "hot")
    assert ast.nodes["n:A"].classes == ("hot",)
    assert export_flowchart(ast).splitlines()[-3:] == [
        "class A hot",
        "class e1 animate",
        "class e1 hot",
    ]


@pytest.mark.parametrize(
    ("text", "kind", "line", "fragment"),
    [
        ("flowchart\nA & C e1@--> B", "InvalidEdgeId", 2, "one edge"),
        ("flowchart\nA e1@--> B\nB e1@--> C", "DuplicateEdgeId", 3, "twice"),
        ("flowchart\nA e1@--> B --> e1", "InvalidEdgeId", 2, "names a node"),
        ("flowchart\nA e1@--> B\ne1 --> C", "EdgeIdAsNode", 3, "edge id"),
        ("flowchart\ne1\nA e1@--> B", "InvalidEdgeId", 3, "names a node"),
        ("flowchart\nA 12@--> B", "InvalidEdgeId", 2, "digits only"),
        ("flowchart\nA e1@--> B\nsubgraph e1\nend", "InvalidSubgraph", 3, "edge id"),
        ("flowchart\nA e1@--> B\ne1@{ color: red }", "UnsupportedEdgeAttribute", 3, "color"),
        ("flowchart\ne1@{ animate: true }\nA e1@--> B", "UnsupportedNodeAttribute", 2, "edge"),
        ("flowchart\nA e1@--> B\nclick e1 call x()", "UnknownNode", 3, "edge"),
        ("flowchart\nA e1@--> B\nstyle e1 fill:red", "EdgeIdAsNode", 3, "edge id"),
    ],
)
def test_edge_id_refusals_are_precise(text: str, kind: str, line: int, fragment: str) -> None:
    error = refused(text)
    assert (error.kind, error.line) == (kind, line), error
    assert fragment in str(error)


def test_edge_id_column_points_at_the_id() -> None:
    error = refused("flowchart\n  A & C e1@--> B")
    assert error.column == 9


def test_export_refuses_edge_attributes_it_cannot_write() -> None:
    nodes = {"n:a": FlowNode(label="a"), "n:b": FlowNode(label="b")}
    edge = FlowEdge(from_node_id="n:a", to_node_id="n:b")
    cases = {
        "attributes and classes need an edge id": msgspec.structs.replace(
            edge, attrs={"animate": "true"}
        ),
        "digits only": msgspec.structs.replace(edge, mermaid_id="7"),
        "used by another edge": msgspec.structs.replace(edge, mermaid_id="a"),
        "not supported": msgspec.structs.replace(edge, mermaid_id="e", attrs={"speed": "1"}),
        "unreadable value": msgspec.structs.replace(edge, mermaid_id="e", attrs={"curve": "a,b"}),
    }
    for fragment, bad in cases.items():
        with pytest.raises(MermaidExportError) as info:
            export_flowchart(FlowchartAst(nodes=nodes, edges={"e:x": bad}))
        assert fragment in str(info.value)
        assert info.value.object_id == "e:x"


# ---- stable ids -------------------------------------------------------------------------------


def test_named_edges_keep_their_id_when_lines_move_or_labels_change() -> None:
    first = parse_flowchart("flowchart\nA e1@--> B\nA --> C")
    assert list(first.edges) == ["e:e1", "e:0002"]
    second = reconcile_flowchart(
        parse_flowchart("flowchart\nX --> A\nA --> C\nA e1@-->|changed| B"),
        FlowIdHints.from_ast(first),
    )
    assert list(second.edges) == ["e:0001", "e:0002", "e:e1"]
    assert second.edges["e:e1"].label == "changed"
    assert (second.edges["e:0002"].from_node_id, second.edges["e:0002"].to_node_id) == (
        "n:A",
        "n:C",
    )
    assert second.edges["e:0001"].from_node_id == "n:X"


def test_a_hint_holding_a_named_id_never_goes_to_another_edge() -> None:
    hints = FlowIdHints(edges=[FlowEdgeHint("e:e1", "n:A", "n:B", None, None)])
    ast = reconcile_flowchart(parse_flowchart("flowchart\nA --> B\nC e1@--> D"), hints)
    assert ast.edges["e:e1"].mermaid_id == "e1"
    unnamed = [edge_id for edge_id, edge in ast.edges.items() if edge.mermaid_id is None]
    assert len(unnamed) == 1 and unnamed[0] != "e:e1"


def test_removing_the_edge_id_keeps_the_object_id_by_fingerprint() -> None:
    first = parse_flowchart("flowchart\nA e1@--> B")
    second = reconcile_flowchart(parse_flowchart("flowchart\nA --> B"), FlowIdHints.from_ast(first))
    assert list(second.edges) == ["e:e1"]
    assert second.edges["e:e1"].mermaid_id is None


# ---- icon and image nodes -----------------------------------------------------------------


def test_icon_node_keeps_its_attributes() -> None:
    ast = round_trip(
        'flowchart TD\n    A@{ icon: "fa:user", form: "square", label: "User Icon", pos: "t", h: 60 }'
    )
    node = ast.nodes["n:A"]
    assert (node.shape, node.label) == ("icon", "User Icon")
    assert node.attrs == {"icon": '"fa:user"', "form": '"square"', "pos": '"t"', "h": "60"}
    assert export_flowchart(ast).splitlines()[-1] == (
        'A@{ icon: "fa:user", form: "square", pos: "t", h: 60, label: "User Icon" }'
    )


def test_image_node_without_label_uses_its_id() -> None:
    ast = round_trip("flowchart\nB@{ img: 'https://x/y.png', w: 40, constraint: on }\nB --> C")
    node = ast.nodes["n:B"]
    assert (node.shape, node.label) == ("image", "B")
    assert node.attrs == {"img": "'https://x/y.png'", "w": "40", "constraint": "on"}
    assert "label" not in export_flowchart(ast)


def test_icon_node_merges_with_plain_mentions() -> None:
    ast = round_trip('flowchart\nA --> B\nA@{ icon: "fa:car", label: "Car" }\nA --> C')
    assert ast.nodes["n:A"].shape == "icon"
    assert list(ast.nodes)[0] == "n:A"


@pytest.mark.parametrize(
    ("text", "kind", "fragment"),
    [
        ('flowchart\nA@{ icon: "x", img: "y" }', "InvalidNodeAttributes", "more than one"),
        ('flowchart\nA@{ shape: rect, icon: "x" }', "InvalidNodeAttributes", "more than one"),
        ('flowchart\nA@{ icon: "x", w: 3 }', "UnsupportedNodeAttribute", "'w'"),
        ('flowchart\nA@{ icon: "x", h: 1, h: 2 }', "InvalidNodeAttributes", "twice"),
        ('flowchart\nA@{ icon: "x", h: }', "InvalidNodeAttributes", "'h'"),
        ("flowchart\nA@{ shape: icon }", "UnknownShape", "icon"),
    ],
)
def test_icon_refusals_are_precise(text: str, kind: str, fragment: str) -> None:
    error = refused(text)
    assert error.kind == kind, error
    assert fragment in str(error)


def test_a_redeclared_node_takes_the_last_shape_and_attributes() -> None:
    ast = parse_flowchart('flowchart\nA@{ icon: "x" }\nA@{ icon: "y" }\nB@{ icon: "z" }\nB((c))')
    assert (ast.nodes["n:A"].shape, ast.nodes["n:A"].attrs) == ("icon", {"icon": '"y"'})
    assert (ast.nodes["n:B"].shape, ast.nodes["n:B"].attrs) == ("circle", None)
    assert parse_flowchart(export_flowchart(ast)) == ast


def test_attribute_shapes_are_model_shapes_but_not_nameable_alone() -> None:
    assert {"icon", "image"} <= SHAPES
    assert canonical_shape("icon") is None and canonical_shape("image") is None


def test_export_refuses_icon_nodes_it_cannot_write() -> None:
    cases = {
        "needs 'icon'": FlowNode(label="a", shape="icon"),
        "does not belong": FlowNode(label="a", shape="icon", attrs={"icon": '"x"', "w": "1"}),
        "its shape is rect": FlowNode(label="a", attrs={"icon": '"x"'}),
        "unreadable": FlowNode(label="a", shape="image", attrs={"img": '"a"b"'}),
    }
    for fragment, node in cases.items():
        with pytest.raises(MermaidExportError) as info:
            export_flowchart(FlowchartAst(nodes={"n:a": node}))
        assert fragment in str(info.value), info.value
        assert info.value.object_id == "n:a"


def test_every_catalogue_shape_name_imports_renders_and_round_trips() -> None:
    from nereid.model.shapes import V11_ALIASES
    from nereid.render import render_flowchart

    names = sorted(V11_ALIASES)
    assert {"squareRect", "stateStart", "rect_left_inv_arrow", "choice", "lin-doc"} <= set(names)
    text = "flowchart\n" + "\n".join(
        f'N{i}@{{ shape: {name}, label: "x" }}' for i, name in enumerate(names)
    )
    ast = parse_flowchart(text)
    assert ast.nodes["n:N0"].shape == V11_ALIASES[names[0]]
    assert parse_flowchart(export_flowchart(ast)) == ast
    assert render_flowchart(ast, "d").text
