"""The one key table of the TUI (tui.md §4.7, §6): keys map to commands per context.

Widgets never test key names directly: they ask `command_for(key, context)`, and the help
overlay is built from the same `KEY_BINDINGS`, so help can never drift from behaviour.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "KEY_BINDINGS",
    "Command",
    "Context",
    "KeyBinding",
    "command_for",
    "help_sections",
    "is_modified",
]


class Context(enum.Enum):
    """Where a binding applies; GLOBAL bindings apply in every pane."""

    GLOBAL = "Global"
    DIAGRAM = "Diagram"
    OBJECTS = "Objects"
    XREFS = "XRefs"
    INSPECTOR = "Inspector"
    WALKTHROUGH = "Walkthrough"
    SEARCH = "Search"
    HINT = "Hint"
    HELP = "Help"


class Command(enum.Enum):
    QUIT = "quit"
    HELP = "help"
    MESSAGES = "messages"
    FOCUS_DIAGRAM = "focus_diagram"
    TOGGLE_OBJECTS = "toggle_objects"
    TOGGLE_XREFS = "toggle_xrefs"
    TOGGLE_INSPECTOR = "toggle_inspector"
    FOLLOW_AI = "follow_ai"
    DESELECT_DIAGRAM = "deselect_diagram"
    CLEAR_SELECTION = "clear_selection"
    SEARCH_REGEX = "search_regex"
    SEARCH_FUZZY = "search_fuzzy"
    NEXT_RESULT = "next_result"
    PREV_RESULT = "prev_result"
    NEXT_PANE = "next_pane"
    PREV_PANE = "prev_pane"
    PREV_DIAGRAM = "prev_diagram"
    NEXT_DIAGRAM = "next_diagram"
    HINT_JUMP = "hint_jump"
    HINT_CHAIN = "hint_chain"
    EDIT = "edit"
    TOGGLE_SELECT = "toggle_select"
    YANK = "yank"
    XREF_IN = "xref_in"
    XREF_OUT = "xref_out"
    TOGGLE_NOTES = "toggle_notes"
    UP = "up"
    DOWN = "down"
    LEFT = "left"
    RIGHT = "right"
    UP_FAR = "up_far"
    DOWN_FAR = "down_far"
    LEFT_FAR = "left_far"
    RIGHT_FAR = "right_far"
    PAGE_UP = "page_up"
    PAGE_DOWN = "page_down"
    HOME = "home"
    END = "end"
    CENTER = "center"
    FILTER = "filter"
    FILTER_INVOLVING = "filter_involving"
    CANCEL = "cancel"
    WALKTHROUGH = "walkthrough"
    WALK_GO = "walk_go"
    MOUSE = "mouse"


@dataclass(frozen=True)
class KeyBinding:
    """Keys (urwid names) that run `command` in `context`; `keys_text` is what help shows."""

    context: Context
    keys: tuple[str, ...]
    command: Command
    help: str
    keys_text: str = ""

    @property
    def shown_keys(self) -> str:
        return self.keys_text or "/".join(self.keys)


G, D, OB, X, H = Context.GLOBAL, Context.DIAGRAM, Context.OBJECTS, Context.XREFS, Context.HELP
W = Context.WALKTHROUGH

KEY_BINDINGS: tuple[KeyBinding, ...] = (
    KeyBinding(G, ("?",), Command.HELP, "toggle this help"),
    KeyBinding(G, ("M",), Command.MESSAGES, "the message log: recent status messages in full"),
    KeyBinding(G, ("q", "ctrl c"), Command.QUIT, "quit (works in every mode)", "q/Ctrl-C"),
    KeyBinding(G, ("1",), Command.FOCUS_DIAGRAM, "focus the Diagram pane"),
    KeyBinding(G, ("2",), Command.TOGGLE_OBJECTS, "show/focus Objects (hide when focused)"),
    KeyBinding(G, ("3",), Command.TOGGLE_XREFS, "show/focus XRefs (hide when focused)"),
    KeyBinding(G, ("4",), Command.TOGGLE_INSPECTOR, "show/focus Inspector (hide when focused)"),
    KeyBinding(
        G,
        ("a",),
        Command.FOLLOW_AI,
        "toggle follow-AI: the cursor follows the newest agent spotlight; your own "
        "navigation pauses it for 3 s (a spotlight set meanwhile is followed after)",
    ),
    KeyBinding(G, ("w",), Command.WALKTHROUGH, "walkthrough view on/off (Diagram pane)"),
    KeyBinding(
        G,
        ("m",),
        Command.MOUSE,
        "mouse on/off: click focuses and picks, wheel pans (off at start unless "
        "NEREID_TUI_MOUSE=1; off keeps the terminal's own text selection)",
    ),
    KeyBinding(G, ("d",), Command.DESELECT_DIAGRAM, "deselect everything in this diagram"),
    KeyBinding(G, ("D",), Command.CLEAR_SELECTION, "clear the whole selection"),
    KeyBinding(G, ("tab", "shift tab"), Command.NEXT_PANE, "next/previous pane", "Tab/S-Tab"),
    KeyBinding(G, ("[",), Command.PREV_DIAGRAM, "previous diagram"),
    KeyBinding(G, ("]",), Command.NEXT_DIAGRAM, "next diagram"),
    KeyBinding(G, ("/",), Command.SEARCH_REGEX, "regex search (Python re, case-insensitive)"),
    KeyBinding(G, ("\\",), Command.SEARCH_FUZZY, "fuzzy search"),
    KeyBinding(G, ("n",), Command.NEXT_RESULT, "next search result (Diagram: notes if none)"),
    KeyBinding(G, ("N",), Command.PREV_RESULT, "previous search result"),
    KeyBinding(G, ("f",), Command.HINT_JUMP, "hint jump: type the 2-letter tag"),
    KeyBinding(G, ("c",), Command.HINT_CHAIN, "chain select by hints (Esc ends)"),
    KeyBinding(G, (" ",), Command.TOGGLE_SELECT, "toggle selection of the cursor object", "Space"),
    KeyBinding(G, ("y",), Command.YANK, "yank the cursor ref (OSC 52)"),
    KeyBinding(G, ("g",), Command.XREF_IN, "follow incoming xref (XRefs: go to from)"),
    KeyBinding(G, ("t",), Command.XREF_OUT, "follow outgoing xref (XRefs: go to to)"),
    KeyBinding(D, ("e",), Command.EDIT, "edit the diagram in $EDITOR"),
    KeyBinding(D, ("n",), Command.TOGGLE_NOTES, "toggle notes (when no search is active)"),
    KeyBinding(D, ("up", "k"), Command.UP, "pan up / down / left / right by 1", "↑↓←→ hjkl"),
    KeyBinding(D, ("down", "j"), Command.DOWN, "", "↓/j"),
    KeyBinding(D, ("left", "h"), Command.LEFT, "", "←/h"),
    KeyBinding(D, ("right", "l"), Command.RIGHT, "", "→/l"),
    KeyBinding(D, ("K",), Command.UP_FAR, "pan by 10", "HJKL"),
    KeyBinding(D, ("J",), Command.DOWN_FAR, ""),
    KeyBinding(D, ("H",), Command.LEFT_FAR, ""),
    KeyBinding(D, ("L",), Command.RIGHT_FAR, ""),
    KeyBinding(D, ("page up", "page down"), Command.PAGE_UP, "pan by a page", "PgUp/PgDn"),
    KeyBinding(D, ("home",), Command.HOME, "top-left corner of the diagram", "Home"),
    KeyBinding(D, ("end",), Command.END, "bottom-right corner of the diagram", "End"),
    KeyBinding(D, ("z",), Command.CENTER, "centre the cursor object"),
    KeyBinding(W, ("up", "k"), Command.UP, "previous / next step", "↑↓ jk"),
    KeyBinding(W, ("down", "j"), Command.DOWN, ""),
    KeyBinding(W, ("home", "end"), Command.HOME, "first / last step", "Home/End"),
    KeyBinding(
        W,
        ("g", "enter"),
        Command.WALK_GO,
        "go to the step's objects (again: the next one)",
        "g/Enter",
    ),
    KeyBinding(W, ("[",), Command.PREV_DIAGRAM, "previous walkthrough"),
    KeyBinding(W, ("]",), Command.NEXT_DIAGRAM, "next walkthrough"),
    KeyBinding(W, ("esc", "w"), Command.WALKTHROUGH, "back to the diagram", "Esc/w"),
    KeyBinding(W, ("left", "h"), Command.LEFT, "pan (HJKL by 10, PgUp/PgDn by a page)", "←→ hl"),
    KeyBinding(W, ("right", "l"), Command.RIGHT, ""),
    KeyBinding(W, ("K",), Command.UP_FAR, ""),
    KeyBinding(W, ("J",), Command.DOWN_FAR, ""),
    KeyBinding(W, ("H",), Command.LEFT_FAR, ""),
    KeyBinding(W, ("L",), Command.RIGHT_FAR, ""),
    KeyBinding(W, ("page up", "page down"), Command.PAGE_UP, ""),
    KeyBinding(OB, ("up", "k", "h"), Command.UP, "move the cursor", "↑↓ jk"),
    KeyBinding(OB, ("down", "j", "l"), Command.DOWN, ""),
    KeyBinding(OB, ("home", "end"), Command.HOME, "first / last", "Home/End"),
    KeyBinding(OB, ("-",), Command.FILTER, "show selected objects only"),
    KeyBinding(X, ("up", "k", "h"), Command.UP, "move the cursor", "↑↓ jk"),
    KeyBinding(X, ("down", "j", "l"), Command.DOWN, ""),
    KeyBinding(X, ("home", "end"), Command.HOME, "first / last", "Home/End"),
    KeyBinding(X, ("-",), Command.FILTER, "dangling xrefs only"),
    KeyBinding(X, ("I",), Command.FILTER_INVOLVING, "xrefs involving the cursor object"),
    KeyBinding(Context.INSPECTOR, ("up", "k"), Command.UP, "scroll", "↑↓ jk"),
    KeyBinding(Context.INSPECTOR, ("down", "j"), Command.DOWN, ""),
    KeyBinding(
        Context.SEARCH,
        (),
        Command.CANCEL,
        "typed keys edit the query, q ? and digits too (Backspace deletes)",
        "text",
    ),
    KeyBinding(Context.SEARCH, ("enter",), Command.CANCEL, "keep the results (n/N cycle)", "Enter"),
    KeyBinding(Context.SEARCH, ("esc",), Command.CANCEL, "close the search", "Esc"),
    KeyBinding(Context.HINT, ("esc",), Command.CANCEL, "leave hint mode", "Esc"),
    KeyBinding(H, ("up", "k"), Command.UP, "scroll help", "↑↓ jk PgUp PgDn"),
    KeyBinding(H, ("down", "j"), Command.DOWN, ""),
    KeyBinding(H, ("page up",), Command.PAGE_UP, ""),
    KeyBinding(H, ("page down",), Command.PAGE_DOWN, ""),
    KeyBinding(H, ("home",), Command.HOME, ""),
    KeyBinding(H, ("end",), Command.END, ""),
    KeyBinding(H, ("esc", "?"), Command.HELP, "close help", "Esc/?"),
)

# Keys whose command differs by key inside one binding row (handled here, not by callers).
_SPLIT_KEYS: dict[tuple[Context, str], Command] = {
    (G, "shift tab"): Command.PREV_PANE,
    (D, "page down"): Command.PAGE_DOWN,
    (OB, "end"): Command.END,
    (W, "end"): Command.END,
    (W, "page down"): Command.PAGE_DOWN,
    (X, "end"): Command.END,
}


def is_modified(key: str) -> bool:
    """Keys carrying ctrl/meta are never plain letters (tui.md §16.7)."""
    return key.startswith(("ctrl ", "meta ", "shift ctrl", "shift meta")) and key != "ctrl c"


def command_for(key: str, context: Context) -> Command | None:
    """The command `key` runs in `context`, falling back to GLOBAL; None when unbound."""
    if is_modified(key):
        return None
    for ctx in (context, G) if context is not G else (G,):
        if (ctx, key) in _SPLIT_KEYS:
            return _SPLIT_KEYS[(ctx, key)]
        for binding in KEY_BINDINGS:
            if binding.context is ctx and key in binding.keys:
                return binding.command
    return None


def help_sections() -> list[tuple[str, list[tuple[str, str]]]]:
    """The help overlay's content: (section title, [(keys text, description)]) in table order."""
    sections: dict[str, list[tuple[str, str]]] = {}
    for binding in KEY_BINDINGS:
        if not binding.help:
            continue
        sections.setdefault(binding.context.value, []).append((binding.shown_keys, binding.help))
    return list(sections.items())
