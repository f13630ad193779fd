"""Group C: collaboration state — attention, spotlights, follow-AI, selection, view (§7).

Each MCP session is its own agent (decision 13): `attention.agent.*` act on the calling
agent's spotlight (`call.agent`), and `attention.agents.read` (ours) lists every agent's.
Human attention, follow-AI and the view come from ``attention`` (the TUI's reports; the
documented defaults when no TUI is attached, decision 11); the selection from ``session``.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from nereid.actors.protocol import (
    ClearSpotlight,
    GetAttention,
    GetSpotlight,
    ListSpotlights,
    ReadContext,
    ReadSelection,
    SetFollowAi,
    SetSpotlight,
    Spotlight,
    UpdateSelection,
)
from nereid.actors.refusals import parse_ref_param

from .session_calls import note_mutation, read_context
from .tools import READ_ONLY, Hints, Tool, ToolCall, tool

__all__ = [
    "TOOLS",
    "AgentSpotlight",
    "AgentsAttentionResult",
    "AttentionReadResult",
    "ClearedResult",
    "FollowAiReadResult",
    "FollowAiSetParams",
    "FollowAiSetResult",
    "NoParams",
    "OVERWRITE",
    "ObjectRefParams",
    "Scroll",
    "SelectionReadResult",
    "SelectionUpdateParams",
    "SelectionUpdateResult",
    "SpotlightSetResult",
    "ViewStateResult",
]

OVERWRITE = Hints(read_only=False, destructive=True, idempotent=True)
"""Sets a value, replacing the previous one; repeating the call changes nothing more."""


class NoParams(msgspec.Struct, frozen=True, kw_only=True):
    """No parameters (any sent are ignored)."""


class ObjectRefParams(msgspec.Struct, frozen=True, kw_only=True):
    object_ref: str


class AttentionReadResult(msgspec.Struct, frozen=True, kw_only=True):
    """An object ref and its diagram (both null when nothing), with the read context."""

    object_ref: str | None
    diagram_id: str | None
    context: ReadContext


class SpotlightSetResult(msgspec.Struct, frozen=True, kw_only=True):
    object_ref: str
    diagram_id: str


class ClearedResult(msgspec.Struct, frozen=True, kw_only=True):
    cleared: int


class AgentSpotlight(msgspec.Struct, frozen=True, kw_only=True):
    """One agent's spotlight."""

    agent_id: str
    object_ref: str
    diagram_id: str


class AgentsAttentionResult(msgspec.Struct, frozen=True, kw_only=True):
    """Every agent's non-empty spotlight (by agent id) and which agent is asking."""

    caller_agent_id: str
    spotlights: list[AgentSpotlight]
    context: ReadContext


class FollowAiReadResult(msgspec.Struct, frozen=True, kw_only=True):
    enabled: bool
    context: ReadContext


class FollowAiSetParams(msgspec.Struct, frozen=True, kw_only=True):
    enabled: bool


class FollowAiSetResult(msgspec.Struct, frozen=True, kw_only=True):
    enabled: bool


class SelectionReadResult(msgspec.Struct, frozen=True, kw_only=True):
    object_refs: list[str]
    context: ReadContext


class SelectionUpdateParams(msgspec.Struct, frozen=True, kw_only=True):
    object_refs: list[str]
    mode: Literal["replace", "add", "remove"] = "replace"


class SelectionUpdateResult(msgspec.Struct, frozen=True, kw_only=True):
    """`applied` in ref order, `ignored` (refs of missing objects) in string order."""

    applied: list[str]
    ignored: list[str]


class Scroll(msgspec.Struct, frozen=True, kw_only=True):
    x: float
    y: float


class ViewStateResult(msgspec.Struct, frozen=True, kw_only=True):
    active_diagram_id: str | None
    scroll: Scroll
    panes: dict[str, bool]
    context: ReadContext


def _spotlight_refs(spotlight: Spotlight) -> tuple[str | None, str | None]:
    ref = spotlight.object_ref
    return (None, None) if ref is None else (str(ref), ref.diagram_id)


@tool(
    "attention.human.read",
    "What the person is looking at in the TUI: object ref and diagram (null without a TUI).",
    params=NoParams,
    result=AttentionReadResult,
    hints=READ_ONLY,
)
async def attention_human_read(call: ToolCall, params: NoParams) -> AttentionReadResult:
    context = await read_context(call)
    return AttentionReadResult(
        object_ref=context.human_active_object_ref,
        diagram_id=context.human_active_diagram_id,
        context=context,
    )


@tool(
    "attention.agent.read",
    "Your own spotlight (each MCP session has one): object ref and diagram, or null.",
    params=NoParams,
    result=AttentionReadResult,
    hints=READ_ONLY,
)
async def attention_agent_read(call: ToolCall, params: NoParams) -> AttentionReadResult:
    spotlight = await call.registry.lookup("attention").call(
        GetSpotlight(agent_id=call.agent.agent_id)
    )
    object_ref, diagram_id = _spotlight_refs(spotlight)
    return AttentionReadResult(
        object_ref=object_ref, diagram_id=diagram_id, context=await read_context(call)
    )


@tool(
    "attention.agent.set",
    "Point your spotlight at one existing object (replaces your previous spotlight).",
    params=ObjectRefParams,
    result=SpotlightSetResult,
    hints=OVERWRITE,
)
async def attention_agent_set(call: ToolCall, params: ObjectRefParams) -> SpotlightSetResult:
    ref = parse_ref_param("object_ref", params.object_ref)
    await call.registry.lookup("attention").call(
        SetSpotlight(agent_id=call.agent.agent_id, object_ref=ref)
    )
    return SpotlightSetResult(object_ref=str(ref), diagram_id=ref.diagram_id)


@tool(
    "attention.agent.clear",
    "Remove your spotlight; `cleared` is how many refs went (0 or 1).",
    params=NoParams,
    result=ClearedResult,
    hints=OVERWRITE,
)
async def attention_agent_clear(call: ToolCall, params: NoParams) -> ClearedResult:
    reply = await call.registry.lookup("attention").call(
        ClearSpotlight(agent_id=call.agent.agent_id)
    )
    return ClearedResult(cleared=reply.cleared)


@tool(
    "attention.agents.read",
    "Every agent's spotlight, by agent id, and your own agent id (to tell yours apart).",
    params=NoParams,
    result=AgentsAttentionResult,
    hints=READ_ONLY,
)
async def attention_agents_read(call: ToolCall, params: NoParams) -> AgentsAttentionResult:
    reply = await call.registry.lookup("attention").call(ListSpotlights())
    spotlights = [
        AgentSpotlight(agent_id=s.agent_id, object_ref=str(ref), diagram_id=ref.diagram_id)
        for s in reply.spotlights
        if (ref := s.object_ref) is not None
    ]
    return AgentsAttentionResult(
        caller_agent_id=call.agent.agent_id,
        spotlights=spotlights,
        context=await read_context(call),
    )


@tool(
    "follow_ai.read",
    "Whether the TUI cursor follows agent spotlights (true when no TUI is attached).",
    params=NoParams,
    result=FollowAiReadResult,
    hints=READ_ONLY,
)
async def follow_ai_read(call: ToolCall, params: NoParams) -> FollowAiReadResult:
    context = await read_context(call)
    enabled = True if context.follow_ai is None else context.follow_ai
    return FollowAiReadResult(enabled=enabled, context=context)


@tool(
    "follow_ai.set",
    "Switch follow-AI on or off in the TUI (a no-op without a TUI); echoes `enabled`.",
    params=FollowAiSetParams,
    result=FollowAiSetResult,
    hints=OVERWRITE,
)
async def follow_ai_set(call: ToolCall, params: FollowAiSetParams) -> FollowAiSetResult:
    await call.registry.lookup("attention").call(SetFollowAi(enabled=params.enabled))
    return FollowAiSetResult(enabled=params.enabled)


@tool(
    "selection.read",
    "The shared multi-selection (existing objects only), in ref order.",
    params=NoParams,
    result=SelectionReadResult,
    hints=READ_ONLY,
)
async def selection_read(call: ToolCall, params: NoParams) -> SelectionReadResult:
    reply = await call.registry.lookup("session").call(ReadSelection())
    return SelectionReadResult(
        object_refs=[str(ref) for ref in reply.object_refs], context=await read_context(call)
    )


@tool(
    "selection.update",
    "Replace, add to or remove from the shared selection; refs of missing objects are ignored.",
    params=SelectionUpdateParams,
    result=SelectionUpdateResult,
    hints=OVERWRITE,
)
async def selection_update(call: ToolCall, params: SelectionUpdateParams) -> SelectionUpdateResult:
    refs = tuple(parse_ref_param("object_ref", text) for text in params.object_refs)
    reply = await call.registry.lookup("session").call(
        UpdateSelection(object_refs=refs, mode=params.mode)
    )
    await note_mutation(call)
    return SelectionUpdateResult(
        applied=[str(ref) for ref in reply.applied],
        ignored=[str(ref) for ref in reply.ignored],
    )


@tool(
    "view.read_state",
    "The TUI's view: active diagram, scroll and panes (defaults when no TUI is attached).",
    params=NoParams,
    result=ViewStateResult,
    hints=READ_ONLY,
)
async def view_read_state(call: ToolCall, params: NoParams) -> ViewStateResult:
    ui = (await call.registry.lookup("attention").call(GetAttention())).ui
    context = await read_context(call)
    return ViewStateResult(
        active_diagram_id=context.session_active_diagram_id,
        scroll=Scroll(x=ui.scroll_x, y=ui.scroll_y),
        panes=dict(ui.panes),
        context=context,
    )


TOOLS: tuple[Tool[Any, Any], ...] = (
    attention_human_read,
    attention_agent_read,
    attention_agent_set,
    attention_agent_clear,
    attention_agents_read,
    follow_ai_read,
    follow_ai_set,
    selection_read,
    selection_update,
    view_read_state,
)
"""Group C plus `attention.agents.read`."""
