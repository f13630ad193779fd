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
(`nereid.offload.jobs.call_in_pieces`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from itertools import islice
from typing import Any, Final, TypeAlias

import msgspec
import trio
import trio_parallel

from nereid.model import Diagram
from nereid.offload.jobs import call_in_pieces, diagram_files

__all__ = [
    "BIG_PAYLOAD",
    "PIECE_ITEMS",
    "Encoded",
    "ExportBig",
    "encode_in_pieces",
    "export_big_in_worker",
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


def _save_limiter() -> trio.CapacityLimiter:
    global _limiter
    if _limiter is None:
        _limiter = trio.CapacityLimiter(1)
    return _limiter


async def encode_in_pieces(ast: msgspec.Struct) -> tuple[bytes, list[tuple[str, list[bytes]]]]:
    """msgpack of `ast` as `(skeleton, pieces)` for `call_in_pieces`, a checkpoint after
    each piece: the skeleton is `ast` with its dict and tuple fields of more than
    `PIECE_ITEMS` items empty, the pieces their items, `PIECE_ITEMS` at a time."""
    encode = msgspec.msgpack.encode
    big: dict[str, Any] = {}
    for name in ast.__struct_fields__:
        value = getattr(ast, name)
        if isinstance(value, dict | tuple) and len(value) > PIECE_ITEMS:
            big[name] = value
    skeleton = encode(msgspec.structs.replace(ast, **{name: type(v)() for name, v in big.items()}))
    pieces: list[tuple[str, list[bytes]]] = []
    for name, value in big.items():
        parts: list[bytes] = []
        if isinstance(value, dict):
            # The AST is immutable: its dicts do not change across the checkpoints.
            items = iter(value.items())
            while chunk := dict(islice(items, PIECE_ITEMS)):
                parts.append(encode(chunk))
                await trio.lowlevel.checkpoint()
        else:
            for start in range(0, len(value), PIECE_ITEMS):
                parts.append(encode(value[start : start + PIECE_ITEMS]))
                await trio.lowlevel.checkpoint()
        pieces.append((name, parts))
    return skeleton, pieces


async def export_big_in_worker(diagrams: list[Diagram]) -> Encoded:
    """Export each diagram of at least `BIG_PAYLOAD` encoded bytes in a worker process."""
    done: dict[str, tuple[str, str] | Exception] = {}
    for diagram in diagrams:
        skeleton, pieces = await encode_in_pieces(diagram.ast)
        if len(skeleton) + sum(len(part) for _, parts in pieces for part in parts) < BIG_PAYLOAD:
            continue
        try:
            done[diagram.diagram_id] = await trio_parallel.run_sync(
                call_in_pieces,
                diagram_files,
                type(diagram.ast),
                skeleton,
                pieces,
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


async def no_offload(diagrams: list[Diagram]) -> Encoded:
    """Export nothing ahead: every diagram is exported by the save itself (tests)."""
    await trio.lowlevel.checkpoint()
    return {}
