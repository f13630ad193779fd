"""`nereid check FILE...`: validate Mermaid files and report errors compiler-style.

Each file is read as UTF-8, its kind detected (mermaid.md §2), parsed, and exported again (so
an AST that could not be saved is reported too). Errors print as `file:line:col: message`;
unreadable files as `file: message`. `-` reads standard input, named `<stdin>`. With `--json`
a JSON array with one summary per file (kind, counts, ids, errors) goes to standard output.
Exit status: 0 when every file is valid, 1 otherwise, 2 for a bad command line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from nereid.mermaid import (
    MermaidError,
    MermaidExportError,
    detect_kind,
    export_ast,
    parse_mermaid,
)
from nereid.model.diagram import iter_blocks
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst
from nereid.model.state import StateAst

__all__ = ["USAGE", "check_text", "run", "summarize"]

USAGE = """Usage: nereid check [--json] FILE...

Validate Mermaid flowcharts, sequence and state diagrams (the kind is taken from the first line).
Errors are printed as FILE:LINE:COL: MESSAGE; '-' reads standard input.

Options:
  --json     print a JSON array with one summary per file (kind, counts, ids, errors)
  -h, --help print this text
Exit status: 0 if every file is valid, 1 if any is not, 2 for a bad command line.
"""


def summarize(ast: FlowchartAst | SequenceAst | StateAst) -> dict[str, Any]:
    """Kind, object counts and ids of a parsed diagram (document order)."""
    if isinstance(ast, StateAst):
        ids: dict[str, list[str]] = {
            "states": list(ast.states),
            "transitions": list(ast.transitions),
        }
        kind = "state"
    elif isinstance(ast, FlowchartAst):
        ids = {
            "nodes": list(ast.nodes),
            "edges": list(ast.edges),
            "subgraphs": list(ast.subgraphs),
        }
        kind = "flowchart"
    else:
        blocks = list(iter_blocks(ast.blocks))
        ids = {
            "participants": list(ast.participants),
            "messages": [m.message_id for m in ast.messages],
            "notes": [n.note_id for n in ast.notes],
            "activations": [a.activation_id for a in ast.activations],
            "blocks": [b.block_id for b in blocks],
            "sections": [s.section_id for b in blocks for s in b.sections],
        }
        kind = "sequence"
    return {"kind": kind, "counts": {k: len(v) for k, v in ids.items()}, "ids": ids}


def check_text(text: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """Parse and re-export one file's text: (summary or None, errors as dicts)."""
    try:
        detect_kind(text)
        ast = parse_mermaid(text)
    except MermaidError as err:
        return None, [
            {
                "line": err.line or 1,
                "column": err.column or 1,
                "kind": err.kind,
                "message": str(err),
            }
        ]
    summary = summarize(ast)
    try:
        export_ast(ast)
    except MermaidExportError as err:
        return summary, [{"line": 1, "column": 1, "kind": err.kind, "message": f"export: {err}"}]
    return summary, []


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def run(argv: Sequence[str]) -> int:
    """Entry point of `nereid check`; returns the exit status."""
    as_json = False
    paths: list[str] = []
    only_paths = False
    for arg in argv:
        if only_paths or arg == "-" or not arg.startswith("-"):
            paths.append(arg)
        elif arg == "--":
            only_paths = True
        elif arg in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        elif arg == "--json":
            as_json = True
        else:
            sys.stderr.write(f"nereid check: unknown option {arg!r}\n\n{USAGE}")
            return 2
    if not paths:
        sys.stderr.write(f"nereid check: no file given\n\n{USAGE}")
        return 2
    failed = False
    reports: list[dict[str, Any]] = []
    for path in paths:
        name = "<stdin>" if path == "-" else path
        try:
            text = _read(path)
        except (OSError, UnicodeDecodeError) as err:
            reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
            failed = True
            reports.append({"file": name, "ok": False, "errors": [{"message": reason}]})
            if not as_json:
                print(f"{name}: {reason}")
            continue
        summary, errors = check_text(text)
        failed = failed or bool(errors)
        reports.append({"file": name, "ok": not errors, **(summary or {}), "errors": errors})
        if not as_json:
            for error in errors:
                print(f"{name}:{error['line']}:{error['column']}: {error['message']}")
    if as_json:
        print(json.dumps(reports, ensure_ascii=False, indent=2))
    return 1 if failed else 0
