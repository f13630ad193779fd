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

from nereid.actors.protocol import (
    ActiveIds,
    ApplyWalkthroughOps,
    CreateWalkthrough,
    DeleteWalkthrough,
    DiffWalkthrough,
    GetActive,
    GetWalkthrough,
    GetWalkthroughNode,
    ListWalkthroughs,
    ListWalkthroughsReply,
    OpenWalkthrough,
    StatWalkthrough,
)
from nereid.actors.walkthrough import walkthrough_actor_name
from nereid.errors import InvalidRequest
from nereid.model import Walkthrough, WalkthroughNode
from nereid.offload.dispatch import render_walkthrough_text
from nereid.ops import WalkthroughOp
from nereid.render import RenderError, TooLargeToRender

from .op_schema import WALKTHROUGH_OP_FIELDS, ops_schema
from .reply_size import WALKTHROUGH_PARTS, too_large_to_render
from .schema import U64
from .session_calls import (
    ReadContext,
    ask_walkthrough,
    forward,
    joined,
    note_mutation,
    reply_result,
    saved_state,
    to_walkthrough,
)
from .tools import ADDITIVE, DESTRUCTIVE, READ_ONLY, SET_STATE, Tool, ToolCall, tool
from .tools_diagram_reads import RenderResult
from .tools_diagrams import FileError, OpsResult, ops_result

__all__ = ["TOOLS", "WALKTHROUGH_OPS_SCHEMA"]


class StatResult(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """`saved_rev` / `save_error` as in `diagram.stat` (additive)."""

    digest: dict[str, Any]
    """`{rev, counts: {nodes, edges}}` (`WalkthroughStat.to_json`)."""
    context: ReadContext
    saved_rev: U64 | None = None
    save_error: str | None = None
    file_problem: FileError | None = msgspec.field(default=None, name="file_error")


@tool(
    "walkthrough.stat",
    "A walkthrough's rev and node / edge counts: the base_rev source for walkthrough.apply_ops.",
    params=StatWalkthrough,
    result=StatResult,
    hints=READ_ONLY,
)
async def walkthrough_stat(call: ToolCall, params: StatWalkthrough) -> StatResult:
    stat = await to_walkthrough(call, params)
    saved = await saved_state(call, walkthrough_actor_name(params.walkthrough_id))
    return await joined(call, StatResult, {"digest": stat.to_json()}, stat, saved)


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
    return await joined(call, RenderResult, {"text": text})


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
    request = ApplyWalkthroughOps(base_rev=params.base_rev, ops=tuple(params.ops))
    reply = await ask_walkthrough(call, params.walkthrough_id, request)
    if params.ops:
        await note_mutation(call)
    return ops_result(reply, call, WalkthroughOp)


TOOLS: tuple[Tool[Any, Any], ...] = (
    forward(
        "walkthrough.list",
        "List walkthroughs (sorted by id) with revision and node / edge counts.",
        ListWalkthroughs,
        result=reply_result(ListWalkthroughsReply, "walkthroughs"),
        hints=READ_ONLY,
    ),
    forward(
        "walkthrough.open",
        "Mark a walkthrough as the active one (informational: no tool defaults to it).",
        OpenWalkthrough,
        hints=SET_STATE,
        mutates=True,
    ),
    forward(
        "walkthrough.current",
        "The active walkthrough id (or null).",
        GetActive,
        result=reply_result(ActiveIds, "active_walkthrough_id"),
        hints=READ_ONLY,
    ),
    forward(
        "walkthrough.create",
        "Create an empty walkthrough at rev 0 (the id defaults to wt, then wt-2, ...); "
        "fill it with walkthrough.apply_ops.",
        CreateWalkthrough,
        hints=ADDITIVE,
        mutates=True,
    ),
    forward(
        "walkthrough.delete",
        "Delete a walkthrough and its file; an active walkthrough is re-targeted to the first "
        "remaining id.",
        DeleteWalkthrough,
        hints=DESTRUCTIVE,
        mutates=True,
    ),
    forward(
        "walkthrough.read",
        "A walkthrough's whole content: title, rev, nodes and edges in stored order.",
        GetWalkthrough,
        result=reply_result(
            Walkthrough, "walkthrough_id", "title", "rev", "nodes", "edges", inside="walkthrough"
        ),
        reply_as="walkthrough",
        hints=READ_ONLY,
    ),
    forward(
        "walkthrough.get_node",
        "One node of a walkthrough.",
        GetWalkthroughNode,
        result=reply_result(WalkthroughNode, inside="node"),
        reply_as="node",
        hints=READ_ONLY,
    ),
    walkthrough_stat,
    walkthrough_render_text,
    forward(
        "walkthrough.diff",
        "What changed in a walkthrough since since_rev (from recent history); if the window "
        "is exhausted, take a snapshot with walkthrough.read.",
        DiffWalkthrough,
        hints=READ_ONLY,
    ),
    walkthrough_apply_ops,
)
