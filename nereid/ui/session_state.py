"""What the TUI knows about the session: a snapshot, and the events that change it.

The events are the actors' own (`nereid.actors.protocol.SessionEvent`, the persister's
`SaveStatusChanged`): each carries the committed value it announces, so the view model
applies them as they are, with no copy type in between. The snapshot bundles the actors'
snapshot types; `nereid/ui/client.py` reads it at start and after `ResyncNeeded`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from nereid.actors import protocol as p
from nereid.actors.persister import SaveStatusChanged
from nereid.model.diagram import Diagram
from nereid.model.file_problem import FileProblem
from nereid.model.session import Session

__all__ = [
    "EVENTS",
    "NO_ATTENTION",
    "EditRejected",
    "SessionState",
    "SessionUpdate",
]

SessionUpdate = p.SessionEvent | SaveStatusChanged
"""A bus event the TUI mirrors (`ViewModel.apply`)."""

EVENTS: tuple[type[SessionUpdate], ...] = (
    p.DiagramCreated,
    p.DiagramChanged,
    p.DiagramDeleted,
    p.DiagramFileProblem,
    p.ActiveChanged,
    p.WalkthroughCreated,
    p.WalkthroughChanged,
    p.WalkthroughDeleted,
    p.SelectionChanged,
    p.XrefsChanged,
    p.AttentionChanged,
    SaveStatusChanged,
)
"""What the TUI subscribes to: every `SessionUpdate`."""

NO_ATTENTION = p.AttentionSnapshot(ui=p.UiState(), spotlights=())
"""The attention state of a session nobody has looked at yet."""


@dataclass(frozen=True)
class SessionState:
    """Everything the TUI mirrors, read in one go: the session's content (a model
    `Session`; its `session_id` is not mirrored), the attention actor's snapshot, the items
    whose last save failed (item key → why) and the diagrams whose file does not parse."""

    session: Session
    attention: p.AttentionSnapshot = NO_ATTENTION
    save_errors: Mapping[str, str] = field(default_factory=dict)
    file_problems: Mapping[str, FileProblem] = field(default_factory=dict)


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
