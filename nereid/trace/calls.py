"""Pairing each message's `send` with how it ended, and one request's whole path.

The log names the sender only on `send`; `receive`, `reply`, `error`, `crash` and `expired`
name the actor that handled the message. `follow_calls` pairs them back up: same correlation
id, same actor, same message type, first in first out (a mailbox is FIFO). The nesting depth
of a send is one more than the depth of the message its sender was handling (0 from outside
the actors), which turns a request into the tree of calls it made.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from .records import TraceEntry
from .text import OUTSIDE, clean_text, format_clock, format_duration

__all__ = ["CallStep", "follow_calls", "format_step", "request_path"]

_ENDS: Final = frozenset({"reply", "error", "crash", "expired"})


@dataclass(frozen=True)
class CallStep:
    """One entry with the send it belongs to: `caller` is that send's sender.

    `paired` is False when the send is not in the slice (the log started mid-request);
    `caller` is then None, as it is for a send from outside the actors.
    """

    entry: TraceEntry
    depth: int
    caller: str | None
    paired: bool


@dataclass
class _Open:
    key: tuple[str | None, str, str | None]
    caller: str | None
    depth: int


def follow_calls(entries: Iterable[TraceEntry]) -> list[CallStep]:
    """Every entry in order, with its caller and nesting depth (see the module docstring)."""
    open_calls: list[_Open] = []
    handling: dict[str, int] = {}  # actor -> depth of the message it is handling
    steps: list[CallStep] = []
    for entry in entries:
        key = (entry.correlation_id, entry.actor, entry.msg_type)
        if entry.event == "send":
            sender = entry.sender
            depth = 0 if sender is None else handling.get(sender, -1) + 1
            open_calls.append(_Open(key, sender, depth))
            steps.append(CallStep(entry, depth, sender, True))
            continue
        found = next((call for call in open_calls if call.key == key), None)
        if found is None or entry.msg_type is None:
            if entry.event in _ENDS:
                handling.pop(entry.actor, None)
            caller = entry.sender if entry.event == "timeout" else None
            steps.append(CallStep(entry, 0, caller, entry.event == "timeout"))
            continue
        if entry.event == "receive":
            handling[entry.actor] = found.depth
        elif entry.event in _ENDS:
            open_calls.remove(found)
            handling.pop(entry.actor, None)
        steps.append(CallStep(entry, found.depth, found.caller, True))
    return steps


def request_path(entries: Sequence[TraceEntry], correlation_id: str) -> list[CallStep]:
    """One request from its first message to its reply: every entry with that correlation id
    (persister casts included), plus the restart that followed each crash in it."""
    crashed: set[str] = set()
    chosen: list[TraceEntry] = []
    for entry in entries:
        if entry.correlation_id == correlation_id:
            chosen.append(entry)
            if entry.event == "crash":
                crashed.add(entry.actor)
        elif entry.event == "restart" and entry.actor in crashed:
            crashed.discard(entry.actor)
            chosen.append(entry)
    return follow_calls(chosen)


def format_step(step: CallStep) -> str:
    """A request-view line: an arrow per send and per reply, indented by depth."""
    entry = step.entry
    indent = "  " * step.depth
    message = entry.msg_type or "-"
    caller = step.caller or OUTSIDE
    duration = format_duration(entry.duration_ms)
    took = f" in {duration}" if duration else ""
    match entry.event:
        case "send":
            text = f"→ {entry.actor} {message} ({entry.kind or 'call'} from {caller})"
        case "receive":
            text = f"· {entry.actor} takes {message}" + (
                f" after {duration} queued" if duration else ""
            )
        case "reply":
            if entry.kind == "cast":
                text = f"✓ {entry.actor} handled {message}{took}"
            else:
                text = f"← {entry.actor} {message} {entry.outcome or 'ok'} to {caller}{took}"
        case "error":
            text = f"✗ {entry.actor} {message} failed: {entry.outcome or 'error'}{took}"
        case "crash":
            text = f"‼ CRASH {entry.actor} in {message}: {entry.outcome or 'crash'}"
        case "restart":
            text = f"↻ RESTART {entry.actor}" + (f" after {duration} down" if duration else "")
        case "timeout":
            text = f"⌛ {caller} gave up waiting for {entry.actor} {message}{took}"
        case "expired":
            text = f"⌛ {entry.actor} skipped {message} (its caller had given up)"
        case _:
            text = f"• {entry.event} {entry.actor} {message}"
    if entry.detail:
        text += f" — {clean_text(entry.detail)}"
    return f"{format_clock(entry.wall)} {indent}{text}"
