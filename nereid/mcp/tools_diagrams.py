"""Diagram lifecycle and mutation tools (mcp-tools.md groups A and J).

Group A: `diagram.list`, `diagram.create_from_mermaid`, `diagram.open`, `diagram.delete`,
`diagram.current` — requests to ``session``. Group J: `diagram.apply_ops`,
`diagram.propose_ops` — `ApplyDiagramOps` to ``diagram:<id>``, which checks op ids, then
`base_rev`, then runs the batch all-or-nothing.

Where we differ from the contract, on purpose (spec README decisions):

- no render preflight (decision 2): cycles and self-loops are drawn, so nothing is refused
  for being hard to draw; values Mermaid could not hold are refused by the ops (decision 9);
- an empty batch changes nothing: no rev bump, no history entry, no write (decision 7);
- `diagram not found` always carries `{"diagram_id"}`; a stale `base_rev` is the conflict
  error with `current_rev`, `snapshot_tool` and `digest` for both apply and propose.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from nereid.actors.diagram import diagram_actor_name
from nereid.actors.persister import ItemSaveState
from nereid.actors.protocol import (
    ApplyDiagramOps,
    ApplyDiagramOpsReply,
    ApplyWalkthroughOpsReply,
    CreateDiagramFromMermaid,
    CreateDiagramReply,
    DeleteDiagram,
    GetReadContext,
    ListDiagrams,
    ListDiagramsReply,
    OpenDiagram,
)
from nereid.ops import DiagramOp, WalkthroughDelta, ignored_fields

from .op_schema import DIAGRAM_OP_ENUMS, DIAGRAM_OP_FIELDS, ops_schema, same_ops_as
from .schema import U64
from .session_calls import (
    KindName,
    ReadContext,
    ask_diagram,
    ask_session,
    forward,
    joined,
    note_mutation,
    read_from,
    reply_result,
    resolve_diagram,
    save_states,
)
from .tools import (
    ADDITIVE,
    DESTRUCTIVE,
    READ_ONLY,
    SET_STATE,
    NoParams,
    Tool,
    ToolCall,
    tool,
)

__all__ = ["TOOLS", "DIAGRAM_OPS_SCHEMA", "FileError", "OpsResult", "ops_result"]


class FileError(msgspec.Struct, frozen=True, kw_only=True):
    """The item's file does not parse: writes wait until it is fixed (additive)."""

    file: str
    line: U64 | None
    column: U64 | None
    message: str


class DiagramSummaryOut(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`{diagram_id, name, kind, rev}` with the kind spelled `Flowchart` / `Sequence` (read
    from a `DiagramSummary` by attribute: `kind` is its `kind_name`); in `diagram.list`
    also `saved_rev` / `save_error` (additive; absent in memory-only mode) and `file_error`
    (additive; present while the diagram's file does not parse)."""

    diagram_id: str
    name: str
    kind_name: KindName = msgspec.field(name="kind")
    rev: U64
    saved_rev: U64 | None = None
    save_error: str | None = None
    file_problem: FileError | None = msgspec.field(default=None, name="file_error")


ListResult = reply_result(ListDiagramsReply, typed={"diagrams": list[DiagramSummaryOut]})
"""Every diagram, sorted by id (`ListDiagramsReply`), and the read context."""


@tool(
    "diagram.list",
    "List every diagram with its kind and revision (sorted by id); the usual first call.",
    params=NoParams,
    result=ListResult,
    hints=READ_ONLY,
)
async def diagram_list(call: ToolCall, params: NoParams) -> msgspec.Struct:
    diagrams = (await ask_session(call, ListDiagrams())).diagrams
    keys = [diagram_actor_name(summary.diagram_id) for summary in diagrams]
    saved = await save_states(call, keys) or {}
    listed = [
        read_from(d, saved.get(k, ItemSaveState())) for d, k in zip(diagrams, keys, strict=True)
    ]
    return await joined(call, ListResult, {"diagrams": listed})


# -- diagram.apply_ops / diagram.propose_ops -------------------------------------------------


class OpsParams(msgspec.Struct, frozen=True, kw_only=True):
    """A batch for the diagram (default: the active one), gated by `base_rev`."""

    base_rev: U64
    ops: list[DiagramOp]
    diagram_id: str | None = None


DIAGRAM_OPS_SCHEMA: Final = ops_schema(
    DiagramOp,
    DIAGRAM_OP_FIELDS,
    enums=DIAGRAM_OP_ENUMS,
    summary="Ops run in order, all-or-nothing: flow_* for flowcharts, seq_* for sequence, "
    "state_* for state diagrams. Each op is {type, ...fields}; new objects' ids are yours "
    "to choose. Keys no op has are ignored and listed in ignored_fields.",
)
"""The compact op array of `diagram.apply_ops` (`nereid.mcp.op_schema`)."""


class OpsResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`ignored_fields` (only when there are some): op keys no op has, by path, e.g.
    `ops[1].colour` (decision 22: ignored as the contract says, listed so typos show)."""

    new_rev: U64
    applied: U64
    delta: WalkthroughDelta
    """Refs (as text) added, removed and updated, netted within the batch: diagram refs in
    ref order (`Delta.to_json`), walkthrough pseudo-refs in string order."""
    ignored_fields: list[str] = []


def ops_result(
    reply: ApplyDiagramOpsReply | ApplyWalkthroughOpsReply, call: ToolCall, op_type: Any
) -> OpsResult:
    """The `*.apply_ops` result: the reply's contract part plus the ignored op keys."""
    ignored = ignored_fields(call.arguments.get("ops"), op_type)
    return msgspec.convert({**reply.to_json(), "ignored_fields": ignored}, OpsResult)


async def _run_ops(call: ToolCall, params: OpsParams, *, dry_run: bool) -> ApplyDiagramOpsReply:
    diagram_id = await resolve_diagram(call, params.diagram_id)
    request = ApplyDiagramOps(base_rev=params.base_rev, ops=tuple(params.ops), dry_run=dry_run)
    return await ask_diagram(call, diagram_id, request)


@tool(
    "diagram.apply_ops",
    "Apply a batch of ops to a diagram (default: the active one), all-or-nothing, gated by "
    "base_rev; on a stale base_rev rebase with diagram.diff and retry.",
    params=OpsParams,
    result=OpsResult,
    hints=DESTRUCTIVE,
    schema_overrides={"ops": DIAGRAM_OPS_SCHEMA},
)
async def diagram_apply_ops(call: ToolCall, params: OpsParams) -> OpsResult:
    reply = await _run_ops(call, params, dry_run=False)
    if params.ops:
        await note_mutation(call)
    return ops_result(reply, call, DiagramOp)


@tool(
    "diagram.propose_ops",
    "Dry run of diagram.apply_ops: validate a batch and return what apply would return now, "
    "changing nothing.",
    params=OpsParams,
    result=OpsResult,
    hints=READ_ONLY,
    schema_overrides={"ops": same_ops_as("diagram.apply_ops")},
)
async def diagram_propose_ops(call: ToolCall, params: OpsParams) -> OpsResult:
    return ops_result(await _run_ops(call, params, dry_run=True), call, DiagramOp)


TOOLS: tuple[Tool[Any, Any], ...] = (
    diagram_list,
    forward(
        "diagram.create_from_mermaid",
        "Import Mermaid text (flowchart/graph, sequenceDiagram, stateDiagram) as a new diagram "
        "at rev 0; the id defaults to flow / seq (then -2, -3, ...).",
        CreateDiagramFromMermaid,
        result=reply_result(
            CreateDiagramReply,
            typed={"diagram": DiagramSummaryOut, "active_diagram_id": str | None},
            context=False,
        ),
        hints=ADDITIVE,
        mutates=True,
    ),
    forward(
        "diagram.open",
        "Make a diagram the active one (the default target of diagram-scoped tools).",
        OpenDiagram,
        hints=SET_STATE,
        mutates=True,
    ),
    forward(
        "diagram.delete",
        "Delete a diagram and its files; xrefs into it go dangling, and an active diagram is "
        "re-targeted to the first remaining id.",
        DeleteDiagram,
        hints=DESTRUCTIVE,
        mutates=True,
    ),
    forward(
        "diagram.current",
        "The active diagram id (or null).",
        GetReadContext,
        result=reply_result(ReadContext, active_diagram_id="session_active_diagram_id"),
        hints=READ_ONLY,
    ),
    diagram_apply_ops,
    diagram_propose_ops,
)
