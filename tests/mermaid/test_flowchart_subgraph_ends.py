"""Subgraphs as edge ends, styled objects and every header form (issue 15, spec decision 23).

Each case is a golden: the AST the text must give and the canonical text it must export to;
every golden is also re-imported (export is lossless and a fixpoint).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.model.flowchart import FlowchartAst


def roundtrip(text: str) -> tuple[FlowchartAst, str]:
    ast = parse_flowchart(text)
    exported = export_flowchart(ast)
    again = parse_flowchart(exported)
    assert again == ast, exported
    assert export_flowchart(again) == exported
    return ast, exported


def ends(ast: FlowchartAst) -> list[tuple[str, str]]:
    return [(e.from_node_id, e.to_node_id) for e in ast.edges.values()]


def test_edges_to_from_and_between_subgraphs_in_every_form() -> None:
    ast, text = roundtrip(
        "flowchart LR\nsubgraph core\na\nend\nsubgraph data [Data]\nb\nend\n"
        "gw --> core\ncore -->|reads| data\ndata -.-> gw & b\ncore ==> data --o gw\n"
        "core -- text --> gw\ngw <--> data\n"
    )
    assert ends(ast) == [
        ("n:gw", "sg:core"),
        ("sg:core", "sg:data"),
        ("sg:data", "n:gw"),
        ("sg:data", "n:b"),
        ("sg:core", "sg:data"),
        ("sg:data", "n:gw"),
        ("sg:core", "n:gw"),
        ("n:gw", "sg:data"),
    ]
    assert list(ast.nodes) == ["n:a", "n:b", "n:gw"]
    assert ast.edges["e:0002"].label == "reads"
    assert ast.edges["e:0003"].line == "dotted"
    assert ast.edges["e:0007"].label == "text"
    assert "core -->|reads| data\n" in text
    assert "gw <--> data\n" in text


def test_an_edge_written_before_the_subgraph_turns_that_node_into_the_cluster() -> None:
    ast, text = roundtrip(
        "flowchart TB\nA --> sg\nsg --> B\nsubgraph sg [Group]\nx\nend\nstyle sg fill:#f9f\n"
    )
    assert "n:sg" not in ast.nodes
    assert ends(ast) == [("n:A", "sg:sg"), ("sg:sg", "n:B")]
    assert ast.subgraphs["sg:sg"].style == "fill:#f9f"
    assert ast.subgraphs["sg:sg"].node_ids == ("n:x",)
    assert text.startswith("flowchart TB\nA\nB\nx\nsubgraph sg [Group]\nx\nend\n")


def test_style_class_and_triple_colon_on_subgraphs() -> None:
    ast, text = roundtrip(
        "flowchart\nclassDef hot fill:#f00\nsubgraph one\na\nend\nclass one hot\n"
        "one:::cold --> a\nstyle one stroke:#000\nstyle one color:red\n"
    )
    sg = ast.subgraphs["sg:one"]
    assert sg.classes == ("hot", "cold")
    assert sg.style == "stroke:#000,color:red"
    assert text.endswith("class one hot\nclass one cold\nstyle one stroke:#000,color:red\n")


@pytest.mark.parametrize(
    ("header", "mermaid_id", "title", "written"),
    [
        ("subgraph g1", "g1", None, "subgraph g1"),
        ("subgraph g1 [The title]", "g1", "The title", "subgraph g1 [The title]"),
        ("subgraph g1[The title]", "g1", "The title", "subgraph g1 [The title]"),
        ('subgraph g1["a [b]"]', "g1", "a [b]", 'subgraph g1 ["a [b]"]'),
        ('subgraph "Quoted"', "Quoted", "Quoted", "subgraph Quoted [Quoted]"),
        ('subgraph "Two words"', "subGraph0", "Two words", 'subgraph "Two words"'),
        ("subgraph two plain words", "subGraph0", "two plain words", 'subgraph "two plain words"'),
        ("subgraph g1 [ ]", "g1", "", "subgraph g1 [ ]"),
        ('subgraph g1 [" "]', "g1", "", "subgraph g1 [ ]"),
        ("subgraph Über_Grüße", "Über_Grüße", None, "subgraph Über_Grüße"),
        ("subgraph api-v1.2", "api-v1.2", None, "subgraph api-v1.2"),
        ("subgraph 数据 [Données]", "数据", "Données", "subgraph 数据 [Données]"),
        ('subgraph "`**Two**`"', "subGraph0", "`**Two**`", 'subgraph "`**Two**`"'),
    ],
)
def test_every_header_form_reads_and_is_written_back(
    header: str, mermaid_id: str, title: str | None, written: str
) -> None:
    ast, text = roundtrip(f"flowchart\n{header}\nx\nend\n")
    (sg,) = ast.subgraphs.values()
    assert (sg.mermaid_id, sg.title, sg.node_ids) == (mermaid_id, title, ("n:x",))
    assert list(ast.subgraphs) == [f"sg:{mermaid_id}"]
    assert f"\n{written}\n" in text


def test_generated_ids_count_subgraphs_in_closing_order_as_mermaid_does() -> None:
    ast, text = roundtrip(
        'flowchart\nsubgraph "Outer box"\nsubgraph "Inner box"\na\nend\nend\n'
        "subgraph named\nb\nend\nsubgraph last one\nc\nend\n"
    )
    assert list(ast.subgraphs) == ["sg:subGraph1", "sg:subGraph0", "sg:named", "sg:subGraph3"]
    assert ast.subgraphs["sg:subGraph1"].title == "Outer box"
    assert ast.subgraphs["sg:subGraph1"].subgraph_ids == ("sg:subGraph0",)
    assert 'subgraph "Outer box"\nsubgraph "Inner box"\n' in text


def test_nested_direction_is_kept_and_written() -> None:
    ast, text = roundtrip(
        "flowchart LR\nsubgraph TOP\ndirection TB\nsubgraph B1\ndirection RL\ni1 --> f1\nend\n"
        "end\nA --> TOP --> B\n"
    )
    assert ast.subgraphs["sg:TOP"].direction == "TB"
    assert ast.subgraphs["sg:B1"].direction == "RL"
    assert "subgraph TOP\ndirection TB\nsubgraph B1\ndirection RL\n" in text
    assert ends(ast)[1:] == [("n:A", "sg:TOP"), ("sg:TOP", "n:B")]


def test_naming_a_subgraph_inside_another_body_nests_it_as_mermaid_does() -> None:
    ast, _ = roundtrip("flowchart\nsubgraph one\na\nend\nsubgraph two\none --> b\nend\n")
    assert ast.subgraphs["sg:two"].subgraph_ids == ("sg:one",)
    assert list(ast.subgraphs) == ["sg:two", "sg:one"]
    # A forward reference from an earlier subgraph's body claims it the same way.
    ast, _ = roundtrip("flowchart\nsubgraph one\na --> two\nend\nsubgraph two\nb\nend\n")
    assert ast.subgraphs["sg:one"].subgraph_ids == ("sg:two",)


def test_a_subgraph_named_inside_itself_or_its_descendants_stays_a_reference() -> None:
    ast, _ = roundtrip(
        "flowchart\nsubgraph outer\nsubgraph inner\nx --> outer\nend\ninner --> y\nend\n"
    )
    assert ast.subgraphs["sg:outer"].subgraph_ids == ("sg:inner",)
    assert ast.subgraphs["sg:inner"].subgraph_ids == ()
    assert ends(ast) == [("n:x", "sg:outer"), ("sg:inner", "n:y")]
    # Two subgraphs naming each other: the first claim wins, the second is a reference.
    ast, _ = roundtrip("flowchart\nsubgraph a\nn --> b\nend\nsubgraph b\na --> m\nend\n")
    assert ast.subgraphs["sg:a"].subgraph_ids == ("sg:b",)
    assert ast.subgraphs["sg:b"].subgraph_ids == ()


@pytest.mark.parametrize(
    ("text", "kind", "line"),
    [
        ("flowchart\nsubgraph S\nend\nS[label] --> a", "SubgraphAsNode", 4),
        ("flowchart\nsubgraph S\nend\nS@{ shape: doc } --> a", "SubgraphAsNode", 4),
        ("flowchart\nS{x}\nsubgraph S\nend", "SubgraphAsNode", 3),
        ("flowchart\nsubgraph S\nend\nclick S call f()", "UnknownNode", 4),
    ],
)
def test_what_a_subgraph_cannot_carry_is_refused_precisely(text: str, kind: str, line: int) -> None:
    with pytest.raises(MermaidError) as info:
        parse_flowchart(text)
    assert (info.value.kind, info.value.line) == (kind, line)


_NAMES = st.sampled_from(["a", "b", "s1", "s2", "s3", "g"])
_LINKS = st.sampled_from(["-->", "---", "-.->", "==>", "<-->", "o--o", "--x", "~~~", "-->|l|"])


@st.composite
def _diagrams(draw: st.DrawFn) -> str:
    lines = ["flowchart " + draw(st.sampled_from(["TD", "LR"])), "a --> b"]
    depth = 0
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.integers(0, 6))
        if kind == 0:
            title = draw(st.sampled_from(["", " [T t]", " [ ]", ' ["x"]']))
            name = draw(st.sampled_from(["s1", "s2", "s3", "g", "Ü-1", '"two words"']))
            lines.append(f"subgraph {name}{title if not name.startswith(chr(34)) else ''}")
            depth += 1
        elif kind == 1 and depth:
            lines.append("end")
            depth -= 1
        elif kind == 2 and depth:
            lines.append("direction " + draw(st.sampled_from(["LR", "BT"])))
        elif kind == 3:
            lines.append(f"style {draw(_NAMES)} fill:#f00")
        elif kind == 4:
            lines.append(f"class {draw(_NAMES)} hot")
        else:
            a, b, c = draw(_NAMES), draw(_NAMES), draw(_NAMES)
            lines.append(f"{a} {draw(_LINKS)} {b} & {c}:::hot {draw(_LINKS)} a")
    lines += ["end"] * depth
    return "\n".join(lines) + "\n"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_diagrams())
def test_every_accepted_diagram_with_subgraph_ends_exports_and_reads_back_equal(
    text: str,
) -> None:
    try:
        ast = parse_flowchart(text)
    except MermaidError as error:
        assert error.line is not None
        return
    exported = export_flowchart(ast)
    assert parse_flowchart(exported) == ast, exported
    for edge in ast.edges.values():
        for end in (edge.from_node_id, edge.to_node_id):
            assert ast.end_kind(end) is not None
    for sg in ast.subgraphs.values():
        assert f"n:{sg.mermaid_id}" not in ast.nodes
