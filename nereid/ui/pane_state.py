"""Which panes show, which has focus, their filters and scroll offsets (tui.md §3-§4.7).

`Panes` changes only through its own methods: the key dispatch toggles and moves, the
painters clamp the scroll offsets to what they drew.
"""

from __future__ import annotations

from nereid.ui.modes import PANE_ORDER, Focus

__all__ = ["HELP_END", "Panes", "scrolled"]

#: A help scroll offset past any end: the overlay clamps it to its last page.
HELP_END = 10_000


def scrolled(total: int, cursor: int, scroll: int, height: int) -> int:
    """The list offset that keeps row `cursor` of `total` visible in `height` rows."""
    if cursor < scroll:
        scroll = cursor
    elif cursor >= scroll + height:
        scroll = cursor - height + 1
    return max(0, min(scroll, max(total - height, 0)))


class Panes:
    """Visible panes, focus, list filters, cursors and scroll offsets, view options."""

    def __init__(self, *, mouse: bool = False) -> None:
        self._focus = Focus.DIAGRAM
        self._visible: set[Focus] = {Focus.DIAGRAM}
        self._show_notes = True
        self._mouse = mouse  # whether the TUI captures the mouse (opt-in, tui.md §16.14)
        self._objects_selected_only = False
        self._xrefs_dangling_only = False
        self._xrefs_involving = False
        self._xref_cursor = 0
        self._objects_scroll = 0
        self._help_open = False
        self._help_scroll = 0
        self._inspector_scroll = 0

    # ---- reading -------------------------------------------------------------------------

    @property
    def focus(self) -> Focus:
        return self._focus

    @property
    def visible(self) -> frozenset[Focus]:
        return frozenset(self._visible)

    @property
    def show_notes(self) -> bool:
        return self._show_notes

    @property
    def mouse(self) -> bool:
        return self._mouse

    @property
    def objects_selected_only(self) -> bool:
        return self._objects_selected_only

    @property
    def xrefs_dangling_only(self) -> bool:
        return self._xrefs_dangling_only

    @property
    def xrefs_involving(self) -> bool:
        return self._xrefs_involving

    @property
    def xref_cursor(self) -> int:
        return self._xref_cursor

    @property
    def objects_scroll(self) -> int:
        return self._objects_scroll

    @property
    def help_open(self) -> bool:
        return self._help_open

    @property
    def help_scroll(self) -> int:
        return self._help_scroll

    @property
    def inspector_scroll(self) -> int:
        return self._inspector_scroll

    def shown(self) -> tuple[str, ...]:
        """The visible panes' names in pane order (what `view.read_state` reports)."""
        return tuple(p.value for p in PANE_ORDER if p in self._visible)

    # ---- focus and visibility ------------------------------------------------------------

    def focus_on(self, pane: Focus) -> None:
        """Give `pane` the focus (it is shown if it was not)."""
        self._visible.add(pane)
        self._focus = pane

    def toggle(self, pane: Focus) -> bool | None:
        """`2`/`3`/`4` (tui.md §6.1 with §16.7): hide the focused pane, focus a visible one,
        show and focus a hidden one. True: now shown, False: now hidden, None: focused only."""
        if pane in self._visible and self._focus is pane:
            self._visible.discard(pane)
            self._focus = next(
                p for p in (Focus.OBJECTS, Focus.XREFS, Focus.DIAGRAM) if p in self._visible
            )
            return False
        if pane in self._visible:
            self._focus = pane
            return None
        self._visible.add(pane)
        self._focus = pane
        return True

    def show(self, pane: Focus) -> bool:
        """Show `pane` without moving the focus; whether it was hidden."""
        if pane in self._visible:
            return False
        self._visible.add(pane)
        return True

    def hide(self, pane: Focus) -> None:
        """Hide `pane`; if it had the focus, the Diagram pane takes it."""
        self._visible.discard(pane)
        if self._focus is pane:
            self._focus = Focus.DIAGRAM

    def cycle(self, step: int) -> None:
        """Tab / Shift-Tab: the next (1) or previous (-1) visible pane."""
        order = [p for p in PANE_ORDER if p in self._visible]
        self._focus = order[(order.index(self._focus) + step) % len(order)]

    # ---- options -------------------------------------------------------------------------

    def toggle_notes(self) -> None:
        self._show_notes = not self._show_notes

    def toggle_mouse(self) -> bool:
        """Capture the mouse, or give it back to the terminal; whether it is captured now."""
        self._mouse = not self._mouse
        return self._mouse

    # ---- lists ---------------------------------------------------------------------------

    def new_diagram(self) -> None:
        """Another diagram is shown: its lists start at the top."""
        self._xref_cursor = 0
        self._objects_scroll = 0

    def toggle_selected_only(self) -> bool:
        """The Objects filter `-`; whether it is on now."""
        self._objects_selected_only = not self._objects_selected_only
        return self._objects_selected_only

    def show_all_objects(self) -> None:
        self._objects_selected_only = False

    def toggle_dangling_only(self) -> None:
        self._xrefs_dangling_only = not self._xrefs_dangling_only
        self._xref_cursor = 0

    def toggle_involving(self) -> None:
        self._xrefs_involving = not self._xrefs_involving
        self._xref_cursor = 0

    def move_xref_cursor(self, step: int, rows: int) -> None:
        self._xref_cursor = max(0, min(rows - 1, self._xref_cursor + step))

    def xref_cursor_to(self, index: int) -> None:
        """Put the XRefs cursor on row `index` (clamped to the list when painted)."""
        self._xref_cursor = max(0, index)

    def clamp_xref_cursor(self, rows: int) -> int:
        self._xref_cursor = max(0, min(self._xref_cursor, rows - 1))
        return self._xref_cursor

    def scroll_objects_to(self, index: int, total: int, height: int) -> int:
        """Scroll the Objects list so row `index` shows in `height` rows; the new offset."""
        self._objects_scroll = scrolled(total, index, self._objects_scroll, height)
        return self._objects_scroll

    def scroll_inspector(self, step: int) -> None:
        self._inspector_scroll = max(0, self._inspector_scroll + step)

    def clamp_inspector(self, rows: int, height: int) -> int:
        self._inspector_scroll = min(self._inspector_scroll, max(rows - height, 0))
        return self._inspector_scroll

    # ---- help overlay --------------------------------------------------------------------

    def open_help(self, *, at_end: bool = False) -> None:
        """Open the help overlay at its top (or at its end: the message log)."""
        self._help_open = True
        self._help_scroll = HELP_END if at_end else 0

    def close_help(self) -> None:
        self._help_open = False

    def scroll_help(self, step: int) -> None:
        self._help_scroll = max(0, self._help_scroll + step)

    def scroll_help_to(self, offset: int) -> None:
        self._help_scroll = max(0, offset)

    def clamp_help(self, rows: int, height: int) -> int:
        self._help_scroll = max(0, min(self._help_scroll, max(rows - height, 0)))
        return self._help_scroll
