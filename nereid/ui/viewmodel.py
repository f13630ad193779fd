"""The TUI's view model: the parts the screen is painted from, and what changes several of
them at once (keys → `nereid.ui.dispatch`, session updates → `apply`).

Synchronous and actor-free: its methods change the parts and return `Effect`s for the app
task to send. Each part owns its state and changes it only through its own methods:

| part | holds |
|---|---|
| `session` (`SessionMirror`) | diagrams, xrefs, selection, spotlights, walkthroughs, save/file problems |
| `cursors` (`Cursors`) | active diagram, cursor per diagram, who moved it |
| `following` (`Following`) | follow-AI on/off, the person's pause, the last spotlight followed |
| `camera` (`Camera`) | pan, viewport, pending recentre / reveal |
| `panes` (`Panes`) | visible panes, focus, filters, list cursors, scroll offsets, notes, mouse |
| `walk` (`WalkthroughView`) | the walkthrough view: shown walkthrough, step cursors |
| `drawings` (`Drawings`) | the diagrams' drawings, in-process or off the loop |
| `modes` (`InputModes`) | the active search and hint mode |
| `toasts` (`Toasts`) | status-line messages and the message log |
| `edits` (`KeptEdits`) | `$EDITOR` texts kept after a refusal |

Widgets read the parts to paint; they never change the session. Someone else's change never
moves the person's pan or cursor (decision 12) unless follow-AI is on and an agent's
spotlight moved.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from nereid.actors import protocol as p
from nereid.actors.persister import SaveStatusChanged
from nereid.model.diagram import Ast, Diagram
from nereid.model.file_problem import FileProblem
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
from nereid.model.walkthrough import Walkthrough, WalkthroughNode
from nereid.render import Rendered
from nereid.ui.camera import Camera
from nereid.ui.cursors import Cursors
from nereid.ui.drawings import CellsKey, Drawings, LayoutJob
from nereid.ui.effects import Effect
from nereid.ui.following import Following
from nereid.ui.highlight import DiagramCells, warm_rows
from nereid.ui.kept_edits import KeptEdits
from nereid.ui.mirror import SessionMirror, spotlight_title
from nereid.ui.modes import Focus, InputModes, SearchJob
from nereid.ui.objects import SELECTABLE, ObjectItem, XRefItem
from nereid.ui.pane_state import Panes
from nereid.ui.search import SearchResult
from nereid.ui.session_state import SessionState, SessionUpdate
from nereid.ui.toasts import Toasts
from nereid.ui.walkview import WalkthroughView

_T = TypeVar("_T")

__all__ = ["ViewModel"]


class ViewModel:
    """The view's parts, and the operations that change several of them at once."""

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
        self.session = SessionMirror(state)
        ids = self.session.diagram_ids
        active = state.session.active_diagram_id
        self.cursors = Cursors(
            active if active in self.session.diagrams else (ids[0] if ids else None)
        )
        self.following = Following(clock, enabled=state.attention.ui.follow_ai)
        self.camera = Camera()
        self.panes = Panes(mouse=mouse)
        self.walk = WalkthroughView(self.session)
        self.drawings = Drawings()
        self.modes = InputModes()
        self.toasts = Toasts(clock)
        self.edits = KeptEdits()
        human = state.attention.ui.human_object_ref
        if human is not None and self.session.ref_exists(human):
            self.cursors.activate(human.diagram_id)
            self.cursors.place(human)
        if self.mcp_url:
            self.toast(f"MCP {self.mcp_url}")

    # ---- derived views -------------------------------------------------------------------

    @property
    def active_id(self) -> str | None:
        """The diagram the Diagram pane shows (under the walkthrough view, too)."""
        return self.cursors.active_id

    @property
    def active(self) -> Diagram | None:
        active_id = self.cursors.active_id
        return self.session.diagrams.get(active_id) if active_id else None

    def objects(self) -> list[ObjectItem]:
        """The Objects list of the active diagram, with the selected-only filter applied."""
        diagram = self.active
        if diagram is None:
            return []
        items = self.session.objects(diagram)
        if self.panes.objects_selected_only:
            chosen = set(self.session.selection)
            items = [item for item in items if item.ref in chosen]
        return items

    @property
    def cursor(self) -> ObjectRef | None:
        """The person's focused object in the active diagram (tui.md §1 'cursor object')."""
        active_id = self.cursors.active_id
        if active_id is None:
            return None
        ref = self.cursors.get(active_id)
        if ref is not None and self.session.ref_exists(ref):
            return ref
        return self.session.first_object(self.objects())

    def xref_rows(self) -> list[XRefItem]:
        """The XRefs list with its filters applied."""
        rows = self.session.xref_items()
        if self.panes.xrefs_dangling_only:
            rows = [row for row in rows if row.status != "ok"]
        if self.panes.xrefs_involving:
            cur = self.cursor
            rows = [r for r in rows if cur is not None and cur in (r.xref.from_ref, r.xref.to_ref)]
        return rows

    def follow_resume_at(self) -> float | None:
        """When a spotlight set during the person's pause should be followed (None: none)."""
        return self.following.resume_at(self.session.latest_spotlight())

    def file_problem(self) -> str | None:
        """The status line's file problem, the shown diagram's first."""
        return self.session.file_problem(self.cursors.active_id)

    # ---- drawings ------------------------------------------------------------------------

    def cells(self) -> DiagramCells | None:
        """The active diagram's drawing (see `Drawings.cells`)."""
        diagram = self.active
        if diagram is None:
            return None
        return self.drawings.cells(
            diagram,
            show_notes=self.panes.show_notes,
            markers=self.session.markers(diagram.diagram_id),
        )

    def warm_steps(self, cells: DiagramCells) -> Iterator[None]:
        """Style the rows of `cells` (a drawing of the active diagram about to be shown)
        that the Diagram pane shows at its pan and size, in steps (`warm_rows`)."""
        width, height = self.camera.viewport
        if self.walk.is_open or cells.diagram_id != self.active_id or width <= 0:
            return iter(())
        pan_y = self.camera.pan_y
        dim = any(ref.diagram_id == self.active_id for ref in self.session.selection)
        return warm_rows(cells, range(pan_y, pan_y + height), self.camera.pan_x, width, dim)

    def prepare_cells(self) -> None:
        """Work out ahead what the active diagram's drawing is made from (`Drawings.prepare`)."""
        diagram = self.active
        if diagram is not None and not self.walk.is_open:
            self.drawings.prepare(
                diagram,
                show_notes=self.panes.show_notes,
                markers=self.session.markers(diagram.diagram_id),
            )

    def view_cells(self) -> DiagramCells | None:
        """What the Diagram pane shows: the walkthrough in walkthrough view, else the diagram."""
        return self.walk.cells() if self.walk.is_open else self.cells()

    def take_layout(self) -> LayoutJob | None:
        """The newest drawing wanted off the loop, for the app (None: none)."""
        return self.drawings.take_layout()

    def layout_done(
        self, key: CellsKey, outcome: Rendered | DiagramCells | BaseException, ast: Ast
    ) -> bool:
        """A drawing made off the loop arrived; whether it was kept (see `Drawings`)."""
        return self.drawings.layout_done(key, outcome, ast, self.session.diagrams.get(key[0]))

    def layout_behind(self) -> int | None:
        """The rev of the drawing on screen while the active diagram's newest rev is laid
        out off the loop (None: the drawing is current, or none is shown)."""
        return self._ask_drawings(self.drawings.behind)

    def layout_provisional(self) -> bool:
        """The active diagram's drawing is a provisional label patch while its layout is
        made off the loop (`Drawings.provisional`)."""
        return bool(self._ask_drawings(self.drawings.provisional))

    def _ask_drawings(self, ask: Callable[..., _T]) -> _T | None:
        """`ask` about the active diagram's drawing as the Diagram pane shows it (None with
        no diagram shown, or a walkthrough open)."""
        diagram = self.active
        if diagram is None or self.walk.is_open:
            return None
        return ask(
            diagram,
            show_notes=self.panes.show_notes,
            markers=self.session.markers(diagram.diagram_id),
        )

    def layout_pending(self) -> bool:
        """The active diagram's drawing is being made off the loop and none is shown yet."""
        diagram = self.active
        if diagram is None or self.walk.is_open:
            return False
        return self.drawings.pending(diagram)

    def render_error(self) -> str | None:
        if self.walk.is_open:
            return self.walk.error()
        return self.drawings.error(self.cursors.active_id or "")

    # ---- messages ------------------------------------------------------------------------

    def toast(self, text: str, *, error: bool = False, sticky: bool = False) -> None:
        """Show a message on the status line (see `Toasts.show`)."""
        self.toasts.show(text, error=error, sticky=sticky)

    # ---- camera --------------------------------------------------------------------------

    def set_viewport(self, width: int, height: int) -> None:
        """Called by the Diagram pane with its interior size; applies pending camera moves."""
        self.camera.fit(width, height, self.view_cells())

    def pan(self, dx: int, dy: int) -> None:
        """The person moves the camera (it stays where they put it from now on)."""
        self.camera.pan(dx, dy, self.view_cells())

    # ---- walkthrough view ----------------------------------------------------------------

    @property
    def walkthrough(self) -> Walkthrough | None:
        """The walkthrough shown while the walkthrough view is open."""
        return self.walk.walkthrough

    def walk_node(self) -> WalkthroughNode | None:
        return self.walk.node()

    def open_walkthrough(self, walkthrough_id: str | None = None) -> None:
        """Show a walkthrough (the given one, the last shown, the session's active, the
        first) in the Diagram pane; the diagram's camera is kept for coming back."""
        candidate = self.walk.candidate(walkthrough_id)
        if candidate is None:
            self.toast("No walkthroughs in this session")
            return
        opened = False if self.walk.is_open else self.panes.show(Focus.INSPECTOR)
        self.walk.open(candidate, camera=self.camera.save(), opened_inspector=opened)
        self.modes.cancel_hints()
        self.panes.focus_on(Focus.DIAGRAM)
        self.camera.recenter()
        ref = self.walk.cursor_ref()
        if ref is not None and self.walk.has_cursor(candidate):
            self.camera.reveal(ref)

    def close_walkthrough(self) -> None:
        """Back to the diagram, where its camera was (unless a jump moved it since)."""
        closed = self.walk.close()
        if closed is None:
            return
        if closed.opened_inspector:
            self.panes.hide(Focus.INSPECTOR)
        if closed.camera is not None:
            self.camera.restore(closed.camera)
        self.camera.keep()

    def walk_move(self, delta: int | None, *, to_end: bool = False) -> None:
        ref = self.walk.move(delta, to_end=to_end)
        if ref is not None:
            self.camera.reveal(ref)

    def walk_switch(self, step: int) -> None:
        if self.walk.switch(step):
            self.camera.recenter()

    def walk_go(self) -> list[Effect]:
        """Jump to the cursor node's next ref (cycling) and show it in its diagram."""
        walk = self.walk.walkthrough
        node = self.walk.node()
        if walk is None or node is None:
            return []
        refs = [r for r in node.refs if self.session.ref_exists(r)]
        if not refs:
            missing = f" ({len(node.refs)} missing)" if node.refs else ""
            self.toast(f"Step {node.node_id} points at no object{missing}")
            return []
        index = self.walk.next_ref(walk.walkthrough_id, node.node_id, len(refs))
        target = refs[index]
        effects = self.jump(target)
        more = " (w g: next)" if len(refs) > 1 else ""
        self.toast(f"Step {node.node_id} {index + 1}/{len(refs)}: {target}{more}")
        return effects

    # ---- session updates -----------------------------------------------------------------

    def apply(self, update: SessionUpdate) -> list[Effect]:  # noqa: C901 - one flat match
        """Adopt a change made by anyone (an agent, or our own request coming back): the
        actors' event, which carries the committed value it announces."""
        effects: list[Effect] = []
        session = self.session
        match update:
            case p.DiagramCreated(diagram=diagram, file_problem=problem):
                self._diagram_updated(diagram)
                if problem is not None:
                    self._file_problem(diagram.diagram_id, problem)
            case p.DiagramChanged(diagram=diagram):
                self._diagram_updated(diagram)
            case p.DiagramFileProblem(diagram_id=diagram_id, problem=problem):
                self._file_problem(diagram_id, problem)
            case p.DiagramDeleted(diagram_id=diagram_id):
                session.remove_diagram(diagram_id)
                self.cursors.forget(diagram_id)
                self.drawings.forget(diagram_id)  # one made again starts at rev 0
                if self.active_id == diagram_id:
                    ids = session.diagram_ids
                    self.cursors.activate(ids[0] if ids else None)
                    self.camera.recenter()
                    self.toast(f"Diagram {diagram_id} was deleted")
            case p.XrefsChanged(xrefs=xrefs):
                session.set_xrefs(xrefs)
            case p.SelectionChanged(object_refs=selection):
                session.set_selection(selection)
            case p.ActiveChanged(
                active_diagram_id=diagram_id, active_walkthrough_id=walkthrough_id
            ):
                if self.cursors.own_echo(diagram_id):
                    pass  # our own request coming back
                elif diagram_id is not None and diagram_id != self.active_id:
                    # Not undone, not followed: the person's view stays (tui.md §16.5).
                    self.toast(f"Another client opened {diagram_id}")
                session.set_active_walkthrough(walkthrough_id)
            case p.AttentionChanged(part="spotlight" | "follow_ai", attention=attention):
                follow_ai = attention.ui.follow_ai
                if self.following.set_enabled(follow_ai):
                    self.toast("Follow AI enabled" if follow_ai else "Follow AI disabled")
                session.set_spotlights(attention.spotlights)
                effects += self.follow()
            case p.AttentionChanged():
                pass  # the person's own reports coming back
            case (
                p.WalkthroughCreated(walkthrough=walkthrough)
                | p.WalkthroughChanged(walkthrough=walkthrough)
            ):
                session.put_walkthrough(walkthrough)
            case p.WalkthroughDeleted(walkthrough_id=walkthrough_id):
                session.remove_walkthrough(walkthrough_id)
                was_open = self.walk.is_open
                if self.walk.forget(walkthrough_id) and was_open:
                    self.close_walkthrough()
                    self.toast(f"Walkthrough {walkthrough_id} was deleted")
            case SaveStatusChanged(errors=errors):
                if session.set_save_errors(errors):
                    self.toast("Saved again: the session folder is up to date")
        return effects

    def resync(self, state: SessionState) -> list[Effect]:
        """Adopt a whole snapshot read afresh after the TUI fell behind the events."""
        session = self.session
        for gone in set(session.diagrams) - set(state.session.diagrams):
            self.drawings.forget(gone)
        session.replace(state)
        if self.walk.forget_missing():
            self.close_walkthrough()
        self.following.set_enabled(state.attention.ui.follow_ai)
        if self.active_id not in session.diagrams:
            ids = session.diagram_ids
            self.cursors.activate(ids[0] if ids else None)
            self.camera.recenter()
        return self.follow()

    def _diagram_updated(self, diagram: Diagram) -> None:
        self.session.put_diagram(diagram)
        if diagram.diagram_id == self.active_id:
            self.modes.cancel_hints()  # its targets were placed on the old drawing
        if self.active_id is None:
            self.cursors.activate(diagram.diagram_id)
            self.camera.recenter()

    def _file_problem(self, diagram_id: str, problem: FileProblem | None) -> None:
        if not self.session.set_file_problem(diagram_id, problem):
            return
        if problem is None:
            self.toast(f"Diagram {diagram_id}: its file parses again, taken in")
        else:
            self.toast(
                f"{problem} — diagram {diagram_id} keeps its last good state; "
                "the file is left as it is",
                error=True,
            )

    def follow(self, *, force: bool = False) -> list[Effect]:
        """Edge-triggered follow-AI (tui.md §16.6): jump when a newer spotlight is set
        (see `Following`)."""
        latest = self.session.latest_spotlight()
        if latest is None or not self.following.wants(latest, force=force):
            return []
        ref = latest.object_ref
        if ref is None or not self.session.ref_exists(ref):
            return []
        self.following.followed(latest)
        self.cursors.owned_by(agent=True)
        self.close_walkthrough()
        self.toast(f"Following {spotlight_title(latest)}")
        return self.jump(ref, by_agent=True)

    def navigated(self) -> None:
        """The person navigated: follow-AI pauses and the cursor is theirs."""
        self.following.pause()
        self.cursors.owned_by(agent=False)

    def toggle_follow_ai(self) -> list[Effect]:
        """`a`: follow-AI on (jumping to the newest spotlight right away) or off."""
        enabled = self.following.toggle()
        self.toast("Follow AI enabled" if enabled else "Follow AI disabled")
        effects: list[Effect] = [p.SetFollowAi(enabled=enabled)]
        if enabled:
            effects += self.follow(force=True)
        return effects

    # ---- navigation ----------------------------------------------------------------------

    def switch_diagram(self, diagram_id: str) -> list[Effect]:
        if diagram_id not in self.session.diagrams:
            return []
        self.modes.cancel_hints()
        if not self.cursors.activate(diagram_id):
            return []
        self.camera.recenter()
        self.panes.new_diagram()
        self.cursors.requested(diagram_id)
        return [p.OpenDiagram(diagram_id=diagram_id)]

    def jump(self, ref: ObjectRef, *, by_agent: bool = False) -> list[Effect]:
        """Move the cursor to `ref` (switching diagram if needed) and bring it into view."""
        if ref.diagram_id not in self.session.diagrams:
            return []
        self.close_walkthrough()  # going to an object means looking at its diagram
        effects = self.switch_diagram(ref.diagram_id)
        if ref.category not in SELECTABLE:
            return effects
        if self.panes.objects_selected_only and ref not in self.session.selection:
            self.panes.show_all_objects()
        self.cursors.place(ref)
        self.camera.reveal(ref)
        if not by_agent:
            self.cursors.owned_by(agent=False)
            effects.append(self.human_report())
        return effects

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

    def searched(self, job: SearchJob, result: SearchResult) -> list[Effect]:
        """A regex search run off the loop answered: show its results and jump to the
        first, unless the person has typed on (or closed the search) since. After an
        early `Enter`, fewer than two results end the search (as `Enter` does); an error
        stays on the search line."""
        mode = self.modes.search
        if not self.modes.searched(job, result) or mode is None:
            return []
        first = mode.results[0] if mode.results else None
        if not mode.editing and mode.error is None and len(mode.results) < 2:
            self.modes.close_search()  # Enter came first: nothing to cycle through
        return self.jump(first) if first is not None else []

    def open_help(self, *, at_end: bool = False) -> None:
        """The help overlay (or, `at_end`, its message log); it ends search and hints."""
        self.panes.open_help(at_end=at_end)
        self.modes.close_search()
        self.modes.cancel_hints()

    # ---- reports -------------------------------------------------------------------------

    def human_report(self) -> p.ReportHumanAttention:
        """What the person looks at, for `attention.human.read`."""
        return p.ReportHumanAttention(diagram_id=self.active_id, object_ref=self.cursor)

    def view_report(self) -> p.ReportView:
        """What the person sees, for `view.read_state` (tui.md §16.3, decision 11)."""
        cells = self.view_cells()
        panes = self.panes
        mode = self.modes.search
        hint = self.modes.hint
        walk = self.walk.walkthrough
        node = self.walk.node()
        width, height = self.camera.viewport
        shown = panes.shown()
        search = None
        if mode is not None:
            search = p.SearchDetails(
                mode="fuzzy" if mode.fuzzy else "regex",
                query=mode.query,
                editing=mode.editing,
                results=len(mode.results),
                index=mode.index if mode.results else None,
            )
        view = p.ViewDetails(
            diagram_id=self.active_id,
            cursor_ref=self.cursor,
            viewport=p.Size(width=width, height=height),
            diagram_size=p.Size(width=cells.width, height=cells.height) if cells else p.Size(),
            focus=panes.focus.value,
            focus_owner="agent" if self.cursors.by_agent else "human",
            search=search,
            hint_mode=None if hint is None else ("chain" if hint.chain else "jump"),
            show_notes=panes.show_notes,
            help_open=panes.help_open,
            mouse=panes.mouse,
            follow_paused=self.following.paused(),
            walkthrough=None
            if walk is None
            else p.WalkthroughView(
                walkthrough_id=walk.walkthrough_id, node_id=node.node_id if node else None
            ),
            mcp_url=self.mcp_url,
        )
        return p.ReportView(
            scroll_x=float(self.camera.pan_x),
            scroll_y=float(self.camera.pan_y),
            panes={name: name in shown for name in _PANES},
            view=view,
        )

    # ---- selection -----------------------------------------------------------------------

    def set_selection(self, refs: list[ObjectRef]) -> list[Effect]:
        """Change the selection (optimistically here; the session's echo confirms it)."""
        ordered = tuple(sorted(set(refs), key=lambda r: r.sort_key()))
        self.session.set_selection(ordered)
        return [p.UpdateSelection(object_refs=ordered)]

    def toggle_select(self) -> list[Effect]:
        cur = self.cursor
        selection = self.session.selection
        if cur is None:
            self.toast("No object selected")
            return []
        if cur in selection:
            self.toast(f"Deselected {cur}")
            return self.set_selection([r for r in selection if r != cur])
        self.toast(f"Selected {cur}")
        return self.set_selection([*selection, cur])

    def deselect_diagram(self) -> list[Effect]:
        selection = self.session.selection
        kept = [r for r in selection if r.diagram_id != self.active_id]
        removed = len(selection) - len(kept)
        if removed == 0:
            self.toast("No selected objects in current diagram")
            return []
        self.toast(f"Deselected {removed} object(s) in {self.active_id}")
        return self.set_selection(kept)

    def clear_selection(self) -> list[Effect]:
        selection = self.session.selection
        if not selection:
            self.toast("Nothing is selected")
            return []
        self.toast(f"Deselected all {len(selection)} object(s)")
        return self.set_selection([])

    def chain_pick(self, ref: ObjectRef, previous: ObjectRef | None) -> list[Effect]:
        picks = [ref]
        connector = None
        diagram = self.session.diagrams.get(ref.diagram_id)
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
        effects = self.set_selection([*self.session.selection, *picks])
        effects += self.jump(ref)
        self.toast(f"Selected {ref}" + (f" + {connector}" if connector else ""))
        return effects

    # ---- editor --------------------------------------------------------------------------

    def edit_applied(self, diagram: Diagram, old_rev: int) -> None:
        self.edits.forget(diagram.diagram_id)
        self.toasts.dismiss_sticky()
        self.session.put_diagram(diagram)
        self.toast(f"Edited {diagram.diagram_id} (rev {old_rev}->{diagram.rev})")

    def edit_settled(self, diagram_id: str, message: str) -> None:
        """The edit needs nothing more (given up, or applied by someone else's text)."""
        self.edits.forget(diagram_id)
        self.toasts.dismiss_sticky()
        self.toast(message)

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
        self.edits.keep(
            diagram_id,
            text,
            reason if reason is not None else message,
            base=base,
            conflict=conflict,
        )
        if conflict:
            message = message.splitlines()[0]
        self.toast(
            f"Edit of {diagram_id} not applied: {message} (press e to fix)", error=True, sticky=True
        )


_PANES = ("diagram", "objects", "xrefs", "inspector")
"""The panes `view.read_state` reports shown or hidden."""


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
