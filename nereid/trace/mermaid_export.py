"""A slice of the log as a Mermaid `sequenceDiagram` that Nereid itself can open.

Actors become participants (in order of first appearance), a call is `->>`, a cast `-)`, a
reply the return arrow `-->>`, a failed or crashed call the return arrow `--x`; errors,
crashes, restarts, escalations, timeouts and expired calls are notes. `receive`, `spawn` and
`stop` are left out (they add no arrow). Calls from outside the actors come from `outside`.

Actor names such as `diagram:auth` are not valid Mermaid participant names (`:` starts the
message text), so every participant gets a plain identifier (`diagram_auth`) and, when that
differs from the actor name, the alias `participant diagram_auth as diagram:auth`. Texts
never hold `;` (Mermaid's statement break) or `#` (a comment start): they are written as the
entities `#59;` and `#35;`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .calls import CallStep, follow_calls
from .records import TraceEntry
from .text import OUTSIDE, clean_text, format_duration

__all__ = ["EmptySliceError", "export_sequence_diagram", "participant_id"]

_OUTSIDE_ID: Final = "outside"
_TEXT_LIMIT: Final = 100
_NOT_ID_CHAR: Final = re.compile(r"[^A-Za-z0-9_]+")
# Words that open a statement in a sequence diagram (compared case-insensitively, to be safe).
_RESERVED: Final = frozenset(
    word.lower()
    for word in (
        "participant actor alt else opt loop par and critical option break rect end note "
        "activate deactivate autonumber title box create destroy link links properties "
        "details accTitle accDescr as sequenceDiagram"
    ).split()
)


class EmptySliceError(ValueError):
    """The slice holds no event that becomes an arrow or a note."""


def participant_id(actor: str) -> str:
    """A Mermaid-safe identifier for an actor name: letters, digits and `_`, not a keyword."""
    ident = _NOT_ID_CHAR.sub("_", actor).strip("_") or "actor"
    if not ident[0].isalpha():
        ident = f"a_{ident}"
    if ident.lower() in _RESERVED:
        ident = f"{ident}_"
    return ident


def _text(text: str) -> str:
    flat = "".join(_ENTITIES.get(ch, ch) for ch in clean_text(text, _TEXT_LIMIT))
    if _WRAP_PREFIX.match(flat):  # Mermaid would read it as the wrap flag: encode its first char
        flat = f"#{ord(flat[0])};{flat[1:]}"
    return flat or "-"


#: Mermaid's `wrap:` / `nowrap:` prefix of a sequence text (case as Mermaid matches it).
_WRAP_PREFIX = re.compile(r":?(?:no)?wrap:")


#: Characters Mermaid reads as syntax inside a text, written as entity codes.
_ENTITIES = {";": "#59;", "#": "#35;"}


class _Diagram:
    def __init__(self) -> None:
        self.ids: dict[str, str] = {}
        self.taken: set[str] = set()
        self.declarations: list[str] = []
        self.body: list[str] = []

    def participant(self, actor: str | None) -> str:
        name = OUTSIDE if actor is None else actor
        found = self.ids.get(name)
        if found is not None:
            return found
        base = _OUTSIDE_ID if actor is None else participant_id(actor)
        ident, count = base, 1
        while ident in self.taken:
            count += 1
            ident = f"{base}_{count}"
        self.ids[name] = ident
        self.taken.add(ident)
        alias = _text(name)
        self.declarations.append(
            f"    participant {ident}" + ("" if alias == ident else f" as {alias}")
        )
        return ident

    def arrow(self, source: str | None, arrow: str, target: str | None, text: str) -> None:
        left, right = self.participant(source), self.participant(target)
        self.body.append(f"    {left}{arrow}{right}: {_text(text)}")

    def note(self, actor: str | None, text: str) -> None:
        self.body.append(f"    Note over {self.participant(actor)}: {_text(text)}")


def _failure(entry: TraceEntry) -> str:
    what = entry.outcome or entry.event
    return f"{what}: {entry.detail}" if entry.detail else what


def _add_step(diagram: _Diagram, step: CallStep) -> None:
    entry = step.entry
    message = entry.msg_type or "-"
    took = format_duration(entry.duration_ms)
    suffix = f" ({took})" if took else ""
    is_call = entry.kind != "cast"
    match entry.event:
        case "send":
            diagram.arrow(entry.sender, "->>" if is_call else "-)", entry.actor, message)
        case "reply":
            if is_call:
                diagram.arrow(entry.actor, "-->>", step.caller, f"{message} ok{suffix}")
        case "error":
            if is_call:
                diagram.arrow(entry.actor, "--x", step.caller, f"{message} failed{suffix}")
            diagram.note(entry.actor, f"error {_failure(entry)}")
        case "crash":
            diagram.note(entry.actor, f"CRASH {_failure(entry)}")
            if entry.msg_type is not None and is_call:
                diagram.arrow(entry.actor, "--x", step.caller, f"{message} crashed")
        case "restart":
            by = f" by {entry.sender}" if entry.sender else ""
            diagram.note(entry.actor, f"restarted{by}" + (f" after {took} down" if took else ""))
        case "escalate":
            diagram.note(entry.actor, f"ESCALATE {_failure(entry)}")
        case "timeout":
            diagram.note(entry.sender, f"timeout waiting for {entry.actor} {message}{suffix}")
        case "expired":
            diagram.note(entry.actor, f"expired {message} (caller gave up)")
        case "receive" | "spawn" | "stop":
            pass
        case _:
            diagram.note(entry.actor, f"{entry.event} {message}")


def export_sequence_diagram(entries: Sequence[TraceEntry], title: str | None = None) -> str:
    """The Mermaid text of `entries` (already filtered), ending in a newline.

    Raises `EmptySliceError` when nothing in the slice would be drawn.
    """
    diagram = _Diagram()
    for step in follow_calls(entries):
        _add_step(diagram, step)
    if not diagram.body:
        raise EmptySliceError(
            f"nothing to draw: the {len(entries)} selected events hold no message, "
            "reply, error, crash or restart"
        )
    lines = ["sequenceDiagram"]
    if title is not None:
        lines.append(f"    title {_text(title)}")
    lines.extend(diagram.declarations)
    lines.extend(diagram.body)
    return "\n".join(lines) + "\n"
