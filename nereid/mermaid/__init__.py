"""Mermaid import and export: the only import point of `nereid.mermaid`.

Text -> AST: `parse_flowchart`, `parse_sequence`, `parse_state`, or `parse_mermaid` (kind
detected per mermaid.md §2, with `stateDiagram` added by spec decision 24). AST -> canonical
text: `export_flowchart`, `export_sequence`, `export_state`, or `export_ast` for any kind. Stable ids across
re-imports: `reconcile_parse` (any kind, hints from the previous AST), or `reconcile_flowchart` /
`reconcile_sequence` / `reconcile_state` with `FlowIdHints` / `SeqIdHints` / `StateIdHints`.
Every parse problem is a `MermaidError`, every export problem a `MermaidExportError`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final, Literal

from nereid.mermaid.errors import MermaidError, MermaidExportError, iter_lines
from nereid.mermaid.preamble import take_preamble

# Bound here, not on first use: a submodule has one of these names (`reconcile_sequence`),
# and importing it later would bind the module in its place.
from nereid.mermaid.reconcile import (
    FlowIdHints,
    SeqIdHints,
    reconcile_flowchart,
    reconcile_sequence,
)
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst
from nereid.model.state import StateAst

if TYPE_CHECKING:
    from nereid.mermaid.flowchart import export_flowchart, parse_flowchart
    from nereid.mermaid.sequence import export_sequence, parse_sequence
    from nereid.mermaid.sequence_rules import participant_name_problem, sequence_text_problem
    from nereid.mermaid.stable_ids import reconcile_parse
    from nereid.mermaid.state import parse_state
    from nereid.mermaid.state_export import export_state
    from nereid.mermaid.state_ids import StateIdHints, reconcile_state

#: Where each name lives: a kind's parser and exporter are imported on first use, so a
#: command that reads one kind (`nereid render`, `nereid check`) starts without the others.
_LAZY: Final = {
    "export_flowchart": "flowchart",
    "parse_flowchart": "flowchart",
    "export_sequence": "sequence",
    "parse_sequence": "sequence",
    "participant_name_problem": "sequence_rules",
    "sequence_text_problem": "sequence_rules",
    "reconcile_parse": "stable_ids",
    "parse_state": "state",
    "export_state": "state_export",
    "StateIdHints": "state_ids",
    "reconcile_state": "state_ids",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DETECT_ERROR",
    "FlowIdHints",
    "MermaidError",
    "MermaidExportError",
    "SeqIdHints",
    "StateIdHints",
    "detect_kind",
    "export_ast",
    "export_flowchart",
    "export_sequence",
    "export_state",
    "parse_as",
    "parse_flowchart",
    "parse_mermaid",
    "parse_sequence",
    "parse_state",
    "participant_name_problem",
    "reconcile_flowchart",
    "reconcile_parse",
    "reconcile_sequence",
    "reconcile_state",
    "sequence_text_problem",
]

DETECT_ERROR: Final = (
    "expected 'flowchart'/'graph', 'sequenceDiagram' or 'stateDiagram' as the first non-empty line"
)
_EXPECTED: Final = "flowchart, graph, sequenceDiagram or stateDiagram"


def detect_kind(text: str) -> Literal["flowchart", "sequence", "state"]:
    """The diagram kind by mermaid.md §2: a prefix test on the first kept line.

    `sequenceDiagram...` -> sequence, `flowchart...`/`graph...` -> flowchart (the parser then
    checks the header exactly). Anything else raises MermaidError `UnknownDiagramKind`.
    """
    for line_no, _raw, trimmed in iter_lines(take_preamble(text).text):
        if trimmed.startswith("sequenceDiagram"):
            return "sequence"
        if trimmed.startswith("stateDiagram"):
            return "state"
        if trimmed.startswith(("flowchart", "graph")):
            return "flowchart"
        raise MermaidError(
            "UnknownDiagramKind",
            DETECT_ERROR,
            line=line_no,
            column=1,
            text=trimmed.split(maxsplit=1)[0],
            expected=_EXPECTED,
        )
    raise MermaidError("UnknownDiagramKind", DETECT_ERROR, expected=_EXPECTED)


def parse_mermaid(text: str) -> FlowchartAst | SequenceAst | StateAst:
    """Import a diagram of whichever kind `detect_kind` says `text` is."""
    return parse_as(detect_kind(text), text)


def parse_as(
    kind: Literal["flowchart", "sequence", "state"], text: str
) -> FlowchartAst | SequenceAst | StateAst:
    """Import `text` as a diagram of `kind` (its parser refuses a header of another kind)."""
    if kind == "sequence":
        from nereid.mermaid.sequence import parse_sequence

        return parse_sequence(text)
    if kind == "state":
        from nereid.mermaid.state import parse_state

        return parse_state(text)
    from nereid.mermaid.flowchart import parse_flowchart

    return parse_flowchart(text)


def export_ast(ast: FlowchartAst | SequenceAst | StateAst) -> str:
    """The canonical Mermaid text of an AST of any kind."""
    if isinstance(ast, FlowchartAst):
        from nereid.mermaid.flowchart import export_flowchart

        return export_flowchart(ast)
    if isinstance(ast, StateAst):
        from nereid.mermaid.state_export import export_state

        return export_state(ast)
    from nereid.mermaid.sequence import export_sequence

    return export_sequence(ast)
