"""Render errors: a model the renderer cannot draw (render.md §14).

Only inconsistent models raise (an edge to a missing node, a message from an unknown
participant); cycles, self-loops and odd shapes are always drawn. The message carries the
prefix render.md §14 names (`flowchart layout error: …`, `sequence render error: …`).
"""

from __future__ import annotations

__all__ = ["RenderError"]


class RenderError(ValueError):
    """The model cannot be rendered; `message` says what and where."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
