"""The view's small state types: focus, search and hint modes, messages."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from nereid.model.refs import ObjectRef
from nereid.ui.hints import HintTarget
from nereid.ui.search import Candidate

__all__ = [
    "CAMERA_MARGIN",
    "FOLLOW_PAUSE",
    "PANE_ORDER",
    "Focus",
    "HintMode",
    "Message",
    "SearchMode",
]

#: Cells kept between an object brought into view and the pane edge (tui.md §16.4).
CAMERA_MARGIN = 2
#: Seconds follow-AI waits after the person navigates (tui.md §16.6).
FOLLOW_PAUSE = 3.0


class Focus(enum.Enum):
    DIAGRAM = "diagram"
    OBJECTS = "objects"
    XREFS = "xrefs"
    INSPECTOR = "inspector"


PANE_ORDER = (Focus.DIAGRAM, Focus.OBJECTS, Focus.XREFS, Focus.INSPECTOR)


@dataclass
class SearchMode:
    fuzzy: bool
    query: str = ""
    editing: bool = True
    results: tuple[ObjectRef, ...] = ()
    index: int = 0
    error: str | None = None
    candidates: list[Candidate] = field(default_factory=list)


@dataclass
class HintMode:
    chain: bool
    targets: list[HintTarget]
    first: str | None = None
    previous_pick: ObjectRef | None = None


@dataclass
class Message:
    text: str
    error: bool
    at: float
    sticky: bool = False
