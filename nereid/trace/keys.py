"""The viewer's key bindings: one table that drives both the key handling and the help overlay."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["KEY_BINDINGS", "Command", "KeyBinding", "command_for"]

Command = Literal[
    "help",
    "quit",
    "filter_actor",
    "filter_type",
    "filter_corr",
    "toggle_errors",
    "filter_window",
    "clear_filters",
    "toggle_follow",
    "open_request",
    "back",
    "first",
    "last",
]


@dataclass(frozen=True)
class KeyBinding:
    command: Command
    keys: tuple[str, ...]
    help: str


KEY_BINDINGS: Final = (
    KeyBinding("help", ("?",), "show or hide this help"),
    KeyBinding("quit", ("q",), "quit"),
    KeyBinding("filter_actor", ("a",), "filter by actor (glob, e.g. diagram:*; empty clears)"),
    KeyBinding("filter_type", ("t",), "filter by message type (glob; empty clears)"),
    KeyBinding("filter_corr", ("c",), "filter by correlation id (prefilled from the row)"),
    KeyBinding("toggle_errors", ("e",), "errors, crashes and restarts only (toggle)"),
    KeyBinding("filter_window", ("w",), "time window: SINCE or SINCE..UNTIL (10s, 5m, ISO)"),
    KeyBinding("clear_filters", ("x",), "clear every filter"),
    KeyBinding("toggle_follow", ("f",), "follow mode: read new lines, stay at the end (toggle)"),
    KeyBinding(
        "open_request", ("enter", "r"), "request view: the row's correlation id, end to end"
    ),
    KeyBinding("back", ("esc", "backspace"), "back from the request view; cancel a prompt"),
    KeyBinding("first", ("home", "g"), "first row"),
    KeyBinding("last", ("end", "G"), "last row"),
)

_BY_KEY: Final = {key: binding.command for binding in KEY_BINDINGS for key in binding.keys}


def command_for(key: str) -> Command | None:
    """The command bound to `key` (an urwid key name), or None."""
    return _BY_KEY.get(key)
