"""A flowchart drawing patched in place after a node's label edit: no layout on the loop.

The flowchart layout depends on a label only through its width, and a box draws a plain
label verbatim on one line. So when the only change between two revisions is one node's
label and the drawn text keeps its width, the new drawing is the old one with that text
replaced; the spans, width and height stay (exact). That is what an agent's rename on a big
diagram mostly is, and it shows at once instead of after a full layout (issue 18).

A label of another width changes the layout, which for a big diagram takes a worker
process hundreds of milliseconds. Meanwhile a provisional patch shows the new label at once
(issue 18: visible within 50 ms): centred in its box when it fits there, else in the box
grown sideways into blank cells, else wrapped onto the blank row under it (the empty note
row), with nothing else moved. It is a true drawing of the new
revision (every object where it was, the node's box holding its new label), not the one
a full layout makes; the TUI marks it as updating and replaces it when the layout arrives
(`nereid.ui.drawings`).

Anything else (another change too, a label that wraps, is markdown, holds entities, line
breaks, wide or box-drawing characters, is not found exactly once in its box, or a box
with no room to grow) gets None: the caller lays the diagram out as usual.
`tests/ui/test_tui_label_patch.py` checks exact patches against a full render and
provisional ones against the old drawing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple

import msgspec

from nereid.model.diagram import Ast
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import FLOW_NODE, FLOW_NOTE, ObjectRef
from nereid.offload.packed_drawing import PackedSpans, spans_on_rows
from nereid.render import Rendered, Span
from nereid.render.display import display_text, is_markdown
from nereid.render.text import text_width, wrap_text
from nereid.ui.highlight import one_cell_each

__all__ = ["LabelPatch", "label_patch", "marked_label", "patched_label_drawing"]


def marked_label(label: str, marker: str | None) -> str:
    """The label as the TUI hands it to the renderer: with its xref direction marker in
    front (inside the backticks of a markdown string)."""
    if marker is None:
        return label
    if is_markdown(label):
        return f"`{marker} {label[1:]}"
    return f"{marker} {label}"


class LabelPatch(NamedTuple):
    """A drawing patched for a label edit, and what kind of patch it is."""

    rendered: Rendered
    exact: bool  # what a full layout draws; else provisional (until the layout arrives)
    rows: tuple[int, ...]  # the rows that changed


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
    patch = label_patch(drawn, drawn_ast, ast, diagram_id, markers)
    return patch.rendered if patch is not None and patch.exact else None


def label_patch(
    drawn: Rendered,
    drawn_ast: Ast,
    ast: Ast,
    diagram_id: str,
    markers: dict[str, str],
    max_label_width: int = 30,
) -> LabelPatch | None:
    """`drawn` (the drawing of `drawn_ast`) patched for `ast`, which is `drawn_ast` with one
    node's plain one-line label changed to another (None for anything else).

    A same-width label is replaced in place: exact. Any other width is provisional: the
    new label is centred in the box when it fits there, else the box grows sideways into
    blank cells (see `_grown`); None when neither can be done cleanly. `max_label_width`
    is the render option (a longer label wraps: not patched)."""
    if not isinstance(drawn_ast, FlowchartAst) or not isinstance(ast, FlowchartAst):
        return None
    node_id = _only_relabelled_node(drawn_ast, ast)
    if node_id is None:
        return None
    marker = markers.get(node_id)
    old = marked_label(drawn_ast.nodes[node_id].label, marker)
    new = marked_label(ast.nodes[node_id].label, marker)
    if not (_plain(old) and _plain(new) and len(new) <= max_label_width):
        return None
    ref = ObjectRef(diagram_id=diagram_id, category=FLOW_NODE, object_id=node_id)
    spans = drawn.spans.get(ref, ())
    found: tuple[int, int] | None = None
    for span in spans:
        line = drawn.lines[span.row]
        if not one_cell_each(line):  # wide characters: columns are not indexes
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
    if len(old) == len(new):
        lines[row] = lines[row][:col] + new + lines[row][col + len(new) :]
        return LabelPatch(_relined(drawn, lines), True, (row,))
    rect = _rect(spans)
    if rect is None:
        return None
    rows, left, right = rect
    if row not in rows:
        return None
    inside = lines[row][left : right + 1]
    at = col - left
    blank = inside[:at] + " " * len(old) + inside[at + len(old) :]
    start = (len(inside) - len(new)) // 2  # centred as the renderer centres a label
    fits = len(new) < len(old) or len(new) + 4 <= len(inside)
    if fits and start >= 2 and blank[start - 1 : start + len(new) + 1].strip() == "":
        inside = blank[:start] + new + blank[start + len(new) :]
        lines[row] = lines[row][:left] + inside + lines[row][right + 1 :]
        return LabelPatch(_relined(drawn, lines), False, (row,))
    grown = _grown(drawn, lines, ref, rows, left, right, row, at, old, new)
    if grown is not None:
        return grown
    note = ObjectRef(diagram_id=diagram_id, category=FLOW_NOTE, object_id=node_id)
    return _wrapped(drawn, lines, (rows, left, right), row, blank, new, note)


def _wrapped(
    drawn: Rendered,
    lines: list[str],
    rect: tuple[range, int, int],
    label_row: int,
    blank: str,
    new: str,
    note: ObjectRef,
) -> LabelPatch | None:
    """The new label wrapped to the box's width, on its row and the blank rows under it
    inside the box (an empty note row), each line centred; None when it needs more."""
    rows, left, right = rect
    room = right - left + 1
    text_lines = wrap_text(new, room - 4)
    if " ".join(text_lines).split(" ") != new.split(" "):
        return None  # a word cut in two: the renderer would widen the box instead
    noted = {span.row for span in drawn.spans.get(note, ())}
    free = [label_row]
    for r in range(label_row + 1, rows.stop - 1):
        if len(free) == len(text_lines) or r in noted or lines[r][left + 1 : right].strip():
            break
        free.append(r)
    if len(free) < len(text_lines) or len(text_lines) < 2:
        return None
    for r, text in zip(free, text_lines, strict=False):
        inside = blank if r == label_row else lines[r][left : right + 1]
        start = (room - len(text)) // 2
        if start < 2 or inside[start - 1 : start + len(text) + 1].strip():
            return None
        inside = inside[:start] + text + inside[start + len(text) :]
        lines[r] = lines[r][:left] + inside + lines[r][right + 1 :]
    return LabelPatch(_relined(drawn, lines), False, tuple(free[: len(text_lines)]))


_STRETCH: Final = frozenset(" ─━═┄┅┈┉╌╍-=.")
"""Cells a box row can be stretched at by repeating them (blank, horizontal lines)."""

_MARGIN: Final = 1
"""Blank cells a grown box keeps from whatever is beside it."""


def _rect(spans: tuple[Span, ...]) -> tuple[range, int, int] | None:
    """(rows, left, right) of a node drawn as one rectangle of spans, else None."""
    if not spans:
        return None
    first = spans[0]
    for offset, span in enumerate(spans):
        if span.row != first.row + offset or span.col_start != first.col_start:
            return None
        if span.col_end != first.col_end:
            return None
    return range(first.row, first.row + len(spans)), first.col_start, first.col_end


def _grown(
    drawn: Rendered,
    lines: list[str],
    ref: ObjectRef,
    rows: range,
    left: int,
    right: int,
    label_row: int,
    at: int,
    old: str,
    new: str,
) -> LabelPatch | None:
    """The box `rows` × `left..right` made `len(new) - len(old)` cells wider for the new
    label: every row repeats the cell next to its right border (or its left border), which
    must be blank or a horizontal line, so the only cell that moves is the border itself
    (edges attached to the top or bottom stay where they are). The cells the box grows
    into, and `_MARGIN` more, must be blank and nobody's; nothing else moves."""
    grow = len(new) - len(old)
    for side in ("right", "left"):
        inner = right - 1 if side == "right" else left + 1
        edge = right if side == "right" else left
        if side == "right":
            free = range(right + 1, right + grow + _MARGIN + 1)
        else:
            free = range(left - grow - _MARGIN, left)
            if free.start < 0:
                continue
        for r in rows:
            line = lines[r]
            if r != label_row and line[inner] not in _STRETCH:
                break
            if line[free.start : free.stop].strip():
                break
        else:
            if not _owned(drawn, ref, rows, free, edge):
                box = (rows, left, right)
                return _stretch(drawn, lines, ref, box, label_row, at, old, new, side)
    return None


def _owned(drawn: Rendered, ref: ObjectRef, rows: range, free: range, edge: int) -> bool:
    """Whether another object's span holds a cell of `free` or the moving border column
    `edge` on `rows` (only the spans of those rows are looked at in a packed drawing)."""
    for owner, span in spans_on_rows(drawn.spans, rows.start, rows.stop - 1):
        if owner != ref and (
            (span.col_start <= edge <= span.col_end)
            or (span.col_start < free.stop and free.start <= span.col_end)
        ):
            return True
    return False


def _stretch(
    drawn: Rendered,
    lines: list[str],
    ref: ObjectRef,
    rect: tuple[range, int, int],
    label_row: int,
    at: int,
    old: str,
    new: str,
    side: str,
) -> LabelPatch:
    """The box of `_grown`, stretched on `side`."""
    rows, left, right = rect
    grow = len(new) - len(old)
    shift = 0 if side == "right" else grow
    for r in rows:
        line = lines[r]
        box = line[left : right + 1]
        if r == label_row:
            wide = box[:at] + new + box[at + len(old) :]
        elif side == "right":
            wide = box[:-1] + box[-2] * grow + box[-1]
        else:
            wide = box[0] + box[1] * grow + box[1:]
        lines[r] = (line[: left - shift] + wide + line[right + 1 + grow - shift :]).rstrip(" ")
    new_left, new_right = left - shift, right + grow - shift
    grown = tuple(Span(r, new_left, new_right) for r in rows)
    drawn_spans = drawn.spans
    spans = (
        drawn_spans.replaced(ref, grown)
        if isinstance(drawn_spans, PackedSpans)
        else {**drawn_spans, ref: grown}
    )
    rendered = _relined(drawn, lines, spans, max(drawn.width, new_right + 1))
    return LabelPatch(rendered, False, tuple(rows))


def _relined(
    drawn: Rendered,
    lines: list[str],
    spans: Mapping[ObjectRef, tuple[Span, ...]] | None = None,
    width: int | None = None,
) -> Rendered:
    """`drawn` with new `lines` (and spans, width); the height stays."""
    return Rendered(
        text="\n".join(lines),
        lines=lines,
        spans=drawn.spans if spans is None else spans,
        width=drawn.width if width is None else width,
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
