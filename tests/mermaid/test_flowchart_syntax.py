"""Flowchart constructs beyond §12 (the Mermaid docs' forms), refusals and export errors."""

from __future__ import annotations

import pytest

from nereid.mermaid.errors import MermaidError, MermaidExportError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.flowchart_build import KEYWORDS
from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode, FlowSubgraph


def refused(text: str) -> MermaidError:
    with pytest.raises(MermaidError) as info:
        parse_flowchart(text)
    assert info.value.line is not None and info.value.column is not None
    return info.value


def roundtrip(text: str) -> tuple[FlowchartAst, str]:
    ast = parse_flowchart(text)
    exported = export_flowchart(ast)
    assert parse_flowchart(exported) == ast, exported
    return ast, exported


def pairs(ast: FlowchartAst) -> list[tuple[str, str]]:
    return [(e.from_node_id[2:], e.to_node_id[2:]) for e in ast.edges.values()]


def test_ampersand_on_both_sides_follows_mermaid_order() -> None:
    ast, _ = roundtrip("flowchart TB\n    A & B--> C & D\nlinkStyle 1 stroke:red")
    assert pairs(ast) == [("A", "C"), ("A", "D"), ("B", "C"), ("B", "D")]
    assert ast.edges["e:0002"].style == "stroke:red"


@pytest.mark.parametrize(
    ("link", "line", "start", "end", "length"),
    [
        ("o--o", "solid", "circle", "circle", 1),
        ("x--x", "solid", "cross", "cross", 1),
        ("<-->", "solid", "arrow", "arrow", 1),
        ("~~~", "invisible", "none", "none", 1),
        ("---->", "solid", "none", "arrow", 3),
        ("-..->", "dotted", "none", "arrow", 2),
        ("====>", "thick", "none", "arrow", 3),
        ("---", "solid", "none", "none", 1),
        ("--x", "solid", "none", "cross", 1),
    ],
)
def test_link_forms(link: str, line: str, start: str, end: str, length: int) -> None:
    ast, exported = roundtrip(f"flowchart LR\nA {link} B")
    edge = ast.edges["e:0001"]
    assert (edge.line, edge.head_start, edge.head_end, edge.length) == (line, start, end, length)
    assert exported.endswith(f"A {link} B\n")


def test_inline_labels_with_length_and_quotes() -> None:
    ast, exported = roundtrip('flowchart\nB -- No ----> E\nA-- "edge label" ---B\nC -. x-y .-> D')
    labels = [(e.label, e.connector) for e in ast.edges.values()]
    assert labels == [("No", "---->"), ("edge label", "---"), ("x-y", "-.->")]
    assert "B ---->|No| E" in exported


def test_bracket_shapes_round_trip() -> None:
    text = (
        "flowchart\na((c))\nb(((d)))\nc([s])\nd[[r]]\ne[(db)]\nf{{h}}\ng>as]\n"
        "h[/p/]\ni[\\p\\]\nj[/t\\]\nk[\\t/]\nl(r)\nm{d}\n"
    )
    ast, exported = roundtrip(text)
    assert [n.shape for n in ast.nodes.values()] == [
        "circle", "double_circle", "stadium", "subroutine", "cylindrical", "hexagon",
        "asymmetric", "parallelogram", "parallelogram_alt", "trapezoid", "trapezoid_alt",
        "round", "diamond",
    ]  # fmt: skip
    assert exported == text


def test_v11_shapes_use_the_model_names() -> None:
    ast, exported = roundtrip(
        'flowchart RL\nA@{ shape: manual-file, label: "File Handling"}\nB@{ shape: cyl }\n'
        'C@{ shape: rounded, label: "x" }'
    )
    assert [(n.shape, n.label) for n in ast.nodes.values()] == [
        ("flip-tri", "File Handling"),
        ("cylindrical", "B"),
        ("round", "x"),
    ]
    assert exported == (
        'flowchart RL\nA@{ shape: flip-tri, label: "File Handling" }\nB[(B)]\nC(x)\n'
    )


def test_markdown_strings_keep_their_backticks_and_lines() -> None:
    ast, exported = roundtrip(
        'flowchart LR\n  a("`The **cat**\n  in the hat`") -- "`Bold **edge**`" --> b["`x`"]'
    )
    assert ast.nodes["n:a"].label == "`The **cat**\nin the hat`"
    assert ast.edges["e:0001"].label == "`Bold **edge**`"
    assert 'b["`x`"]' in exported
    assert refused("flowchart\na[`md`]").kind == "InvalidNodeLabel"


def test_entities_and_breaks_are_verbatim() -> None:
    ast, exported = roundtrip('flowchart\nA["A double quote:#quot;"] --> B[a<br/>b]')
    assert ast.nodes["n:A"].label == "A double quote:#quot;"
    assert ast.nodes["n:B"].label == "a<br/>b"
    assert 'A["A double quote:#quot;"]' in exported


def test_subgraphs_membership_titles_nesting_and_direction() -> None:
    ast, exported = roundtrip(
        "flowchart TB\n    c1-->a2\n    subgraph one\n    a1-->a2\n    end\n"
        'subgraph outer [Outer box]\ndirection LR\nx1\nsubgraph inner ["in [1]"]\nx1 --> x2\nend\nend\n'
        'subgraph "Quoted"\nq\nend\nsubgraph two words\nw\nend'
    )
    assert ast.subgraphs["sg:one"] == FlowSubgraph(mermaid_id="one", node_ids=("n:a1", "n:a2"))
    assert ast.subgraphs["sg:outer"] == FlowSubgraph(
        mermaid_id="outer", title="Outer box", direction="LR", subgraph_ids=("sg:inner",)
    )
    assert ast.subgraphs["sg:inner"].node_ids == ("n:x1", "n:x2")
    assert ast.subgraphs["sg:inner"].title == "in [1]"
    assert ast.subgraphs["sg:Quoted"].title == "Quoted"
    assert ast.subgraphs["sg:subGraph4"].title == "two words"
    assert list(ast.subgraphs) == ["sg:one", "sg:outer", "sg:inner", "sg:Quoted", "sg:subGraph4"]
    assert 'subgraph inner ["in [1]"]' in exported


def test_front_matter_bom_and_crlf() -> None:
    ast, exported = roundtrip("\ufeff---\r\ntitle: Node\r\n---\r\nflowchart LR\r\n    id\r\n")
    assert ast.front_matter == "title: Node"
    assert exported == "---\ntitle: Node\n---\nflowchart LR\nid\n"
    error = refused("---\ntitle: x\nflowchart")
    assert (error.kind, error.line) == ("UnclosedFrontMatter", 1)


def test_styles_classes_and_clicks() -> None:
    ast, exported = roundtrip(
        "flowchart LR\nA:::foo & B:::bar --> C\nclassDef foo,bar stroke:#f00\n"
        "class C foo\nclass A,B baz\nstyle Z fill:#fff\n"
        'click A call callback("a;b") "Tip"\nlinkStyle default interpolate basis'
    )
    assert ast.class_defs == {"foo": "stroke:#f00", "bar": "stroke:#f00"}
    assert ast.nodes["n:A"].classes == ("foo", "baz")
    assert ast.nodes["n:C"].classes == ("foo",)
    assert ast.nodes["n:Z"].style == "fill:#fff"  # `style` creates the node, as in Mermaid
    assert ast.nodes["n:A"].click == 'call callback("a;b") "Tip"'
    assert ast.default_edge_style == "interpolate basis"


def test_keyword_named_nodes_round_trip() -> None:
    ast, exported = roundtrip("flowchart\nstyle --> subgraph\nclass & direction --> x")
    assert list(ast.nodes) == ["n:style", "n:subgraph", "n:class", "n:direction", "n:x"]
    assert "style[style]" in exported


@pytest.mark.parametrize(
    ("text", "kind", "line", "fragment"),
    [
        ("flowchart\nA & C e1@--> B", "InvalidEdgeId", 2, "one edge"),
        ("flowchart\nA@{ icon: 'fa:user', size: 3 }", "UnsupportedNodeAttribute", 2, "size"),
        ("flowchart\nA@{ shape: blob }", "UnknownShape", 2, "blob"),
        ("flowchart\nsubgraph S\na\nend\nS[x] --> a", "SubgraphAsNode", 5, "shape"),
        ("flowchart\nS((x)) --> a\nsubgraph S\nend", "SubgraphAsNode", 3, "shape"),
        ("flowchart\nS --> a\nclick S href x\nsubgraph S\nend", "SubgraphAsNode", 4, "click"),
        ("flowchart\nsubgraph S\nend\nclick S href x", "UnknownNode", 4, "subgraph"),
        ("flowchart\nsubgraph S\nclass S hot\nend", "UnknownNode", 3, "before its 'end'"),
        ("flowchart\nsubgraph a/b [T]\nend", "InvalidSubgraph", 2, "'/'"),
        ("flowchart\nsubgraph a:b[T]\nend", "InvalidSubgraph", 2, "':'"),
        ("flowchart\nend --> a", "InvalidNodeId", 2, "'end'"),
        ("flowchart\nend", "UnmatchedEnd", 2, "end"),
        ("flowchart\n\nsubgraph S\na", "UnclosedSubgraph", 3, "S"),
        ("flowchart\ndirection XY", "InvalidDirection", 2, "XY"),
        ("flowchart\naccDescr {\nhi", "UnclosedAccDescr", 2, "'}'"),
        ("flowchart\nclass a hot", "UnknownNode", 2, "'a'"),
        ("flowchart\na --> b %% note", "InvalidNodeId", 2, "%"),
        ("flowchart\na -- b", "InvalidLink", 2, "incomplete"),
        ("flowchart\na -->", "UnsupportedSyntax", 2, ""),
        ("flowchart\na[x] b", "InvalidNodeId", 2, "b"),
        ('flowchart\na["open', "UnclosedString", 2, "open"),
        ("flowchart\nlinkStyle 0, 1 w", "UnsupportedSyntax", 2, "linkStyle"),
        ("flowchart\nsubgraph a\nend\nsubgraph a\nend", "DuplicateSubgraph", 4, "a"),
    ],
)
def test_refusals_are_precise(text: str, kind: str, line: int, fragment: str) -> None:
    error = refused(text)
    assert (error.kind, error.line) == (kind, line), str(error)
    assert fragment in str(error)
    assert f"line {line}" in str(error) or kind == "UnclosedSubgraph"


def test_error_columns_point_at_the_offending_text() -> None:
    assert refused("flowchart\n  a --> b --> a$").column == 16
    assert refused("flowchart\na --> b; c --> ö$").column == 17


def _ast(**nodes: FlowNode) -> FlowchartAst:
    return FlowchartAst(nodes={f"n:{k}": v for k, v in nodes.items()})


@pytest.mark.parametrize(
    ("ast", "kind"),
    [
        (
            FlowchartAst(edges={"e:1": FlowEdge(from_node_id="n:a", to_node_id="n:b")}),
            "MissingNode",
        ),
        (_ast(a=FlowNode(label='say "hi"')), "InvalidNodeLabel"),
        (_ast(a=FlowNode(label="")), "InvalidNodeLabel"),
        (_ast(a=FlowNode(label="x", shape="blob")), "InvalidNodeShape"),
        (FlowchartAst(nodes={"n:a b": FlowNode(label="x")}), "InvalidNodeId"),
        (_ast(end=FlowNode(label="x")), "InvalidNodeId"),
        (
            FlowchartAst(
                nodes={"n:a": FlowNode(label="a")},
                edges={
                    "e:1": FlowEdge(
                        from_node_id="n:a", to_node_id="n:a", head_start="arrow", head_end="none"
                    )
                },
            ),
            "InvalidEdgeLink",
        ),
        (
            FlowchartAst(
                nodes={"n:a": FlowNode(label="a")},
                edges={"e:1": FlowEdge(from_node_id="n:a", to_node_id="n:a", label='"q"')},
            ),
            "InvalidEdgeLabel",
        ),
        (
            FlowchartAst(subgraphs={"sg:s": FlowSubgraph(mermaid_id="s", node_ids=("n:q",))}),
            "MissingNode",
        ),
        (_ast(a=FlowNode(label="a", style="fill:#f00;color:red")), "InvalidStatement"),
    ],
)
def test_export_errors(ast: FlowchartAst, kind: str) -> None:
    with pytest.raises(MermaidExportError) as info:
        export_flowchart(ast)
    assert info.value.kind == kind


def test_export_quotes_only_where_needed() -> None:
    ast = _ast(
        a=FlowNode(label="plain text"),
        b=FlowNode(label=" padded"),
        c=FlowNode(label="f(x)"),
        d=FlowNode(label="/x/"),
        e=FlowNode(label="a|b", shape="round"),
    )
    assert export_flowchart(ast).splitlines()[1:] == [
        "a[plain text]",
        'b[" padded"]',
        'c["f(x)"]',
        'd["/x/"]',
        'e("a|b")',
    ]
    assert parse_flowchart(export_flowchart(ast)).nodes["n:d"].label == "/x/"


@pytest.mark.parametrize("word", sorted(KEYWORDS))
@pytest.mark.parametrize("rest", ["x", "x y", '"q"', "[a]", "-->"])
def test_a_keyword_with_any_text_after_it_is_read_or_refused_precisely(
    word: str, rest: str
) -> None:
    try:
        parse_flowchart(f"flowchart\n{word} {rest}\n")
    except MermaidError as err:
        assert err.line == 2, err
