"""Group C: collaboration state — attention, spotlights, follow-AI, selection, view (§7).

Each MCP session is its own agent (decision 13): `attention.agent.*` act on the calling
agent's spotlight (`call.agent`), and `attention.agents.read` (ours) lists every agent's.
Human attention, follow-AI and the view come from ``attention`` (the TUI's reports; the
documented defaults when no TUI is attached, decision 11); the selection from ``session``.

Added to the contract (keys only, nothing removed): `attention.agents.read` gives each
spotlight's `seq` (larger = set later; the TUI follows the largest), and `view.read_state`
gives `tui`, the TUI's real view (`TuiView`), null when no TUI is attached.
"""

from __future__ import annotations

from typing import Any

import msgspec

from nereid.actors.protocol import (
    ClearSpotlight,
    GetAttention,
    GetReadContext,
    GetSpotlight,
    ListSpotlights,
    ReadContext,
    ReadSelection,
    Scroll,
    SelectionReply,
    SelectionUpdateReply,
    SetFollowAi,
    SetSpotlight,
    Spotlight,
    SpotlightsReply,
    UiState,
    UpdateSelection,
    ViewDetails,
)

from .session_calls import forward, joined, read_context, read_from, reply_result
from .tools import READ_ONLY, SET_STATE, NoParams, Tool, ToolCall, tool

__all__ = ["TOOLS"]


AgentSpotlight = reply_result(
    Spotlight, "agent_id", "agent_name", "object_ref", "diagram_id", "seq", "idle", context=False
)
"""One agent's spotlight as `attention.agents.read` lists it (`Spotlight`, with its diagram)."""


TuiView = reply_result(
    ViewDetails, *ViewDetails.__struct_fields__, typed={"follow_ai": bool}, context=False
)
"""What the person sees (tui.md §16.3): `ViewDetails` and follow-AI (read from `UiState`)."""

ViewState = reply_result(
    UiState,
    typed={
        "active_diagram_id": str | None,
        "scroll": Scroll,
        "panes": dict[str, bool],
        "tui": TuiView | None,
    },
)
"""`scroll` is the TUI's pan (cells), `panes` which panes are visible; `tui` the rest of
the TUI's view, null when no TUI is attached (then scroll is 0 and panes empty)."""


@tool(
    "view.read_state",
    "The TUI's view: active diagram, scroll, visible panes and `tui` (what the person sees: "
    "diagram, cursor, viewport, focus, follow-AI, search, walkthrough, MCP URL); null "
    "without a TUI.",
    params=NoParams,
    result=ViewState,
    hints=READ_ONLY,
)
async def view_read_state(call: ToolCall, params: NoParams) -> msgspec.Struct:
    ui = (await call.registry.lookup("attention").call(GetAttention())).ui
    context = await read_context(call)
    shown = ui.attached and ui.view is not None
    extra = {
        "active_diagram_id": context.session_active_diagram_id,
        "tui": read_from(ui.view, ui) if shown else None,
    }
    return await joined(call, ViewState, extra, ui, context=context)


TOOLS: tuple[Tool[Any, Any], ...] = (
    forward(
        "attention.human.read",
        "What the person is looking at in the TUI: object ref and diagram (null without a TUI).",
        GetReadContext,
        result=reply_result(
            ReadContext, object_ref="human_active_object_ref", diagram_id="human_active_diagram_id"
        ),
        hints=READ_ONLY,
    ),
    forward(
        "attention.agent.read",
        "Your own spotlight (each MCP session has one): object ref and diagram, or null.",
        GetSpotlight,
        result=reply_result(Spotlight, "object_ref", "diagram_id"),
        hints=READ_ONLY,
    ),
    forward(
        "attention.agent.set",
        "Point your spotlight at one existing object (replaces your previous spotlight).",
        SetSpotlight,
        result=reply_result(Spotlight, typed={"object_ref": str, "diagram_id": str}, context=False),
        hints=SET_STATE,
    ),
    forward(
        "attention.agent.clear",
        "Remove your spotlight; `cleared` is how many refs went (0 or 1).",
        ClearSpotlight,
        hints=SET_STATE,
    ),
    forward(
        "attention.agents.read",
        "Every agent's spotlight (agent id, client name, ref) and your own agent id; a larger "
        "`seq` was set later (the TUI follows the newest).",
        ListSpotlights,
        result=reply_result(
            SpotlightsReply,
            typed={"caller_agent_id": str, "spotlights": list[AgentSpotlight]},  # type: ignore[valid-type]
        ),
        hints=READ_ONLY,
    ),
    forward(
        "follow_ai.read",
        "Whether the TUI cursor follows agent spotlights (true when no TUI is attached).",
        GetReadContext,
        result=reply_result(ReadContext, enabled="follow_ai_enabled"),
        hints=READ_ONLY,
    ),
    forward(
        "follow_ai.set",
        "Switch follow-AI on or off in the TUI (a no-op without a TUI); echoes `enabled`.",
        SetFollowAi,
        result=SetFollowAi,
        hints=SET_STATE,
    ),
    forward(
        "selection.read",
        "The shared multi-selection (existing objects only), in ref order.",
        ReadSelection,
        result=reply_result(SelectionReply),
        hints=READ_ONLY,
    ),
    forward(
        "selection.update",
        "Replace, add to or remove from the shared selection; refs of missing objects are ignored.",
        UpdateSelection,
        result=reply_result(SelectionUpdateReply, context=False),
        hints=SET_STATE,
        mutates=True,
    ),
    view_read_state,
)
"""Group C plus `attention.agents.read`."""
