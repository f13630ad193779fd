"""Bold and italic of markdown labels as terminal attributes (issue 17 point 4).

The drawing holds a markdown label's text without its `**`/`_` marks (`display_text`); which
characters were marked comes from `display_runs`. The label's characters are found again in
the cells of its object's spans, in reading order (row by row, left to right): box borders,
lines and arrowheads never match a label character, and wrapping only drops spaces, so the
first match of each character in turn is the cell that shows it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from nereid.model.diagram import Ast
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    ObjectRef,
)
from nereid.model.state import StateAst
from nereid.render import Rendered
from nereid.render.display import Emphasis, display_runs, is_markdown

__all__ = ["emphasis_cells"]

Cells = dict[tuple[int, int], Emphasis]


class CellIndexed(Protocol):
    """The drawing's rows indexable by cell (`nereid.ui.highlight.CellRows`)."""

    def __len__(self) -> int: ...

    def __getitem__(self, row: int) -> str | list[str]: ...


def emphasis_cells(rendered: Rendered, ast: Ast, diagram_id: str, rows: CellIndexed) -> Cells:
    """(row, col) -> emphasis for every drawn character of a bold or italic label run."""
    found: Cells = {}
    for category, object_id, text in _labels(ast):
        runs = display_runs(text)
        if all(style == "" for _, style in runs):
            continue
        wanted = [(ch, style) for part, style in runs for ch in part if not ch.isspace()]
        spans = rendered.spans.get(ObjectRef(diagram_id, category, object_id), ())
        k = 0
        for span in spans:
            row = rows[span.row] if span.row < len(rows) else ""
            for col in range(span.col_start, min(span.col_end + 1, len(row))):
                if k == len(wanted):
                    break
                if row[col] == wanted[k][0]:
                    if wanted[k][1]:
                        found[(span.row, col)] = wanted[k][1]
                    k += 1
    return found


def _labels(ast: Ast) -> Iterator[tuple[tuple[str, ...], str, str]]:
    """The markdown labels (`is_markdown`) of the AST's objects. The comprehensions look at
    each label's first character only: a big diagram's plain labels cost next to nothing
    (this runs for every new drawing, on the event loop)."""
    if isinstance(ast, FlowchartAst):
        nodes = [(i, n.label) for i, n in ast.nodes.items() if n.label[:1] == "`"]
        edges = [(i, e.label) for i, e in ast.edges.items() if e.label and e.label[:1] == "`"]
        titles = [(i, s.title) for i, s in ast.subgraphs.items() if s.title and s.title[:1] == "`"]
        labelled = ((FLOW_NODE, nodes), (FLOW_EDGE, edges), (FLOW_SUBGRAPH, titles))
    elif isinstance(ast, StateAst):
        return  # state texts are plain (Mermaid's state labels are not markdown strings)
    else:
        parts = [(i, p.alias or p.mermaid_name) for i, p in ast.participants.items()]
        messages = [(m.message_id, m.text) for m in ast.messages]
        notes = [(n.note_id, n.text) for n in ast.notes]
        labelled = ((SEQ_PARTICIPANT, parts), (SEQ_MESSAGE, messages), (SEQ_NOTE, notes))
    for category, texts in labelled:
        for object_id, text in texts:
            if is_markdown(text):
                yield category, object_id, text
