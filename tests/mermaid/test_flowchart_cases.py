"""mermaid.md §12 flowchart cases F01-F35 and R01/R02 (Port and EXT results where we differ)."""

from __future__ import annotations

import pytest

from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.model.flowchart import FlowchartAst


def refused(text: str) -> MermaidError:
    with pytest.raises(MermaidError) as info:
        parse_flowchart(text)
    return info.value


def edges(ast: FlowchartAst) -> list[tuple[str, str, str, str | None, str | None]]:
    return [
        (edge_id, e.from_node_id, e.to_node_id, e.label, e.connector)
        for edge_id, e in ast.edges.items()
    ]


def nodes(ast: FlowchartAst) -> dict[str, tuple[str, str]]:
    return {node_id: (n.shape, n.label) for node_id, n in ast.nodes.items()}


def roundtrip(ast: FlowchartAst) -> str:
    text = export_flowchart(ast)
    assert parse_flowchart(text) == ast
    assert export_flowchart(parse_flowchart(text)) == text
    return text


F01 = "flowchart LR\nsrc[Source] --> mid --> dst{Done?}\ndst -->|retry| src"
F16 = "flowchart\nlinkStyle 1 stroke:red\na --> b\nb --> c\nlinkStyle default color:blue"


def test_f01_chain_pipe_label_and_export() -> None:
    ast = parse_flowchart(F01)
    assert ast.direction == "LR"
    assert nodes(ast) == {
        "n:src": ("rect", "Source"),
        "n:mid": ("rect", "mid"),
        "n:dst": ("diamond", "Done?"),
    }
    assert edges(ast) == [
        ("e:0001", "n:src", "n:mid", None, None),
        ("e:0002", "n:mid", "n:dst", None, None),
        ("e:0003", "n:dst", "n:src", "retry", None),
    ]
    # EXT: direction kept, declaration order (decision 16) instead of id order.
    assert roundtrip(ast) == (
        "flowchart LR\nsrc[Source]\nmid\ndst{Done?}\nsrc --> mid\nmid --> dst\ndst -->|retry| src\n"
    )


def test_f02_pipe_labels() -> None:
    ast = parse_flowchart("graph TD\nq{Ready?} -->|yes| go[Go]\nq -->|no| stop")
    assert [e[3] for e in edges(ast)] == ["yes", "no"]
    assert ast.nodes["n:stop"].label == "stop"
    assert ast.direction == "TD"


def test_f03_reverse_links() -> None:
    ast = parse_flowchart("flowchart\nm <-- n\nm2 <-.- n2")
    assert edges(ast) == [
        ("e:0001", "n:n", "n:m", None, None),
        ("e:0002", "n:n2", "n:m2", None, "-.->"),
    ]


def test_f04_double_arrow() -> None:
    ast = parse_flowchart("flowchart\nu <--> v")
    assert edges(ast) == [("e:0001", "n:u", "n:v", None, "<-->")]
    assert "u <--> v" in roundtrip(ast)


def test_f05_inline_label_exports_in_pipe_form() -> None:
    ast = parse_flowchart("flowchart\ns -- go on --> t")
    assert edges(ast) == [("e:0001", "n:s", "n:t", "go on", None)]
    assert roundtrip(ast).endswith("s -->|go on| t\n")


def test_f06_thick_inline_label() -> None:
    ast = parse_flowchart("flowchart\ns == heavy ==> t")
    assert edges(ast) == [("e:0001", "n:s", "n:t", "heavy", "==>")]


def test_f07_label_upgrade() -> None:
    ast = parse_flowchart("flowchart\nk --> j\nk[Kilo]")
    assert nodes(ast) == {"n:k": ("rect", "Kilo"), "n:j": ("rect", "j")}


def test_f08_redeclared_label_last_wins() -> None:
    # Mermaid's addVertex: the last declaration's label and shape win; a bare mention keeps.
    ast = parse_flowchart("flowchart\nk[One]\nk[Two] --> k")
    assert nodes(ast) == {"n:k": ("rect", "Two")}
    roundtrip(ast)


def test_f09_redeclared_shape_last_wins() -> None:
    assert nodes(parse_flowchart("flowchart\nk(R)\nk{R}\nk")) == {"n:k": ("diamond", "R")}


def test_f10_rect_upgrades_to_round() -> None:
    assert nodes(parse_flowchart("flowchart\nk[S]\nk(S)")) == {"n:k": ("round", "S")}


def test_f11_missing_header() -> None:
    error = refused("a --> b")
    assert error.kind == "MissingHeader"
    assert str(error) == "expected 'flowchart' as the first non-empty line"


def test_f12_invalid_direction() -> None:
    error = refused("flowchart XY")
    assert (error.kind, error.line, error.text) == ("InvalidDirection", 1, "XY")
    assert str(error) == "invalid flowchart direction on line 1: XY (expected TD/TB/LR/RL/BT)"


def test_f13_extra_header_token() -> None:
    error = refused("graph LR extra")
    assert (error.kind, error.line) == ("UnsupportedSyntax", 1)


def test_f14_semicolon_separates_statements() -> None:
    # Rust: InvalidNodeId `b;`. EXT: `;` ends a statement as in Mermaid.
    ast = parse_flowchart("flowchart\na --> b;")
    assert edges(ast) == [("e:0001", "n:a", "n:b", None, None)]
    assert edges(parse_flowchart("graph TD;a-->b;b-->c")) == [
        ("e:0001", "n:a", "n:b", None, None),
        ("e:0002", "n:b", "n:c", None, None),
    ]


def test_f15_styling_and_subgraphs_are_kept() -> None:
    # Rust drops them all; EXT: modelled and exported back.
    ast = parse_flowchart(
        "flowchart\nclassDef hot fill:#f00\nsubgraph grp [G]\na --> b\nend\n"
        'class a hot\nstyle b stroke:#000\nclick a href "x"'
    )
    assert list(ast.nodes) == ["n:a", "n:b"]
    assert len(ast.edges) == 1
    assert ast.class_defs == {"hot": "fill:#f00"}
    group = ast.subgraphs["sg:grp"]
    assert (group.title, group.node_ids) == ("G", ("n:a", "n:b"))
    assert ast.nodes["n:a"].classes == ("hot",)
    assert ast.nodes["n:a"].click == 'href "x"'
    assert ast.nodes["n:b"].style == "stroke:#000"
    assert roundtrip(ast) == (
        "flowchart\nclassDef hot fill:#f00\na\nb\nsubgraph grp [G]\na\nb\nend\na --> b\n"
        'class a hot\nclick a href "x"\nstyle b stroke:#000\n'
    )


def test_f16_link_styles() -> None:
    ast = parse_flowchart(F16)
    assert ast.edges["e:0002"].style == "stroke:red"
    assert ast.edges["e:0001"].style is None
    assert ast.default_edge_style == "color:blue"
    assert roundtrip(ast).endswith("linkStyle default color:blue\nlinkStyle 1 stroke:red\n")


def test_f17_link_style_index_out_of_bounds() -> None:
    error = refused("flowchart\na --> b\nlinkStyle 2 stroke:red")
    assert (error.kind, error.line) == ("InvalidLinkStyleIndex", 3)
    assert str(error) == ("invalid flowchart linkStyle on line 3: index 2 is out of bounds (max 0)")


def test_f18_link_style_list() -> None:
    ast = parse_flowchart("flowchart\na --> b\nb --> c\na --> c\nlinkStyle 0,2 w")
    assert [e.style for e in ast.edges.values()] == ["w", None, "w"]
    # EXT: edges stay in text order, so the indices stay as written.
    assert roundtrip(ast).endswith("linkStyle 0 w\nlinkStyle 2 w\n")


def test_f19_empty_edge_label() -> None:
    error = refused("flowchart\na -->|| b")
    assert (error.kind, error.line) == ("EmptyEdgeLabel", 2)
    # A blank label is a label (Mermaid draws it): kept as written, quoted on export.
    assert roundtrip(parse_flowchart("flowchart\na -->| | b")).endswith('a -->|" "| b\n')


def test_f20_unclosed_pipe() -> None:
    error = refused("flowchart\na -->|open b")
    assert (error.kind, error.line) == ("UnsupportedSyntax", 2)
    assert error.column == 6


def test_f21_empty_node_label() -> None:
    error = refused("flowchart\na[]")
    assert (error.kind, error.line) == ("EmptyNodeLabel", 2)
    ast = parse_flowchart('flowchart\na[ ]\nb((  ))\nc[" "]')
    assert nodes(ast) == {"n:a": ("rect", " "), "n:b": ("circle", "  "), "n:c": ("rect", " ")}
    roundtrip(ast)


def test_f22_unclosed_bracket() -> None:
    error = refused("flowchart\na[oops")
    assert (error.kind, error.line, error.text) == ("InvalidNodeLabelSyntax", 2, "a[oops")
    assert error.column == 2


def test_f23_unicode_labels() -> None:
    ast = parse_flowchart("flowchart\na[Zürich 🚆] -->|→ east| b")
    assert ast.nodes["n:a"].label == "Zürich 🚆"
    text = roundtrip(ast)
    assert text == "flowchart\na[Zürich 🚆]\nb\na -->|→ east| b\n"


def test_f24_self_loops_repeat() -> None:
    ast = parse_flowchart("flowchart\nz --> z\nz --> z")
    assert list(ast.nodes) == ["n:z"]
    assert edges(ast) == [
        ("e:0001", "n:z", "n:z", None, None),
        ("e:0002", "n:z", "n:z", None, None),
    ]


def test_f25_comments_and_blank_lines_before_header() -> None:
    ast = parse_flowchart("%% only\n\nflowchart")
    assert ast == FlowchartAst()
    assert export_flowchart(ast) == "flowchart\n"


def test_f26_circle() -> None:
    ast = parse_flowchart("flowchart\nc((Hub))")
    assert nodes(ast) == {"n:c": ("circle", "Hub")}
    assert roundtrip(ast) == "flowchart\nc((Hub))\n"


def test_f27_ampersand() -> None:
    ast = parse_flowchart("flowchart\na --> b & c")
    assert edges(ast) == [
        ("e:0001", "n:a", "n:b", None, None),
        ("e:0002", "n:a", "n:c", None, None),
    ]


def test_f28_class_shorthand() -> None:
    ast = parse_flowchart("flowchart\nt1:::hot --> t2")
    assert ast.nodes["n:t1"].classes == ("hot",)
    assert edges(ast) == [("e:0001", "n:t1", "n:t2", None, None)]


def test_f29_dotted_inline_label() -> None:
    ast = parse_flowchart("flowchart\na -. maybe .-> b")
    assert edges(ast) == [("e:0001", "n:a", "n:b", "maybe", "-.->")]
    assert list(ast.nodes) == ["n:a", "n:b"]


def test_f30_inline_label_with_hyphen() -> None:
    ast = parse_flowchart("flowchart\na -- pre-flight --> b")
    assert edges(ast) == [("e:0001", "n:a", "n:b", "pre-flight", None)]


def test_f31_single_dash_arrow_is_not_a_link() -> None:
    error = refused("flowchart\na -> b")
    assert (error.kind, error.line, error.text) == ("InvalidNodeId", 2, "a -> b")
    assert "must not contain whitespace" in str(error)


def test_f32_keyword_named_nodes_in_edges() -> None:
    # Rust (Q5) drops the first line; Port: it is an edge from node `class`.
    ast = parse_flowchart("flowchart\nclass --> x\nlink-->y")
    assert edges(ast) == [
        ("e:0001", "n:class", "n:x", None, None),
        ("e:0002", "n:link", "n:y", None, None),
    ]
    assert "class[class]" in roundtrip(ast)


def test_f33_quoted_label_is_unquoted() -> None:
    # Decision 16: the label is the text a person reads; quotes come back where needed.
    ast = parse_flowchart('flowchart\na["Quoted (text)"]')
    assert nodes(ast) == {"n:a": ("rect", "Quoted (text)")}
    assert roundtrip(ast) == 'flowchart\na["Quoted (text)"]\n'


def test_f34_spaces_between_id_and_shape() -> None:
    ast = parse_flowchart("flowchart\nA [x] --> B ( y )")
    assert nodes(ast) == {"n:A": ("rect", "x"), "n:B": ("round", "y")}
    assert edges(ast) == [("e:0001", "n:A", "n:B", None, None)]


def test_f35_ids_as_mermaid_reads_them() -> None:
    # Letters of any script, digits first, and single `-` `.` `:` inside (Mermaid 11).
    ast = parse_flowchart("flowchart\ná1 --> api-gw\nv1.2 --> x:y[Ex] --> 2fa\n東京 --- Zoë")
    assert list(ast.nodes) == ["n:á1", "n:api-gw", "n:v1.2", "n:x:y", "n:2fa", "n:東京", "n:Zoë"]
    roundtrip(ast)
    error = refused("flowchart\na$b --> c")
    assert (error.kind, error.line, error.column, error.text) == ("InvalidNodeId", 2, 2, "a$b")
    assert str(error) == "invalid node id on line 2: a$b (contains invalid character: '$')"


@pytest.mark.parametrize("text", [F01, F16])
def test_r01_round_trip(text: str) -> None:
    roundtrip(parse_flowchart(text))


def test_r02_export_keeps_text_order_so_ids_survive() -> None:
    ast = parse_flowchart("flowchart\nA --> B\nB --> A\nA --> B")
    text = roundtrip(ast)
    assert text == "flowchart\nA\nB\nA --> B\nB --> A\nA --> B\n"
    # EXT: document order keeps e:0002 the B→A edge (the reference renumbers it).
    assert parse_flowchart(text).edges["e:0002"].from_node_id == "n:B"
