"""The walkthrough view (tui.md §16.15): which walkthrough the Diagram pane shows, the step
cursor in each walkthrough, where `g` goes next, and the diagram's camera kept for coming
back. Only `WalkthroughView`'s methods change it; it reads the walkthroughs from the
session mirror.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from nereid.model.refs import ObjectRef
from nereid.model.walkthrough import Walkthrough, WalkthroughNode
from nereid.render import RenderError, RenderOptions, render_walkthrough
from nereid.render.walkthrough import node_ref
from nereid.ui.camera import CameraPosition
from nereid.ui.highlight import DiagramCells
from nereid.ui.mirror import SessionMirror

__all__ = ["ClosedView", "WalkthroughView"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClosedView:
    """What closing the view gives back: the diagram's camera and whether the view had
    opened the Inspector (then it closes it again)."""

    camera: CameraPosition | None
    opened_inspector: bool


class WalkthroughView:
    """Open or not, the walkthrough shown, step cursors, `g` positions, its drawing."""

    def __init__(self, session: SessionMirror) -> None:
        self._session = session
        self._open = False
        self._shown_id: str | None = None  # the walkthrough shown while open (kept after)
        self._nodes: dict[str, str] = {}  # walkthrough id → node under the cursor
        self._ref_index: dict[tuple[str, str], int] = {}  # next ref `g` goes to
        self._opened_inspector = False
        self._diagram_camera: CameraPosition | None = None
        self._cells: dict[tuple[str, int], DiagramCells] = {}
        self._errors: dict[str, str] = {}

    # ---- reading -------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self._open

    @property
    def walkthrough(self) -> Walkthrough | None:
        """The walkthrough shown while the walkthrough view is open."""
        if not self._open or self._shown_id is None:
            return None
        return self._session.walkthroughs.get(self._shown_id)

    def node(self) -> WalkthroughNode | None:
        """The node under the walkthrough cursor (the first node by default)."""
        walk = self.walkthrough
        if walk is None or not walk.nodes:
            return None
        wanted = self._nodes.get(walk.walkthrough_id)
        return next((n for n in walk.nodes if n.node_id == wanted), walk.nodes[0])

    def cursor_ref(self) -> ObjectRef | None:
        node = self.node()
        walk = self.walkthrough
        return None if node is None or walk is None else node_ref(walk.walkthrough_id, node.node_id)

    def cells(self) -> DiagramCells | None:
        """The shown walkthrough's drawing (cached per rev); None after a render error."""
        walk = self.walkthrough
        if walk is None:
            return None
        key = (walk.walkthrough_id, walk.rev)
        cached = self._cells.get(key)
        if cached is not None:
            return cached
        try:
            rendered = render_walkthrough(walk, RenderOptions())
        except RenderError as err:
            self._errors[walk.walkthrough_id] = str(err)
            return None
        except Exception as err:  # a renderer bug must not take the person's session down
            _log.exception("rendering walkthrough %s failed", walk.walkthrough_id)
            self._errors[walk.walkthrough_id] = f"internal error: {err!r}"
            return None
        self._errors.pop(walk.walkthrough_id, None)
        self._cells = {key: DiagramCells(rendered, walk.walkthrough_id)}
        return self._cells[key]

    def error(self) -> str | None:
        """Why the shown walkthrough could not be drawn (None: it could, or none shows)."""
        return self._errors.get(self._shown_id) if self._shown_id is not None else None

    def candidate(self, wanted: str | None) -> str | None:
        """The walkthrough to show: `wanted`, else the last shown, else the session's
        active one, else the first (None: there are none)."""
        walkthroughs = self._session.walkthroughs
        ids = sorted(walkthroughs)
        if not ids:
            return None
        choices = (wanted, self._shown_id, self._session.active_walkthrough_id)
        return next((w for w in choices if w is not None and w in walkthroughs), ids[0])

    def has_cursor(self, walkthrough_id: str) -> bool:
        """Whether the person has moved the step cursor in that walkthrough."""
        return bool(self._nodes.get(walkthrough_id))

    # ---- changes -------------------------------------------------------------------------

    def open(self, walkthrough_id: str, *, camera: CameraPosition, opened_inspector: bool) -> None:
        """Show `walkthrough_id`; on first opening keep the diagram's `camera` and whether
        the view opened the Inspector (both given back by `close`)."""
        if not self._open:
            self._diagram_camera = camera
            self._opened_inspector = opened_inspector
        self._open = True
        self._shown_id = walkthrough_id

    def close(self) -> ClosedView | None:
        """Back to the diagram: its kept camera (None: the view was not open)."""
        if not self._open:
            return None
        closed = ClosedView(self._diagram_camera, self._opened_inspector)
        self._open = False
        self._opened_inspector = False
        self._diagram_camera = None
        return closed

    def move(self, delta: int | None, *, to_end: bool = False) -> ObjectRef | None:
        """Move the step cursor by `delta` (None: to the first, or last with `to_end`);
        the ref of the step now under it (None: no steps)."""
        walk = self.walkthrough
        node = self.node()
        if walk is None or node is None:
            return None
        ids = [n.node_id for n in walk.nodes]
        index = ids.index(node.node_id)
        index = (len(ids) - 1 if to_end else 0) if delta is None else index + delta
        index = max(0, min(len(ids) - 1, index))
        self._nodes[walk.walkthrough_id] = ids[index]
        return node_ref(walk.walkthrough_id, ids[index])

    def pick(self, node_id: str) -> None:
        """Put the step cursor of the shown walkthrough on `node_id` (a click)."""
        walk = self.walkthrough
        if walk is not None:
            self._nodes[walk.walkthrough_id] = node_id

    def switch(self, step: int) -> bool:
        """`[`/`]`: the previous/next walkthrough; whether one is shown."""
        ids = sorted(self._session.walkthroughs)
        if not ids:
            return False
        index = ids.index(self._shown_id) if self._shown_id in ids else 0
        self._shown_id = ids[(index + step) % len(ids)]
        return True

    def next_ref(self, walkthrough_id: str, node_id: str, count: int) -> int:
        """Which of a step's `count` refs `g` goes to now (cycling: the next visit goes
        to the one after)."""
        key = (walkthrough_id, node_id)
        index = self._ref_index.get(key, 0) % count
        self._ref_index[key] = index + 1
        return index

    def forget(self, walkthrough_id: str) -> bool:
        """The walkthrough was deleted; whether it was the one shown."""
        if self._shown_id != walkthrough_id:
            return False
        self._shown_id = None
        return True

    def forget_missing(self) -> bool:
        """After a resync: drop the shown walkthrough if it is gone; whether it was."""
        if self._shown_id in self._session.walkthroughs:
            return False
        self._shown_id = None
        return True
