"""The TUI's view model: session snapshot + the person's view, changed by keys and updates.

Synchronous and actor-free: `handle_key(key)` and `apply(update)` mutate the view and return
`Effect`s for the app task to send. Widgets read this object to paint; they never change the
session. Someone else's change never moves the person's pan or cursor (decision 12) unless
follow-AI is on and an agent's spotlight moved.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgspec

from nereid.model.diagram import Ast, Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.model.sequence import SequenceAst
from nereid.model.state import StateAst
from nereid.model.state_flow import state_display_label
from nereid.model.walkthrough import Walkthrough, WalkthroughNode
from nereid.model.xref import XRef
from nereid.offload.dispatch import needs_worker
from nereid.render import (
    Rendered,
    RenderError,
    RenderOptions,
    render_diagram,
    render_walkthrough,
)
from nereid.render.display import is_markdown
from nereid.render.walkthrough import node_ref
from nereid.store.schema import FileProblem
from nereid.ui.dispatch import handle_key
from nereid.ui.effects import (
    Effect,
    ReportHuman,
    ReportView,
    SetActiveDiagram,
    SetSelection,
)
from nereid.ui.highlight import DiagramCells
from nereid.ui.modes import (
    CAMERA_MARGIN,
    FOLLOW_PAUSE,
    PANE_ORDER,
    Focus,
    HintMode,
    Message,
    SearchMode,
)
from nereid.ui.objects import (
    SELECTABLE,
    ObjectItem,
    XRefItem,
    ref_exists,
    selectable_objects,
    xref_items,
)
from nereid.ui.palette import AGENT_STYLES, IDLE_AGENT_SLOT
from nereid.ui.session_state import (
    ActiveDiagramChanged,
    ActiveWalkthroughChanged,
    AttentionChanged,
    DiagramRemoved,
    DiagramUpdated,
    FileProblemChanged,
    Resynced,
    SaveStateChanged,
    SelectionChanged,
    SessionState,
    SessionUpdate,
    Spotlight,
    ViewReport,
    WalkthroughRemoved,
    WalkthroughUpdated,
    XRefsChanged,
)

__all__ = [
    "CAMERA_MARGIN",
    "FOLLOW_PAUSE",
    "TUI_SMALL_PAYLOAD",
    "Focus",
    "HintMode",
    "LayoutJob",
    "SearchMode",
    "ViewModel",
]

_log = logging.getLogger(__name__)

TOAST_SECONDS = 2.0
LOG_SIZE = 50

TUI_SMALL_PAYLOAD: Final = 32 * 1024
"""Diagrams whose AST encodes to more bytes (about 100 flowchart nodes, ~25 ms of layout)
are laid out in a worker process while the previous drawing stays on screen; smaller ones
are drawn in-process, where they cost less than the hand-off (`nereid.offload.dispatch`)."""

CellsKey = tuple[str, int, bool, frozenset[tuple[str, str]]]
"""What a diagram drawing depends on: diagram id, rev, notes flag, xref markers."""


@dataclass(frozen=True)
class LayoutJob:
    """A drawing the app should make off the event loop (`ViewModel.layout_done` takes it)."""

    key: CellsKey
    diagram: Diagram  # with the xref markers in its labels
    options: RenderOptions
    ast: Ast  # the diagram's own (unmarked) AST, for the drawing's emphasis cells


class ViewModel:
    """All view state plus the session snapshot it paints."""

    def __init__(
        self,
        state: SessionState,
        *,
        mcp_url: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        mouse: bool = False,
    ) -> None:
        self.clock = clock
        self.mcp_url = mcp_url
        self.mouse = mouse  # whether the TUI captures the mouse (opt-in, tui.md §16.14)
        self.walkthroughs: dict[str, Walkthrough] = dict(state.walkthroughs)
        self.active_walkthrough_id = state.active_walkthrough_id
        self.walk_id: str | None = None  # the walkthrough shown while `walk_open`
        self.walk_open = False
        self.walk_nodes: dict[str, str] = {}  # walkthrough id → node under the cursor
        self.walk_ref_index: dict[tuple[str, str], int] = {}  # next ref `g` goes to
        self.walk_opened_inspector = False
        self._walk_cells: dict[tuple[str, int], DiagramCells] = {}
        self._diagram_camera: tuple[int, int, bool] | None = None
        self.diagrams: dict[str, Diagram] = dict(state.diagrams)
        self.xrefs: dict[str, XRef] = dict(state.xrefs)
        self.selection: tuple[ObjectRef, ...] = state.selection
        self.spotlights: tuple[Spotlight, ...] = state.spotlights
        self.follow_ai = state.follow_ai
        self.save_errors: dict[str, str] = dict(state.save_errors)
        self.file_problems: dict[str, FileProblem] = dict(state.file_problems)
        ids = sorted(self.diagrams)
        active = state.active_diagram_id
        self.active_id: str | None = (
            active if active in self.diagrams else (ids[0] if ids else None)
        )
        self.focus = Focus.DIAGRAM
        self.visible: set[Focus] = {Focus.DIAGRAM}
        self.show_notes = True
        self.pan_x = 0
        self.pan_y = 0
        self.viewport = (0, 0)
        self.recenter_pending = True
        self.centred = False  # the camera is where recentring put it (kept on resize)
        self._centred_for: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.reveal_pending: ObjectRef | None = None
        self.cursors: dict[str, ObjectRef] = {}
        self.cursor_by_agent = False
        self.objects_selected_only = False
        self.xrefs_dangling_only = False
        self.xrefs_involving = False
        self.xref_cursor = 0
        self.objects_scroll = 0
        self.help_open = False
        self.help_scroll = 0
        self.inspector_scroll = 0
        self.search: SearchMode | None = None
        self.hint: HintMode | None = None
        self.messages: list[Message] = []
        self.sticky_error: str | None = None
        self.follow_paused_until = 0.0
        self.last_followed_seq: int | None = None
        self._cells: dict[CellsKey, DiagramCells] = {}  # the newest drawing of each diagram
        self._render_errors: dict[str, str] = {}
        self._failed: dict[str, CellsKey] = {}  # diagram id → the drawing its error is about
        self.layout_wanted: LayoutJob | None = None  # the newest drawing to make off the loop
        self._layout_running: set[CellsKey] = set()
        # The app's hook: a drawing is wanted off the loop (None: draw everything in-process).
        self.on_layout_wanted: Callable[[], None] | None = None
        self._objects: dict[tuple[str, int], list[ObjectItem]] = {}
        self._own_switches: list[str | None] = []  # active-diagram requests not yet echoed
        self.pending_edit: dict[str, str] = {}  # diagram id → text kept after a failed apply
        # ... why it was not applied (line numbers of the text alone), for the re-opened file
        self.pending_reason: dict[str, str] = {}
        # ... the revision the kept text is made from (the next save merges from it)
        self.pending_base: dict[str, Diagram] = {}
        # ... and whether the reason is a merge-conflict report
        self.pending_conflict: set[str] = set()
        self.on_message: Callable[[], None] | None = None  # the app's repaint timer hook
        if state.human_ref is not None and ref_exists(self.diagrams, state.human_ref):
            self.active_id = state.human_ref.diagram_id
            self.cursors[self.active_id] = state.human_ref
        if self.mcp_url:
            self.toast(f"MCP {self.mcp_url}")

    # ---- derived views -------------------------------------------------------------------

    @property
    def diagram_ids(self) -> list[str]:
        return sorted(self.diagrams)

    @property
    def active(self) -> Diagram | None:
        return self.diagrams.get(self.active_id) if self.active_id else None

    def objects(self) -> list[ObjectItem]:
        """The Objects list of the active diagram, with the selected-only filter applied."""
        diagram = self.active
        if diagram is None:
            return []
        key = (diagram.diagram_id, diagram.rev)
        items = self._objects.get(key)
        if items is None:
            self._objects = {key: selectable_objects(diagram)}
            items = self._objects[key]
        if self.objects_selected_only:
            chosen = set(self.selection)
            items = [item for item in items if item.ref in chosen]
        return items

    @property
    def cursor(self) -> ObjectRef | None:
        """The person's focused object in the active diagram (tui.md §1 'cursor object')."""
        if self.active_id is None:
            return None
        ref = self.cursors.get(self.active_id)
        if ref is not None and ref_exists(self.diagrams, ref):
            return ref
        items = self.objects()
        boxes = [item for item in items if item.is_box]
        pool = boxes or items
        return pool[0].ref if pool else None

    def xref_rows(self) -> list[XRefItem]:
        rows = xref_items(self.diagrams, self.xrefs)
        if self.xrefs_dangling_only:
            rows = [row for row in rows if row.status != "ok"]
        if self.xrefs_involving:
            cur = self.cursor
            rows = [r for r in rows if cur is not None and cur in (r.xref.from_ref, r.xref.to_ref)]
        return rows

    def agent_slots(self) -> dict[str, int]:
        """Agent id → style slot: stable by agent order, 6 styles reused cyclically.

        Agents are ordered like the attention actor orders them: `agent:2` before
        `agent:10` (numbers compared as numbers). An idle agent's spotlight is greyed
        (`IDLE_AGENT_SLOT`) until it comes back or goes.
        """
        agents = sorted({s.agent_id for s in self.spotlights}, key=_agent_order)
        idle = {s.agent_id for s in self.spotlights if s.idle}
        return {
            agent: IDLE_AGENT_SLOT if agent in idle else i % AGENT_STYLES
            for i, agent in enumerate(agents)
        }

    def latest_spotlight(self) -> Spotlight | None:
        """The newest agent spotlight (largest `seq`, which the attention actor assigns)."""
        return max(self.spotlights, key=lambda s: s.seq, default=None)

    def follow_paused(self) -> bool:
        return self.follow_ai and self.clock() < self.follow_paused_until

    def follow_resume_at(self) -> float | None:
        """When a spotlight set during the person's pause should be followed (None: none)."""
        latest = self.latest_spotlight()
        if not self.follow_ai or latest is None or latest.seq <= (self.last_followed_seq or 0):
            return None
        return self.follow_paused_until if self.clock() < self.follow_paused_until else None

    def cells(self) -> DiagramCells | None:
        """The active diagram's drawing (cached per rev, notes flag and xref markers).

        A big diagram (see `TUI_SMALL_PAYLOAD`) is laid out off the event loop when the app
        takes `layout_wanted`; meanwhile this is its previous drawing (`layout_behind` says
        which rev), or None with `layout_pending` before the first one arrives.
        """
        diagram = self.active
        if diagram is None:
            return None
        markers = self._markers(diagram.diagram_id)
        key = (diagram.diagram_id, diagram.rev, self.show_notes, markers)
        cached = self._cells.get(key)
        if cached is not None:
            return cached
        if self._failed.get(diagram.diagram_id) == key:
            return None
        marked = _with_markers(diagram, dict(markers))
        options = RenderOptions(show_notes=self.show_notes, flowchart_extra_col_gap=2)
        if self.on_layout_wanted is not None and needs_worker(diagram.ast, TUI_SMALL_PAYLOAD):
            if key not in self._layout_running and (
                self.layout_wanted is None or self.layout_wanted.key != key
            ):
                self.layout_wanted = LayoutJob(key, marked, options, diagram.ast)
                self.on_layout_wanted()
            return self._drawing_of(diagram.diagram_id)
        try:
            rendered = render_diagram(marked, options)
        except Exception as err:
            self.layout_done(key, err, diagram.ast)
            return None
        self.layout_done(key, rendered, diagram.ast)
        return self._cells.get(key)

    def take_layout(self) -> LayoutJob | None:
        """The newest wanted drawing, for the app to make off the loop (None: none)."""
        job, self.layout_wanted = self.layout_wanted, None
        if job is not None:
            self._layout_running.add(job.key)
        return job

    def layout_done(self, key: CellsKey, outcome: Rendered | BaseException, ast: Ast) -> bool:
        """Keep a finished drawing (or its error) unless a newer rev of that diagram is
        already drawn or the diagram is gone: results may arrive out of order. Returns
        whether it was kept."""
        diagram_id, rev = key[0], key[1]
        self._layout_running.discard(key)
        current = self.diagrams.get(diagram_id)
        drawn = [k[1] for k in self._cells if k[0] == diagram_id]
        failed = self._failed.get(diagram_id)
        if current is None or rev > current.rev or any(r > rev for r in drawn):
            return False
        if failed is not None and failed[1] > rev:
            return False
        if isinstance(outcome, BaseException):
            if isinstance(outcome, RenderError):
                self._render_errors[diagram_id] = str(outcome)
            else:  # a renderer bug must not take the person's session down
                _log.error("rendering %s failed", diagram_id, exc_info=outcome)
                self._render_errors[diagram_id] = f"internal error: {outcome!r}"
            self._failed[diagram_id] = key
            for old in [k for k in self._cells if k[0] == diagram_id]:
                del self._cells[old]
            return True
        self._render_errors.pop(diagram_id, None)
        self._failed.pop(diagram_id, None)
        for old in [k for k in self._cells if k[0] == diagram_id]:
            del self._cells[old]
        self._cells[key] = DiagramCells(outcome, diagram_id, ast)
        return True

    def _drawing_of(self, diagram_id: str) -> DiagramCells | None:
        return next((c for k, c in self._cells.items() if k[0] == diagram_id), None)

    def layout_behind(self) -> int | None:
        """The rev of the drawing on screen while the active diagram's newest rev is laid
        out off the loop (None: the drawing is current, or none is shown)."""
        diagram = self.active
        if diagram is None or self.walk_open:
            return None
        key = (diagram.diagram_id, diagram.rev, self.show_notes, self._markers(diagram.diagram_id))
        wanted = self.layout_wanted is not None and self.layout_wanted.key == key
        if not (wanted or key in self._layout_running):
            return None
        return next((k[1] for k in self._cells if k[0] == diagram.diagram_id), None)

    def layout_pending(self) -> bool:
        """The active diagram's drawing is being made off the loop and none is shown yet."""
        diagram = self.active
        if diagram is None or self.walk_open:
            return False
        running = self.layout_wanted is not None or bool(self._layout_running)
        return (
            running
            and self._drawing_of(diagram.diagram_id) is None
            and diagram.diagram_id not in self._failed
        )

    def render_error(self) -> str | None:
        if self.walk_open:
            return self._render_errors.get(f"walkthrough {self.walk_id}")
        return self._render_errors.get(self.active_id or "")

    # ---- walkthrough view ------------------------------------------------------------------

    @property
    def walkthrough(self) -> Walkthrough | None:
        """The walkthrough shown while the walkthrough view is open."""
        return self.walkthroughs.get(self.walk_id) if self.walk_open and self.walk_id else None

    def walk_node(self) -> WalkthroughNode | None:
        """The node under the walkthrough cursor (the first node by default)."""
        walk = self.walkthrough
        if walk is None or not walk.nodes:
            return None
        wanted = self.walk_nodes.get(walk.walkthrough_id)
        return next((n for n in walk.nodes if n.node_id == wanted), walk.nodes[0])

    def walk_cells(self) -> DiagramCells | None:
        walk = self.walkthrough
        if walk is None:
            return None
        key = (walk.walkthrough_id, walk.rev)
        cached = self._walk_cells.get(key)
        if cached is not None:
            return cached
        name = f"walkthrough {walk.walkthrough_id}"
        try:
            rendered = render_walkthrough(walk, RenderOptions())
        except RenderError as err:
            self._render_errors[name] = str(err)
            return None
        except Exception as err:  # a renderer bug must not take the person's session down
            _log.exception("rendering %s failed", name)
            self._render_errors[name] = f"internal error: {err!r}"
            return None
        self._render_errors.pop(name, None)
        self._walk_cells = {key: DiagramCells(rendered, walk.walkthrough_id)}
        return self._walk_cells[key]

    def view_cells(self) -> DiagramCells | None:
        """What the Diagram pane shows: the walkthrough in walkthrough view, else the diagram."""
        return self.walk_cells() if self.walk_open else self.cells()

    def walk_cursor_ref(self) -> ObjectRef | None:
        node = self.walk_node()
        walk = self.walkthrough
        return None if node is None or walk is None else node_ref(walk.walkthrough_id, node.node_id)

    def open_walkthrough(self, walkthrough_id: str | None = None) -> None:
        """Show a walkthrough (the given one, the last shown, the session's active, the
        first) in the Diagram pane; the diagram's camera is kept for coming back."""
        ids = sorted(self.walkthroughs)
        if not ids:
            self.toast("No walkthroughs in this session")
            return
        wanted = (walkthrough_id, self.walk_id, self.active_walkthrough_id)
        candidate = next((w for w in wanted if w is not None and w in self.walkthroughs), ids[0])
        if not self.walk_open:
            self._diagram_camera = (self.pan_x, self.pan_y, self.centred)
            if Focus.INSPECTOR not in self.visible:
                self.visible.add(Focus.INSPECTOR)
                self.walk_opened_inspector = True
        self.hint = None
        self.walk_open = True
        self.focus = Focus.DIAGRAM
        self.recenter_pending = True
        self.walk_id = candidate
        ref = self.walk_cursor_ref()
        if ref is not None and self.walk_nodes.get(candidate):
            self.reveal_pending = ref

    def close_walkthrough(self) -> None:
        """Back to the diagram, where its camera was (unless a jump moved it since)."""
        if not self.walk_open:
            return
        self.walk_open = False
        if self.walk_opened_inspector:
            self.visible.discard(Focus.INSPECTOR)
            if self.focus is Focus.INSPECTOR:
                self.focus = Focus.DIAGRAM
            self.walk_opened_inspector = False
        if self._diagram_camera is not None:
            self.pan_x, self.pan_y, self.centred = self._diagram_camera
            self._diagram_camera = None
        self.recenter_pending = False

    def walk_move(self, delta: int | None, *, to_end: bool = False) -> None:
        walk = self.walkthrough
        node = self.walk_node()
        if walk is None or node is None:
            return
        ids = [n.node_id for n in walk.nodes]
        index = ids.index(node.node_id)
        index = (len(ids) - 1 if to_end else 0) if delta is None else index + delta
        index = max(0, min(len(ids) - 1, index))
        self.walk_nodes[walk.walkthrough_id] = ids[index]
        self.reveal_pending = node_ref(walk.walkthrough_id, ids[index])

    def walk_switch(self, step: int) -> None:
        ids = sorted(self.walkthroughs)
        if not ids:
            return
        index = ids.index(self.walk_id) if self.walk_id in ids else 0
        self.walk_id = ids[(index + step) % len(ids)]
        self.recenter_pending = True

    def walk_go(self) -> list[Effect]:
        """Jump to the cursor node's next ref (cycling) and show it in its diagram."""
        walk = self.walkthrough
        node = self.walk_node()
        if walk is None or node is None:
            return []
        refs = [r for r in node.refs if ref_exists(self.diagrams, r)]
        if not refs:
            missing = f" ({len(node.refs)} missing)" if node.refs else ""
            self.toast(f"Step {node.node_id} points at no object{missing}")
            return []
        key = (walk.walkthrough_id, node.node_id)
        index = self.walk_ref_index.get(key, 0) % len(refs)
        self.walk_ref_index[key] = index + 1
        target = refs[index]
        effects = self.jump(target)
        more = " (w g: next)" if len(refs) > 1 else ""
        self.toast(f"Step {node.node_id} {index + 1}/{len(refs)}: {target}{more}")
        return effects

    def _markers(self, diagram_id: str) -> frozenset[tuple[str, str]]:
        marks: dict[str, str] = {}
        for xref in self.xrefs.values():
            for ref, glyph in ((xref.from_ref, "▴"), (xref.to_ref, "▾")):
                if ref.diagram_id == diagram_id and ref.category not in (
                    FLOW_EDGE,
                    STATE_TRANSITION,
                ):
                    have = marks.get(ref.object_id, "")
                    if glyph not in have:
                        marks[ref.object_id] = "".join(sorted(have + glyph, reverse=True))
        return frozenset(marks.items())

    # ---- messages ------------------------------------------------------------------------

    def toast(self, text: str, *, error: bool = False, sticky: bool = False) -> None:
        """Show a message on the status line; sticky ones stay until dealt with (or Esc)."""
        self.messages.append(Message(text, error, self.clock(), sticky))
        del self.messages[:-LOG_SIZE]
        if sticky:
            self.sticky_error = text
        if self.on_message is not None:
            self.on_message()

    def save_problem(self) -> str | None:
        """The status line's `not saved: disk full` (+ how many items), None when saved."""
        if not self.save_errors:
            return None
        first = self.save_errors[min(self.save_errors)]
        reason = first.split(":", 1)[0] if ":" in first else first
        more = len(self.save_errors) - 1
        return f"not saved: {reason}" + (f" (+{more} more)" if more else "")

    def file_problem(self) -> str | None:
        """The status line's `diagrams/x.mmd:3: does not parse` (the shown diagram's first,
        else any; + how many more), None when every file parses."""
        if not self.file_problems:
            return None
        shown = self.active_id if self.active_id in self.file_problems else None
        problem = self.file_problems[shown or min(self.file_problems)]
        where = problem.file if problem.line is None else f"{problem.file}:{problem.line}"
        more = len(self.file_problems) - 1
        return f"{where}: does not parse" + (f" (+{more} more)" if more else "")

    def toast_expiry(self) -> float | None:
        """When the newest transient message stops showing (None: nothing to expire)."""
        if not self.messages or self.messages[-1].sticky:
            return None
        last = self.messages[-1]
        return last.at + TOAST_SECONDS * (3 if last.error else 1)

    def current_toast(self) -> Message | None:
        """The live transient message, else the sticky error, else None."""
        expiry = self.toast_expiry()
        if expiry is not None and self.clock() <= expiry:
            return self.messages[-1]
        if self.sticky_error is not None:
            return Message(self.sticky_error, True, 0.0, True)
        return None

    # ---- camera --------------------------------------------------------------------------

    def set_viewport(self, width: int, height: int) -> None:
        """Called by the Diagram pane with its interior size; applies pending camera moves.

        Recentring (tui.md §4.1.1) puts a small diagram in the middle of the pane and a large
        one at its top-left with a margin; while the person has not moved the camera since,
        a resize or a redrawn diagram of another size is recentred too."""
        self.viewport = (width, height)
        cells = self.view_cells()
        if cells is None or width <= 0 or height <= 0:
            return
        sizes = (width, height, cells.width, cells.height)
        if self.recenter_pending or (self.centred and sizes != self._centred_for):
            self.recenter_pending = False
            self.pan_x = min(int((cells.width - width) / 2), -1)
            self.pan_y = min(int((cells.height - height) / 2), -1)
            self.centred = True
            self._centred_for = sizes
        if self.reveal_pending is not None:
            ref, self.reveal_pending = self.reveal_pending, None
            before = (self.pan_x, self.pan_y)
            self._reveal(cells, ref)
            if (self.pan_x, self.pan_y) != before:
                self.centred = False
        self._clamp(cells)

    def _reveal(self, cells: DiagramCells, ref: ObjectRef) -> None:
        bounds = cells.bounds(ref)
        if bounds is None:
            return
        top, left, bottom, right = bounds
        width, height = self.viewport
        m = CAMERA_MARGIN
        if right - left + 2 * m >= width:
            self.pan_x = left - m
        elif left - m < self.pan_x:
            self.pan_x = left - m
        elif right + m >= self.pan_x + width:
            self.pan_x = right + m - width + 1
        if bottom - top + 2 * m >= height:
            self.pan_y = top - m
        elif top - m < self.pan_y:
            self.pan_y = top - m
        elif bottom + m >= self.pan_y + height:
            self.pan_y = bottom + m - height + 1

    def _clamp(self, cells: DiagramCells) -> None:
        width, height = self.viewport
        m = CAMERA_MARGIN
        for axis, size, view in (("x", cells.width, width), ("y", cells.height, height)):
            pan = self.pan_x if axis == "x" else self.pan_y
            # A diagram that fits may sit anywhere fully on screen; a larger one may scroll
            # until its edge is `m` cells inside the viewport.
            lo, hi = (size - view, 0) if size <= view else (-m, size + m - view)
            pan = max(lo, min(hi, pan))
            if axis == "x":
                self.pan_x = pan
            else:
                self.pan_y = pan

    def pan(self, dx: int, dy: int) -> None:
        """The person moves the camera (it stays where they put it from now on)."""
        self.pan_x += dx
        self.pan_y += dy
        self.centred = False
        cells = self.view_cells()
        if cells is not None and self.viewport[0] > 0:
            self._clamp(cells)

    # ---- session updates -----------------------------------------------------------------

    def apply(self, update: SessionUpdate) -> list[Effect]:
        """Adopt a change made by anyone (an agent, or our own request coming back)."""
        effects: list[Effect] = []
        match update:
            case DiagramUpdated(diagram=diagram):
                self.diagrams[diagram.diagram_id] = diagram
                if diagram.diagram_id == self.active_id:
                    self.hint = None  # its targets were placed on the old drawing
                if self.active_id is None:
                    self.active_id = diagram.diagram_id
                    self.recenter_pending = True
            case FileProblemChanged(diagram_id=diagram_id, problem=problem):
                if problem is None:
                    if self.file_problems.pop(diagram_id, None) is not None:
                        self.toast(f"Diagram {diagram_id}: its file parses again, taken in")
                elif self.file_problems.get(diagram_id) != problem:
                    self.file_problems[diagram_id] = problem
                    self.toast(
                        f"{problem} — diagram {diagram_id} keeps its last good state; "
                        "the file is left as it is",
                        error=True,
                    )
            case DiagramRemoved(diagram_id=diagram_id):
                self.file_problems.pop(diagram_id, None)
                self.diagrams.pop(diagram_id, None)
                self.cursors.pop(diagram_id, None)
                if self.active_id == diagram_id:
                    ids = self.diagram_ids
                    self.active_id = ids[0] if ids else None
                    self.recenter_pending = True
                    self.toast(f"Diagram {diagram_id} was deleted")
            case XRefsChanged(xrefs=xrefs):
                self.xrefs = dict(xrefs)
            case SelectionChanged(selection=selection):
                self.selection = selection
            case ActiveDiagramChanged(diagram_id=diagram_id):
                if diagram_id in self._own_switches:
                    self._own_switches.remove(diagram_id)  # our own request coming back
                elif diagram_id is not None and diagram_id != self.active_id:
                    # Not undone, not followed: the person's view stays (tui.md §16.5).
                    self.toast(f"Another client opened {diagram_id}")
            case AttentionChanged(spotlights=spotlights, follow_ai=follow_ai):
                if follow_ai != self.follow_ai:
                    self.follow_ai = follow_ai
                    self.toast("Follow AI enabled" if follow_ai else "Follow AI disabled")
                self.spotlights = spotlights
                effects += self.follow()
            case WalkthroughUpdated(walkthrough=walkthrough):
                self.walkthroughs[walkthrough.walkthrough_id] = walkthrough
            case WalkthroughRemoved(walkthrough_id=walkthrough_id):
                self.walkthroughs.pop(walkthrough_id, None)
                if self.active_walkthrough_id == walkthrough_id:
                    self.active_walkthrough_id = None
                if self.walk_id == walkthrough_id:
                    self.walk_id = None
                    if self.walk_open:
                        self.close_walkthrough()
                        self.toast(f"Walkthrough {walkthrough_id} was deleted")
            case ActiveWalkthroughChanged(walkthrough_id=walkthrough_id):
                self.active_walkthrough_id = walkthrough_id
            case SaveStateChanged(errors=errors):
                if self.save_errors and not errors:
                    self.toast("Saved again: the session folder is up to date")
                self.save_errors = dict(errors)
            case Resynced(state=state):
                self.save_errors = dict(state.save_errors)
                self.file_problems = dict(state.file_problems)
                self.walkthroughs = dict(state.walkthroughs)
                self.active_walkthrough_id = state.active_walkthrough_id
                if self.walk_id not in self.walkthroughs:
                    self.walk_id = None
                    self.close_walkthrough()
                self.diagrams = dict(state.diagrams)
                self.xrefs = dict(state.xrefs)
                self.selection = state.selection
                self.spotlights = state.spotlights
                self.follow_ai = state.follow_ai
                if self.active_id not in self.diagrams:
                    ids = self.diagram_ids
                    self.active_id = ids[0] if ids else None
                    self.recenter_pending = True
                effects += self.follow()
        return effects

    def follow(self, *, force: bool = False) -> list[Effect]:
        """Edge-triggered follow-AI (tui.md §16.6): jump when a newer spotlight is set.

        Newer means a larger `seq` than the last one followed, so a cleared spotlight never
        pulls the camera back to an older one. While the person's navigation pauses
        following, the newest spotlight waits; `follow_resume_at` says when it is due."""
        latest = self.latest_spotlight()
        if latest is None or not self.follow_ai:
            return []
        if not force:
            if latest.seq <= (self.last_followed_seq or 0):
                return []
            if self.clock() < self.follow_paused_until:
                return []
        if not ref_exists(self.diagrams, latest.ref):
            return []
        self.last_followed_seq = latest.seq
        self.cursor_by_agent = True
        self.close_walkthrough()
        self.toast(f"Following {latest.title}")
        return self.jump(latest.ref, by_agent=True)

    # ---- navigation ----------------------------------------------------------------------

    def switch_diagram(self, diagram_id: str) -> list[Effect]:
        if diagram_id not in self.diagrams:
            return []
        self.hint = None
        changed = diagram_id != self.active_id
        self.active_id = diagram_id
        if changed:
            self.recenter_pending = True
            self.xref_cursor = 0
            self.objects_scroll = 0
        effects: list[Effect] = []
        if changed:
            self._own_switches.append(diagram_id)
            del self._own_switches[:-16]
            effects.append(SetActiveDiagram(diagram_id))
        return effects

    def jump(self, ref: ObjectRef, *, by_agent: bool = False) -> list[Effect]:
        """Move the cursor to `ref` (switching diagram if needed) and bring it into view."""
        if ref.diagram_id not in self.diagrams:
            return []
        self.close_walkthrough()  # going to an object means looking at its diagram
        effects = self.switch_diagram(ref.diagram_id)
        if ref.category not in SELECTABLE:
            return effects
        if self.objects_selected_only and ref not in self.selection:
            self.objects_selected_only = False
        self.cursors[ref.diagram_id] = ref
        self.reveal_pending = ref
        if not by_agent:
            self.cursor_by_agent = False
            effects.append(self.human_report())
        return effects

    def human_report(self) -> ReportHuman:
        return ReportHuman(self.active_id, self.cursor)

    def view_report(self) -> ReportView:
        cells = self.view_cells()
        panes = tuple(p.value for p in PANE_ORDER if p in self.visible)
        mode = self.search
        search = None if mode is None else ("fuzzy" if mode.fuzzy else "regex")
        hint = None if self.hint is None else ("chain" if self.hint.chain else "jump")
        walk = self.walkthrough
        node = self.walk_node()
        return ReportView(
            ViewReport(
                active_diagram_id=self.active_id,
                cursor=self.cursor,
                search_query=mode.query if mode else "",
                search_editing=mode.editing if mode else False,
                search_results=len(mode.results) if mode else 0,
                search_index=mode.index if mode and mode.results else None,
                help_open=self.help_open,
                mouse=self.mouse,
                follow_paused=self.follow_paused(),
                walkthrough_id=walk.walkthrough_id if walk else None,
                walkthrough_node_id=node.node_id if node else None,
                pan_x=self.pan_x,
                pan_y=self.pan_y,
                viewport_width=self.viewport[0],
                viewport_height=self.viewport[1],
                diagram_width=cells.width if cells else 0,
                diagram_height=cells.height if cells else 0,
                panes=panes,
                focus=self.focus.value,
                focus_owner="agent" if self.cursor_by_agent else "human",
                search_mode=search,
                hint_mode=hint,
                show_notes=self.show_notes,
                mcp_url=self.mcp_url,
            )
        )

    def move_cursor(self, delta: int | None, *, to_end: bool = False) -> list[Effect]:
        items = self.objects()
        if not items:
            return []
        refs = [item.ref for item in items]
        cur = self.cursor
        index = refs.index(cur) if cur in refs else 0
        if delta is None:
            index = len(refs) - 1 if to_end else 0
        else:
            index = max(0, min(len(refs) - 1, index + delta))
        return self.jump(refs[index])

    # ---- selection -----------------------------------------------------------------------

    def set_selection(self, refs: list[ObjectRef]) -> list[Effect]:
        ordered = tuple(sorted(set(refs), key=lambda r: r.sort_key()))
        self.selection = ordered
        return [SetSelection(ordered)]

    def toggle_select(self) -> list[Effect]:
        cur = self.cursor
        if cur is None:
            self.toast("No object selected")
            return []
        if cur in self.selection:
            self.toast(f"Deselected {cur}")
            return self.set_selection([r for r in self.selection if r != cur])
        self.toast(f"Selected {cur}")
        return self.set_selection([*self.selection, cur])

    def deselect_diagram(self) -> list[Effect]:
        kept = [r for r in self.selection if r.diagram_id != self.active_id]
        removed = len(self.selection) - len(kept)
        if removed == 0:
            self.toast("No selected objects in current diagram")
            return []
        self.toast(f"Deselected {removed} object(s) in {self.active_id}")
        return self.set_selection(kept)

    def chain_pick(self, ref: ObjectRef, previous: ObjectRef | None) -> list[Effect]:
        picks = [ref]
        connector = None
        diagram = self.diagrams.get(ref.diagram_id)
        if (
            diagram is not None
            and previous is not None
            and previous != ref
            and previous.diagram_id == ref.diagram_id
            and previous.category == ref.category
        ):
            connector = _connector(diagram, previous, ref)
        if connector is not None:
            picks.append(connector)
        effects = self.set_selection([*self.selection, *picks])
        effects += self.jump(ref)
        self.toast(f"Selected {ref}" + (f" + {connector}" if connector else ""))
        return effects

    # ---- keys ----------------------------------------------------------------------------

    def handle_key(self, key: str) -> list[Effect]:
        """Dispatch one key (tui.md §5 with §16.7's fixes); returns the effects to send."""
        return handle_key(self, key)

    # ---- editor --------------------------------------------------------------------------

    def edit_applied(self, diagram: Diagram, old_rev: int) -> None:
        self.forget_edit(diagram.diagram_id)
        self.sticky_error = None
        self.diagrams[diagram.diagram_id] = diagram
        self.toast(f"Edited {diagram.diagram_id} (rev {old_rev}->{diagram.rev})")

    def forget_edit(self, diagram_id: str) -> None:
        """Drop the kept text of an edit (applied or given up)."""
        self.pending_edit.pop(diagram_id, None)
        self.pending_reason.pop(diagram_id, None)
        self.pending_base.pop(diagram_id, None)
        self.pending_conflict.discard(diagram_id)

    def edit_failed(
        self,
        diagram_id: str,
        text: str,
        message: str,
        *,
        reason: str | None = None,
        base: Diagram | None = None,
        conflict: bool = False,
    ) -> None:
        """Keep `text` for the next `e`, made from revision `base`; `conflict`: `message`
        reports merge conflicts (the status line shows its first line)."""
        self.pending_edit[diagram_id] = text
        self.pending_reason[diagram_id] = reason if reason is not None else message
        if base is not None:
            self.pending_base[diagram_id] = base
        if conflict:
            self.pending_conflict.add(diagram_id)
            message = message.splitlines()[0]
        else:
            self.pending_conflict.discard(diagram_id)
        self.toast(
            f"Edit of {diagram_id} not applied: {message} (press e to fix)", error=True, sticky=True
        )


def _connector(diagram: Diagram, previous: ObjectRef, current: ObjectRef) -> ObjectRef | None:
    """The edge/message joining two chain picks (tui.md §8.4)."""
    ast = diagram.ast
    did = diagram.diagram_id
    a, b = current.object_id, previous.object_id
    if isinstance(ast, FlowchartAst) and current.category == FLOW_NODE:
        for src, dst in ((a, b), (b, a)):
            for edge_id in sorted(ast.edges):
                edge = ast.edges[edge_id]
                if edge.from_node_id == src and edge.to_node_id == dst:
                    return ObjectRef(diagram_id=did, category=FLOW_EDGE, object_id=edge_id)
        return None
    if isinstance(ast, StateAst) and current.category == STATE_STATE:
        for src, dst in ((a, b), (b, a)):
            for transition_id, transition in ast.transitions.items():
                if transition.from_state_id == src and transition.to_state_id == dst:
                    return ObjectRef(
                        diagram_id=did, category=STATE_TRANSITION, object_id=transition_id
                    )
        return None
    if isinstance(ast, SequenceAst) and current.category == SEQ_PARTICIPANT:
        for src, dst in ((a, b), (b, a)):
            for message in reversed(ast.messages):
                if message.from_participant_id == src and message.to_participant_id == dst:
                    return ObjectRef(
                        diagram_id=did, category=SEQ_MESSAGE, object_id=message.message_id
                    )
    return None


def _marked(marker: str, text: str) -> str:
    """`text` with `marker` in front; inside the backticks of a markdown string, so the
    label still reads as one."""
    if is_markdown(text):
        return f"`{marker} {text[1:]}"
    return f"{marker} {text}"


def _with_markers(diagram: Diagram, markers: dict[str, str]) -> Diagram:
    """A copy whose labels carry the xref direction markers (tui.md §4.1.2)."""
    if not markers:
        return diagram
    ast = diagram.ast
    if isinstance(ast, FlowchartAst):
        nodes = {
            nid: msgspec.structs.replace(node, label=_marked(markers[nid], node.label))
            if nid in markers
            else node
            for nid, node in ast.nodes.items()
        }
        return msgspec.structs.replace(diagram, ast=msgspec.structs.replace(ast, nodes=nodes))
    if isinstance(ast, StateAst):
        states = {
            sid: msgspec.structs.replace(
                state,
                label=f"{markers[sid]} {state_display_label(sid, state)}",
                descriptions=state.descriptions[1:] if state.label is None else state.descriptions,
            )
            if sid in markers and state.kind == "state"
            else state
            for sid, state in ast.states.items()
        }
        return msgspec.structs.replace(diagram, ast=msgspec.structs.replace(ast, states=states))
    participants = {}
    for pid, part in ast.participants.items():
        if pid in markers:
            if part.alias is not None:
                part = msgspec.structs.replace(part, alias=_marked(markers[pid], part.alias))
            else:
                part = msgspec.structs.replace(
                    part, mermaid_name=f"{markers[pid]} {part.mermaid_name}"
                )
        participants[pid] = part
    messages = tuple(
        msgspec.structs.replace(m, text=_marked(markers[m.message_id], m.text))
        if m.message_id in markers
        else m
        for m in ast.messages
    )
    return msgspec.structs.replace(
        diagram, ast=msgspec.structs.replace(ast, participants=participants, messages=messages)
    )


def _agent_order(agent_id: str) -> tuple[str, int, str]:
    """Sort key for agent ids: `agent:<n>` by number, anything else after, by text."""
    prefix, _, number = agent_id.rpartition(":")
    if prefix and number.isdigit():
        return (prefix, int(number), "")
    return ("\uffff", 0, agent_id)
