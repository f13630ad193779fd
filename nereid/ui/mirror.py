"""The TUI's copy of the session: what the actors last said (plus the TUI's own optimistic
selection), changed only by `SessionMirror`'s methods as updates arrive.

Also the views derived from it alone: diagram ids, object lists (cached per revision), xref
rows, xref direction markers, agent style slots, and the status line's save/file problems.
"""

from __future__ import annotations

from collections.abc import Mapping

from nereid.actors.protocol import Spotlight
from nereid.model.diagram import Diagram, ref_exists
from nereid.model.file_problem import FileProblem
from nereid.model.refs import FLOW_EDGE, STATE_TRANSITION, ObjectRef
from nereid.model.walkthrough import Walkthrough
from nereid.model.xref import XRef
from nereid.ui.objects import (
    ObjectItem,
    XRefItem,
    changed_objects,
    selectable_objects,
    xref_items,
)
from nereid.ui.palette import AGENT_STYLES, IDLE_AGENT_SLOT
from nereid.ui.session_state import SessionState

__all__ = ["Markers", "SessionMirror", "spotlight_title"]

Markers = frozenset[tuple[str, str]]
"""Object id → xref direction marker (`▴`, `▾`, `▾▴`) of one diagram (tui.md §4.1.2)."""


class SessionMirror:
    """Diagrams, xrefs, selection, spotlights, walkthroughs and save/file problems."""

    def __init__(self, state: SessionState) -> None:
        self._objects: tuple[Diagram, list[ObjectItem]] | None = None  # the newest list
        self._first: tuple[list[ObjectItem], ObjectRef | None] | None = None
        self.replace(state)

    def replace(self, state: SessionState) -> None:
        """Adopt a whole snapshot (start, or a resync after falling behind)."""
        session = state.session
        self._diagrams: dict[str, Diagram] = dict(session.diagrams)
        self._xrefs: dict[str, XRef] = dict(session.xrefs)
        self._selection: tuple[ObjectRef, ...] = session.selected_object_refs
        self._spotlights: tuple[Spotlight, ...] = state.attention.spotlights
        self._walkthroughs: dict[str, Walkthrough] = dict(session.walkthroughs)
        self._active_walkthrough_id = session.active_walkthrough_id
        self._save_errors: dict[str, str] = dict(state.save_errors)
        self._file_problems: dict[str, FileProblem] = dict(state.file_problems)

    # ---- reading -------------------------------------------------------------------------

    @property
    def diagrams(self) -> Mapping[str, Diagram]:
        return self._diagrams

    @property
    def diagram_ids(self) -> list[str]:
        return sorted(self._diagrams)

    @property
    def xrefs(self) -> Mapping[str, XRef]:
        return self._xrefs

    @property
    def selection(self) -> tuple[ObjectRef, ...]:
        return self._selection

    @property
    def spotlights(self) -> tuple[Spotlight, ...]:
        return self._spotlights

    @property
    def walkthroughs(self) -> Mapping[str, Walkthrough]:
        return self._walkthroughs

    @property
    def active_walkthrough_id(self) -> str | None:
        return self._active_walkthrough_id

    @property
    def save_errors(self) -> Mapping[str, str]:
        return self._save_errors

    @property
    def file_problems(self) -> Mapping[str, FileProblem]:
        return self._file_problems

    def ref_exists(self, ref: ObjectRef) -> bool:
        return ref_exists(self._diagrams, ref)

    def objects(self, diagram: Diagram) -> list[ObjectItem]:
        """The selectable objects of `diagram` (the newest list is kept; a rename of a few
        nodes updates it instead of listing every object again)."""
        cached = self._objects
        if cached is not None:
            before, items = cached
            if before is diagram or (
                before.diagram_id == diagram.diagram_id and before.rev == diagram.rev
            ):
                return items
            changed = changed_objects(before, items, diagram)
            if changed is not None:
                self._objects = (diagram, changed)
                if self._first is not None and self._first[0] is items:
                    # The same refs in the same places: the first box is where it was.
                    self._first = (changed, self._first[1])
                return changed
        items = selectable_objects(diagram)
        self._objects = (diagram, items)
        return items

    def first_object(self, items: list[ObjectItem]) -> ObjectRef | None:
        """Where the cursor is when the person put it nowhere: the list's first box (node,
        participant), else its first object (remembered for the last list asked about)."""
        if self._first is not None and self._first[0] is items:
            return self._first[1]
        first = next((item for item in items if item.is_box), items[0] if items else None)
        ref = first.ref if first is not None else None
        self._first = (items, ref)
        return ref

    def xref_items(self) -> list[XRefItem]:
        return xref_items(self._diagrams, self._xrefs)

    def markers(self, diagram_id: str) -> Markers:
        """The xref direction markers of one diagram's boxes and messages."""
        marks: dict[str, str] = {}
        for xref in self._xrefs.values():
            for ref, glyph in ((xref.from_ref, "▴"), (xref.to_ref, "▾")):
                if ref.diagram_id == diagram_id and ref.category not in (
                    FLOW_EDGE,
                    STATE_TRANSITION,
                ):
                    have = marks.get(ref.object_id, "")
                    if glyph not in have:
                        marks[ref.object_id] = "".join(sorted(have + glyph, reverse=True))
        return frozenset(marks.items())

    def agent_slots(self) -> dict[str, int]:
        """Agent id → style slot: stable by agent order, 6 styles reused cyclically.

        Agents are ordered like the attention actor orders them: `agent:2` before
        `agent:10` (numbers compared as numbers). An idle agent's spotlight is greyed
        (`IDLE_AGENT_SLOT`) until it comes back or goes.
        """
        agents = sorted({s.agent_id for s in self._spotlights}, key=_agent_order)
        idle = {s.agent_id for s in self._spotlights if s.idle}
        return {
            agent: IDLE_AGENT_SLOT if agent in idle else i % AGENT_STYLES
            for i, agent in enumerate(agents)
        }

    def latest_spotlight(self) -> Spotlight | None:
        """The newest agent spotlight (largest `seq`, which the attention actor assigns)."""
        placed = (s for s in self._spotlights if s.object_ref is not None)
        return max(placed, key=lambda s: s.seq, default=None)

    def save_problem(self) -> str | None:
        """The status line's `not saved: disk full` (+ how many items), None when saved."""
        if not self._save_errors:
            return None
        first = self._save_errors[min(self._save_errors)]
        reason = first.split(":", 1)[0] if ":" in first else first
        more = len(self._save_errors) - 1
        return f"not saved: {reason}" + (f" (+{more} more)" if more else "")

    def file_problem(self, shown_id: str | None) -> str | None:
        """The status line's `diagrams/x.mmd:3: does not parse` (the shown diagram's first,
        else any; + how many more), None when every file parses."""
        if not self._file_problems:
            return None
        shown = shown_id if shown_id in self._file_problems else None
        problem = self._file_problems[shown or min(self._file_problems)]
        where = problem.file if problem.line is None else f"{problem.file}:{problem.line}"
        more = len(self._file_problems) - 1
        return f"{where}: does not parse" + (f" (+{more} more)" if more else "")

    # ---- changes -------------------------------------------------------------------------

    def put_diagram(self, diagram: Diagram) -> None:
        """Adopt a diagram's snapshot unless a newer rev of it is mirrored already (an event
        queued before the snapshot was read)."""
        known = self._diagrams.get(diagram.diagram_id)
        if known is None or diagram.rev >= known.rev:
            self._diagrams[diagram.diagram_id] = diagram

    def remove_diagram(self, diagram_id: str) -> None:
        self._file_problems.pop(diagram_id, None)
        self._diagrams.pop(diagram_id, None)

    def set_xrefs(self, xrefs: Mapping[str, XRef]) -> None:
        self._xrefs = dict(xrefs)

    def set_selection(self, selection: tuple[ObjectRef, ...]) -> None:
        self._selection = selection

    def set_spotlights(self, spotlights: tuple[Spotlight, ...]) -> None:
        self._spotlights = spotlights

    def put_walkthrough(self, walkthrough: Walkthrough) -> None:
        """As `put_diagram`, for a walkthrough."""
        known = self._walkthroughs.get(walkthrough.walkthrough_id)
        if known is None or walkthrough.rev >= known.rev:
            self._walkthroughs[walkthrough.walkthrough_id] = walkthrough

    def remove_walkthrough(self, walkthrough_id: str) -> None:
        self._walkthroughs.pop(walkthrough_id, None)
        if self._active_walkthrough_id == walkthrough_id:
            self._active_walkthrough_id = None

    def set_active_walkthrough(self, walkthrough_id: str | None) -> None:
        self._active_walkthrough_id = walkthrough_id

    def set_save_errors(self, errors: Mapping[str, str]) -> bool:
        """The items whose last save failed; whether everything is saved again after
        something was not."""
        recovered = bool(self._save_errors) and not errors
        self._save_errors = dict(errors)
        return recovered

    def set_file_problem(self, diagram_id: str, problem: FileProblem | None) -> bool:
        """A diagram's file stopped parsing (`problem`) or parses again (None); whether
        this changes what the TUI knew."""
        if problem is None:
            return self._file_problems.pop(diagram_id, None) is not None
        if self._file_problems.get(diagram_id) == problem:
            return False
        self._file_problems[diagram_id] = problem
        return True


def spotlight_title(spot: Spotlight) -> str:
    """Who looks, unambiguous: `claude-code (agent:2)`, or `agent:2` when the agent sent no
    client name."""
    return f"{spot.agent_name} ({spot.agent_id})" if spot.agent_name else spot.agent_id


def _agent_order(agent_id: str) -> tuple[str, int, str]:
    """Sort key for agent ids: `agent:<n>` by number, anything else after, by text."""
    prefix, _, number = agent_id.rpartition(":")
    if prefix and number.isdigit():
        return (prefix, int(number), "")
    return ("\uffff", 0, agent_id)
