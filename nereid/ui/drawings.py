"""The drawings of the diagrams the Diagram pane shows, made in-process or off the loop.

A drawing depends on the diagram's id and rev, the notes flag and the xref markers
(`CellsKey`); the newest one of each diagram is shown. A big diagram (AST over
`TUI_SMALL_PAYLOAD`) is laid out in a worker process: `Drawings` asks the app for it
(`listen`), the app takes the job (`take_layout`) and hands back the outcome
(`layout_done`); meanwhile the previous drawing stays. Only `Drawings`' methods change
this state.

A layout is not redone for what was drawn before: the last `RECENT_DRAWINGS` drawings of
each diagram are kept by what they were drawn from (AST, markers, options), so a reverted
edit, notes toggled back or a revision that changes nothing drawn shows at once. Nor for a
label edit that keeps the label's width: the shown drawing is patched in place
(`nereid.ui.label_patch`). A label edit of another width on a big diagram is laid out, but
meanwhile a provisional patch shows the new label at once (`provisional`; the Diagram
pane's title says it is updating) and the layout replaces it when it arrives.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgspec

from nereid.model.diagram import Ast, Diagram
from nereid.model.flowchart import FlowchartAst
from nereid.model.state import StateAst
from nereid.model.state_flow import state_display_label
from nereid.render import Rendered, RenderError, RenderOptions, render_diagram
from nereid.ui.highlight import DiagramCells
from nereid.ui.label_patch import label_patch, marked_label
from nereid.ui.mirror import Markers

__all__ = ["TUI_SMALL_PAYLOAD", "CellsKey", "Drawings", "LayoutJob"]

_log = logging.getLogger(__name__)

TUI_SMALL_PAYLOAD: Final = 32 * 1024
"""Diagrams whose AST encodes to more bytes (about 100 flowchart nodes, ~25 ms of layout)
are laid out in a worker process while the previous drawing stays on screen; smaller ones
are drawn in-process, where they cost less than the hand-off (as `nereid.offload.dispatch`
decides for the agents' renders)."""

CellsKey = tuple[str, int, bool, Markers]
"""What a diagram drawing depends on: diagram id, rev, notes flag, xref markers."""

RECENT_DRAWINGS: Final = 3
"""Drawings kept per diagram for reuse (the shown one included)."""


@dataclass(frozen=True)
class LayoutJob:
    """A drawing the app should make off the event loop (`Drawings.layout_done` takes it)."""

    key: CellsKey
    diagram: Diagram  # with the xref markers in its labels
    options: RenderOptions
    ast: Ast  # the diagram's own (unmarked) AST, for the drawing's emphasis cells
    encoded: bytes | None = None  # `diagram.ast` as msgpack, when the digest made it already


class Drawings:
    """The newest drawing (or render error) of each diagram, and the off-loop layouts."""

    def __init__(self) -> None:
        self._cells: dict[CellsKey, DiagramCells] = {}  # the newest drawing of each diagram
        self._errors: dict[str, str] = {}
        self._failed: dict[str, CellsKey] = {}  # diagram id → the drawing its error is about
        self._wanted: LayoutJob | None = None  # the newest drawing to make off the loop
        self._running: set[CellsKey] = set()
        # diagram id → content digest → drawing, oldest first (at most RECENT_DRAWINGS)
        self._recent: dict[str, dict[bytes, DiagramCells]] = {}
        self._digests: dict[CellsKey, bytes] = {}  # the content digest of wanted drawings
        # Shown drawings that are provisional label patches, until their layout arrives.
        self._provisional: set[CellsKey] = set()
        # The content digest of the drawing `prepare` worked out: (key, encoded AST, digest).
        self._prepared: tuple[CellsKey, bytes, bytes] | None = None
        # The app's hook: a drawing is wanted off the loop (None: draw everything in-process).
        self._listener: Callable[[], None] | None = None

    def listen(self, callback: Callable[[], None] | None) -> None:
        """Lay big diagrams out off the loop: `callback` is called when a job is wanted
        (None: draw everything in-process)."""
        self._listener = callback

    def cells(self, diagram: Diagram, *, show_notes: bool, markers: Markers) -> DiagramCells | None:
        """The drawing of `diagram` (cached per rev, notes flag and xref markers).

        A big diagram is laid out off the event loop when the app takes the job; meanwhile
        this is its previous drawing (`behind` says which rev), or None with `pending`
        before the first one arrives. None also after a render error (`error` says it)."""
        key = (diagram.diagram_id, diagram.rev, show_notes, markers)
        cached = self._cells.get(key)
        if cached is not None:
            return cached
        if self._failed.get(diagram.diagram_id) == key:
            return None
        if key in self._running or (self._wanted is not None and self._wanted.key == key):
            return self._drawing_of(diagram.diagram_id)  # being laid out off the loop
        options = _options(show_notes)
        encoded, digest = self._content(key, diagram, markers, options)
        drawn = self._recent.get(diagram.diagram_id, {}).get(digest)
        if drawn is not None:  # drawn before from the same content: no layout
            self._show(key, drawn, digest)
            return drawn
        patched = self._patched(key, diagram)
        if patched is not None and patched[1]:  # one label changed, same width: no layout
            self._show(key, patched[0], digest)
            return patched[0]
        marked = _with_markers(diagram, dict(markers))
        if self._listener is not None and len(encoded) > TUI_SMALL_PAYLOAD:
            if self._wanted is not None:  # superseded before the app took it
                self._digests.pop(self._wanted.key, None)
            self._digests[key] = digest
            # The worker gets the AST as the digest encoded it, unless markers changed it.
            same = marked.ast is diagram.ast
            self._wanted = LayoutJob(key, marked, options, diagram.ast, encoded if same else None)
            self._listener()
            if patched is not None:  # the new label at once, until the layout arrives
                self._show(key, patched[0], None, provisional=True)
            return self._drawing_of(diagram.diagram_id)
        outcome: Rendered | Exception
        try:
            outcome = render_diagram(marked, options)
        except Exception as err:
            outcome = err
        self._done(key, outcome, diagram.ast, diagram, digest)
        return self._cells.get(key)

    def prepare(self, diagram: Diagram, *, show_notes: bool, markers: Markers) -> None:
        """Work out the content digest `cells` needs for `diagram` now, so that the app can
        do it in an event-loop step of its own (an encode of the whole AST) ahead of the
        drawing (a label patch, a layout job)."""
        key = (diagram.diagram_id, diagram.rev, show_notes, markers)
        wanted = self._wanted is not None and self._wanted.key == key
        known = key in self._cells or key in self._running or wanted
        if not known and self._failed.get(diagram.diagram_id) != key:
            self._prepared = None
            encoded, digest = self._content(key, diagram, markers, _options(show_notes))
            self._prepared = (key, encoded, digest)

    def _content(
        self, key: CellsKey, diagram: Diagram, markers: Markers, options: RenderOptions
    ) -> tuple[bytes, bytes]:
        """(the AST as msgpack, the content digest) of the drawing of `key`."""
        prepared = self._prepared
        if prepared is not None and prepared[0] == key:
            return prepared[1], prepared[2]
        encoded = msgspec.msgpack.encode(diagram.ast)  # once: digest, size and the worker's
        return encoded, _digest(diagram.kind, encoded, markers, options)

    def _patched(self, key: CellsKey, diagram: Diagram) -> tuple[DiagramCells, bool] | None:
        """The shown drawing patched for `diagram` when all that changed since is one
        label, drawn with the same notes flag and markers (see `nereid.ui.label_patch`),
        and whether the patch is what a full layout draws (else it is provisional); None
        when it cannot be patched."""
        shown = next(((k, c) for k, c in self._cells.items() if k[0] == key[0]), None)
        if shown is None:
            return None
        shown_key, base = shown
        if shown_key[2:] != key[2:] or base.ast is None:
            return None
        patch = label_patch(base.rendered, base.ast, diagram.ast, diagram.diagram_id, dict(key[3]))
        if patch is None:
            return None
        cells = DiagramCells(
            patch.rendered,
            diagram.diagram_id,
            diagram.ast,
            patch_of=base,
            changed_rows=patch.rows,
        )
        return cells, patch.exact and shown_key not in self._provisional

    def take_layout(self) -> LayoutJob | None:
        """The newest wanted drawing, for the app to make off the loop (None: none)."""
        job, self._wanted = self._wanted, None
        if job is not None:
            self._running.add(job.key)
        return job

    def layout_done(
        self,
        key: CellsKey,
        outcome: Rendered | DiagramCells | BaseException,
        ast: Ast,
        current: Diagram | None,
    ) -> bool:
        """Keep a finished drawing (or its error) unless a newer rev of that diagram is
        already drawn or the diagram is gone (`current` is its newest revision): results
        may arrive out of order. Returns whether it was kept. The drawing may come as its
        cells already (`DiagramCells` of `ast`), worked out by the app in a step of its own."""
        self._running.discard(key)
        return self._done(key, outcome, ast, current, self._digests.pop(key, None))

    def _done(
        self,
        key: CellsKey,
        outcome: Rendered | DiagramCells | BaseException,
        ast: Ast,
        current: Diagram | None,
        digest: bytes | None,
    ) -> bool:
        diagram_id, rev = key[0], key[1]
        drawn = [k[1] for k in self._cells if k[0] == diagram_id]
        failed = self._failed.get(diagram_id)
        if current is None or rev > current.rev or any(r > rev for r in drawn):
            return False
        if failed is not None and failed[1] > rev:
            return False
        if isinstance(outcome, BaseException):
            if isinstance(outcome, RenderError):
                self._errors[diagram_id] = str(outcome)
            else:  # a renderer bug must not take the person's session down
                _log.error("rendering %s failed", diagram_id, exc_info=outcome)
                self._errors[diagram_id] = f"internal error: {outcome!r}"
            self._failed[diagram_id] = key
            self._drop(diagram_id)
            return True
        if isinstance(outcome, Rendered):
            outcome = DiagramCells(outcome, diagram_id, ast)
        self._show(key, outcome, digest)
        return True

    def behind(self, diagram: Diagram, *, show_notes: bool, markers: Markers) -> int | None:
        """The rev of the drawing on screen while `diagram`'s newest rev is laid out off
        the loop (None: the drawing is current, or none is shown)."""
        key = (diagram.diagram_id, diagram.rev, show_notes, markers)
        wanted = self._wanted is not None and self._wanted.key == key
        if not (wanted or key in self._running) or key in self._provisional:
            return None
        return next((k[1] for k in self._cells if k[0] == diagram.diagram_id), None)

    def provisional(self, diagram: Diagram, *, show_notes: bool, markers: Markers) -> bool:
        """The drawing on screen for `diagram`'s newest rev is a provisional label patch
        (`nereid.ui.label_patch`): its layout is being made off the loop."""
        return (diagram.diagram_id, diagram.rev, show_notes, markers) in self._provisional

    def pending(self, diagram: Diagram) -> bool:
        """`diagram`'s drawing is being made off the loop and none is shown yet."""
        running = self._wanted is not None or bool(self._running)
        return (
            running
            and self._drawing_of(diagram.diagram_id) is None
            and diagram.diagram_id not in self._failed
        )

    def error(self, diagram_id: str) -> str | None:
        """Why the diagram's newest drawing could not be made (None: it could)."""
        return self._errors.get(diagram_id)

    def _show(
        self, key: CellsKey, drawing: DiagramCells, digest: bytes | None, provisional: bool = False
    ) -> None:
        """Make `drawing` the one shown for its diagram (and keep it for reuse unless it is
        `provisional`: a patch shown until the layout of `key` arrives)."""
        diagram_id = key[0]
        self._errors.pop(diagram_id, None)
        self._failed.pop(diagram_id, None)
        self._drop(diagram_id)
        self._cells[key] = drawing
        if provisional:
            self._provisional.add(key)
        if digest is not None:
            recent = self._recent.setdefault(diagram_id, {})
            recent.pop(digest, None)
            recent[digest] = drawing  # the newest last
            for stale in list(recent)[:-RECENT_DRAWINGS]:
                del recent[stale]

    def forget(self, diagram_id: str) -> None:
        """The diagram is gone: drop its drawings."""
        self._recent.pop(diagram_id, None)
        self._drop(diagram_id)

    def _drop(self, diagram_id: str) -> None:
        """No drawing of the diagram is shown any more."""
        for old in [k for k in self._cells if k[0] == diagram_id]:
            del self._cells[old]
            self._provisional.discard(old)

    def _drawing_of(self, diagram_id: str) -> DiagramCells | None:
        return next((c for k, c in self._cells.items() if k[0] == diagram_id), None)


def _options(show_notes: bool) -> RenderOptions:
    return RenderOptions(show_notes=show_notes, flowchart_extra_col_gap=2)


def _digest(kind: str, encoded_ast: bytes, markers: Markers, options: RenderOptions) -> bytes:
    """What a drawing is made from (the AST as msgpack, its xref markers and the options),
    hashed."""
    content = hashlib.blake2b(digest_size=16)
    content.update(kind.encode())
    content.update(encoded_ast)
    content.update(msgspec.msgpack.encode(sorted(markers)))
    content.update(msgspec.msgpack.encode(options))
    return content.digest()


def _with_markers(diagram: Diagram, markers: dict[str, str]) -> Diagram:
    """A copy whose labels carry the xref direction markers (tui.md §4.1.2)."""
    if not markers:
        return diagram
    ast = diagram.ast
    if isinstance(ast, FlowchartAst):
        nodes = {
            nid: msgspec.structs.replace(node, label=marked_label(node.label, markers[nid]))
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
                part = msgspec.structs.replace(part, alias=marked_label(part.alias, markers[pid]))
            else:
                part = msgspec.structs.replace(
                    part, mermaid_name=f"{markers[pid]} {part.mermaid_name}"
                )
        participants[pid] = part
    messages = tuple(
        msgspec.structs.replace(m, text=marked_label(m.text, markers[m.message_id]))
        if m.message_id in markers
        else m
        for m in ast.messages
    )
    return msgspec.structs.replace(
        diagram, ast=msgspec.structs.replace(ast, participants=participants, messages=messages)
    )
