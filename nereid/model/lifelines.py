"""Where participants' lifelines start and end (`create` / `destroy`), and whether the
participant order can be written back with them.

A created participant is declared in Mermaid right before its creating message, so its place
in participant order is fixed by that message. `declaration_slots` says where each
declaration goes; `lifeline_problem` says whether reading that text back gives the same
order. The exporter refuses what `lifeline_problem` reports; the ops layer instead drops the
creation it names (docs/ops.md, "Lifelines").
"""

from __future__ import annotations

from nereid.model.sequence import SequenceAst

__all__ = ["declaration_slots", "lifeline_problem"]


def declaration_slots(ast: SequenceAst) -> dict[str, str]:
    """Participant id -> the creating message its declaration is written before.

    A created participant is declared (`create ...`) right before its creating message; every
    other participant after it in participant order right after that, so that reading the
    text back gives the same participant order. Participants before the first created one
    are declared at the top (absent from the result).
    """
    slots: dict[str, str] = {}
    current: str | None = None
    for pid, participant in ast.participants.items():
        if participant.created_by is not None:
            current = participant.created_by
        if current is not None:
            slots[pid] = current
    return slots


def lifeline_problem(ast: SequenceAst) -> tuple[str, str] | None:
    """The first created participant whose creation would not read back, and why; or None.

    Checks what `export_sequence` relies on: the creating messages come in participant order,
    and no participant declared at or after a creation is used before that message (it would
    then appear earlier in participant order, or be created twice).
    """
    slots = declaration_slots(ast)
    if not slots:
        return None
    timeline: list[tuple[int, str, tuple[str, ...]]] = [
        (m.order_key, m.message_id, (m.from_participant_id, m.to_participant_id))
        for m in ast.messages
    ]
    timeline += [(n.order_key, n.note_id, n.participant_ids) for n in ast.notes]
    timeline += [(a.order_key, a.activation_id, (a.participant_id,)) for a in ast.activations]
    timeline.sort(key=lambda item: (item[0], item[1]))
    position = {item_id: index for index, (_, item_id, _) in enumerate(timeline)}
    first_use: dict[str, int] = {}
    for index, (_, _, who) in enumerate(timeline):
        for pid in who:
            first_use.setdefault(pid, index)
    last_slot = -1
    owner: str | None = None
    for pid, participant in ast.participants.items():
        if participant.created_by is not None:
            message_at = position.get(participant.created_by)
            if message_at is None:
                return pid, f"its creating message {participant.created_by} is missing"
            if message_at < last_slot:
                return pid, "it is created before a participant that comes earlier in order"
            last_slot, owner = message_at, pid
        if pid in slots and first_use.get(pid, last_slot) < last_slot:
            assert owner is not None
            return owner, f"participant {pid} is used before the creating message"
    return None
