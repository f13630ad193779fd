"""`$EDITOR` texts that were not applied, kept for the next `e` (tui.md §16.8): the text,
why it was refused, the revision it was made from, and whether the why is a merge-conflict
report. Only `KeptEdits`' methods change them.
"""

from __future__ import annotations

from dataclasses import dataclass

from nereid.model.diagram import Diagram

__all__ = ["KeptEdit", "KeptEdits"]


@dataclass(frozen=True)
class KeptEdit:
    """One refused edit: `reason` carries line numbers of `text` alone (the re-opened
    file's header); `base` is the revision `text` is made from (None: the current one)."""

    text: str
    reason: str
    base: Diagram | None
    conflict: bool


class KeptEdits:
    """Diagram id → the refused edit kept for it."""

    def __init__(self) -> None:
        self._kept: dict[str, KeptEdit] = {}

    def get(self, diagram_id: str) -> KeptEdit | None:
        return self._kept.get(diagram_id)

    def keep(
        self, diagram_id: str, text: str, reason: str, *, base: Diagram | None, conflict: bool
    ) -> None:
        """Keep `text` (a later refusal of the same diagram keeps the earlier base when it
        names none)."""
        earlier = self._kept.get(diagram_id)
        if base is None and earlier is not None:
            base = earlier.base
        self._kept[diagram_id] = KeptEdit(text, reason, base, conflict)

    def forget(self, diagram_id: str) -> None:
        """Drop the kept text of an edit (applied or given up)."""
        self._kept.pop(diagram_id, None)
