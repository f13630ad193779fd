"""Diagram read tools (mcp-tools.md group I): stat, read, get_ast, get_slice, render_text, diff.

Each asks ``diagram:<id>`` for its immutable snapshot (`GetDiagram`) and runs the pure layer
on it here, in the handler's task, so a slow render never holds the actor; `diagram.diff`
asks the actor (it owns the history). The diagram defaults to the active one (§3.5), except
for `diagram.get_slice`, which works in `center_ref`'s diagram.

Decisions applied: `diagram.read` is the canonical export the session files hold
(decision 5); renders draw cycles (decision 2); `get_ast` keeps document order and adds
what our model holds beyond the contract (`nereid.query.ast_view`, decision 10).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.protocol import DiffDiagram, GetDiagram, GetDiagramSummary
from nereid.errors import NereidError
from nereid.mermaid import MermaidExportError
from nereid.model import Diagram, ObjectRefError, parse_ref
from nereid.offload.dispatch import (
    export_mermaid_text,
    render_diagram_text,
)
from nereid.ops import stat_digest
from nereid.query import QueryScope, SliceResult, diagram_get_slice
from nereid.query.ast_view import AstView, ast_view
from nereid.render import RenderError, TooLargeToRender

from .reply_size import DIAGRAM_PARTS, too_large_to_render
from .schema import U64
from .session_calls import (
    KindName,
    ReadContext,
    active_ids,
    ask_diagram,
    ask_diagram_soon,
    diagram_id_or_active,
    forward,
    joined,
    kind_name,
    read_context,
    saved_state,
)
from .snapshots import scope_of_diagrams
from .tools import READ_ONLY, Tool, ToolCall
from .tools_diagrams import FileError
from .tools_queries import query_tool

__all__ = ["TOOLS", "ReadResult", "RenderResult"]


Compute = Callable[[ToolCall, Diagram], Awaitable[Mapping[str, Any]]]
"""What a diagram read adds to the snapshot's own fields (e.g. `{"mermaid": ...}`)."""


def snapshot_tool(
    name: str,
    description: str,
    result: type[msgspec.Struct],
    compute: Compute,
    *,
    unlisted_output: tuple[str, ...] = (),
) -> Tool[GetDiagram, Any]:
    """A read-only tool on one diagram's snapshot (given or active), run here in the
    handler's task so a slow render never holds the actor. The result reads `compute`'s
    fields, then `kind` (spelled `Flowchart` ...), `file_error` (as in `diagram.list`) and
    the snapshot's own fields. With a `context` field the read context is asked first and
    its active diagram is the default, so both name the same diagram; a given diagram is
    asked before the context (`ask_diagram_soon`), so the actors work at once.
    """
    fields = result.__struct_fields__

    async def handler(call: ToolCall, params: GetDiagram) -> Any:
        snapshot = summary = None
        if params.diagram_id is not None:
            # Asked at once: the diagram's actor answers while the session finds the context.
            given = diagram_id_or_active(params.diagram_id, None)
            snapshot = ask_diagram_soon(call, given, GetDiagram())
            if "file_error" in fields:
                summary = ask_diagram_soon(call, given, GetDiagramSummary())
        context = await read_context(call) if "context" in fields else None
        active = None if context is None else context.session_active_diagram_id
        if params.diagram_id is None and context is None:
            active = (await active_ids(call)).active_diagram_id
        chosen = diagram_id_or_active(params.diagram_id, active)
        diagram = await (snapshot() if snapshot else ask_diagram(call, chosen, GetDiagram()))
        shared: dict[str, Any] = {"kind": kind_name(diagram.kind)}
        if "file_error" in fields:
            asked = summary() if summary else ask_diagram(call, chosen, GetDiagramSummary())
            shared["file_error"] = (await asked).file_problem
        found = await compute(call, diagram)
        return await joined(call, result, found, shared, diagram, context=context)

    return Tool(
        name, description, GetDiagram, result, READ_ONLY, handler, {}, frozenset(unlisted_output)
    )


class StatResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`saved_rev` / `save_error` (additive; absent in memory-only mode): the rev on disk
    and why the latest one is not, so an agent can tell when the folder is behind."""

    rev: U64
    counts: dict[str, U64]
    """`{participants, messages, nodes, edges}` (`nereid.ops.stat_digest`)."""
    key_names: list[str]
    context: ReadContext
    saved_rev: U64 | None = None
    save_error: str | None = None
    file_error: FileError | None = None


async def _stat(call: ToolCall, diagram: Diagram) -> Mapping[str, Any]:
    saved = await saved_state(call, diagram_actor_name(diagram.diagram_id))
    return {**stat_digest(diagram.ast, diagram.rev), **msgspec.structs.asdict(saved)}


class ReadResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`file_error` (additive, unlisted): the diagram's file does not parse, as in
    `diagram.stat`; the text is then the last good state (empty if it never loaded)."""

    rev: U64
    kind: KindName
    mermaid: str
    context: ReadContext
    file_error: FileError | None = None


async def _export(call: ToolCall, diagram: Diagram) -> Mapping[str, Any]:
    try:
        return {"mermaid": await export_mermaid_text(diagram)}
    except MermaidExportError as err:
        # The ops refuse what Mermaid cannot hold (decision 9); reaching this is a bug.
        raise NereidError(
            f"cannot export diagram as Mermaid: {err}", data={"diagram_id": diagram.diagram_id}
        ) from err


class AstResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`file_error`: as in `ReadResult`."""

    diagram_id: str
    kind: KindName
    rev: U64
    ast: AstView
    file_error: FileError | None = None


async def _ast(call: ToolCall, diagram: Diagram) -> Mapping[str, Any]:
    return {"ast": ast_view(diagram.ast)}


class RenderResult(msgspec.Struct, frozen=True, kw_only=True):
    """A text drawing and the read context."""

    text: str
    context: ReadContext


async def _render(call: ToolCall, diagram: Diagram) -> Mapping[str, Any]:
    try:
        return {"text": await render_diagram_text(diagram)}
    except TooLargeToRender as err:
        raise too_large_to_render(err, {"diagram_id": diagram.diagram_id}, DIAGRAM_PARTS) from None
    except RenderError as err:
        raise NereidError(f"render error: {err}", data={"diagram_id": diagram.diagram_id}) from err


async def _centre_diagram(call: ToolCall, params: Any) -> QueryScope:
    """The centre's diagram (a slice never uses the active one); none while the params are
    invalid or disagree, so that the query refuses them in its order."""
    try:
        centre = parse_ref(params.center_ref)
    except ObjectRefError:
        return QueryScope()
    if params.diagram_id not in (None, centre.diagram_id):
        return QueryScope()
    return await scope_of_diagrams(call, [centre.diagram_id])


TOOLS: tuple[Tool[Any, Any], ...] = (
    snapshot_tool(
        "diagram.stat",
        "Revision, object counts and key names of a diagram (default: the active one); "
        "the base_rev source for diagram.apply_ops.",
        StatResult,
        _stat,
    ),
    snapshot_tool(
        "diagram.read",
        "The diagram's canonical Mermaid text (the same text as its session file) and its rev.",
        ReadResult,
        _export,
        unlisted_output=("file_error",),
    ),
    snapshot_tool(
        "diagram.get_ast",
        "The diagram's full structure in document order: the contract's keys plus what "
        "Nereid also models (subgraphs, classes, directions, notes, activations, aliases...).",
        AstResult,
        _ast,
        unlisted_output=("file_error",),
    ),
    query_tool(
        "diagram.get_slice",
        "The neighbourhood of one object (default 1 hop) in center_ref's diagram: "
        "objects and edges/messages, sorted.",
        diagram_get_slice,
        result=SliceResult,
        scope=_centre_diagram,
    ),
    snapshot_tool(
        "diagram.render_text",
        "A deterministic Unicode text drawing of the diagram, for people.",
        RenderResult,
        _render,
    ),
    forward(
        "diagram.diff",
        "What changed since since_rev (from recent history): added / removed / updated refs; "
        "if the window is exhausted, take a snapshot with diagram.read.",
        DiffDiagram,
        hints=READ_ONLY,
    ),
)
