"""Where the person is: the diagram shown, the cursor object in each diagram, and who put
the cursor there last (tui.md §1 'cursor object', 'focus owner').

Only `Cursors`' methods change it. The active diagram is the TUI's own: another client's
`diagram.open` is not followed (tui.md §16.5), so the TUI notes its own requests to tell
their echo from someone else's.
"""

from __future__ import annotations

from nereid.model.refs import ObjectRef

__all__ = ["Cursors"]

#: Own active-diagram requests remembered until their echo comes back.
_OWN_SWITCHES = 16


class Cursors:
    """The active diagram id, one cursor ref per diagram, and the focus owner."""

    def __init__(self, active_id: str | None) -> None:
        self._active_id = active_id
        self._refs: dict[str, ObjectRef] = {}
        self._by_agent = False
        self._own_switches: list[str | None] = []  # active-diagram requests not yet echoed

    @property
    def active_id(self) -> str | None:
        return self._active_id

    @property
    def by_agent(self) -> bool:
        """Follow-AI put the cursor where it is (the accent is the agent's)."""
        return self._by_agent

    def get(self, diagram_id: str) -> ObjectRef | None:
        """The cursor last put in `diagram_id` (it may since have been deleted)."""
        return self._refs.get(diagram_id)

    def activate(self, diagram_id: str | None) -> bool:
        """Show `diagram_id`; whether that is another diagram than before."""
        changed = diagram_id != self._active_id
        self._active_id = diagram_id
        return changed

    def requested(self, diagram_id: str) -> None:
        """The TUI asked the session to make `diagram_id` active (its echo is ours)."""
        self._own_switches.append(diagram_id)
        del self._own_switches[:-_OWN_SWITCHES]

    def own_echo(self, diagram_id: str | None) -> bool:
        """Whether an active-diagram change is our own request coming back (then it is
        forgotten)."""
        if diagram_id in self._own_switches:
            self._own_switches.remove(diagram_id)
            return True
        return False

    def place(self, ref: ObjectRef) -> None:
        """The cursor of `ref`'s diagram is on `ref` now."""
        self._refs[ref.diagram_id] = ref

    def owned_by(self, *, agent: bool) -> None:
        """Who moved the cursor last: an agent (via follow-AI) or the person."""
        self._by_agent = agent

    def forget(self, diagram_id: str) -> None:
        """The diagram is gone: so is its cursor."""
        self._refs.pop(diagram_id, None)
