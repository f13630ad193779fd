"""The persister's export of big diagrams, in a worker process (architecture §8).

Saving a diagram means exporting it to Mermaid and encoding its side-car: pure CPU work
that grows with the diagram (about 0.6 s for 20 000 nodes). Done in the persister's file
thread it still holds the GIL, so every save of a big diagram held up every request on
the event loop (`apply_ops` p99 went from 28 to 522 ms over 20k node adds). A diagram
whose msgpack encoding is at least `BIG_PAYLOAD` bytes is therefore exported in a
`trio-parallel` worker process; only its encoding (a few ms for 20k nodes) stays here.
Saves have their own limiter of one worker, so they never queue behind renders, and the
next change simply waits for the running export (the persister handles one message at
a time). Smaller diagrams are exported in the file thread as before: the hand-off would
cost more than the work.

Even that encoding (about 17 ms for 20 000 nodes) is not done in one go: the AST goes in
pieces of at most `PIECE_ITEMS` nodes, edges or messages (`encode_in_pieces`), with a
checkpoint between pieces, so no save holds the event loop for more than about a
millisecond whatever the diagram's size; the worker puts the pieces together again
(`nereid.offload.jobs.call_in_pieces`). And a piece is encoded only once: `Pieces` keeps
each diagram's last pieces with the items they hold, and a piece whose keys and values
are the very objects of last time (an AST shares every object an op did not replace) is
sent as it was. So a save after a few ops encodes the pieces they touched, not the
diagram (one piece of 1000 items instead of 20 for an add to a 20 000-node flowchart).
"""

from __future__ import annotations

import operator
from collections.abc import Awaitable, Callable, Mapping
from itertools import islice
from typing import Any, Final, TypeAlias

import msgspec
import trio

from nereid.model import Diagram
from nereid.offload.jobs import call_in_pieces, diagram_files

__all__ = [
    "BIG_PAYLOAD",
    "PIECE_ITEMS",
    "Encoded",
    "ExportBig",
    "Pieces",
    "encode_in_pieces",
    "export_big_in_worker",
    "export_big_keeping_pieces",
    "no_offload",
]

BIG_PAYLOAD: Final = 64 * 1024
"""Encoded size from which a diagram is exported in a worker (about 700 flowchart nodes)."""
PIECE_ITEMS: Final = 1000
"""Items (nodes, edges, messages...) of one big field encoded per step of the event loop."""

Encoded: TypeAlias = Mapping[str, "tuple[str, str] | Exception"]
"""Per diagram id: its `(mmd text, side-car text)`, or what exporting it raised."""

ExportBig: TypeAlias = Callable[[list[Diagram]], Awaitable[Encoded]]
"""Exports the big ones among the diagrams about to be written (the rest: None)."""

_limiter: trio.CapacityLimiter | None = None

_Piece: TypeAlias = tuple[tuple[Any, ...], tuple[Any, ...], bytes]
"""One piece as last encoded: its keys (empty for a tuple field), its values, the bytes."""


class Pieces:
    """Per diagram id and field, the pieces of its last encoding (`encode_in_pieces`),
    kept while the diagram is big and not deleted: about the encoded size of each big
    diagram, for the persister's life."""

    def __init__(self) -> None:
        self._held: dict[str, dict[str, list[_Piece]]] = {}

    def of(self, diagram_id: str) -> dict[str, list[_Piece]]:
        return self._held.setdefault(diagram_id, {})

    def forget(self, diagram_id: str) -> None:
        """Drop a diagram's pieces (it was deleted, or is too small to be exported here)."""
        self._held.pop(diagram_id, None)

    def __contains__(self, diagram_id: str) -> bool:
        return diagram_id in self._held


def _same(now: tuple[Any, ...], before: tuple[Any, ...]) -> bool:
    """The very same objects, in order (identity, not equality: equal dicts may still
    encode their keys in another order)."""
    return len(now) == len(before) and all(map(operator.is_, now, before))


def _save_limiter() -> trio.CapacityLimiter:
    global _limiter
    if _limiter is None:
        _limiter = trio.CapacityLimiter(1)
    return _limiter


async def encode_in_pieces(
    ast: msgspec.Struct, held: dict[str, list[_Piece]] | None = None
) -> tuple[bytes, list[tuple[str, list[bytes]]]]:
    """msgpack of `ast` as `(skeleton, pieces)` for `call_in_pieces`, a checkpoint after
    each piece: the skeleton is `ast` with its dict and tuple fields of more than
    `PIECE_ITEMS` items empty, the pieces their items, `PIECE_ITEMS` at a time.

    `held` (a diagram's entry in `Pieces`): the pieces of its last encoding, reused where
    their items are the same objects, and replaced by this encoding's."""
    encode = msgspec.msgpack.encode
    big: dict[str, Any] = {}
    for name in ast.__struct_fields__:
        value = getattr(ast, name)
        if isinstance(value, dict | tuple) and len(value) > PIECE_ITEMS:
            big[name] = value
    skeleton = encode(msgspec.structs.replace(ast, **{name: type(v)() for name, v in big.items()}))
    pieces: list[tuple[str, list[bytes]]] = []
    for name, value in big.items():
        before = [] if held is None else held.get(name, [])
        now: list[_Piece] = []
        # The AST is immutable: its dicts and tuples do not change across the checkpoints.
        if isinstance(value, dict):
            keys, values = iter(value.keys()), iter(value.values())
            while chunk_values := tuple(islice(values, PIECE_ITEMS)):
                chunk_keys = tuple(islice(keys, PIECE_ITEMS))
                now.append(_piece(before, len(now), chunk_keys, chunk_values, encode))
                await trio.lowlevel.checkpoint()
        else:
            for start in range(0, len(value), PIECE_ITEMS):
                chunk = value[start : start + PIECE_ITEMS]
                now.append(_piece(before, len(now), (), chunk, encode))
                await trio.lowlevel.checkpoint()
        if held is not None:
            held[name] = now
        pieces.append((name, [data for _, _, data in now]))
    if held is not None:
        for name in held.keys() - big.keys():
            del held[name]
    return skeleton, pieces


def _piece(
    before: list[_Piece],
    index: int,
    keys: tuple[Any, ...],
    values: tuple[Any, ...],
    encode: Callable[[Any], bytes],
) -> _Piece:
    """Piece `index`: last time's if it held the same objects, else encoded now."""
    if index < len(before):
        old_keys, old_values, data = before[index]
        if _same(values, old_values) and _same(keys, old_keys):
            return old_keys, old_values, data
    return keys, values, encode(dict(zip(keys, values, strict=True)) if keys else values)


async def export_big_in_worker(diagrams: list[Diagram], pieces: Pieces | None = None) -> Encoded:
    """Export each diagram of at least `BIG_PAYLOAD` encoded bytes in a worker process;
    with `pieces`, encoding only the pieces that changed since the last save."""
    import trio_parallel  # (and its process pool): only once a save is big enough to need it

    done: dict[str, tuple[str, str] | Exception] = {}
    for diagram in diagrams:
        held = None if pieces is None else pieces.of(diagram.diagram_id)
        skeleton, parts_by_field = await encode_in_pieces(diagram.ast, held)
        size = len(skeleton) + sum(len(part) for _, parts in parts_by_field for part in parts)
        if size < BIG_PAYLOAD:
            if pieces is not None:
                pieces.forget(diagram.diagram_id)
            continue
        try:
            done[diagram.diagram_id] = await trio_parallel.run_sync(
                call_in_pieces,
                diagram_files,
                type(diagram.ast),
                skeleton,
                parts_by_field,
                diagram.diagram_id,
                diagram.name,
                diagram.kind,
                diagram.rev,
                kill_on_cancel=True,
                limiter=_save_limiter(),
            )
        except Exception as err:  # noqa: BLE001 - reported as that item's save problem
            done[diagram.diagram_id] = err
    return done


def export_big_keeping_pieces(pieces: Pieces) -> ExportBig:
    """`export_big_in_worker` with the persister's `Pieces`: its default export."""

    async def export(diagrams: list[Diagram]) -> Encoded:
        return await export_big_in_worker(diagrams, pieces)

    return export


async def no_offload(diagrams: list[Diagram]) -> Encoded:
    """Export nothing ahead: every diagram is exported by the save itself (tests)."""
    await trio.lowlevel.checkpoint()
    return {}
