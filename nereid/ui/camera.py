"""The Diagram pane's camera: pan, viewport and the pending recentre / reveal (tui.md §4.1.1,
§16.4).

The camera moves only through its own methods: the person pans, a jump asks to reveal an
object, a new view asks to recentre; `fit` applies what is pending once the pane knows its
size and the drawing. Someone else's change never moves it (decision 12).
"""

from __future__ import annotations

from dataclasses import dataclass

from nereid.model.refs import ObjectRef
from nereid.ui.highlight import DiagramCells
from nereid.ui.modes import CAMERA_MARGIN

__all__ = ["Camera", "CameraPosition"]


@dataclass(frozen=True)
class CameraPosition:
    """Where the camera was (kept while the walkthrough view borrows the pane)."""

    pan_x: int
    pan_y: int
    centred: bool


class Camera:
    """Pan (the diagram cell at the pane's top-left interior cell) and viewport size."""

    def __init__(self) -> None:
        self._pan_x = 0
        self._pan_y = 0
        self._viewport = (0, 0)
        self._recenter = True
        self._centred = False  # the camera is where recentring put it (kept on resize)
        self._centred_for: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._reveal: ObjectRef | None = None

    @property
    def pan_x(self) -> int:
        return self._pan_x

    @property
    def pan_y(self) -> int:
        return self._pan_y

    @property
    def viewport(self) -> tuple[int, int]:
        """The Diagram pane's interior (width, height) at the last paint."""
        return self._viewport

    def recenter(self) -> None:
        """Recentre on the next paint (a new view: startup, another diagram, ...)."""
        self._recenter = True

    def keep(self) -> None:
        """Drop a pending recentre: the camera stays where it is."""
        self._recenter = False

    def reveal(self, ref: ObjectRef) -> None:
        """Bring `ref` into view (with the margin) on the next paint."""
        self._reveal = ref

    def save(self) -> CameraPosition:
        return CameraPosition(self._pan_x, self._pan_y, self._centred)

    def restore(self, position: CameraPosition) -> None:
        self._pan_x, self._pan_y, self._centred = position.pan_x, position.pan_y, position.centred

    def fit(self, width: int, height: int, drawing: DiagramCells | None) -> None:
        """The pane's interior size at paint time; applies pending camera moves.

        Recentring (tui.md §4.1.1) puts a small diagram in the middle of the pane and a large
        one at its top-left with a margin; while the person has not moved the camera since,
        a resize or a redrawn diagram of another size is recentred too."""
        self._viewport = (width, height)
        if drawing is None or width <= 0 or height <= 0:
            return
        sizes = (width, height, drawing.width, drawing.height)
        if self._recenter or (self._centred and sizes != self._centred_for):
            self._recenter = False
            self._pan_x = min(int((drawing.width - width) / 2), -1)
            self._pan_y = min(int((drawing.height - height) / 2), -1)
            self._centred = True
            self._centred_for = sizes
        if self._reveal is not None:
            ref, self._reveal = self._reveal, None
            before = (self._pan_x, self._pan_y)
            self._bring_into_view(drawing, ref)
            if (self._pan_x, self._pan_y) != before:
                self._centred = False
        self._clamp(drawing)

    def pan(self, dx: int, dy: int, drawing: DiagramCells | None) -> None:
        """The person moves the camera (it stays where they put it from now on)."""
        self._pan_x += dx
        self._pan_y += dy
        self._centred = False
        if drawing is not None and self._viewport[0] > 0:
            self._clamp(drawing)

    def home(self, drawing: DiagramCells | None) -> None:
        """The drawing's top-left corner, with the margin."""
        self._pan_x = self._pan_y = -CAMERA_MARGIN
        self.pan(0, 0, drawing)

    def end(self, drawing: DiagramCells) -> None:
        """The drawing's bottom-right corner, with the margin."""
        width, height = self._viewport
        self._pan_x = drawing.width + CAMERA_MARGIN - width
        self._pan_y = drawing.height + CAMERA_MARGIN - height
        self.pan(0, 0, drawing)

    def _bring_into_view(self, drawing: DiagramCells, ref: ObjectRef) -> None:
        bounds = drawing.bounds(ref)
        if bounds is None:
            return
        top, left, bottom, right = bounds
        width, height = self._viewport
        m = CAMERA_MARGIN
        if right - left + 2 * m >= width:
            self._pan_x = left - m
        elif left - m < self._pan_x:
            self._pan_x = left - m
        elif right + m >= self._pan_x + width:
            self._pan_x = right + m - width + 1
        if bottom - top + 2 * m >= height:
            self._pan_y = top - m
        elif top - m < self._pan_y:
            self._pan_y = top - m
        elif bottom + m >= self._pan_y + height:
            self._pan_y = bottom + m - height + 1

    def _clamp(self, drawing: DiagramCells) -> None:
        """A diagram that fits may sit anywhere fully on screen; a larger one may scroll
        until its edge is `CAMERA_MARGIN` cells inside the viewport."""
        width, height = self._viewport
        m = CAMERA_MARGIN

        def clamp(pan: int, size: int, view: int) -> int:
            lo, hi = (size - view, 0) if size <= view else (-m, size + m - view)
            return max(lo, min(hi, pan))

        self._pan_x = clamp(self._pan_x, drawing.width, width)
        self._pan_y = clamp(self._pan_y, drawing.height, height)
