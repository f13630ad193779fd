"""Walkthrough tools (mcp-tools.md groups B and D, plus decision 8's create / delete).

Lifecycle (`walkthrough.list`, `.open`, `.current`, `.create`, `.delete`) asks ``session``;
reads and ops (`walkthrough.read`, `.get_node`, `.stat`, `.render_text`, `.diff`,
`.apply_ops`) ask ``walkthrough:<id>``. `walkthrough_id` is always required (walkthrough
tools never default). In `update_*` ops an explicit `null` clears a field and an absent key
keeps it (decision 8); every batch is all-or-nothing (decision 7).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from nereid.actors.persister import ItemSaveState
from nereid.actors.protocol import (
    ApplyWalkthroughOps,
    CreateWalkthrough,
    DeleteWalkthrough,
    DiffWalkthrough,
    GetWalkthrough,
    GetWalkthroughNode,
    ListWalkthroughs,
    OpenWalkthrough,
    StatWalkthrough,
    WalkthroughSummary,
)
from nereid.actors.refusals import check_id_param
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.errors import InvalidRequest
from nereid.model import Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.offload.dispatch import render_walkthrough_text
from nereid.ops import WalkthroughOp
from nereid.query.objects import project
from nereid.render import RenderError, TooLargeToRender

from .op_schema import WALKTHROUGH_OP_FIELDS, ops_schema
from .reply_size import WALKTHROUGH_PARTS, too_large_to_render
from .schema import U64
from .session_calls import (
    ReadContext,
    active_ids,
    ask_session,
    ask_walkthrough,
    forward,
    note_mutation,
    read_context,
    save_states,
    to_walkthrough,
)
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, SET_STATE, NoParams, Tool, ToolCall, tool
from .tools_diagram_reads import RenderResult
from .tools_diagrams import FileError, OpsResult, file_error, ops_result

__all__ = ["TOOLS", "WALKTHROUGH_OPS_SCHEMA"]


# -- lifecycle -----------------------------------------------------------------------------


class ListResult(msgspec.Struct, frozen=True, kw_only=True):
    """Every walkthrough, sorted by id, and the read context."""

    walkthroughs: list[WalkthroughSummary]
    context: ReadContext


@tool(
    "walkthrough.list",
    "List walkthroughs (sorted by id) with revision and node / edge counts.",
    params=NoParams,
    result=ListResult,
    hints=READ_ONLY,
)
async def walkthrough_list(call: ToolCall, params: NoParams) -> ListResult:
    reply = await ask_session(call, ListWalkthroughs())
    context = await read_context(call)
    ordered = sorted(reply.walkthroughs, key=lambda w: w.walkthrough_id)
    return ListResult(walkthroughs=ordered, context=context)


walkthrough_open = forward(
    "walkthrough.open",
    "Mark a walkthrough as the active one (informational: no tool defaults to it).",
    OpenWalkthrough,
    to=ask_session,
    hints=SET_STATE,
    mutates=True,
)


class CurrentResult(msgspec.Struct, frozen=True, kw_only=True):
    """The active walkthrough id (or null) and the read context."""

    active_walkthrough_id: str | None
    context: ReadContext


@tool(
    "walkthrough.current",
    "The active walkthrough id (or null).",
    params=NoParams,
    result=CurrentResult,
    hints=READ_ONLY,
)
async def walkthrough_current(call: ToolCall, params: NoParams) -> CurrentResult:
    active = await active_ids(call)
    context = await read_context(call)
    return CurrentResult(active_walkthrough_id=active.active_walkthrough_id, context=context)


walkthrough_create = forward(
    "walkthrough.create",
    "Create an empty walkthrough at rev 0 (the id defaults to wt, then wt-2, ...); "
    "fill it with walkthrough.apply_ops.",
    CreateWalkthrough,
    to=ask_session,
    hints=ADDITIVE,
    mutates=True,
)
walkthrough_delete = forward(
    "walkthrough.delete",
    "Delete a walkthrough and its file; an active walkthrough is re-targeted to the first "
    "remaining id.",
    DeleteWalkthrough,
    to=ask_session,
    hints=DESTRUCTIVE,
    mutates=True,
)


# -- reads ---------------------------------------------------------------------------------


class NodeOut(msgspec.Struct, frozen=True, kw_only=True):
    """A walkthrough node with its refs as text."""

    node_id: str
    title: str
    body_md: str | None
    refs: list[str]
    tags: list[str]
    status: str | None


def _node_out(node: WalkthroughNode) -> NodeOut:
    return project(node, NodeOut, refs=[str(ref) for ref in node.refs])


class WalkthroughOut(msgspec.Struct, frozen=True, kw_only=True):
    """The walkthrough without its source text; edges as the model holds them."""

    walkthrough_id: str
    title: str
    rev: U64
    nodes: list[NodeOut]
    edges: list[WalkthroughEdge]


class ReadResult(msgspec.Struct, frozen=True, kw_only=True):
    """The whole walkthrough and the read context."""

    walkthrough: WalkthroughOut
    context: ReadContext


@tool(
    "walkthrough.read",
    "A walkthrough's whole content: title, rev, nodes and edges in stored order.",
    params=GetWalkthrough,
    result=ReadResult,
    hints=READ_ONLY,
)
async def walkthrough_read(call: ToolCall, params: GetWalkthrough) -> ReadResult:
    walkthrough = await to_walkthrough(call, params)
    nodes = [_node_out(node) for node in walkthrough.nodes]
    out = project(walkthrough, WalkthroughOut, nodes=nodes)
    return ReadResult(walkthrough=out, context=await read_context(call))


class NodeResult(msgspec.Struct, frozen=True, kw_only=True):
    """One node (refs as text) and the read context."""

    node: NodeOut
    context: ReadContext


@tool(
    "walkthrough.get_node",
    "One node of a walkthrough.",
    params=GetWalkthroughNode,
    result=NodeResult,
    hints=READ_ONLY,
)
async def walkthrough_get_node(call: ToolCall, params: GetWalkthroughNode) -> NodeResult:
    check_id_param("walkthrough_id", params.walkthrough_id)
    check_id_param("node_id", params.node_id)
    node = await to_walkthrough(call, params)
    return NodeResult(node=_node_out(node), context=await read_context(call))


class StatResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`saved_rev` / `save_error` as in `diagram.stat` (additive)."""

    digest: dict[str, Any]
    """`{rev, counts: {nodes, edges}}` (`WalkthroughStat.to_json`)."""
    context: ReadContext
    saved_rev: U64 | None = None
    save_error: str | None = None
    file_error: FileError | None = None


@tool(
    "walkthrough.stat",
    "A walkthrough's rev and node / edge counts: the base_rev source for walkthrough.apply_ops.",
    params=StatWalkthrough,
    result=StatResult,
    hints=READ_ONLY,
)
async def walkthrough_stat(call: ToolCall, params: StatWalkthrough) -> StatResult:
    stat = await to_walkthrough(call, params)
    context = await read_context(call)
    digest = stat.to_json()
    key = walkthrough_actor_name(params.walkthrough_id)
    saved = (await save_states(call, [key]) or {}).get(key, ItemSaveState())
    return StatResult(
        digest=digest,
        context=context,
        saved_rev=saved.saved_rev,
        save_error=saved.save_error,
        file_error=file_error(stat.file_problem),
    )


@tool(
    "walkthrough.render_text",
    "A Unicode text drawing of the walkthrough (a box per node, arrows between); "
    "empty text for an empty walkthrough.",
    params=GetWalkthrough,
    result=RenderResult,
    hints=READ_ONLY,
)
async def walkthrough_render_text(call: ToolCall, params: GetWalkthrough) -> RenderResult:
    walkthrough: Walkthrough = await to_walkthrough(call, params)
    try:
        text = await render_walkthrough_text(walkthrough)
    except TooLargeToRender as err:
        owner = {"walkthrough_id": params.walkthrough_id}
        raise too_large_to_render(err, owner, WALKTHROUGH_PARTS) from None
    except RenderError as err:
        raise InvalidRequest(
            f"render error: {err.message}", data={"walkthrough_id": params.walkthrough_id}
        ) from err
    context = await read_context(call)
    return RenderResult(text=text, context=context)


walkthrough_diff = forward(
    "walkthrough.diff",
    "What changed in a walkthrough since since_rev (from recent history); if the window "
    "is exhausted, take a snapshot with walkthrough.read.",
    DiffWalkthrough,
    to=to_walkthrough,
    hints=READ_ONLY,
)


# -- walkthrough.apply_ops -----------------------------------------------------------------


class OpsParams(msgspec.Struct, frozen=True, kw_only=True):
    """A batch for one walkthrough, gated by `base_rev` (from walkthrough.stat)."""

    walkthrough_id: str
    base_rev: U64
    ops: list[WalkthroughOp]


WALKTHROUGH_OPS_SCHEMA: Final = ops_schema(
    WalkthroughOp,
    WALKTHROUGH_OP_FIELDS,
    summary="Walkthrough ops run in order, all-or-nothing; each is {type, ...fields}. Keys "
    "no op has are ignored and listed in ignored_fields.",
)


@tool(
    "walkthrough.apply_ops",
    "Apply a batch of walkthrough ops all-or-nothing, gated by base_rev "
    "(from walkthrough.stat); in update ops null clears a field, an absent key keeps it.",
    params=OpsParams,
    result=OpsResult,
    hints=DESTRUCTIVE,
    schema_overrides={"ops": WALKTHROUGH_OPS_SCHEMA},
)
async def walkthrough_apply_ops(call: ToolCall, params: OpsParams) -> OpsResult:
    reply = await ask_walkthrough(
        call,
        params.walkthrough_id,
        ApplyWalkthroughOps(base_rev=params.base_rev, ops=tuple(params.ops)),
    )
    if params.ops:
        await note_mutation(call)
    return ops_result(reply, call, WalkthroughOp)


TOOLS: tuple[Tool[Any, Any], ...] = (
    walkthrough_list,
    walkthrough_open,
    walkthrough_current,
    walkthrough_create,
    walkthrough_delete,
    walkthrough_read,
    walkthrough_get_node,
    walkthrough_stat,
    walkthrough_render_text,
    walkthrough_diff,
    walkthrough_apply_ops,
)
