"""Stable ids across state-diagram imports (the state half of `reconcile.py`'s promise).

States need no hints: their ids come from the text (`s:<Mermaid id>`, `start`, `end:C`, ...).
Transitions are numbered by a fresh parse (`t:0001`, ...); a re-import keeps the id a
transition had before when the text still holds one with the same fingerprint
(from, to, label), matched first come, first served, so moving or inserting lines keeps
every id. New transitions get numbers after the highest one known.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Final

import msgspec

from nereid.model.state import StateAst, StateTransition

__all__ = ["StateIdHints", "StateTransitionHint", "reconcile_state"]

_NUMBER: Final = re.compile(r"t:(\d+)")


class StateTransitionHint(msgspec.Struct, frozen=True):
    transition_id: str
    from_state_id: str
    to_state_id: str
    label: str | None = None


class StateIdHints(msgspec.Struct, frozen=True, kw_only=True):
    """What a state diagram's transition ids are matched against (the side-car's part)."""

    transitions: list[StateTransitionHint] = msgspec.field(default_factory=list)

    @classmethod
    def from_ast(cls, previous: StateAst) -> StateIdHints:
        return cls(
            transitions=[
                StateTransitionHint(tid, t.from_state_id, t.to_state_id, t.label)
                for tid, t in previous.transitions.items()
            ]
        )


def reconcile_state(parsed: StateAst, hints: StateIdHints) -> StateAst:
    """`parsed` with the transition ids of `hints` where fingerprints match."""
    if not hints.transitions:
        return parsed
    queues: dict[tuple[str, str, str | None], deque[str]] = {}
    for hint in hints.transitions:
        key = (hint.from_state_id, hint.to_state_id, hint.label)
        queues.setdefault(key, deque()).append(hint.transition_id)
    taken = {hint.transition_id for hint in hints.transitions}
    numbers = [int(m.group(1)) for tid in taken if (m := _NUMBER.fullmatch(tid)) is not None]
    counter = max(numbers, default=0) + 1
    used: set[str] = set()
    matched: dict[str, str] = {}
    for tid, transition in parsed.transitions.items():
        queue = queues.get((transition.from_state_id, transition.to_state_id, transition.label))
        while queue:
            candidate = queue.popleft()
            if candidate not in used:
                matched[tid] = candidate
                used.add(candidate)
                break
    result: dict[str, StateTransition] = {}
    for tid, transition in parsed.transitions.items():
        new_id = matched.get(tid)
        if new_id is None:
            while f"t:{counter:04d}" in taken or f"t:{counter:04d}" in used:
                counter += 1
            new_id = f"t:{counter:04d}"
            used.add(new_id)
        result[new_id] = transition
    return msgspec.structs.replace(parsed, transitions=result)
