"""Mermaid import and export: the only import point of `nereid.mermaid`.

Text -> AST: `parse_flowchart`, `parse_sequence`, or `parse_mermaid` (kind detected per
mermaid.md §2). AST -> canonical text: `export_flowchart`, `export_sequence`. Stable ids across
re-imports: `reconcile_flowchart` / `reconcile_sequence` with `FlowIdHints` / `SeqIdHints`.
Every parse problem is a `MermaidError`, every export problem a `MermaidExportError`.
"""

from __future__ import annotations

from typing import Final, Literal

from nereid.mermaid.errors import MermaidError, MermaidExportError, iter_lines
from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
from nereid.mermaid.preamble import take_preamble
from nereid.mermaid.reconcile import (
    FlowIdHints,
    SeqIdHints,
    reconcile_flowchart,
    reconcile_sequence,
)
from nereid.mermaid.sequence import export_sequence, parse_sequence
from nereid.mermaid.sequence_rules import participant_name_problem, sequence_text_problem
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst

__all__ = [
    "DETECT_ERROR",
    "FlowIdHints",
    "MermaidError",
    "MermaidExportError",
    "SeqIdHints",
    "detect_kind",
    "export_flowchart",
    "export_sequence",
    "parse_flowchart",
    "parse_mermaid",
    "parse_sequence",
    "participant_name_problem",
    "reconcile_flowchart",
    "reconcile_sequence",
    "sequence_text_problem",
]

DETECT_ERROR: Final = (
    "expected 'flowchart'/'graph' or 'sequenceDiagram' as the first non-empty line"
)


def detect_kind(text: str) -> Literal["flowchart", "sequence"]:
    """The diagram kind by mermaid.md §2: a prefix test on the first kept line.

    `sequenceDiagram...` -> sequence, `flowchart...`/`graph...` -> flowchart (the parser then
    checks the header exactly). Anything else raises MermaidError `UnknownDiagramKind`.
    """
    for line_no, _raw, trimmed in iter_lines(take_preamble(text).text):
        if trimmed.startswith("sequenceDiagram"):
            return "sequence"
        if trimmed.startswith(("flowchart", "graph")):
            return "flowchart"
        raise MermaidError(
            "UnknownDiagramKind",
            DETECT_ERROR,
            line=line_no,
            column=1,
            text=trimmed.split(maxsplit=1)[0],
            expected="flowchart, graph or sequenceDiagram",
        )
    raise MermaidError(
        "UnknownDiagramKind", DETECT_ERROR, expected="flowchart, graph or sequenceDiagram"
    )


def parse_mermaid(text: str) -> FlowchartAst | SequenceAst:
    """Import a flowchart or a sequence diagram, whichever `detect_kind` says `text` is."""
    if detect_kind(text) == "sequence":
        return parse_sequence(text)
    return parse_flowchart(text)
