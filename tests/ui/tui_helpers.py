"""Shared helpers for the TUI tests: a view model over the demo session and screen text."""

from __future__ import annotations

import msgspec

from nereid.actors import protocol as p
from nereid.mermaid import parse_flowchart
from nereid.model.diagram import Diagram
from nereid.model.refs import ObjectRef, parse_ref
from nereid.ops import Delta
from nereid.store import load_demo_session
from nereid.testing.big_diagrams import flowchart
from nereid.ui.effects import Effect
from nereid.ui.session_state import SessionState
from nereid.ui.viewmodel import ViewModel
from nereid.ui.widgets import TuiWidget

__all__ = ["Clock", "Screen", "big_flowchart_screen", "changed", "demo_state", "ref", "spotlights"]


class Clock:
    """A hand-moved clock for toast expiry and the follow-AI pause."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def demo_state(**changes: object) -> SessionState:
    """The demo session as the TUI reads it at start; `changes` replace `Session` fields."""
    session = msgspec.structs.replace(load_demo_session(), **changes)
    return SessionState(session=session)


def changed(diagram: Diagram) -> p.DiagramChanged:
    """The event a diagram actor publishes when it commits `diagram`."""
    return p.DiagramChanged(diagram=diagram, delta=Delta())


def spotlights(
    *spots: tuple[str, ObjectRef, int] | p.Spotlight, follow_ai: bool = True
) -> p.AttentionChanged:
    """The attention actor's event after a spotlight change: `(agent id, ref, seq)` each."""
    made = tuple(
        spot
        if isinstance(spot, p.Spotlight)
        else p.Spotlight(agent_id=spot[0], object_ref=spot[1], seq=spot[2])
        for spot in spots
    )
    attention = p.AttentionSnapshot(ui=p.UiState(follow_ai=follow_ai), spotlights=made)
    return p.AttentionChanged(part="spotlight", attention=attention)


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


def big_flowchart_screen(nodes: int = 150) -> tuple[Diagram, Screen]:
    """A screen showing one generated flowchart of `nodes` nodes, as big as the app lays out
    in its worker: the view model is listened to, so layouts wait for the test to do them
    (`take_layout` / `layout_done`), as the worker does in the app."""
    ast = parse_flowchart(flowchart(nodes))
    big = Diagram(diagram_id="big", name="big", kind="flowchart", ast=ast, rev=0)
    screen = Screen(demo_state(diagrams={"big": big}, active_diagram_id="big"))
    screen.vm.drawings.listen(lambda: None)
    return big, screen
