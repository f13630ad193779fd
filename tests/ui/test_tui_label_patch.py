"""A label edit that keeps the label's width patches the shown drawing instead of laying it
out again, and the patched drawing is exactly what a full layout draws."""

from __future__ import annotations

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.render import RenderOptions, render_diagram
from nereid.testing.big_diagrams import flowchart
from nereid.ui.drawings import Drawings
from nereid.ui.label_patch import patched_label_drawing

OPTIONS = RenderOptions(show_notes=True, flowchart_extra_col_gap=2)
SHAPES = ("[{}]", "({})", "{{{}}}", "(({}))", ">{}]", "[[{}]]", "[({})]", "{{{{{}}}}}")
# Plain characters, and some the patch must refuse: markdown, entities, breaks, wide, box.
ALPHABET = st.sampled_from(list("abcXYZ019 -_.:,é") + ["*", "#", ";", "`", "<br>", "漢", "─"])
PLAIN = st.sampled_from(list("abcXYZ019-_.:,é"))
LABEL = st.one_of(
    st.lists(PLAIN, min_size=1, max_size=14), st.lists(ALPHABET, min_size=1, max_size=14)
).map("".join)


def _diagram(text: str) -> Diagram:
    return Diagram(diagram_id="d", name="d", kind="flowchart", ast=parse_flowchart(text), rev=0)


def _relabelled(diagram: Diagram, node_id: str, label: str) -> Diagram:
    ast = diagram.ast
    assert isinstance(ast, FlowchartAst)
    nodes = {**ast.nodes, node_id: msgspec.structs.replace(ast.nodes[node_id], label=label)}
    return msgspec.structs.replace(
        diagram, rev=diagram.rev + 1, ast=msgspec.structs.replace(ast, nodes=nodes)
    )


@st.composite
def _edits(draw: st.DrawFn) -> tuple[Diagram, str, str, frozenset[tuple[str, str]]]:
    count = draw(st.integers(2, 9))
    labels = [draw(LABEL).replace("<br>", " ") for _ in range(count)]
    lines = ["flowchart TD"]
    for i, label in enumerate(labels):
        shape = draw(st.sampled_from(SHAPES))
        lines.append(f"  n{i}{shape.format(chr(34) + label + chr(34))}")
    for _ in range(draw(st.integers(1, count * 2))):
        a, b = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
        edge_label = draw(st.one_of(st.none(), LABEL.map(lambda t: t.replace("<br>", " "))))
        lines.append(f'  n{a} -->|"{edge_label}"| n{b}' if edge_label else f"  n{a} --> n{b}")
    diagram = _diagram("\n".join(lines) + "\n")
    assert isinstance(diagram.ast, FlowchartAst)
    node_id = draw(st.sampled_from(sorted(diagram.ast.nodes)))
    old = diagram.ast.nodes[node_id].label
    # Mostly the same length (the case the patch is for), sometimes not.
    size = draw(st.one_of(st.just(len(old)), st.integers(1, 16)))
    alphabet = draw(st.sampled_from((PLAIN, ALPHABET)))
    new = draw(st.lists(alphabet, min_size=size, max_size=size).map("".join))
    marked = draw(st.sets(st.sampled_from(sorted(diagram.ast.nodes))))
    markers = frozenset((n, draw(st.sampled_from(("▴", "▾", "▾▴")))) for n in marked)
    return diagram, node_id, new, markers


@settings(max_examples=60, deadline=None)
@given(_edits())
def test_a_patched_drawing_is_what_a_full_layout_draws(
    edit: tuple[Diagram, str, str, frozenset[tuple[str, str]]],
) -> None:
    diagram, node_id, label, markers = edit
    edited = _relabelled(diagram, node_id, label)
    drawings = Drawings()
    assert drawings.cells(diagram, show_notes=True, markers=markers) is not None
    shown = drawings.cells(edited, show_notes=True, markers=markers)
    fresh = Drawings().cells(edited, show_notes=True, markers=markers)
    assert shown is not None and fresh is not None
    assert shown.rendered == fresh.rendered


def test_a_same_width_rename_on_a_big_flowchart_is_patched_not_laid_out() -> None:
    diagram = _diagram(flowchart(300))
    drawn = render_diagram(diagram, OPTIONS)
    renamed = _relabelled(diagram, "n:n5", "Edit 5")  # "Node 5": same width
    patched = patched_label_drawing(drawn, diagram.ast, renamed.ast, "d", {})
    assert patched is not None
    assert patched == render_diagram(renamed, OPTIONS)
    assert "Edit 5" in patched.text and "Node 5\u0020" not in patched.text


def test_anything_but_one_same_width_label_is_laid_out() -> None:
    diagram = _diagram(flowchart(30))
    drawn = render_diagram(diagram, OPTIONS)
    wider = _relabelled(diagram, "n:n5", "Node five")
    assert patched_label_drawing(drawn, diagram.ast, wider.ast, "d", {}) is None
    two = _relabelled(_relabelled(diagram, "n:n5", "Edit 5"), "n:n6", "Edit 6")
    assert patched_label_drawing(drawn, diagram.ast, two.ast, "d", {}) is None
    bold = _relabelled(diagram, "n:n5", "**N**ode")
    assert patched_label_drawing(drawn, diagram.ast, bold.ast, "d", {}) is None
    ast = renamed = _relabelled(diagram, "n:n5", "Edit 5").ast
    assert isinstance(ast, FlowchartAst)
    reshaped = msgspec.structs.replace(
        ast,
        nodes={**ast.nodes, "n:n5": msgspec.structs.replace(ast.nodes["n:n5"], shape="round")},
    )
    assert patched_label_drawing(drawn, diagram.ast, reshaped, "d", {}) is None
    assert patched_label_drawing(drawn, diagram.ast, renamed, "d", {}) is not None
