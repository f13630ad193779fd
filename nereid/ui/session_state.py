"""What the TUI knows about the session: a snapshot plus the updates that change it.

These values cross the seam between `nereid/ui/client.py` (which talks to the actors) and the
view model (which never does). All are immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nereid.model.diagram import Diagram
from nereid.model.file_problem import FileProblem
from nereid.model.refs import ObjectRef
from nereid.model.walkthrough import Walkthrough
from nereid.model.xref import XRef

__all__ = [
    "ActiveDiagramChanged",
    "ActiveWalkthroughChanged",
    "AttentionChanged",
    "DiagramRemoved",
    "DiagramUpdated",
    "EditRejected",
    "Resynced",
    "FileProblemChanged",
    "SaveStateChanged",
    "SelectionChanged",
    "SessionState",
    "SessionUpdate",
    "Spotlight",
    "ViewReport",
    "WalkthroughRemoved",
    "WalkthroughUpdated",
    "XRefsChanged",
]


@dataclass(frozen=True)
class Spotlight:
    """One agent's spotlight; `seq` is the attention actor's: the largest is the newest.

    `label` is the agent's client name (MCP `clientInfo.name`), "" when it sent none;
    `idle`: the agent has asked nothing for a while (drawn greyed until it comes back or
    is gone)."""

    agent_id: str
    ref: ObjectRef
    seq: int
    label: str = ""
    idle: bool = False

    @property
    def name(self) -> str:
        """Who looks, shortest form: the client name, else the agent id."""
        return self.label or self.agent_id

    @property
    def title(self) -> str:
        """Who looks, unambiguous: `claude-code (agent:2)`, or `agent:2` without a name."""
        return f"{self.label} ({self.agent_id})" if self.label else self.agent_id


@dataclass(frozen=True)
class SessionState:
    diagrams: Mapping[str, Diagram] = field(default_factory=dict)
    xrefs: Mapping[str, XRef] = field(default_factory=dict)
    selection: tuple[ObjectRef, ...] = ()
    active_diagram_id: str | None = None
    spotlights: tuple[Spotlight, ...] = ()
    follow_ai: bool = True
    human_ref: ObjectRef | None = None
    walkthroughs: Mapping[str, Walkthrough] = field(default_factory=dict)
    active_walkthrough_id: str | None = None
    save_errors: Mapping[str, str] = field(default_factory=dict)
    #: Diagrams whose file in the folder does not parse (diagram id → where and why).
    file_problems: Mapping[str, FileProblem] = field(default_factory=dict)


@dataclass(frozen=True)
class DiagramUpdated:
    diagram: Diagram


@dataclass(frozen=True)
class DiagramRemoved:
    diagram_id: str


@dataclass(frozen=True)
class XRefsChanged:
    xrefs: Mapping[str, XRef]


@dataclass(frozen=True)
class SelectionChanged:
    selection: tuple[ObjectRef, ...]


@dataclass(frozen=True)
class ActiveDiagramChanged:
    diagram_id: str | None


@dataclass(frozen=True)
class WalkthroughUpdated:
    walkthrough: Walkthrough


@dataclass(frozen=True)
class WalkthroughRemoved:
    walkthrough_id: str


@dataclass(frozen=True)
class ActiveWalkthroughChanged:
    walkthrough_id: str | None


@dataclass(frozen=True)
class AttentionChanged:
    spotlights: tuple[Spotlight, ...]
    follow_ai: bool


@dataclass(frozen=True)
class SaveStateChanged:
    """Items whose last save failed (item key → why); empty: everything is on disk."""

    errors: Mapping[str, str]


@dataclass(frozen=True)
class FileProblemChanged:
    """The diagram's file stopped parsing (`problem`), or parses again (None)."""

    diagram_id: str
    problem: FileProblem | None


@dataclass(frozen=True)
class Resynced:
    """The subscriber fell behind: here is everything again."""

    state: SessionState


SessionUpdate = (
    DiagramUpdated
    | DiagramRemoved
    | XRefsChanged
    | SelectionChanged
    | ActiveDiagramChanged
    | AttentionChanged
    | WalkthroughUpdated
    | WalkthroughRemoved
    | ActiveWalkthroughChanged
    | SaveStateChanged
    | FileProblemChanged
    | Resynced
)


@dataclass(frozen=True)
class ViewReport:
    """The person's view, for `view.read_state` (tui.md §16.3)."""

    active_diagram_id: str | None
    cursor: ObjectRef | None
    pan_x: int
    pan_y: int
    viewport_width: int
    viewport_height: int
    diagram_width: int
    diagram_height: int
    panes: tuple[str, ...]
    focus: str
    focus_owner: str
    search_mode: str | None
    hint_mode: str | None
    show_notes: bool
    mcp_url: str | None
    search_query: str = ""
    search_editing: bool = False
    search_results: int = 0
    search_index: int | None = None
    help_open: bool = False
    mouse: bool = False
    follow_paused: bool = False
    walkthrough_id: str | None = None
    walkthrough_node_id: str | None = None


class EditRejected(Exception):
    """An edited text that could not be applied; `message` says what and where.

    `text`: what to re-open instead of the person's text (a merge with conflicts marked);
    `base`: the revision that text is based on (the next save merges against it).
    """

    def __init__(
        self, message: str, *, text: str | None = None, base: Diagram | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.base = base
