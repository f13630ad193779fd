"""Properties of the flowchart importer/exporter, checked on generated input (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nereid.mermaid.errors import MermaidError
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.flowchart_syntax import _fast, parse_chain_lark
from nereid.model.shapes import BRACKET_SHAPES

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

IDS = st.sampled_from(
    ["a", "b", "c", "o", "x", "A1", "n_2", "class", "style", "sub", "api-gw", "a.b", "x:y",
     "2fa", "Zoë", "東京"]
)  # fmt: skip
LABEL_TEXT = st.text(alphabet="ab -.:/\\#;&é`<>()[]{}|", min_size=0, max_size=7)
LINKS = st.sampled_from(
    ["-->", "---", "-.->", "-.-", "==>", "===", "<-->", "o--o", "x--x", "~~~", "--o", "--x",
     "---->", "-..->", "====>", "<--", "<==", "<-.-", "--", "->", "<->"]
)  # fmt: skip


@st.composite
def node_refs(draw: st.DrawFn) -> str:
    name = draw(IDS)
    kind = draw(st.integers(0, 4))
    if kind == 1:
        opener, closer = BRACKET_SHAPES[draw(st.sampled_from(sorted(BRACKET_SHAPES)))]
        label = draw(LABEL_TEXT)
        if draw(st.booleans()):
            label = '"' + label.replace('"', "") + '"'
        name += draw(st.sampled_from(["", " "])) + opener + label + closer
    elif kind == 2:
        shape = draw(st.sampled_from(["doc", "cyl", "bolt", "nope", "circle"]))
        name += f'@{{ shape: {shape}, label: "{draw(LABEL_TEXT)}" }}'
    elif kind == 3:
        extra = draw(st.sampled_from(["", ", h: 60", ", form: square", ", w: 2", ", animate: x"]))
        key = draw(st.sampled_from(["icon", "img"]))
        name += f'@{{ {key}: "{draw(LABEL_TEXT)}"{extra} }}'
    if draw(st.integers(0, 4)) == 0:
        name += ":::" + draw(st.sampled_from(["hot", "cold-1"]))
    return name


@st.composite
def links(draw: st.DrawFn) -> str:
    link = draw(LINKS)
    if draw(st.integers(0, 3)) == 0:
        link = draw(st.sampled_from(["e1@", "e2@", "a@", "9@"])) + link
    form = draw(st.integers(0, 3))
    if form == 1:
        return f"{link}|{draw(LABEL_TEXT)}|"
    if form == 2:
        return f'{link}|"{draw(LABEL_TEXT)}"|'
    if form == 3:
        opening = draw(st.sampled_from(["--", "==", "-."]))
        return f"{opening} {draw(LABEL_TEXT)} {link}"
    return link


@st.composite
def statements(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return f"classDef {draw(st.sampled_from(['hot', 'cold-1']))} fill:#f00"
    if kind == 1:
        return f"class {draw(IDS)} hot"
    if kind == 2:
        return f"style {draw(IDS)} stroke:#{draw(st.integers(0, 999))}"
    if kind == 3:
        tooltip = draw(st.sampled_from(["", ' "tip"', ' "two\n  lines"', ' "t" _blank']))
        return f'click {draw(IDS)} href "https://x/{draw(st.integers(0, 9))}"{tooltip}'
    if kind == 4:
        return f"linkStyle {draw(st.sampled_from(['default', '0', '1', '0,1']))} stroke:red"
    if kind == 5:
        title = draw(st.sampled_from(["", " [T]", ' ["a [b]"]', " two words", ' "Q"']))
        return f"subgraph {draw(st.sampled_from(['s1', 's2', 'g']))}{title}"
    if kind == 6:
        return draw(
            st.sampled_from(
                ["end", "direction LR", "direction XX", "accTitle: A; b # c", "accDescr: d",
                 "accDescr {\n  one\n  two\n}", "accTitle {x}"]
            )
        )  # fmt: skip
    if kind == 7 and draw(st.booleans()):
        return draw(
            st.sampled_from(
                ["e1@{ animate: true }", "e2@{ curve: linear, animation: fast }",
                 "e1@{ color: red }", "class e1 hot", "class e2,a cold-1"]
            )
        )  # fmt: skip
    groups = [" & ".join(draw(st.lists(node_refs(), min_size=1, max_size=2)))]
    for _ in range(draw(st.integers(0, 2))):
        groups.append(draw(links()))
        groups.append(" & ".join(draw(st.lists(node_refs(), min_size=1, max_size=2))))
    return " ".join(groups)


@st.composite
def diagrams(draw: st.DrawFn) -> str:
    header = draw(st.sampled_from(["flowchart", "flowchart LR", "graph TD", "graph TB;"]))
    body = draw(st.lists(statements(), max_size=8))
    separator = draw(st.sampled_from(["\n", ";\n", "\n  "]))
    front = draw(st.sampled_from(["", "---\ntitle: T\n---\n"]))
    front += draw(
        st.sampled_from(["", "%%{init: {'theme': 'dark'}}%%\n", "%%{init: {\n  x: 1\n}}%%\n"])
    )
    return front + header + "\n" + separator.join(body) + "\n"


VALID_LINKS = st.sampled_from(
    ["-->", "---", "-.->", "-.-", "==>", "===", "<-->", "o--o", "x--x", "~~~", "--o", "--x",
     "---->", "-..->", "====>", "<==>", "x==x"]
)  # fmt: skip
WORDS = st.text(alphabet="ab -.:/\\#&é`<>;()[]{}|", min_size=1, max_size=7).filter(
    lambda t: t.strip() != ""
)


def _label(draw: st.DrawFn) -> str:
    """A label that reads back: quoted when it holds anything Mermaid treats as syntax."""
    text = draw(WORDS)
    return f'"{text}"'


@st.composite
def valid_diagrams(draw: st.DrawFn) -> str:
    """Mostly valid flowcharts: declared nodes, balanced subgraphs, in-range linkStyles."""
    names = draw(st.lists(IDS, min_size=1, max_size=5, unique=True))
    lines = [draw(st.sampled_from(["flowchart", "flowchart LR", "graph BT"]))]
    lines += ["classDef hot fill:#f00", "classDef cold-1 stroke:#00f"][: draw(st.integers(0, 2))]
    for name in names:
        shape = draw(
            st.sampled_from(sorted(BRACKET_SHAPES) + ["", "doc", "bolt", "db", "icon", "img"])
        )
        if shape in BRACKET_SHAPES:
            opener, closer = BRACKET_SHAPES[shape]
            lines.append(f"{name}{opener}{_label(draw)}{closer}")
        elif shape in ("icon", "img"):
            extra = draw(st.sampled_from(["", ", pos: 't'", ", h: 60"]))
            label = ", label: " + _label(draw) if draw(st.booleans()) else ""
            lines.append(f'{name}@{{ {shape}: "fa:x"{extra}{label} }}')
        elif shape:
            lines.append(f"{name}@{{ shape: {shape}, label: {_label(draw)} }}")
        else:
            lines.append(name)
    depth = 0
    subgraphs = 0
    sg_names: list[str] = []  # subgraph ids an edge, style or class may name
    edges = 0
    edge_ids: list[str] = []
    for _ in range(draw(st.integers(0, 10))):
        kind = draw(st.integers(0, 7))
        if kind == 0:
            subgraphs += 1
            header = draw(st.sampled_from(["sg{}", "sg{} [T]", 'sg{} ["a [b]"]', '"Q{}"', "t {}",
                                           "api-sg{}", "sg.{} [Dot]", "Über{}"]))  # fmt: skip
            lines.append("subgraph " + header.format(subgraphs))
            if not header.startswith(('"', "t ")):
                sg_names.append(header.split(" ")[0].format(subgraphs))
            depth += 1
            if draw(st.booleans()):
                lines.append(f"direction {draw(st.sampled_from(['LR', 'TB']))}")
        elif kind == 1 and depth:
            lines.append("end")
            depth -= 1
        elif kind == 2:
            lines.append(
                f"class {draw(st.sampled_from(names))} {draw(st.sampled_from(['hot', 'x']))}"
            )
        elif kind == 3:
            lines.append(f"style {draw(st.sampled_from(names))} stroke:#{draw(st.integers(0, 99))}")
        elif kind == 4 and draw(st.booleans()):
            # A node declared again takes the last label; click may name any node.
            name = draw(st.sampled_from(names))
            lines.append(draw(st.sampled_from([f"{name}[{_label(draw)}]", f"{name}(( ))",
                                               f'click {name} call go() "a\n   b"'])))  # fmt: skip
        else:
            hops = draw(st.integers(0, 2))
            parts = [" & ".join(draw(st.lists(st.sampled_from(names), min_size=1, max_size=2)))]
            width = len(parts[0].split(" & "))
            for _ in range(hops):
                link = draw(VALID_LINKS)
                form = draw(st.integers(0, 2))
                if form == 1:
                    link += f"|{_label(draw)}|"
                elif form == 2 and "~" not in link:
                    head = link[0] if link[0] in "<ox" and link[1] in "-=" else ""
                    body = link[len(head) :]
                    if "." in body:
                        opening, closing = "-.", body[1:]
                    else:
                        opening, closing = body[0] * 2, body
                    link = f"{head}{opening} {_label(draw)} {closing}"
                targets = draw(st.lists(st.sampled_from(names), min_size=1, max_size=2))
                if width == 1 and len(targets) == 1 and draw(st.booleans()):
                    edge_ids.append(f"ed{len(edge_ids)}")
                    link = f"{edge_ids[-1]}@{link}"
                edges += width * len(targets)
                width = len(targets)
                parts += [link, " & ".join(targets)]
            lines.append(" ".join(parts))
    lines += ["end"] * depth
    for edge_id in edge_ids:
        attrs = draw(st.sampled_from(["", "animate: true", "curve: linear, animation: fast"]))
        if attrs:
            lines.append(f"{edge_id}@{{ {attrs} }}")
        if draw(st.booleans()):
            lines.append(f"class {edge_id} {draw(st.sampled_from(['hot', 'x']))}")
    if edges:
        lines.append(f"linkStyle {draw(st.integers(0, edges - 1))} stroke:red")
        lines.append("linkStyle default color:blue")
    for sg in sg_names:  # subgraph ids (`api-sg1`, `sg.2`, `Über3`) as ends and targets
        lines += draw(
            st.sampled_from(
                [[], [f"{sg} --> {draw(st.sampled_from(names))}"], [f"style {sg} fill:#0f0"],
                 [f"class {sg} hot", f"{draw(st.sampled_from(names))} -.-> {sg}"]]
            )
        )  # fmt: skip
    return "\n".join(lines) + "\n"


@SETTINGS
@given(valid_diagrams())
def test_valid_diagrams_import_and_round_trip(text: str) -> None:
    ast = parse_flowchart(text)
    exported = export_flowchart(ast)
    assert parse_flowchart(exported) == ast, exported
    assert export_flowchart(parse_flowchart(exported)) == exported


@SETTINGS
@given(diagrams())
def test_generated_diagrams_round_trip(text: str) -> None:
    try:
        ast = parse_flowchart(text)
    except MermaidError as error:
        assert error.line is not None and error.column is not None, (text, error)
        return
    exported = export_flowchart(ast)
    assert parse_flowchart(exported) == ast, exported
    assert export_flowchart(parse_flowchart(exported)) == exported


@SETTINGS
@given(st.text(alphabet='ab1 \t\n\r;:&|"`[](){}<>-=.ox~@%\\/éè\u2028', max_size=60))
def test_arbitrary_text_raises_only_mermaid_error(body: str) -> None:
    for text in (body, "flowchart\n" + body, "graph LR\n" + body.replace("\n", ";")):
        try:
            parse_flowchart(text)
        except MermaidError:
            pass


@SETTINGS
@given(
    IDS,
    st.one_of(st.none(), LABEL_TEXT),
    st.sampled_from(["-->", "---", "-->o", "--->"]),
    st.one_of(st.none(), LABEL_TEXT),
    IDS,
    st.one_of(st.none(), LABEL_TEXT),
    st.sampled_from(["", " ", "  \t"]),
)
def test_fast_path_agrees_with_grammar(
    a: str, a_label: str | None, op: str, pipe: str | None, b: str, b_label: str | None, gap: str
) -> None:
    text = a + (f"[{a_label}]" if a_label is not None else "") + gap + op
    text += (f"|{pipe}|" if pipe is not None else "") + gap + b
    text += f"[{b_label}]" if b_label is not None else ""
    fast = _fast(text)
    if fast is None:
        return
    assert fast == parse_chain_lark(text, 1, 1), text


@SETTINGS
@given(IDS, st.one_of(st.none(), LABEL_TEXT))
def test_fast_path_agrees_with_grammar_on_lone_nodes(name: str, label: str | None) -> None:
    text = name + (f"[{label}]" if label is not None else "")
    fast = _fast(text)
    if fast is not None:
        assert fast == parse_chain_lark(text, 1, 1), text


@SETTINGS
@given(IDS, st.sampled_from(["()", "{}"]), LABEL_TEXT | st.text(alphabet="ab ,:!?'_1", max_size=7))
def test_fast_path_agrees_with_grammar_on_round_and_diamond_nodes(
    name: str, brackets: str, label: str
) -> None:
    text = name + brackets[0] + label + brackets[1]
    fast = _fast(text)
    if fast is not None:
        assert fast == parse_chain_lark(text, 1, 1), text


def test_fast_path_is_taken_for_the_common_forms() -> None:
    for text in (
        "n1[Node 1] --> n8",
        "n0 -->|label 0| n5",
        "a---b[B]",
        "n2",
        "n3[Node 3]",
        "s0_1(Step 1 of flow 0)",
        "s0_2{Step 2, or: not?}",
    ):
        assert _fast(text) == parse_chain_lark(text, 1, 1)
        assert _fast(text) is not None
