"""What the view model hands to the app task: actor requests (the protocol's own, which the
app sends as they are) and what only the app can do (editor, mouse, clipboard, quit).

The view model stays synchronous and actor-free; the app (`nereid/ui/app.py`) performs these.
"""

from __future__ import annotations

from dataclasses import dataclass

from nereid.actors import protocol as p

__all__ = [
    "ActorRequest",
    "Effect",
    "Quit",
    "RunEditor",
    "SetMouse",
    "Yank",
]

ActorRequest = (
    p.UpdateSelection | p.OpenDiagram | p.ReportHumanAttention | p.ReportView | p.SetFollowAi
)
"""What the view model asks of the actors: their own requests, sent as they are."""


@dataclass(frozen=True)
class SetMouse:
    """Capture the mouse (or give it back to the terminal)."""

    enabled: bool


@dataclass(frozen=True)
class RunEditor:
    diagram_id: str


@dataclass(frozen=True)
class Yank:
    text: str


@dataclass(frozen=True)
class Quit:
    code: int = 0


Effect = ActorRequest | SetMouse | RunEditor | Yank | Quit
