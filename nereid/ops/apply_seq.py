"""Sequence ops applied to a working copy of a SequenceAst (ops.md §4, docs/ops.md).

`SeqDraft` keeps messages, notes and activations in id-keyed dicts during the batch (each op
sees the previous ones), thaws the block tree only when an op needs it, and at the end sorts
the timeline by `(order_key, id)` and checks that the blocks can still be exported.
"""

from __future__ import annotations

from typing import assert_never

import msgspec

from nereid.errors import InvalidParams, NereidError
from nereid.model import (
    ARROW_KINDS,
    BLOCK_KINDS,
    SEQ_ACTIVATION,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    MessageKind,
    SeqActivation,
    SeqAutonumber,
    SeqAutonumberChange,
    SeqBox,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SequenceAst,
)
from nereid.model.lifelines import lifeline_problem
from nereid.model.writable import sequence_problem
from nereid.ops.base import UNSET, given
from nereid.ops.decode import SeqOp
from nereid.ops.delta import META_KEY, ObjectKey
from nereid.ops.errors import already_exists, invalid_value, not_found
from nereid.ops.rules import (
    check_role,
    check_seq_name,
    clean_seq_text,
    parse_arrow,
    refuse_unwritable,
)
from nereid.ops.seq_blocks import (
    NEXT_SECTION_KIND,
    BlockNode,
    SectionNode,
    check_blocks,
    freeze_blocks,
    iter_tree,
    promote_first_section,
    prune_member,
    thaw_blocks,
)
from nereid.ops.seq_ops import (
    SectionSpec,
    SeqAddActivation,
    SeqAddBlock,
    SeqAddMessage,
    SeqAddNote,
    SeqAddParticipant,
    SeqAddSection,
    SeqRemoveActivation,
    SeqRemoveBlock,
    SeqRemoveMessage,
    SeqRemoveNote,
    SeqRemoveParticipant,
    SeqRemoveSection,
    SeqSetAutonumber,
    SeqSetParticipantNote,
    SeqSetTitle,
    SeqUpdateBlock,
    SeqUpdateMessage,
    SeqUpdateNote,
    SeqUpdateParticipant,
    SeqUpdateSection,
)

__all__ = ["SeqDraft"]

replace = msgspec.structs.replace
_TIMELINE = (SEQ_MESSAGE, SEQ_NOTE, SEQ_BLOCK, SEQ_SECTION)


def _single_section(block_id: str, kind: str) -> NereidError:
    return InvalidParams("block kind has only one section", {"block_id": block_id, "kind": kind})


class SeqDraft:
    """A mutable working copy of one sequence diagram for the length of one batch."""

    def __init__(self, ast: SequenceAst) -> None:
        self.base = ast
        self.participants = dict(ast.participants)
        self.messages = {m.message_id: m for m in ast.messages}
        self.notes = {n.note_id: n for n in ast.notes}
        self.activations = {a.activation_id: a for a in ast.activations}
        self.autonumber = ast.autonumber
        self.title = ast.title
        self.boxes = ast.boxes
        self._tree: list[BlockNode] | None = None
        self.touched: set[ObjectKey] = set()

    # -- results -------------------------------------------------------------------------

    def finish(self) -> SequenceAst:
        """Sort the timeline, check the blocks, and build the new AST."""
        messages = sorted(self.messages.values(), key=lambda m: (m.order_key, m.message_id))
        blocks = self.base.blocks
        needs_check = self._tree is not None or any(c in _TIMELINE for c, _ in self.touched)
        if needs_check and (blocks or self._tree):
            tree = self.tree()
            anchors = [(m.order_key, m.message_id) for m in messages]
            anchors += [(n.order_key, n.note_id) for n in self.notes.values()]
            anchors.sort()
            order = [item_id for _, item_id in anchors]
            check_blocks(tree, order, self._touch, frozenset(self.notes))
            blocks = freeze_blocks(tree)
        self._settle_lifelines(messages)
        changes = self._settle_numbering(messages)
        first = messages[0].message_id if messages else None
        while self.autonumber is None and changes and changes[0].message_id == first:
            # Nothing is numbered before the first message: a change there that turns
            # numbering on is the diagram's numbering (which is how the text reads back).
            change, changes = changes[0], changes[1:]
            if change.on:
                self.autonumber = SeqAutonumber(start=change.start or 1, step=change.step or 1)
            elif not any(c.message_id == first for c in changes):
                changes = (change, *changes)
                break
            self._touch(META_KEY)
        ast = replace(
            self.base,
            autonumber_changes=changes,
            participants=self.participants,
            messages=tuple(messages),
            notes=tuple(sorted(self.notes.values(), key=lambda n: (n.order_key, n.note_id))),
            activations=tuple(
                sorted(self.activations.values(), key=lambda a: (a.order_key, a.activation_id))
            ),
            blocks=blocks,
            autonumber=self.autonumber,
            title=self.title,
            boxes=self.boxes,
        )
        refuse_unwritable(sequence_problem(ast, self.touched))
        return ast

    def _settle_lifelines(self, messages: list[SeqMessage]) -> None:
        """docs/ops.md "Lifelines": a creation or destruction whose message is gone, no longer
        involves the participant, or would not read back in order is dropped (the participant
        then lives for the whole diagram at that end)."""
        by_id = {m.message_id: m for m in messages}
        for pid, participant in list(self.participants.items()):
            created, destroyed = participant.created_by, participant.destroyed_by
            if created is not None and (
                created not in by_id or by_id[created].to_participant_id != pid
            ):
                created = None
            if destroyed is not None and (
                destroyed not in by_id
                or pid
                not in (by_id[destroyed].from_participant_id, by_id[destroyed].to_participant_id)
            ):
                destroyed = None
            if (created, destroyed) != (participant.created_by, participant.destroyed_by):
                self._set_participant(
                    pid, replace(participant, created_by=created, destroyed_by=destroyed)
                )
        while True:
            draft = replace(
                self.base,
                participants=self.participants,
                messages=tuple(messages),
                notes=tuple(self.notes.values()),
                activations=tuple(self.activations.values()),
            )
            problem = lifeline_problem(draft)
            if problem is None:
                return
            pid = problem[0]
            self._set_participant(pid, replace(self.participants[pid], created_by=None))

    def _settle_numbering(self, messages: list[SeqMessage]) -> tuple[SeqAutonumberChange, ...]:
        """An `autonumber` change whose message is removed moves to the next message that is
        still there in the original order (or after the last one)."""
        changes = self.base.autonumber_changes
        if not changes:
            return ()
        alive = {m.message_id for m in messages}
        order = [m.message_id for m in self.base.messages]
        settled: list[SeqAutonumberChange] = []
        for change in changes:
            anchor = change.message_id
            if anchor is not None and anchor not in alive:
                start = order.index(anchor) + 1 if anchor in order else len(order)
                anchor = next((m for m in order[start:] if m in alive), None)
                self._touch(META_KEY)
            settled.append(
                change if anchor == change.message_id else replace(change, message_id=anchor)
            )
        # Kept in timeline order of their messages (as the text lists them), stable.
        at = {m.message_id: index for index, m in enumerate(messages)}
        settled.sort(key=lambda c: at.get(c.message_id or "", len(at)))
        return tuple(settled)

    # -- helpers -------------------------------------------------------------------------

    def tree(self) -> list[BlockNode]:
        if self._tree is None:
            self._tree = thaw_blocks(self.base.blocks)
        return self._tree

    def _touch(self, key: ObjectKey) -> None:
        self.touched.add(key)

    def _participant(self, participant_id: str) -> SeqParticipant:
        participant = self.participants.get(participant_id)
        if participant is None:
            raise not_found("SeqParticipant", participant_id)
        return participant

    def _message(self, message_id: str) -> SeqMessage:
        message = self.messages.get(message_id)
        if message is None:
            raise not_found("SeqMessage", message_id)
        return message

    def _set_participant(self, participant_id: str, participant: SeqParticipant) -> None:
        self.participants[participant_id] = participant
        self._touch((SEQ_PARTICIPANT, participant_id))

    def _set_message(self, message: SeqMessage) -> None:
        self.messages[message.message_id] = message
        self._touch((SEQ_MESSAGE, message.message_id))

    def _set_note(self, note: SeqNote) -> None:
        self.notes[note.note_id] = note
        self._touch((SEQ_NOTE, note.note_id))

    def _check_name(self, participant_id: str, name: str) -> str:
        check_seq_name(name)
        for other_id, other in self.participants.items():
            if other_id != participant_id and other.mermaid_name == name:
                raise InvalidParams(
                    "participant Mermaid name already in use",
                    {"mermaid_name": name, "participant_id": other_id},
                )
        return name

    def _find_block(self, block_id: str) -> tuple[BlockNode, list[BlockNode], BlockNode | None]:
        for found in iter_tree(self.tree()):
            if found[0].block_id == block_id:
                return found
        raise not_found("SeqBlock", block_id)

    def _find_section(
        self, section_id: str
    ) -> tuple[SectionNode, BlockNode, list[BlockNode], BlockNode | None]:
        for block, container, owner in iter_tree(self.tree()):
            for section in block.sections:
                if section.section_id == section_id:
                    return section, block, container, owner
        raise not_found("SeqSection", section_id)

    def _block_exists(self, block_id: str) -> bool:
        return any(b.block_id == block_id for b, _, _ in iter_tree(self.tree()))

    def _section_exists(self, section_id: str) -> bool:
        return any(
            s.section_id == section_id for b, _, _ in iter_tree(self.tree()) for s in b.sections
        )

    def _member_ids(self, message_ids: tuple[str, ...]) -> list[str]:
        for message_id in message_ids:
            self._message(message_id)
        if len(set(message_ids)) != len(message_ids):
            raise invalid_value("message_ids", list(message_ids), "lists a message twice")
        return list(message_ids)

    def _member_note_ids(self, note_ids: tuple[str, ...]) -> list[str]:
        for note_id in note_ids:
            if note_id not in self.notes:
                raise not_found("SeqNote", note_id)
        if len(set(note_ids)) != len(note_ids):
            raise invalid_value("note_ids", list(note_ids), "lists a note twice")
        return list(note_ids)

    def _note_participants(self, placement: str, participant_ids: tuple[str, ...]) -> None:
        for participant_id in participant_ids:
            self._participant(participant_id)
        allowed = (1, 2) if placement == "over" else (1,)
        if len(participant_ids) not in allowed:
            raise invalid_value(
                "participant_ids",
                list(participant_ids),
                "a note over names one or two participants"
                if placement == "over"
                else f"a note {placement} names exactly one participant",
            )

    # -- ops -----------------------------------------------------------------------------

    def apply(self, op: SeqOp) -> None:
        """Apply one op; raise NereidError (the draft is then discarded by the caller)."""
        match op:
            case SeqAddParticipant():
                if op.participant_id in self.participants:
                    raise already_exists("SeqParticipant", op.participant_id)
                name = self._check_name(op.participant_id, op.mermaid_name)
                alias = clean_seq_text("alias", op.alias) if given(op.alias) else None
                role = check_role(op.role) if given(op.role) else None
                self._set_participant(
                    op.participant_id, SeqParticipant(mermaid_name=name, alias=alias, role=role)
                )
            case SeqUpdateParticipant():
                participant = self._participant(op.participant_id)
                if given(op.mermaid_name):
                    name = self._check_name(op.participant_id, op.mermaid_name)
                    participant = replace(participant, mermaid_name=name)
                if op.alias is not UNSET:
                    alias = clean_seq_text("alias", op.alias) if op.alias is not None else None
                    participant = replace(participant, alias=alias)
                if op.role is not UNSET:
                    role = check_role(op.role) if op.role is not None else None
                    participant = replace(participant, role=role)
                self._set_participant(op.participant_id, participant)
            case SeqSetParticipantNote():
                participant = self._participant(op.participant_id)
                note = op.note if given(op.note) else None
                self._set_participant(op.participant_id, replace(participant, note=note))
            case SeqRemoveParticipant():
                self._remove_participant(op.participant_id)
            case SeqAddMessage():
                self._add_message(op)
            case SeqUpdateMessage():
                self._update_message(op)
            case SeqRemoveMessage():
                self._message(op.message_id)
                self._remove_message(op.message_id)
            case SeqAddNote():
                if op.note_id in self.notes:
                    raise already_exists("SeqNote", op.note_id)
                self._note_participants(op.placement, op.participant_ids)
                text = clean_seq_text("text", op.text)
                self._set_note(
                    SeqNote(
                        note_id=op.note_id,
                        placement=op.placement,
                        participant_ids=op.participant_ids,
                        text=text,
                        order_key=op.order_key,
                    )
                )
            case SeqUpdateNote():
                existing = self.notes.get(op.note_id)
                if existing is None:
                    raise not_found("SeqNote", op.note_id)
                placement = op.placement if given(op.placement) else existing.placement
                ids = op.participant_ids if given(op.participant_ids) else existing.participant_ids
                self._note_participants(placement, ids)
                text = clean_seq_text("text", op.text) if given(op.text) else existing.text
                order_key = op.order_key if given(op.order_key) else existing.order_key
                self._set_note(
                    replace(
                        existing,
                        placement=placement,
                        participant_ids=ids,
                        text=text,
                        order_key=order_key,
                    )
                )
            case SeqRemoveNote():
                if op.note_id not in self.notes:
                    raise not_found("SeqNote", op.note_id)
                del self.notes[op.note_id]
                self._touch((SEQ_NOTE, op.note_id))
                if self.base.blocks or self._tree:
                    self._tree = prune_member(self.tree(), op.note_id, self._touch)
            case SeqAddActivation():
                if op.activation_id in self.activations:
                    raise already_exists("SeqActivation", op.activation_id)
                self._participant(op.participant_id)
                self.activations[op.activation_id] = SeqActivation(
                    activation_id=op.activation_id,
                    participant_id=op.participant_id,
                    active=op.active,
                    order_key=op.order_key,
                )
                self._touch((SEQ_ACTIVATION, op.activation_id))
            case SeqRemoveActivation():
                if op.activation_id not in self.activations:
                    raise not_found("SeqActivation", op.activation_id)
                del self.activations[op.activation_id]
                self._touch((SEQ_ACTIVATION, op.activation_id))
            case SeqSetAutonumber():
                self.autonumber = (
                    SeqAutonumber(start=op.start, step=op.step) if op.enabled else None
                )
                self._touch(META_KEY)
            case SeqSetTitle():
                self.title = clean_seq_text("title", op.title) if given(op.title) else None
                self._touch(META_KEY)
            case SeqAddBlock():
                self._add_block(op)
            case SeqUpdateBlock():
                block, _, _ = self._find_block(op.block_id)
                if op.header is not UNSET:
                    block.header = (
                        clean_seq_text("header", op.header) if op.header is not None else None
                    )
                self._touch((SEQ_BLOCK, block.block_id))
            case SeqRemoveBlock():
                self._remove_block(op.block_id)
            case SeqAddSection():
                self._add_section(op)
            case SeqUpdateSection():
                self._update_section(op)
            case SeqRemoveSection():
                self._remove_section(op.section_id)
            case _:
                assert_never(op)

    def _remove_participant(self, participant_id: str) -> None:
        self._participant(participant_id)
        for message in list(self.messages.values()):
            if participant_id in (message.from_participant_id, message.to_participant_id):
                self._remove_message(message.message_id)
        for activation in list(self.activations.values()):
            if activation.participant_id == participant_id:
                del self.activations[activation.activation_id]
                self._touch((SEQ_ACTIVATION, activation.activation_id))
        for note in list(self.notes.values()):
            if participant_id in note.participant_ids:
                rest = tuple(p for p in note.participant_ids if p != participant_id)
                if rest:
                    self._set_note(replace(note, participant_ids=rest))
                else:
                    del self.notes[note.note_id]
                    self._touch((SEQ_NOTE, note.note_id))
        self._leave_boxes(participant_id)
        del self.participants[participant_id]
        self._touch((SEQ_PARTICIPANT, participant_id))

    def _leave_boxes(self, participant_id: str) -> None:
        """Take a removed participant out of its box; a box left empty goes too.

        Boxes are diagram-level (no object of their own), so a change shows as the meta
        pseudo-object in the delta. The rest of a box stays consecutive, so it still exports.
        """
        if not any(participant_id in box.participant_ids for box in self.boxes):
            return
        boxes: list[SeqBox] = []
        for box in self.boxes:
            rest = tuple(p for p in box.participant_ids if p != participant_id)
            if rest:
                boxes.append(
                    box if rest == box.participant_ids else replace(box, participant_ids=rest)
                )
        self.boxes = tuple(boxes)
        self._touch(META_KEY)

    def _remove_message(self, message_id: str) -> None:
        del self.messages[message_id]
        self._touch((SEQ_MESSAGE, message_id))
        if self.base.blocks or self._tree:
            self._tree = prune_member(self.tree(), message_id, self._touch)

    def _add_message(self, op: SeqAddMessage) -> None:
        if op.message_id in self.messages:
            raise already_exists("SeqMessage", op.message_id)
        self._participant(op.from_participant_id)
        self._participant(op.to_participant_id)
        text = clean_seq_text("text", op.text)
        arrow, activation = parse_arrow(op.arrow, op.kind) if given(op.arrow) else (None, None)
        self._set_message(
            SeqMessage(
                message_id=op.message_id,
                from_participant_id=op.from_participant_id,
                to_participant_id=op.to_participant_id,
                kind=op.kind,
                text=text,
                order_key=op.order_key,
                arrow=arrow,
                activation=activation,
            )
        )

    def _update_message(self, op: SeqUpdateMessage) -> None:
        message = self._message(op.message_id)
        from_id = (
            op.from_participant_id if given(op.from_participant_id) else message.from_participant_id
        )
        to_id = op.to_participant_id if given(op.to_participant_id) else message.to_participant_id
        self._participant(from_id)
        self._participant(to_id)
        kind: MessageKind = message.kind if op.kind is None or op.kind is UNSET else op.kind
        arrow, activation = message.arrow, message.activation
        if op.arrow is UNSET:
            if arrow is not None and ARROW_KINDS.get(arrow) != kind:
                arrow = None  # the stored token belongs to the old kind: fall back to canonical
        elif op.arrow is None:
            arrow, activation = None, None
        else:
            arrow, parsed_activation = parse_arrow(op.arrow, kind)
            activation = parsed_activation
        text = clean_seq_text("text", op.text) if given(op.text) else message.text
        order_key = op.order_key if given(op.order_key) else message.order_key
        self._set_message(
            replace(
                message,
                from_participant_id=from_id,
                to_participant_id=to_id,
                kind=kind,
                arrow=arrow,
                activation=activation,
                text=text,
                order_key=order_key,
            )
        )

    def _sections_from(
        self, block_id: str, kind: str, specs: tuple[SectionSpec, ...]
    ) -> list[SectionNode]:
        seen: set[str] = set()
        sections: list[SectionNode] = []
        for index, spec in enumerate(specs):
            if spec.section_id in seen or self._section_exists(spec.section_id):
                raise already_exists("SeqSection", spec.section_id)
            seen.add(spec.section_id)
            section_kind = "main" if index == 0 else NEXT_SECTION_KIND.get(kind)
            if section_kind is None:
                raise _single_section(block_id, kind)
            header = None
            if spec.header is not None:
                if index == 0:
                    raise invalid_value(
                        "header",
                        spec.header,
                        "the main section has no header; set the block's header instead",
                    )
                header = clean_seq_text("header", spec.header)
            members = self._member_ids(spec.message_ids)
            notes = self._member_note_ids(spec.note_ids)
            sections.append(SectionNode(spec.section_id, section_kind, header, members, notes))
        return sections

    def _add_block(self, op: SeqAddBlock) -> None:
        if self._block_exists(op.block_id):
            raise already_exists("SeqBlock", op.block_id)
        if op.kind not in BLOCK_KINDS:
            raise invalid_value("kind", op.kind, f"must be one of {', '.join(BLOCK_KINDS)}")
        if not op.sections:
            raise invalid_value("sections", [], "a block needs at least one section")
        sections = self._sections_from(op.block_id, op.kind, op.sections)
        header = clean_seq_text("header", op.header) if given(op.header) else None
        block = BlockNode(op.block_id, op.kind, header, sections)
        members = block.member_ids()
        parent: BlockNode | None
        if op.parent_block_id is UNSET:
            parent = _innermost(self.tree(), members)
        elif op.parent_block_id is None:
            parent = None
        else:
            parent = self._find_block(op.parent_block_id)[0]
        siblings = parent.blocks if parent is not None else self.tree()
        for sibling in list(siblings):
            inner = sibling.member_ids()
            if any(inner <= s.members() for s in sections):
                siblings.remove(sibling)
                block.blocks.append(sibling)
        siblings.append(block)
        if parent is not None:
            self._touch((SEQ_BLOCK, parent.block_id))
        self._touch((SEQ_BLOCK, block.block_id))
        for section in sections:
            self._touch((SEQ_SECTION, section.section_id))

    def _remove_block(self, block_id: str) -> None:
        block, container, owner = self._find_block(block_id)
        index = container.index(block)
        container[index : index + 1] = block.blocks
        if owner is not None:
            self._touch((SEQ_BLOCK, owner.block_id))
        self._touch((SEQ_BLOCK, block_id))
        for section in block.sections:
            self._touch((SEQ_SECTION, section.section_id))

    def _add_section(self, op: SeqAddSection) -> None:
        block, _, _ = self._find_block(op.block_id)
        if self._section_exists(op.section_id):
            raise already_exists("SeqSection", op.section_id)
        kind = NEXT_SECTION_KIND.get(block.kind)
        if kind is None:
            raise _single_section(block.block_id, block.kind)
        header = clean_seq_text("header", op.header) if given(op.header) else None
        members = self._member_ids(op.message_ids)
        notes = self._member_note_ids(op.note_ids)
        block.sections.append(SectionNode(op.section_id, kind, header, members, notes))
        self._touch((SEQ_BLOCK, block.block_id))
        self._touch((SEQ_SECTION, op.section_id))

    def _update_section(self, op: SeqUpdateSection) -> None:
        section, _, _, _ = self._find_section(op.section_id)
        if op.header is not UNSET:
            if op.header is not None and section.kind == "main":
                raise invalid_value(
                    "header",
                    op.header,
                    "the main section has no header; set the block's header instead",
                )
            section.header = clean_seq_text("header", op.header) if op.header is not None else None
        if given(op.message_ids):
            section.message_ids = self._member_ids(op.message_ids)
        if given(op.note_ids):
            section.note_ids = self._member_note_ids(op.note_ids)
        self._touch((SEQ_SECTION, op.section_id))

    def _remove_section(self, section_id: str) -> None:
        section, block, container, owner = self._find_section(section_id)
        if len(block.sections) == 1:
            raise InvalidParams(
                "a block needs at least one section",
                {"block_id": block.block_id, "section_id": section_id},
            )
        index = block.sections.index(section)
        del block.sections[index]
        self._touch((SEQ_SECTION, section_id))
        self._touch((SEQ_BLOCK, block.block_id))
        leaving = section.members()
        lifted = [c for c in block.blocks if c.member_ids() <= leaving]
        if lifted:
            block.blocks = [c for c in block.blocks if c not in lifted]
            position = container.index(block) + 1
            container[position:position] = lifted
            if owner is not None:
                self._touch((SEQ_BLOCK, owner.block_id))
        if index == 0:
            promote_first_section(block, self._touch)


def _innermost(blocks: list[BlockNode], members: set[str]) -> BlockNode | None:
    """The deepest block with a section holding every message and note in `members`."""
    for block in blocks:
        for section in block.sections:
            if members <= section.members():
                return _innermost(block.blocks, members) or block
    return None
