"""Markdown bold/italic as terminal attributes in the TUI drawing (issue 17 point 4)."""

from __future__ import annotations

from nereid.mermaid import parse_mermaid
from nereid.model.diagram import Diagram, ast_kind
from nereid.render import RenderOptions, render_diagram
from nereid.ui.highlight import DiagramCells, Marks, styled_row
from nereid.ui.palette import theme_from_env


def _cells(source: str) -> DiagramCells:
    ast = parse_mermaid(source)
    diagram = Diagram(diagram_id="d", name="d", kind=ast_kind(ast), ast=ast)
    rendered = render_diagram(diagram, RenderOptions())
    return DiagramCells(rendered, "d", ast)


def _styles(cells: DiagramCells, word: str) -> set[str]:
    """The styles the cells of `word` get in the (unmarked) drawing."""
    for row, line in enumerate(cells.rendered.lines):
        col = line.find(word)
        if col >= 0:
            runs = styled_row(cells, Marks(), row, 0, cells.width, dim=False)
            styles = [style for style, text in runs for _ in text]
            return set(styles[col : col + len(word)])
    raise AssertionError(f"{word!r} not drawn")


def test_flowchart_labels_edges_and_titles_keep_their_emphasis() -> None:
    cells = _cells(
        "flowchart TD\n"
        '  subgraph g ["`**Grouped** plain`"]\n'
        '    a["`The **billing** _adapter_ stays`"] -->|"`*soon*`"| b[b]\n'
        "  end\n"
    )
    assert "**" not in cells.rendered.text and "`" not in cells.rendered.text
    assert _styles(cells, "billing") == {"em_bold"}
    assert _styles(cells, "adapter") == {"em_italic"}
    assert _styles(cells, "stays") == {"default"}
    assert _styles(cells, "soon") == {"em_italic"}
    assert _styles(cells, "Grouped") == {"em_bold"}
    assert _styles(cells, "plain") == {"default"}


def test_a_label_without_markdown_is_never_emphasised() -> None:
    cells = _cells("flowchart LR\n  a[**not markdown**] --> b[_x_]\n")
    assert cells.emphasis == {}


def test_sequence_messages_keep_their_emphasis() -> None:
    cells = _cells(
        "sequenceDiagram\n  A->>B: `send **now**`\n  B->>A: `***both*** ways`\n  Note over A,B: `***both*** notes`\n"
    )
    assert _styles(cells, "now") == {"em_bold"}
    assert _styles(cells, "send") == {"default"}
    assert _styles(cells, "both") == {"em_bold_italic"}
    assert _styles(cells, "notes") == {"note"}  # notes keep their own (dim) style


def test_emphasis_is_an_attribute_with_colour_and_plain_without() -> None:
    colour = {e[0]: e for e in theme_from_env({}).entries}
    assert colour["em_bold"][1] == "default,bold"
    assert colour["em_italic"][1] == "default,italics"
    mono = {e[0]: e for e in theme_from_env({"NO_COLOR": "1"}).entries}
    assert mono["em_bold"][3] == "default"
