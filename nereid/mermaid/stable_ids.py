"""The ids a re-import keeps: a fresh parse gets the previous AST's ids where objects match.

`reconcile_parse` is the one rule for taking in a text over a diagram of any kind (an agent's
`diagram.replace_from_mermaid`, the person's editor, a file edited outside): nodes, edges,
participants, messages, notes and transitions by the hints of `reconcile.py` and
`reconcile_sequence.py` / `state_ids.py`; a sequence's order keys and block/section ids,
which a parse numbers by position, by `restore_order_keys` / `restore_block_ids`. The store
records the same positions in the side-car (`order_keys_of`, `block_ids_of`).
"""

from __future__ import annotations

import msgspec

from nereid.mermaid.reconcile import FlowIdHints, reconcile_flowchart
from nereid.mermaid.reconcile_sequence import SeqIdHints, reconcile_sequence
from nereid.mermaid.state_ids import StateIdHints, reconcile_state
from nereid.model import Ast, FlowchartAst, SeqBlock, SequenceAst, StateAst

__all__ = [
    "block_ids_of",
    "order_keys_of",
    "reconcile_parse",
    "restore_block_ids",
    "restore_order_keys",
]


def reconcile_parse(parsed: Ast, previous: Ast) -> Ast:
    """Give the parse the ids of the previous AST where objects match (stable ids).

    A parse of another kind than `previous` is returned as it is (the caller checks kinds).
    """
    if isinstance(parsed, FlowchartAst) and isinstance(previous, FlowchartAst):
        return reconcile_flowchart(parsed, FlowIdHints.from_ast(previous))
    if isinstance(parsed, SequenceAst) and isinstance(previous, SequenceAst):
        # Order keys and block/section ids are positional in the text: keep the previous
        # ones where they still fit, so the unchanged text of a diagram changes nothing.
        ast = reconcile_sequence(parsed, SeqIdHints.from_ast(previous))
        ast = restore_order_keys(ast, order_keys_of(previous))
        return restore_block_ids(ast, block_ids_of(previous))
    if isinstance(parsed, StateAst) and isinstance(previous, StateAst):
        return reconcile_state(parsed, StateIdHints.from_ast(previous))
    return parsed


def _blocks_in_order(blocks: tuple[SeqBlock, ...]) -> list[SeqBlock]:
    """Every block, nested ones right after their parent (document order)."""
    found: list[SeqBlock] = []
    for block in blocks:
        found.append(block)
        found.extend(_blocks_in_order(block.blocks))
    return found


def block_ids_of(ast: SequenceAst) -> list[list[str]]:
    """`[block_id, section_id...]` per block in document order (for `restore_block_ids`)."""
    return [
        [block.block_id, *(section.section_id for section in block.sections)]
        for block in _blocks_in_order(ast.blocks)
    ]


def restore_block_ids(ast: SequenceAst, stored: list[list[str]]) -> SequenceAst:
    """`ast` with the block and section ids the side-car recorded (the parse numbers them).

    Applied only when the text has the same blocks with the same number of sections, in
    the same order (else it was edited by hand: keep the parse's positional ids).
    """
    parsed = _blocks_in_order(ast.blocks)
    if not stored or len(stored) != len(parsed):
        return ast
    if any(len(ids) != 1 + len(b.sections) for ids, b in zip(stored, parsed, strict=True)):
        return ast
    wanted = iter(stored)
    replace = msgspec.structs.replace

    def renamed(blocks: tuple[SeqBlock, ...]) -> tuple[SeqBlock, ...]:
        result: list[SeqBlock] = []
        for block in blocks:
            block_id, *section_ids = next(wanted)
            sections = tuple(
                replace(section, section_id=section_id)
                for section, section_id in zip(block.sections, section_ids, strict=True)
            )
            inner = renamed(block.blocks)
            result.append(replace(block, block_id=block_id, sections=sections, blocks=inner))
        return tuple(result)

    return replace(ast, blocks=renamed(ast.blocks))


def _timeline(ast: SequenceAst) -> list[tuple[int, str]]:
    """`(order_key, id)` of every message, note and activation, in timeline order."""
    items = [(m.order_key, m.message_id) for m in ast.messages]
    items += [(n.order_key, n.note_id) for n in ast.notes]
    items += [(a.order_key, a.activation_id) for a in ast.activations]
    return sorted(items)


def order_keys_of(ast: SequenceAst) -> dict[str, int]:
    """Timeline item id → `order_key` (what `restore_order_keys` takes)."""
    return {item_id: key for key, item_id in _timeline(ast)}


def restore_order_keys(ast: SequenceAst, stored: dict[str, int]) -> SequenceAst:
    """`ast` (just parsed: keys by position) with the order keys the side-car recorded.

    Applied only when every timeline item has a recorded key and the recorded keys put the
    items in the order the text has (else the text was edited by hand: keep the parse's).
    """
    parsed = _timeline(ast)
    if not stored or any(item_id not in stored for _, item_id in parsed):
        return ast
    if sorted((stored[item_id], item_id) for _, item_id in parsed) != [
        (stored[item_id], item_id) for _, item_id in parsed
    ]:
        return ast
    replace = msgspec.structs.replace
    return replace(
        ast,
        messages=tuple(replace(m, order_key=stored[m.message_id]) for m in ast.messages),
        notes=tuple(replace(n, order_key=stored[n.note_id]) for n in ast.notes),
        activations=tuple(replace(a, order_key=stored[a.activation_id]) for a in ast.activations),
    )
