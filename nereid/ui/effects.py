"""Requests the view model hands to the app task, which sends them to the actors.

The view model stays synchronous and actor-free; the app (`nereid/ui/app.py`) performs these.
"""

from __future__ import annotations

from dataclasses import dataclass

from nereid.model.refs import ObjectRef
from nereid.ui.session_state import ViewReport

__all__ = [
    "Effect",
    "Quit",
    "ReportHuman",
    "ReportView",
    "RunEditor",
    "SetActiveDiagram",
    "SetFollowAi",
    "SetMouse",
    "SetSelection",
    "Yank",
]


@dataclass(frozen=True)
class SetSelection:
    refs: tuple[ObjectRef, ...]


@dataclass(frozen=True)
class SetActiveDiagram:
    diagram_id: str


@dataclass(frozen=True)
class ReportHuman:
    diagram_id: str | None
    ref: ObjectRef | None


@dataclass(frozen=True)
class ReportView:
    report: ViewReport


@dataclass(frozen=True)
class SetFollowAi:
    enabled: bool


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


Effect = (
    SetSelection
    | SetActiveDiagram
    | ReportHuman
    | ReportView
    | SetFollowAi
    | SetMouse
    | RunEditor
    | Yank
    | Quit
)
