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
        if not is_markdown(text):
            continue
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
    if isinstance(ast, FlowchartAst):
        for node_id, node in ast.nodes.items():
            yield FLOW_NODE, node_id, node.label
        for edge_id, edge in ast.edges.items():
            if edge.label:
                yield FLOW_EDGE, edge_id, edge.label
        for sid, sub in ast.subgraphs.items():
            if sub.title:
                yield FLOW_SUBGRAPH, sid, sub.title
        return
    if isinstance(ast, StateAst):
        return  # state texts are plain (Mermaid's state labels are not markdown strings)
    for pid, part in ast.participants.items():
        yield SEQ_PARTICIPANT, pid, part.alias or part.mermaid_name
    for message in ast.messages:
        yield SEQ_MESSAGE, message.message_id, message.text
    for note in ast.notes:
        yield SEQ_NOTE, note.note_id, note.text
