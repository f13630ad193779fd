"""Sequence op structs: the contract's seven `seq_*` ops plus those for what our model adds.

Field names follow mcp-tools.md §15.0. `arrow` is the contract's arrow: a Mermaid token,
optionally followed by an activation marker `+` / `-`.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from nereid.model import MessageKind
from nereid.ops.base import I64, UNSET, DiagramOpBase, Maybe

__all__ = [
    "NotePlacement",
    "SectionSpec",
    "SeqAddActivation",
    "SeqAddBlock",
    "SeqAddMessage",
    "SeqAddNote",
    "SeqAddParticipant",
    "SeqAddSection",
    "SeqRemoveActivation",
    "SeqRemoveBlock",
    "SeqRemoveMessage",
    "SeqRemoveNote",
    "SeqRemoveParticipant",
    "SeqRemoveSection",
    "SeqSetAutonumber",
    "SeqSetParticipantNote",
    "SeqSetTitle",
    "SeqUpdateBlock",
    "SeqUpdateMessage",
    "SeqUpdateNote",
    "SeqUpdateParticipant",
    "SeqUpdateSection",
]

NotePlacement = Literal["left_of", "right_of", "over"]


class SeqAddParticipant(DiagramOpBase, tag="seq_add_participant", frozen=True):
    """Add a participant. `role` is None (participant), `actor` or a Mermaid v11 type."""

    participant_id: str
    mermaid_name: str
    alias: Maybe[str] = UNSET
    role: Maybe[str] = UNSET


class SeqUpdateParticipant(DiagramOpBase, tag="seq_update_participant", frozen=True):
    """Absent keeps a field; null keeps `mermaid_name` and clears `alias` / `role`."""

    participant_id: str
    mermaid_name: Maybe[str] = UNSET
    alias: Maybe[str] = UNSET
    role: Maybe[str] = UNSET


class SeqSetParticipantNote(DiagramOpBase, tag="seq_set_participant_note", frozen=True):
    """Set the participant's inline note; absent or null clears it."""

    participant_id: str
    note: Maybe[str] = UNSET


class SeqRemoveParticipant(DiagramOpBase, tag="seq_remove_participant", frozen=True):
    """Remove a participant with its messages, activations and the notes that only name it."""

    participant_id: str


class SeqAddMessage(DiagramOpBase, tag="seq_add_message", frozen=True):
    """Add a message; `arrow` absent, null or empty means the kind's canonical token."""

    message_id: str
    from_participant_id: str
    to_participant_id: str
    kind: MessageKind
    text: str
    order_key: I64
    arrow: Maybe[str] = UNSET


class SeqUpdateMessage(DiagramOpBase, tag="seq_update_message", frozen=True):
    """Absent or null keeps a field, except `arrow`: null or `""` resets it to canonical."""

    message_id: str
    from_participant_id: Maybe[str] = UNSET
    to_participant_id: Maybe[str] = UNSET
    kind: Maybe[MessageKind] = UNSET
    arrow: Maybe[str] = UNSET
    text: Maybe[str] = UNSET
    order_key: Maybe[I64] = UNSET


class SeqRemoveMessage(DiagramOpBase, tag="seq_remove_message", frozen=True):
    """Remove a message and its block-section membership."""

    message_id: str


class SeqAddNote(DiagramOpBase, tag="seq_add_note", frozen=True):
    """`Note left of|right of A` (one participant) or `Note over A[,B]` (one or two)."""

    note_id: str
    placement: NotePlacement
    participant_ids: tuple[str, ...]
    text: str
    order_key: I64


class SeqUpdateNote(DiagramOpBase, tag="seq_update_note", frozen=True):
    """Absent or null keeps a field."""

    note_id: str
    placement: Maybe[NotePlacement] = UNSET
    participant_ids: Maybe[tuple[str, ...]] = UNSET
    text: Maybe[str] = UNSET
    order_key: Maybe[I64] = UNSET


class SeqRemoveNote(DiagramOpBase, tag="seq_remove_note", frozen=True):
    note_id: str


class SeqAddActivation(DiagramOpBase, tag="seq_add_activation", frozen=True):
    """An `activate X` (`active: true`) or `deactivate X` statement placed by `order_key`."""

    activation_id: str
    participant_id: str
    active: bool
    order_key: I64


class SeqRemoveActivation(DiagramOpBase, tag="seq_remove_activation", frozen=True):
    activation_id: str


class SeqSetAutonumber(DiagramOpBase, tag="seq_set_autonumber", frozen=True):
    """Turn `autonumber [start [step]]` on (`enabled: true`) or off."""

    enabled: bool
    start: Annotated[int, msgspec.Meta(ge=0, le=2**53)] = 1
    step: Annotated[int, msgspec.Meta(ge=1, le=2**53)] = 1


class SeqSetTitle(DiagramOpBase, tag="seq_set_title", frozen=True):
    """Set the diagram `title`; absent or null clears it."""

    title: Maybe[str] = UNSET


class SectionSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One section of a new block: its id, optional header, member messages and notes."""

    section_id: str
    message_ids: tuple[str, ...]
    header: str | None = None
    note_ids: tuple[str, ...] = ()


class SeqAddBlock(DiagramOpBase, tag="seq_add_block", frozen=True):
    """Add a block (`alt`, `opt`, `loop`, `par`, `critical`, `break`, `rect`).

    The first section is `main`, later ones `else` / `and` / `option` by block kind. The block
    goes into `parent_block_id` (null: top level; absent: the innermost block whose section
    holds all its messages) and adopts the blocks of that level that lie inside it.
    """

    block_id: str
    kind: str
    sections: tuple[SectionSpec, ...]
    header: Maybe[str] = UNSET
    parent_block_id: Maybe[str] = UNSET


class SeqUpdateBlock(DiagramOpBase, tag="seq_update_block", frozen=True):
    """Absent keeps the header; null clears it."""

    block_id: str
    header: Maybe[str] = UNSET


class SeqRemoveBlock(DiagramOpBase, tag="seq_remove_block", frozen=True):
    """Remove the frame only: its child blocks move to its parent, messages stay."""

    block_id: str


class SeqAddSection(DiagramOpBase, tag="seq_add_section", frozen=True):
    """Append a section (`else` / `and` / `option` by block kind) to a block."""

    block_id: str
    section_id: str
    message_ids: tuple[str, ...]
    header: Maybe[str] = UNSET
    note_ids: tuple[str, ...] = ()


class SeqUpdateSection(DiagramOpBase, tag="seq_update_section", frozen=True):
    """Absent keeps a field; null clears the header (and keeps the members)."""

    section_id: str
    header: Maybe[str] = UNSET
    message_ids: Maybe[tuple[str, ...]] = UNSET
    note_ids: Maybe[tuple[str, ...]] = UNSET


class SeqRemoveSection(DiagramOpBase, tag="seq_remove_section", frozen=True):
    """Remove a section; its messages leave the block. A block's only section cannot go."""

    section_id: str
