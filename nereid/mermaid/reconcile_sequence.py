"""Stable ids for sequence diagrams across text edits (mermaid.md §6.3, decision 6).

Import derives positional ids (`p:<name>`, `m:NNNN`, ...). `reconcile_sequence(parsed, hints)`
gives objects back the ids they had before, so xrefs, walkthroughs and selections keep
pointing at them: participants by name, messages by `(from, to, kind, text)` fingerprints
(first-in first-out per fingerprint), notes and activation statements likewise. A new object
never takes an id the hints know (a deleted message's id is not recycled).

`SeqIdHints` is what the store keeps in the side-car (`by_name`, `sequence_messages`,
`sequence_participant_notes`); `SeqIdHints.from_ast(previous)` builds it from the previous AST
for in-memory re-imports (MCP replace, `$EDITOR` round trip).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Hashable, Iterable, Sequence
from typing import Final

import msgspec

from nereid.model.ids import IdError, check_id
from nereid.model.sequence import MessageKind, SeqBlock, SequenceAst

__all__ = ["ActivationHint", "MessageHint", "NoteHint", "SeqIdHints", "reconcile_sequence"]

_NUMBERED: Final = re.compile(r"(?:m|note|act):(\d+)")


class MessageHint(msgspec.Struct, frozen=True, array_like=True):
    """One known message: `(message_id, from, to, kind, text)`."""

    message_id: str
    from_participant_id: str
    to_participant_id: str
    kind: MessageKind
    text: str


class NoteHint(msgspec.Struct, frozen=True, array_like=True):
    """One known note: `(note_id, placement, participant_ids, text)`."""

    note_id: str
    placement: str
    participant_ids: tuple[str, ...]
    text: str


class ActivationHint(msgspec.Struct, frozen=True, array_like=True):
    """One known activation statement: `(activation_id, participant_id, active)`."""

    activation_id: str
    participant_id: str
    active: bool


class SeqIdHints(msgspec.Struct, frozen=True, kw_only=True):
    """What is known about a sequence diagram's previous ids (side-car or previous AST)."""

    by_name: dict[str, str] = msgspec.field(default_factory=dict)
    messages: tuple[MessageHint, ...] = ()
    participant_notes: dict[str, str] = msgspec.field(default_factory=dict)
    notes: tuple[NoteHint, ...] = ()
    activations: tuple[ActivationHint, ...] = ()

    @classmethod
    def from_ast(cls, previous: SequenceAst) -> SeqIdHints:
        """Hints that make a re-import of `previous`'s text keep `previous`'s ids."""
        return cls(
            by_name={p.mermaid_name: pid for pid, p in previous.participants.items()},
            messages=tuple(
                MessageHint(
                    m.message_id, m.from_participant_id, m.to_participant_id, m.kind, m.text
                )
                for m in sorted(previous.messages, key=lambda m: (m.order_key, m.message_id))
            ),
            participant_notes={
                pid: p.note for pid, p in previous.participants.items() if p.note is not None
            },
            notes=tuple(
                NoteHint(n.note_id, n.placement, n.participant_ids, n.text) for n in previous.notes
            ),
            activations=tuple(
                ActivationHint(a.activation_id, a.participant_id, a.active)
                for a in previous.activations
            ),
        )


def reconcile_sequence(parsed: SequenceAst, hints: SeqIdHints) -> SequenceAst:
    """`parsed` with the ids `hints` know (participants, then messages, notes, activations),
    every reference remapped (message endpoints, note targets, block sections, lifelines,
    autonumber anchors), and the
    participant notes attached. Document order is kept."""
    renamed = _participant_ids(parsed, hints.by_name)

    def pid(old: str) -> str:
        return renamed.get(old, old)

    messages = [
        msgspec.structs.replace(
            m,
            from_participant_id=pid(m.from_participant_id),
            to_participant_id=pid(m.to_participant_id),
        )
        for m in parsed.messages
    ]
    notes = [
        msgspec.structs.replace(n, participant_ids=tuple(pid(p) for p in n.participant_ids))
        for n in parsed.notes
    ]
    activations = [
        msgspec.structs.replace(a, participant_id=pid(a.participant_id)) for a in parsed.activations
    ]

    message_ids = _match(
        [
            (m.message_id, (m.from_participant_id, m.to_participant_id, m.kind, m.text))
            for m in messages
        ],
        [
            (h.message_id, (h.from_participant_id, h.to_participant_id, h.kind, h.text))
            for h in hints.messages
        ],
        "m:",
    )
    note_ids = _match(
        [(n.note_id, (n.placement, n.participant_ids, n.text)) for n in notes],
        [(h.note_id, (h.placement, tuple(h.participant_ids), h.text)) for h in hints.notes],
        "note:",
    )
    activation_ids = _match(
        [(a.activation_id, (a.participant_id, a.active)) for a in activations],
        [(h.activation_id, (h.participant_id, h.active)) for h in hints.activations],
        "act:",
    )
    new_message_ids = dict(zip((m.message_id for m in parsed.messages), message_ids, strict=True))

    def mid(old: str | None) -> str | None:
        return None if old is None else new_message_ids.get(old, old)

    participants = {}
    for old_id, participant in parsed.participants.items():
        new_id = pid(old_id)
        note = hints.participant_notes.get(new_id, participant.note)
        participants[new_id] = msgspec.structs.replace(
            participant,
            note=note,
            created_by=mid(participant.created_by),
            destroyed_by=mid(participant.destroyed_by),
        )
    return msgspec.structs.replace(
        parsed,
        participants=participants,
        messages=tuple(
            msgspec.structs.replace(m, message_id=new)
            for m, new in zip(messages, message_ids, strict=True)
        ),
        notes=tuple(
            msgspec.structs.replace(n, note_id=new) for n, new in zip(notes, note_ids, strict=True)
        ),
        activations=tuple(
            msgspec.structs.replace(a, activation_id=new)
            for a, new in zip(activations, activation_ids, strict=True)
        ),
        blocks=_remap_blocks(
            parsed.blocks,
            new_message_ids,
            dict(zip((n.note_id for n in notes), note_ids, strict=True)),
        ),
        autonumber_changes=tuple(
            msgspec.structs.replace(c, message_id=mid(c.message_id))
            for c in parsed.autonumber_changes
        ),
        boxes=tuple(
            msgspec.structs.replace(box, participant_ids=tuple(pid(p) for p in box.participant_ids))
            for box in parsed.boxes
        ),
    )


def _valid_id(value: str) -> bool:
    try:
        check_id(value)
    except IdError:
        return False
    return True


def _participant_ids(parsed: SequenceAst, by_name: dict[str, str]) -> dict[str, str]:
    """Old participant id -> new id (§6.3 "Participants"); walks parsed ids in id order."""
    if not by_name:
        return {}
    assigned: set[str] = set()
    renamed: dict[str, str] = {}
    parsed_ids = set(parsed.participants)
    for old_id in sorted(parsed.participants):
        name = parsed.participants[old_id].mermaid_name
        mapped = by_name.get(name)
        candidate = (
            mapped
            if mapped is not None and _valid_id(mapped) and mapped not in assigned
            else old_id
        )
        if candidate in assigned:
            candidate = (
                old_id if old_id not in assigned else _first_free(old_id, assigned | parsed_ids)
            )
        assigned.add(candidate)
        renamed[old_id] = candidate
    return renamed


def _first_free(base: str, used: set[str]) -> str:
    n = 1
    while f"{base}:reconcile:{n:04d}" in used:
        n += 1
    return f"{base}:reconcile:{n:04d}"


def _match(
    parsed: Sequence[tuple[str, Hashable]],
    known: Sequence[tuple[str, Hashable]],
    prefix: str,
) -> list[str]:
    """New ids for `parsed` items `(parsed id, fingerprint)` given `known` `(id, fingerprint)`.

    Fingerprint hits pop known ids first-in first-out; misses keep their parsed id unless a
    known item owns it (or it is already used), else get a fresh `<prefix>NNNN` above every
    numbered id seen. Skipped entirely when nothing is known.
    """
    if not known:
        return [item_id for item_id, _ in parsed]
    queues: dict[Hashable, deque[str]] = {}
    for item_id, fingerprint in known:
        if _valid_id(item_id):
            queues.setdefault(fingerprint, deque()).append(item_id)
    taken = {item_id for item_id, _ in known}
    counter = _max_number(item_id for item_id, _ in [*known, *parsed])
    used: set[str] = set()

    def fresh() -> str:
        nonlocal counter
        while True:
            counter += 1
            candidate = f"{prefix}{counter:04d}"
            if candidate not in used and candidate not in taken:
                return candidate

    result: list[str] = []
    for item_id, fingerprint in parsed:
        queue = queues.get(fingerprint)
        if queue:
            new_id = queue.popleft()
            if new_id in used:
                new_id = fresh()
        elif item_id in taken or item_id in used:
            new_id = fresh()
        else:
            new_id = item_id
        used.add(new_id)
        result.append(new_id)
    return result


def _max_number(ids: Iterable[str]) -> int:
    best = 0
    for item_id in ids:
        match = _NUMBERED.fullmatch(item_id)
        if match is not None:
            best = max(best, int(match.group(1)))
    return best


def _remap_blocks(
    blocks: tuple[SeqBlock, ...], new_ids: dict[str, str], new_note_ids: dict[str, str]
) -> tuple[SeqBlock, ...]:
    return tuple(
        msgspec.structs.replace(
            block,
            sections=tuple(
                msgspec.structs.replace(
                    section,
                    message_ids=tuple(new_ids.get(m, m) for m in section.message_ids),
                    note_ids=tuple(new_note_ids.get(n, n) for n in section.note_ids),
                )
                for section in block.sections
            ),
            blocks=_remap_blocks(block.blocks, new_ids, new_note_ids),
        )
        for block in blocks
    )
