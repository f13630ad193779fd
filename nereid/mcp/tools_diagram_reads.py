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

from typing import Annotated, Any

import msgspec

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.persister import ItemSaveState
from nereid.actors.protocol import DiffDiagram, GetDiagram, GetDiagramSummary
from nereid.actors.refusals import check_id_param, parse_ref_param
from nereid.errors import NereidError, ResourceNotFound
from nereid.mermaid import MermaidExportError
from nereid.model import Diagram
from nereid.offload.dispatch import (
    export_mermaid_text,
    render_diagram_text,
)
from nereid.ops import stat_digest
from nereid.query import QueryScope, SliceFilters, SliceResult, diagram_get_slice
from nereid.query.ast_view import AstView, ast_view
from nereid.render import RenderError, TooLargeToRender

from .reply_size import DIAGRAM_PARTS, too_large_to_render
from .schema import U64, param
from .session_calls import (
    KindName,
    ReadContext,
    ask_diagram,
    diagram_id_or_active,
    forward,
    kind_name,
    read_context,
    save_states,
    to_diagram,
)
from .tools import READ_ONLY, Tool, ToolCall, tool
from .tools_diagrams import FileError, file_error

__all__ = ["TOOLS", "ReadResult", "RenderResult"]


async def _snapshot_with_context(
    call: ToolCall, diagram_id: str | None
) -> tuple[Diagram, ReadContext]:
    """The diagram (given or active) and the read context, in two actor calls."""
    context = await read_context(call)
    chosen = diagram_id_or_active(diagram_id, context.session_active_diagram_id)
    return await ask_diagram(call, chosen, GetDiagram()), context


# -- diagram.stat --------------------------------------------------------------------------


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


@tool(
    "diagram.stat",
    "Revision, object counts and key names of a diagram (default: the active one); "
    "the base_rev source for diagram.apply_ops.",
    params=GetDiagram,
    result=StatResult,
    hints=READ_ONLY,
)
async def diagram_stat(call: ToolCall, params: GetDiagram) -> StatResult:
    diagram, context = await _snapshot_with_context(call, params.diagram_id)
    digest: dict[str, Any] = stat_digest(diagram.ast, diagram.rev)
    key = diagram_actor_name(diagram.diagram_id)
    saved = (await save_states(call, [key]) or {}).get(key, ItemSaveState())
    return StatResult(
        rev=digest["rev"],
        counts=digest["counts"],
        key_names=digest["key_names"],
        context=context,
        saved_rev=saved.saved_rev,
        save_error=saved.save_error,
        file_error=await _file_error(call, diagram),
    )


# -- diagram.read --------------------------------------------------------------------------


class ReadResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`file_error` (additive, unlisted): the diagram's file does not parse, as in
    `diagram.stat`; the text is then the last good state (empty if it never loaded)."""

    rev: U64
    kind: KindName
    mermaid: str
    context: ReadContext
    file_error: FileError | None = None


async def _export(diagram: Diagram) -> str:
    try:
        return await export_mermaid_text(diagram)
    except MermaidExportError as err:
        # The ops refuse what Mermaid cannot hold (decision 9); reaching this is a bug.
        raise NereidError(
            f"cannot export diagram as Mermaid: {err}", data={"diagram_id": diagram.diagram_id}
        ) from err


@tool(
    "diagram.read",
    "The diagram's canonical Mermaid text (the same text as its session file) and its rev.",
    params=GetDiagram,
    result=ReadResult,
    hints=READ_ONLY,
    unlisted_output=("file_error",),
)
async def diagram_read(call: ToolCall, params: GetDiagram) -> ReadResult:
    diagram, context = await _snapshot_with_context(call, params.diagram_id)
    return ReadResult(
        rev=diagram.rev,
        kind=kind_name(diagram.kind),
        mermaid=await _export(diagram),
        context=context,
        file_error=await _file_error(call, diagram),
    )


async def _file_error(call: ToolCall, diagram: Diagram) -> FileError | None:
    """The diagram's `file_error`, as `diagram.stat` and `diagram.list` give it."""
    summary = await ask_diagram(call, diagram.diagram_id, GetDiagramSummary())
    return file_error(summary.file_problem)


# -- diagram.get_ast -----------------------------------------------------------------------


class AstResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`file_error`: as in `ReadResult`."""

    diagram_id: str
    kind: KindName
    rev: U64
    ast: AstView
    file_error: FileError | None = None


@tool(
    "diagram.get_ast",
    "The diagram's full structure in document order: the contract's keys plus what Nereid "
    "also models (subgraphs, classes, directions, notes, activations, aliases...).",
    params=GetDiagram,
    result=AstResult,
    hints=READ_ONLY,
    unlisted_output=("file_error",),
)
async def diagram_get_ast(call: ToolCall, params: GetDiagram) -> AstResult:
    diagram: Diagram = await to_diagram(call, params)
    return AstResult(
        diagram_id=diagram.diagram_id,
        kind=kind_name(diagram.kind),
        rev=diagram.rev,
        ast=ast_view(diagram.ast),
        file_error=await _file_error(call, diagram),
    )


# -- diagram.get_slice ---------------------------------------------------------------------


class SliceParams(msgspec.Struct, frozen=True, kw_only=True):
    """The centre object, how far to go and what to keep (the slice is in its diagram)."""

    center_ref: Annotated[str, param("Object ref at the centre of the slice.")]
    diagram_id: str | None = None
    depth: Annotated[U64 | None, param("Hops to include (overrides radius).")] = None
    radius: Annotated[U64 | None, param("Hops to include when depth is absent (default 1).")] = None
    filters: Annotated[
        SliceFilters | None,
        param(
            "{include_categories, exclude_categories}: lists of ref categories (e.g. node, edge, message)."
        ),
    ] = None


@tool(
    "diagram.get_slice",
    "The neighbourhood of one object (default 1 hop) in center_ref's diagram: "
    "objects and edges/messages, sorted.",
    params=SliceParams,
    result=SliceResult,
    hints=READ_ONLY,
)
async def diagram_get_slice_tool(call: ToolCall, params: SliceParams) -> SliceResult:
    if params.diagram_id is not None:
        check_id_param("diagram_id", params.diagram_id)
    center = parse_ref_param("center_ref", params.center_ref)
    diagrams: dict[str, Diagram] = {}
    if params.diagram_id is None or params.diagram_id == center.diagram_id:
        # A missing diagram leaves the scope empty: the query then refuses in its order.
        try:
            diagrams[center.diagram_id] = await ask_diagram(
                call, check_id_param("diagram_id", center.diagram_id), GetDiagram()
            )
        except ResourceNotFound:
            pass
    return diagram_get_slice(
        QueryScope(diagrams=diagrams),
        center_ref=params.center_ref,
        diagram_id=params.diagram_id,
        depth=params.depth,
        radius=params.radius,
        filters=params.filters,
    )


# -- diagram.render_text -------------------------------------------------------------------


class RenderResult(msgspec.Struct, frozen=True, kw_only=True):
    """A text drawing and the read context."""

    text: str
    context: ReadContext


@tool(
    "diagram.render_text",
    "A deterministic Unicode text drawing of the diagram, for people.",
    params=GetDiagram,
    result=RenderResult,
    hints=READ_ONLY,
)
async def diagram_render_text(call: ToolCall, params: GetDiagram) -> RenderResult:
    diagram, context = await _snapshot_with_context(call, params.diagram_id)
    try:
        text = await render_diagram_text(diagram)
    except TooLargeToRender as err:
        raise too_large_to_render(err, {"diagram_id": diagram.diagram_id}, DIAGRAM_PARTS) from None
    except RenderError as err:
        raise NereidError(f"render error: {err}", data={"diagram_id": diagram.diagram_id}) from err
    return RenderResult(text=text, context=context)


# -- diagram.diff --------------------------------------------------------------------------


diagram_diff = forward(
    "diagram.diff",
    "What changed since since_rev (from recent history): added / removed / updated refs; "
    "if the window is exhausted, take a snapshot with diagram.read.",
    DiffDiagram,
    to=to_diagram,
    hints=READ_ONLY,
)


TOOLS: tuple[Tool[Any, Any], ...] = (
    diagram_stat,
    diagram_read,
    diagram_get_ast,
    diagram_get_slice_tool,
    diagram_render_text,
    diagram_diff,
)
