"""The TUI's one urwid widget: lays the panes out (tui.md §3) and forwards input.

`TuiWidget` reads the `ViewModel` to paint and hands keys (to `nereid.ui.dispatch`) and clicks
to it; the effects it gets back go to `on_effects` (the app task sends them to the actors). It
never calls an actor.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import urwid

from nereid.actors.protocol import ReportView
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.offload.packed_drawing import spans_on_rows
from nereid.render.walkthrough import node_ref
from nereid.ui.canvas import BandedCanvas, Rows, Run, frame, rows_canvas
from nereid.ui.dispatch import handle_key
from nereid.ui.effects import Effect
from nereid.ui.highlight import DiagramCells, styled_rows
from nereid.ui.modes import Focus
from nereid.ui.panes import (
    diagram_marks,
    diagram_rows,
    diagram_title,
    help_rows,
    inspector_rows,
    objects_rows,
    status_row,
    xrefs_rows,
)
from nereid.ui.viewmodel import ViewModel

__all__ = ["Rect", "TuiWidget", "layout"]


@dataclass(frozen=True)
class Rect:
    x: int
    y: int
    w: int
    h: int

    def contains(self, col: int, row: int) -> bool:
        return self.x <= col < self.x + self.w and self.y <= row < self.y + self.h


def layout(vm: ViewModel, width: int, height: int) -> tuple[dict[Focus, Rect], bool]:
    """Pane rectangles for the main area (all rows but the last) and whether to be compact."""
    main_h = max(height - 1, 0)
    visible = vm.panes.visible
    panels = [p for p in (Focus.OBJECTS, Focus.XREFS, Focus.INSPECTOR) if p in visible]
    stacked = width < (110 if len(panels) == 3 else 90)
    rects: dict[Focus, Rect] = {}
    if not panels:
        rects[Focus.DIAGRAM] = Rect(0, 0, width, main_h)
        return rects, stacked
    shares = {1: [100], 2: [50, 50], 3: [30, 30, 40]}[len(panels)]
    if stacked:
        # 70/30, but every panel keeps at least 2 rows of content (4 with its frame) while
        # the diagram keeps 8: at 80×24 three panels would otherwise show nothing.
        side_h = max(main_h * 30 // 100, min(4 * len(panels), main_h - 8))
        diagram_h = max(main_h - side_h, 3)
        rects[Focus.DIAGRAM] = Rect(0, 0, width, diagram_h)
        side = Rect(0, diagram_h, width, main_h - diagram_h)
    else:
        diagram_w = width * 70 // 100
        rects[Focus.DIAGRAM] = Rect(0, 0, diagram_w, main_h)
        side = Rect(diagram_w, 0, width - diagram_w, main_h)
    y = side.y
    for index, (pane, share) in enumerate(zip(panels, shares, strict=True)):
        last = index == len(panels) - 1
        h = side.y + side.h - y if last else side.h * share // 100
        rects[pane] = Rect(side.x, y, side.w, h)
        y += h
    return rects, stacked


class TuiWidget(urwid.Widget):
    """The whole screen. Box widget; selectable; mouse-aware."""

    _sizing = frozenset([urwid.Sizing.BOX])
    _selectable = True

    def __init__(self, vm: ViewModel, on_effects: Callable[[list[Effect]], None]) -> None:
        super().__init__()
        self.vm = vm
        self.on_effects = on_effects
        self.rects: dict[Focus, Rect] = {}
        self._reported: ReportView | None = None
        self._panes: dict[Rect, BandedCanvas] = {}  # each pane's canvas bands, by place
        # What the Diagram pane showed at the last paint: (pan x, pan y, drawing).
        self._shown: tuple[int, int, DiagramCells | None] = (0, 0, None)

    def refresh(self) -> None:
        """Repaint on the next screen update (the view model changed)."""
        self._invalidate()

    def keypress(self, size: tuple[()] | tuple[int] | tuple[int, int], key: str) -> str | None:
        effects = handle_key(self.vm, key)
        self._invalidate()
        self.on_effects(effects)
        return None

    def mouse_event(
        self,
        size: tuple[()] | tuple[int] | tuple[int, int],
        event: str,
        button: int,
        col: int,
        row: int,
        focus: bool,
    ) -> bool:
        vm = self.vm
        if not vm.panes.mouse or vm.panes.help_open or not event.startswith("mouse press"):
            return False
        for pane, rect in self.rects.items():
            if not rect.contains(col, row):
                continue
            if button in (4, 5):
                if pane is Focus.DIAGRAM:
                    vm.pan(0, -3 if button == 4 else 3)
                self._invalidate()
                return True
            if button != 1:
                return False
            effects: list[Effect] = []
            vm.panes.focus_on(pane)
            x, y = col - rect.x - 1 + vm.camera.pan_x, row - rect.y - 1 + vm.camera.pan_y
            if pane is Focus.DIAGRAM and vm.walk.is_open:
                self._pick_step(x, y)
            elif pane is Focus.DIAGRAM:
                ref = self._ref_at(x, y)
                if ref is not None:
                    effects = vm.jump(ref)
            elif pane is Focus.OBJECTS:
                items = vm.objects()
                index = vm.panes.objects_scroll + row - rect.y - 1
                if 0 <= index < len(items):
                    effects = vm.jump(items[index].ref)
            elif pane is Focus.XREFS:
                vm.panes.xref_cursor_to(row - rect.y - 1)
            self._invalidate()
            self.on_effects(effects)
            return True
        return False

    def _pick_step(self, x: int, y: int) -> None:
        """A click on a walkthrough step's box puts the step cursor there."""
        vm = self.vm
        walk, cells = vm.walk.walkthrough, vm.walk.cells()
        if walk is None or cells is None:
            return
        for node in walk.nodes:
            bounds = cells.bounds(node_ref(walk.walkthrough_id, node.node_id))
            if bounds and bounds[0] <= y <= bounds[2] and bounds[1] <= x <= bounds[3]:
                vm.walk.pick(node.node_id)
                return

    def _ref_at(self, x: int, y: int) -> ObjectRef | None:
        """The object drawn at diagram cell (x, y); boxes win over the lines crossing them."""
        cells = self.vm.cells()
        if cells is None:
            return None
        best: tuple[int, ObjectRef] | None = None
        rank: dict[tuple[str, ...], int] = {
            FLOW_NODE: 0,
            SEQ_PARTICIPANT: 0,
            SEQ_MESSAGE: 1,
            FLOW_EDGE: 1,
            STATE_STATE: 0,
            STATE_TRANSITION: 1,
            FLOW_SUBGRAPH: 2,  # a frame loses to the nodes and lines drawn inside it
        }
        for ref, span in spans_on_rows(cells.rendered.spans, y, y):
            if ref.category in rank and span.col_start <= x <= span.col_end:
                if best is None or rank[ref.category] < best[0]:
                    best = (rank[ref.category], ref)
        if best is None:  # a click inside a box's interior counts too
            for ref in cells.rendered.spans:
                if rank.get(ref.category) != 0:
                    continue
                bounds = cells.bounds(ref)
                if bounds and bounds[0] <= y <= bounds[2] and bounds[1] <= x <= bounds[3]:
                    return ref
            return None
        return best[1]

    def render(
        self, size: tuple[()] | tuple[int] | tuple[int, int], focus: bool = False
    ) -> urwid.Canvas:
        assert len(size) == 2, "TuiWidget is a box widget"
        width, height = size
        vm = self.vm
        rects, compact = layout(vm, width, height)
        self.rects = rects
        pieces: list[tuple[Rect, list[Run], Rows, str]] = []
        for pane, rect in rects.items():
            iw, ih = max(rect.w - 2, 0), max(rect.h - 2, 0)
            if pane is Focus.DIAGRAM:
                inner = diagram_rows(vm, iw, ih)  # first: it asks for the drawing
                title = diagram_title(vm)  # which says whether it is updating
                self._shown = (vm.camera.pan_x, vm.camera.pan_y, vm.view_cells())
            elif pane is Focus.OBJECTS:
                title, inner = objects_rows(vm, iw, ih)
            elif pane is Focus.XREFS:
                title, inner = xrefs_rows(vm, iw, ih)
            else:
                title, inner = inspector_rows(vm, iw, ih)
            border = title[0][0] if pane is not Focus.DIAGRAM else diagram_title(vm)[0][0]
            if pane is Focus.INSPECTOR and vm.panes.focus is not Focus.INSPECTOR:
                border = "inspector"
            pieces.append((rect, title, inner, border))
        report = vm.view_report()
        if report != self._reported:  # the person's view changed: tell `view.read_state`
            self._reported = report
            self.on_effects([report])
        status = rows_canvas([status_row(vm, width, compact)], width, 1, "status")
        main = self._compose(pieces, width, max(height - 1, 0))
        if vm.panes.help_open and height > 4:
            main = self._help(main, width, max(height - 1, 0))
        combined = urwid.CanvasCombine([(main, None, False), (status, None, False)])
        search = vm.modes.search
        if search is not None and search.editing:
            col = min(2 + len(search.query), width - 1)
            combined.cursor = (col, height - 1)
        return combined

    def paint_ahead(self) -> Iterator[None]:
        """Make the Diagram pane's canvas bands for the next paint ahead, one band per
        step (the app yields between), when it will show rows the last paint did not: the
        camera is about to move (follow-AI revealing a spotlight), so a whole pane of rows
        is new. The paint takes a band made ahead only where its rows are what it paints,
        so the screen is the same either way."""
        vm = self.vm
        rect = self.rects.get(Focus.DIAGRAM)
        if rect is None or vm.walk.is_open or vm.active is None:
            return iter(())
        width, height = max(rect.w - 2, 0), max(rect.h - 2, 0)
        cells = vm.cells()
        if cells is None or width <= 0 or height <= 0:
            return iter(())
        camera = copy.copy(vm.camera)  # where the paint's `set_viewport` will put it
        camera.fit(width, height, cells)
        pan_x, pan_y = camera.pan_x, camera.pan_y
        if self._shown == (pan_x, pan_y, cells):
            return iter(())  # the rows shown: the paint keeps its bands but what a mark moved
        marks, dim = diagram_marks(vm)
        border = diagram_title(vm)[0][0]

        def rows(top: int, size: int) -> Rows:
            shown = range(pan_y + top, pan_y + top + size)
            return styled_rows(cells, marks, shown, pan_x, width, dim)

        return self._pane_canvas(rect).bands_ahead(rows, rect.w, rect.h, border)

    def _compose(
        self, pieces: list[tuple[Rect, list[Run], Rows, str]], width: int, height: int
    ) -> urwid.Canvas:
        if height <= 0:
            return rows_canvas([], width, 0)
        # Columns of stacked panes: group by x, then join left to right.
        columns: dict[int, list[tuple[Rect, list[Run], Rows, str]]] = {}
        for piece in pieces:
            columns.setdefault(piece[0].x, []).append(piece)
        joined = []
        for x in sorted(columns):
            stack = sorted(columns[x], key=lambda item: item[0].y)
            col_w = stack[0][0].w
            canvases = [
                (self._pane_canvas(rect).framed(title, inner, rect.w, rect.h, border), None, False)
                for rect, title, inner, border in stack
                if rect.h
            ]
            column = urwid.CanvasCombine(canvases)
            joined.append((column, None, False, col_w))
        if len(joined) == 1:
            return joined[0][0]
        return urwid.CanvasJoin(joined)

    def _pane_canvas(self, rect: Rect) -> BandedCanvas:
        """The canvas bands of the pane at `rect` (forgotten when the layout changes)."""
        banded = self._panes.get(rect)
        if banded is None:
            if len(self._panes) > 8:  # panes moved, resized or closed
                self._panes.clear()
            banded = self._panes[rect] = BandedCanvas()
        return banded

    def _help(self, main: urwid.Canvas, width: int, height: int) -> urwid.Canvas:
        vm = self.vm
        w = max(width * 82 // 100, 20)
        h = max(height * 84 // 100, 5)
        rows = help_rows(vm, w - 2)
        scroll = vm.panes.clamp_help(len(rows), h - 2)
        boxed = frame(
            [("help_border", "Help "), ("dim", "(Esc closes, ↑↓ scroll) ")],
            rows[scroll:],
            w,
            h,
            "help_border",
        )
        top = rows_canvas(boxed, w, h)
        return urwid.CanvasOverlay(top, main, (width - w) // 2, (height - h) // 2)
