"""Sequence blocks during a batch: a mutable tree, membership pruning, and the export check.

Ops edit blocks structurally; `check_blocks` then proves the result can be written as
Mermaid (mermaid.md §7.2 item 4): every section non-empty, its members a contiguous run,
sections back to back, child blocks inside one section of their parent, siblings apart,
nesting at most 8 deep. Positions count messages and notes (a section's members, so a note
written first, last or alone in a section stays in it); activation statements are placed by
`order_key` and belong to no section.

A note an op puts between two members of a section (by its `order_key`) joins that section,
as the text would read it; one between two sections of a block joins the earlier one; one
before or after a whole block stays outside it (`note_ids` of a section put it inside).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from nereid.errors import InvalidParams, NereidError
from nereid.model import SEQ_BLOCK, SEQ_SECTION, SeqBlock, SeqSection
from nereid.ops.delta import ObjectKey

__all__ = [
    "MAX_DEPTH",
    "NEXT_SECTION_KIND",
    "BlockNode",
    "SectionNode",
    "block_error",
    "check_blocks",
    "freeze_blocks",
    "iter_tree",
    "promote_first_section",
    "prune_member",
    "thaw_blocks",
]

#: Kind of every section after the first, by block kind; other kinds have one section.
NEXT_SECTION_KIND: Final = {"alt": "else", "par": "and", "par_over": "and", "critical": "option"}
MAX_DEPTH: Final = 8


@dataclass
class SectionNode:
    section_id: str
    kind: str
    header: str | None
    message_ids: list[str]
    note_ids: list[str] = field(default_factory=list)

    def members(self) -> set[str]:
        return {*self.message_ids, *self.note_ids}


@dataclass
class BlockNode:
    block_id: str
    kind: str
    header: str | None
    sections: list[SectionNode]
    blocks: list[BlockNode] = field(default_factory=list)

    def member_ids(self) -> set[str]:
        """Every message and note of the block's sections."""
        return {m for s in self.sections for m in s.members()}


def thaw_blocks(blocks: tuple[SeqBlock, ...]) -> list[BlockNode]:
    return [
        BlockNode(
            block_id=b.block_id,
            kind=b.kind,
            header=b.header,
            sections=[
                SectionNode(s.section_id, s.kind, s.header, list(s.message_ids), list(s.note_ids))
                for s in b.sections
            ],
            blocks=thaw_blocks(b.blocks),
        )
        for b in blocks
    ]


def freeze_blocks(blocks: list[BlockNode]) -> tuple[SeqBlock, ...]:
    return tuple(
        SeqBlock(
            block_id=b.block_id,
            kind=b.kind,
            header=b.header,
            sections=tuple(
                SeqSection(
                    section_id=s.section_id,
                    kind=s.kind,
                    header=s.header,
                    message_ids=tuple(s.message_ids),
                    note_ids=tuple(s.note_ids),
                )
                for s in b.sections
            ),
            blocks=freeze_blocks(b.blocks),
        )
        for b in blocks
    )


def iter_tree(
    blocks: list[BlockNode], owner: BlockNode | None = None
) -> Iterator[tuple[BlockNode, list[BlockNode], BlockNode | None]]:
    """Every block with the list holding it and its parent block (None at top level)."""
    for block in blocks:
        yield block, blocks, owner
        yield from iter_tree(block.blocks, block)


def block_error(block_id: str, reason: str) -> NereidError:
    return InvalidParams("invalid block structure", {"block_id": block_id, "reason": reason})


def promote_first_section(block: BlockNode, touch: Callable[[ObjectKey], None]) -> None:
    """After the first section went away, the next one becomes `main`; its header (the
    condition people read) moves to the block."""
    first = block.sections[0]
    block.header = first.header
    first.kind, first.header = "main", None
    touch((SEQ_BLOCK, block.block_id))
    touch((SEQ_SECTION, first.section_id))


def prune_member(
    blocks: list[BlockNode], item_id: str, touch: Callable[[ObjectKey], None]
) -> list[BlockNode]:
    """Remove a message or note from every section; drop sections and blocks left empty.

    Returns the new list for this level; every changed or removed object is touched.
    """
    kept: list[BlockNode] = []
    for block in blocks:
        before = [c.block_id for c in block.blocks]
        block.blocks = prune_member(block.blocks, item_id, touch)
        if [c.block_id for c in block.blocks] != before:
            touch((SEQ_BLOCK, block.block_id))
        first_id = block.sections[0].section_id if block.sections else None
        sections: list[SectionNode] = []
        for section in block.sections:
            if item_id in section.members():
                section.message_ids = [m for m in section.message_ids if m != item_id]
                section.note_ids = [n for n in section.note_ids if n != item_id]
                touch((SEQ_SECTION, section.section_id))
            if section.message_ids or section.note_ids:
                sections.append(section)
            else:
                touch((SEQ_BLOCK, block.block_id))
        block.sections = sections
        if not sections:
            touch((SEQ_BLOCK, block.block_id))
            kept.extend(block.blocks)
            continue
        if sections[0].section_id != first_id:
            promote_first_section(block, touch)
        kept.append(block)
    return kept


def _ignore(key: ObjectKey) -> None:
    return None


def check_blocks(
    blocks: list[BlockNode],
    order: list[str],
    touch: Callable[[ObjectKey], None] = _ignore,
    notes: frozenset[str] = frozenset(),
) -> None:
    """Raise `invalid block structure` unless the tree can be exported (module docstring).

    `order` is every message and note id in timeline order, `notes` the note ids among them.
    As a side effect, notes lying inside a section join it, section members and sibling
    blocks are put in document order; `touch` hears of each section or block whose list
    that changed.
    """
    position = {item_id: i for i, item_id in enumerate(order)}
    _adopt_notes(blocks, position, order, notes, touch)
    _check_level(blocks, position, order, 1, None, touch, notes)


def _adopt_notes(
    blocks: list[BlockNode],
    position: dict[str, int],
    order: list[str],
    notes: frozenset[str],
    touch: Callable[[ObjectKey], None],
) -> None:
    """Put each note lying between two members of a block's sections into the section the
    text would hold it in (the earlier one at a section boundary), level by level."""
    owned = {item_id for block in blocks for item_id in block.member_ids()}
    for block in blocks:
        spans = []
        for section in block.sections:
            spots = [position[m] for m in section.members() if m in position]
            if spots:
                spans.append((min(spots), max(spots), section))
        if spans:
            start, stop = min(s[0] for s in spans), max(s[1] for s in spans)
            for spot in range(start + 1, stop):
                item_id = order[spot]
                if item_id not in notes or item_id in owned:
                    continue  # a message, or a note some block of this level holds already
                owned.add(item_id)
                home = max((s for s in spans if s[0] < spot), key=lambda s: s[0])[2]
                home.note_ids.append(item_id)
                touch((SEQ_SECTION, home.section_id))
        _adopt_notes(block.blocks, position, order, notes, touch)


def _check_level(
    blocks: list[BlockNode],
    position: dict[str, int],
    order: list[str],
    depth: int,
    owner: BlockNode | None,
    touch: Callable[[ObjectKey], None],
    notes: frozenset[str],
) -> None:
    spans: list[tuple[int, int, BlockNode]] = []
    for block in blocks:
        if depth > MAX_DEPTH:
            raise block_error(block.block_id, f"blocks are nested more than {MAX_DEPTH} deep")
        first, last = _check_block(block, position, order, depth, touch, notes)
        spans.append((first, last, block))
    spans.sort(key=lambda span: span[0])
    ordered = [block for _, _, block in spans]
    if ordered != blocks and owner is not None:
        touch((SEQ_BLOCK, owner.block_id))
    blocks[:] = ordered
    for (_, last, previous), (first, _, block) in zip(spans, spans[1:], strict=False):
        if first <= last:
            raise block_error(block.block_id, f"overlaps block {previous.block_id}")


def _check_block(
    block: BlockNode,
    position: dict[str, int],
    order: list[str],
    depth: int,
    touch: Callable[[ObjectKey], None],
    notes: frozenset[str],
) -> tuple[int, int]:
    if not block.sections:
        raise block_error(block.block_id, "has no sections")
    if block.kind == "rect" and block.header is None:
        raise block_error(block.block_id, "a rect block needs a colour header")
    previous: tuple[str, int] | None = None
    for index, section in enumerate(block.sections):
        expected = "main" if index == 0 else NEXT_SECTION_KIND.get(block.kind)
        if expected is None:
            raise block_error(block.block_id, f"a {block.kind} block has only one section")
        if section.kind != expected:
            raise block_error(block.block_id, f"section {section.section_id} must be {expected!r}")
        ids = section.message_ids + section.note_ids
        if not ids:
            raise block_error(block.block_id, f"section {section.section_id} is empty")
        for item_id in ids:
            if item_id not in position:
                what = "message" if item_id in section.message_ids else "note"
                raise block_error(
                    block.block_id,
                    f"section {section.section_id} lists unknown {what} {item_id}",
                )
        if len(set(ids)) != len(ids):
            raise block_error(
                block.block_id, f"section {section.section_id} lists a message or note twice"
            )
        spots = sorted(position[m] for m in ids)
        for attribute, listed in (
            ("message_ids", section.message_ids),
            ("note_ids", section.note_ids),
        ):
            in_order = [order[i] for i in spots if order[i] in set(listed)]
            if in_order != listed:
                setattr(section, attribute, in_order)
                touch((SEQ_SECTION, section.section_id))
        if spots[-1] - spots[0] + 1 != len(spots):
            inside = next(order[i] for i in range(spots[0], spots[-1]) if order[i] not in set(ids))
            what = "note" if inside in notes else "message"
            raise block_error(
                block.block_id,
                f"section {section.section_id} is not a contiguous run of messages: "
                f"{what} {inside} lies inside it but is not a member",
            )
        if previous is not None:
            previous_id, previous_last = previous
            if spots[0] <= previous_last:
                raise block_error(
                    block.block_id,
                    f"section {section.section_id} overlaps section {previous_id}",
                )
            if spots[0] != previous_last + 1:
                between = order[previous_last + 1]
                raise block_error(
                    block.block_id,
                    f"{'note' if between in notes else 'message'} {between} lies between "
                    f"sections {previous_id} and {section.section_id}",
                )
        previous = (section.section_id, spots[-1])
    for child in block.blocks:
        child_ids = child.member_ids()
        if not any(child_ids <= s.members() for s in block.sections):
            raise block_error(
                child.block_id, f"does not lie inside one section of block {block.block_id}"
            )
    _check_level(block.blocks, position, order, depth + 1, block, touch, notes)
    first = min(position[m] for m in block.sections[0].members())
    assert previous is not None
    return first, previous[1]
