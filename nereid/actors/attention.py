"""AttentionActor (``attention``): who looks at what, in memory only (model.md §10.2).

Holds the human attention and view state the TUI reports, the follow-AI flag, the UI
counters `ui_rev` / `ui_session_rev`, and one spotlight per agent (decision 13: every MCP
session is its own agent; the single-spotlight tools act on the caller's). Never
persisted; it commits to its in-memory snapshot so its own restart keeps the state.

- Without a TUI attached (`AttachUi` not sent, or `DetachUi`), the UI part stays at the
  documented defaults and the TUI-only requests are no-ops: `follow_ai` reads true,
  `SetFollowAi` echoes (mcp-tools.md §7.6).
- `ui_rev` wraps at 2**64 and bumps on every effective change of the human focus or
  follow-AI and on every `NoteSessionMutation` (which the MCP layer casts after each
  successful mutating tool, bumping `ui_session_rev`).
- `SetSpotlight` checks existence with ``xref`` (`CheckRefs`); stored spotlights are not
  re-validated later, except that ``session`` purges a deleted diagram's refs
  (`PurgeDiagramRefs`), and an agent's spotlight goes when its session ends.
- Every spotlight carries `seq`, from one session-wide counter: setting a spotlight gives
  it the next number unless it already is the newest one on the same ref (a repeat changes
  nothing). The largest `seq` is the newest spotlight, which follow-AI follows.
- A spotlight keeps the agent's display name (`SetSpotlight.agent_name`, the MCP client's
  name) so viewers can say who looks; a name change alone publishes but takes no new `seq`.
- `AgentPresence` (from the MCP layer's presence tracker): `idle` marks the agent's
  spotlight idle (viewers grey it), `active` unmarks it, `gone` drops it.
- Publishes `AttentionChanged(part, agent_id, attention)` on every change a viewer draws
  (human, spotlight, follow_ai); not for counter-only or view-only changes.
"""

from __future__ import annotations

import re

import msgspec

from nereid.actors.protocol import (
    AgentPresence,
    AgentSessionEnded,
    AttachUi,
    AttentionChanged,
    AttentionPart,
    AttentionRequest,
    AttentionSnapshot,
    CheckRefs,
    ClearSpotlight,
    ClearSpotlightReply,
    DetachUi,
    GetAttention,
    GetSpotlight,
    ListSpotlights,
    NoteSessionMutation,
    PurgeDiagramRefs,
    PurgeDiagramRefsReply,
    ReportHumanAttention,
    ReportView,
    SetFollowAi,
    SetSpotlight,
    Spotlight,
    SpotlightsReply,
    UiState,
)
from nereid.errors import ResourceNotFound
from nereid.model import ObjectRef
from nereid.runtime import Actor, on, on_cast, on_note, on_read

__all__ = ["AttentionActor", "AttentionState", "agent_sort_key"]

_U64 = 2**64
_DIGITS = re.compile(r"(\d+)")


def agent_sort_key(agent_id: str) -> tuple[tuple[int, str], ...]:
    """Natural order of agent ids: `agent:2` before `agent:10`."""
    return tuple(
        (int(part), "") if part.isdigit() else (-1, part) for part in _DIGITS.split(agent_id)
    )


class AttentionState(msgspec.Struct, frozen=True, kw_only=True):
    """The committed (in-memory) snapshot."""

    ui: UiState = msgspec.field(default_factory=UiState)
    spotlights: dict[str, ObjectRef] = msgspec.field(default_factory=dict)
    spotlight_seqs: dict[str, int] = msgspec.field(default_factory=dict)
    spotlight_names: dict[str, str] = msgspec.field(default_factory=dict)
    idle_agents: frozenset[str] = frozenset()
    last_seq: int = 0


class AttentionActor(Actor[AttentionState, AttentionRequest]):
    """See the module docstring."""

    def __init__(self, *, xref: str = "xref", call_timeout: float = 5.0) -> None:
        self._xref = xref
        self._call_timeout = call_timeout

    @on_read(GetAttention)
    def _get(self, message: GetAttention) -> AttentionSnapshot:
        return self._snapshot()

    @on_read(GetSpotlight)
    def _get_spotlight(self, message: GetSpotlight) -> Spotlight:
        return self._spotlight(message.agent_id)

    @on(SetSpotlight)
    async def _set_spotlight(self, message: SetSpotlight) -> Spotlight:
        agent_id, ref = message.agent_id, message.object_ref
        xref = self.runtime.registry.lookup(self._xref)
        existence = await xref.call(CheckRefs(refs=(ref,)), timeout=self._call_timeout)
        if not all(existence.exists):
            raise ResourceNotFound("object not found", data={"object_ref": str(ref)})
        s = self.state
        names = {a: n for a, n in s.spotlight_names.items() if a != agent_id}
        if message.agent_name is not None:
            names[agent_id] = message.agent_name
        newest = s.spotlight_seqs.get(agent_id, 0) == s.last_seq
        if s.spotlights.get(agent_id) != ref or not newest:
            seq = s.last_seq + 1
            self.commit(
                msgspec.structs.replace(
                    s,
                    spotlights={**s.spotlights, agent_id: ref},
                    spotlight_seqs={**s.spotlight_seqs, agent_id: seq},
                    spotlight_names=names,
                    last_seq=seq,
                )
            )
            self._publish("spotlight", agent_id)
        elif names != s.spotlight_names:  # same spotlight, the name alone changed: no new seq
            self.commit(msgspec.structs.replace(s, spotlight_names=names))
            self._publish("spotlight", agent_id)
        return self._spotlight(agent_id)

    @on(ClearSpotlight)
    async def _clear_spotlight(self, message: ClearSpotlight) -> ClearSpotlightReply:
        return ClearSpotlightReply(cleared=self._drop_spotlight(message.agent_id))

    @on_cast(AgentSessionEnded)
    async def _session_ended(self, message: AgentSessionEnded) -> None:
        self._drop_spotlight(message.agent_id)

    @on_read(ListSpotlights)
    def _list_spotlights(self, message: ListSpotlights) -> SpotlightsReply:
        return SpotlightsReply(spotlights=self._spotlights())

    @on_cast(AgentPresence)
    async def _presence(self, message: AgentPresence) -> None:
        self._set_presence(message.agent_id, message.presence)

    @on(SetFollowAi)
    async def _set_follow_ai(self, message: SetFollowAi) -> UiState:
        ui = self.state.ui
        if ui.attached and ui.follow_ai != message.enabled:
            self._set_ui(
                msgspec.structs.replace(ui, follow_ai=message.enabled, rev=_bump(ui.rev)),
                "follow_ai",
            )
        return self.state.ui

    @on(AttachUi)
    async def _attach_ui(self, message: AttachUi) -> UiState:
        ui = self.state.ui
        self._set_ui(UiState(attached=True, rev=_bump(ui.rev), session_rev=ui.session_rev), "ui")
        return self.state.ui

    @on(DetachUi)
    async def _detach_ui(self, message: DetachUi) -> UiState:
        ui = self.state.ui
        self._set_ui(UiState(attached=False, rev=ui.rev, session_rev=ui.session_rev), "ui")
        return self.state.ui

    @on(ReportHumanAttention)
    async def _report_human(self, message: ReportHumanAttention) -> UiState:
        ref = message.object_ref
        if self.state.ui.attached:
            self._set_human(ref.diagram_id if ref is not None else message.diagram_id, ref)
        return self.state.ui

    @on(ReportView)
    async def _report_view(self, message: ReportView) -> UiState:
        ui = self.state.ui
        if ui.attached:
            self._set_ui(
                msgspec.structs.replace(
                    ui,
                    scroll_x=message.scroll_x,
                    scroll_y=message.scroll_y,
                    panes=dict(message.panes),
                    view=message.view,
                )
            )
        return self.state.ui

    @on_note(NoteSessionMutation)
    def _note_mutation(self, message: NoteSessionMutation) -> None:
        ui = self.state.ui
        if ui.attached:
            self._set_ui(
                msgspec.structs.replace(ui, session_rev=_bump(ui.session_rev), rev=_bump(ui.rev))
            )

    # -- spotlights ------------------------------------------------------------------------

    def _set_presence(self, agent_id: str, presence: str) -> None:
        s = self.state
        idle = agent_id in s.idle_agents
        if presence == "gone":
            if idle:
                self.commit(msgspec.structs.replace(s, idle_agents=s.idle_agents - {agent_id}))
            self._drop_spotlight(agent_id)
            return
        want = presence == "idle"
        if want == idle:
            return
        agents = s.idle_agents | {agent_id} if want else s.idle_agents - {agent_id}
        self.commit(msgspec.structs.replace(s, idle_agents=agents))
        if agent_id in s.spotlights:
            self._publish("spotlight", agent_id)

    def _drop_spotlight(self, agent_id: str) -> int:
        if agent_id not in self.state.spotlights:
            return 0
        self.commit(self._without(self.state, {agent_id}))
        self._publish("spotlight", agent_id)
        return 1

    def _snapshot(self) -> AttentionSnapshot:
        return AttentionSnapshot(ui=self.state.ui, spotlights=self._spotlights())

    def _spotlight(self, agent_id: str) -> Spotlight:
        ref = self.state.spotlights.get(agent_id)
        seq = self.state.spotlight_seqs.get(agent_id, 0) if ref is not None else 0
        name = self.state.spotlight_names.get(agent_id) if ref is not None else None
        idle = ref is not None and agent_id in self.state.idle_agents
        return Spotlight(agent_id=agent_id, object_ref=ref, seq=seq, agent_name=name, idle=idle)

    def _spotlights(self) -> tuple[Spotlight, ...]:
        return tuple(
            self._spotlight(agent_id)
            for agent_id in sorted(self.state.spotlights, key=agent_sort_key)
        )

    @staticmethod
    def _without(state: AttentionState, agents: set[str]) -> AttentionState:
        """`state` minus the spotlights of `agents` (the counter keeps going)."""
        return msgspec.structs.replace(
            state,
            spotlights={a: r for a, r in state.spotlights.items() if a not in agents},
            spotlight_seqs={a: n for a, n in state.spotlight_seqs.items() if a not in agents},
            spotlight_names={a: n for a, n in state.spotlight_names.items() if a not in agents},
        )

    @on(PurgeDiagramRefs)
    async def _purge(self, message: PurgeDiagramRefs) -> PurgeDiagramRefsReply:
        diagram_id = message.diagram_id
        gone = [a for a, ref in self.state.spotlights.items() if ref.diagram_id == diagram_id]
        if gone:
            self.commit(self._without(self.state, set(gone)))
            for agent_id in gone:
                self._publish("spotlight", agent_id)
        ui = self.state.ui
        human_cleared = ui.human_diagram_id == diagram_id or (
            ui.human_object_ref is not None and ui.human_object_ref.diagram_id == diagram_id
        )
        if human_cleared:
            self._set_human(None, None)
        return PurgeDiagramRefsReply(spotlights_cleared=len(gone), human_cleared=human_cleared)

    # -- UI state --------------------------------------------------------------------------

    def _set_human(self, diagram_id: str | None, ref: ObjectRef | None) -> None:
        ui = self.state.ui
        if (ui.human_diagram_id, ui.human_object_ref) == (diagram_id, ref):
            return
        self._set_ui(
            msgspec.structs.replace(
                ui, human_diagram_id=diagram_id, human_object_ref=ref, rev=_bump(ui.rev)
            ),
            "human",
        )

    def _set_ui(self, ui: UiState, part: AttentionPart | None = None) -> None:
        self.commit(msgspec.structs.replace(self.state, ui=ui))
        if part is not None:
            self._publish(part, None)

    def _publish(self, part: AttentionPart, agent_id: str | None) -> None:
        self.runtime.bus.publish(
            AttentionChanged(part=part, agent_id=agent_id, attention=self._snapshot())
        )


def _bump(counter: int) -> int:
    return (counter + 1) % _U64
