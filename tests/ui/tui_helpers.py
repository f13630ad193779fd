"""Shared helpers for the TUI tests: a view model over the demo session and screen text."""

from __future__ import annotations

import dataclasses

from nereid.model.refs import ObjectRef, parse_ref
from nereid.store import load_demo_session
from nereid.ui.effects import Effect
from nereid.ui.session_state import SessionState
from nereid.ui.viewmodel import ViewModel
from nereid.ui.widgets import TuiWidget

__all__ = ["Clock", "Screen", "demo_state", "ref"]


class Clock:
    """A hand-moved clock for toast expiry and the follow-AI pause."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def demo_state(**changes: object) -> SessionState:
    session = load_demo_session()
    state = SessionState(
        diagrams=session.diagrams,
        xrefs=session.xrefs,
        selection=session.selected_object_refs,
        active_diagram_id=session.active_diagram_id,
        walkthroughs=session.walkthroughs,
        active_walkthrough_id=session.active_walkthrough_id,
    )
    return dataclasses.replace(state, **changes)  # type: ignore[arg-type]


def ref(text: str) -> ObjectRef:
    return parse_ref(text)


class Screen:
    """A widget over a view model, driven by keys, read back as text and attributes."""

    def __init__(
        self,
        state: SessionState | None = None,
        size: tuple[int, int] = (120, 40),
        mcp_url: str | None = "http://127.0.0.1:5555/mcp",
        mouse: bool = False,
    ) -> None:
        self.clock = Clock()
        self.vm = ViewModel(state or demo_state(), mcp_url=mcp_url, clock=self.clock, mouse=mouse)
        self.effects: list[Effect] = []
        self.widget = TuiWidget(self.vm, self.effects.extend)
        self.size = size
        self.render()

    def render(self) -> list[str]:
        self.widget.refresh()  # the app does this after every update
        canvas = self.widget.render(self.size)
        self.canvas = canvas
        return [line.decode() for line in canvas.text]

    def press(self, *keys: str) -> list[str]:
        for key in keys:
            self.widget.keypress(self.size, key)
            self.render()
        return self.render()

    def text(self) -> str:
        return "\n".join(self.render())

    def attr_at(self, row: int, col: int) -> object:
        """The style name at a screen cell."""
        self.render()
        for index, line in enumerate(self.canvas.content()):
            if index != row:
                continue
            x = 0
            for attr, _cs, chunk in line:
                width = len(chunk.decode())
                if x <= col < x + width:
                    return attr
                x += width
        raise IndexError((row, col))
