"""The urwid TUI: a live, shared view of the session's diagrams, attention and selection.

`run_tui(handle, mcp_url=...)` runs it inside the session's trio run (see `app.py`). The
layers, outside in: `app` (tasks, urwid loop) → `client` (the only actor seam) → `viewmodel`
(keys and updates, pure) → `panes`/`widgets` (painting) with `keys` (the one key table),
`highlight`, `hints`, `search`, `palette`, `editor`.
"""

from nereid.ui.app import run_tui

__all__ = ["run_tui"]
