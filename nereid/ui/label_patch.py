"""A flowchart drawing patched in place after a node's label edit: no layout.

The flowchart layout depends on a label only through its width, and a box draws a plain
label verbatim on one line. So when the only change between two revisions is one node's
label and the drawn text keeps its width, the new drawing is the old one with that text
replaced; the spans, width and height stay. That is what an agent's rename on a big
diagram mostly is, and it shows at once instead of after a full layout (issue 18).

Anything else (another change too, a label that wraps, is markdown, holds entities, line
breaks, wide or box-drawing characters, or is not found exactly once in its box) gets
None: the caller lays the diagram out as usual. `tests/ui/test_tui_label_patch.py`
checks the patch against a full render.
"""

from __future__ import annotations

import msgspec

from nereid.model.diagram import Ast
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import FLOW_NODE, ObjectRef
from nereid.render import Rendered
from nereid.render.display import display_text, is_markdown
from nereid.render.text import text_width

__all__ = ["marked_label", "patched_label_drawing"]


def marked_label(label: str, marker: str | None) -> str:
    """The label as the TUI hands it to the renderer: with its xref direction marker in
    front (inside the backticks of a markdown string)."""
    if marker is None:
        return label
    if is_markdown(label):
        return f"`{marker} {label[1:]}"
    return f"{marker} {label}"


def patched_label_drawing(
    drawn: Rendered,
    drawn_ast: Ast,
    ast: Ast,
    diagram_id: str,
    markers: dict[str, str],
) -> Rendered | None:
    """`drawn` (the drawing of `drawn_ast`) patched into the drawing of `ast`, or None when
    `ast` is not `drawn_ast` with one node's label changed to a same-width plain text.
    `markers` are the xref direction markers both drawings carry."""
    if not isinstance(drawn_ast, FlowchartAst) or not isinstance(ast, FlowchartAst):
        return None
    node_id = _only_relabelled_node(drawn_ast, ast)
    if node_id is None:
        return None
    marker = markers.get(node_id)
    old = marked_label(drawn_ast.nodes[node_id].label, marker)
    new = marked_label(ast.nodes[node_id].label, marker)
    if not (_plain(old) and _plain(new) and len(old) == len(new)):
        return None
    ref = ObjectRef(diagram_id=diagram_id, category=FLOW_NODE, object_id=node_id)
    found: tuple[int, int] | None = None
    for span in drawn.spans.get(ref, ()):
        line = drawn.lines[span.row]
        if text_width(line) != len(line):  # wide characters: columns are not indexes
            return None
        box = line[span.col_start : span.col_end + 1]
        at = box.find(old)
        if at < 0:
            continue
        if found is not None or box.find(old, at + 1) >= 0:
            return None  # more than once in its box: which one is the label is unclear
        found = (span.row, span.col_start + at)
    if found is None:
        return None  # not drawn on one line (wrapped, clipped): lay it out
    row, col = found
    lines = list(drawn.lines)
    lines[row] = lines[row][:col] + new + lines[row][col + len(new) :]
    return Rendered(
        text="\n".join(lines),
        lines=lines,
        spans=drawn.spans,
        width=drawn.width,
        height=drawn.height,
    )


def _only_relabelled_node(before: FlowchartAst, after: FlowchartAst) -> str | None:
    """The one node whose label is all that differs between the two ASTs, else None."""
    if before.nodes.keys() != after.nodes.keys():
        return None
    changed = [
        node_id
        for node_id, node in after.nodes.items()
        if node is not (old := before.nodes[node_id]) and node != old
    ]
    if len(changed) != 1:
        return None
    node_id = changed[0]
    old_node, new_node = before.nodes[node_id], after.nodes[node_id]
    if msgspec.structs.replace(old_node, label=new_node.label) != new_node:
        return None
    if msgspec.structs.replace(after, nodes=before.nodes) != before:
        return None
    return node_id


def _plain(text: str) -> bool:
    """Drawn as written, on one line, one cell per character, nothing a border could hold."""
    return (
        bool(text)
        and text == text.strip()
        and "  " not in text
        and text.isprintable()
        and display_text(text) == text
        and text_width(text) == len(text)
        and not any("\u2500" <= ch <= "\u25ff" for ch in text)
    )
