"""CPU-heavy pure work as plain functions a worker process can run (see `nereid.offload.dispatch`).

A snapshot crosses to the worker as msgpack bytes of its AST (encoding a 1000-node
flowchart takes ~1 ms on the event loop; pickling it ~15 ms) and is rebuilt here; only the
text comes back. This module imports the pure layers only, so a worker starts light.
Errors (`RenderError`, `TooLargeToRender`, `MermaidExportError`) pickle back unchanged.

A worker runs at a lower CPU priority (`WORKER_NICENESS`): on a machine whose cores are
all busy, a render must take its CPU from other background work, not from the event
loop that answers every agent (on the 2-core machine, loop stalls during a 1000-node
render were 15-35 ms at equal priority).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
import regex

from nereid.errors import InvalidParams
from nereid.mermaid import MermaidError, export_ast, parse_mermaid, reconcile_parse
from nereid.model.diagram import Ast, Diagram, DiagramKind
from nereid.model.refs import ref_dec_hook
from nereid.model.walkthrough import Walkthrough
from nereid.offload import as_background
from nereid.offload.packed_drawing import pack_drawing
from nereid.ops.merge3 import merge_file_edit
from nereid.query.regex_guard import RegexTimeout, match_all
from nereid.render import RenderOptions, render_diagram, render_walkthrough
from nereid.store.diagram_files import encode_diagram

__all__ = [
    "call_encoded",
    "call_in_pieces",
    "from_pieces",
    "diagram_drawing",
    "diagram_files",
    "diagram_mermaid",
    "diagram_text",
    "file_import",
    "regex_matches",
    "walkthrough_text",
]

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")
StructT = TypeVar("StructT", bound=msgspec.Struct)


def call_encoded(
    job: Callable[..., ResultT], item_type: type[ItemT], payload: bytes, *args: Any
) -> ResultT:
    """`job(item, *args)` with `item` decoded from msgpack `payload` as `item_type`."""
    as_background()
    return job(msgspec.msgpack.decode(payload, type=item_type, dec_hook=ref_dec_hook), *args)


def call_in_pieces(
    job: Callable[..., ResultT],
    item_type: type[StructT],
    skeleton: bytes,
    pieces: list[tuple[str, list[bytes]]],
    *args: Any,
) -> ResultT:
    """`job(item, *args)` with `item` rebuilt by `from_pieces`."""
    as_background()
    return job(from_pieces(item_type, skeleton, pieces), *args)


def from_pieces(
    item_type: type[StructT], skeleton: bytes, pieces: list[tuple[str, list[bytes]]]
) -> StructT:
    """The `item_type` Struct whose msgpack pieces these are: `skeleton` is it with its big
    fields empty, `pieces` each big field's contents in parts (a dict's items, a tuple's
    slices), in order (`nereid.actors.persist_export.encode_in_pieces`)."""
    item: Any = msgspec.msgpack.decode(skeleton, type=item_type)
    types = {field.name: field.type for field in msgspec.structs.fields(item_type)}
    filled: dict[str, Any] = {}
    for name, parts in pieces:
        decoded = [msgspec.msgpack.decode(part, type=types[name]) for part in parts]
        if isinstance(getattr(item, name), dict):
            merged: dict[Any, Any] = {}
            for part in decoded:
                merged.update(part)
            filled[name] = merged
        else:
            filled[name] = tuple(element for part in decoded for element in part)
    rebuilt: StructT = msgspec.structs.replace(item, **filled)
    return rebuilt


def _diagram(ast: Ast, diagram_id: str, kind: DiagramKind, rev: int) -> Diagram:
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind=kind, ast=ast, rev=rev)


def diagram_text(ast: Ast, diagram_id: str, kind: DiagramKind, rev: int) -> str:
    """`diagram.render_text`'s drawing (default options)."""
    return render_diagram(_diagram(ast, diagram_id, kind, rev)).text


def diagram_drawing(
    ast: Ast, diagram_id: str, kind: DiagramKind, rev: int, options: RenderOptions
) -> bytes:
    """The TUI's drawing: the whole `Rendered` (spans too), packed (`pack_drawing`: the
    event loop rebuilds it in steps; plain msgpack of a 1000-node flowchart's took 13-30 ms
    to decode in one piece, unpickling it ~60 ms)."""
    return pack_drawing(render_diagram(_diagram(ast, diagram_id, kind, rev), options))


def diagram_mermaid(ast: Ast, diagram_id: str, kind: DiagramKind, rev: int) -> str:
    """The canonical Mermaid text (`diagram.read`, resources)."""
    return export_ast(ast)


def diagram_files(
    ast: Ast, diagram_id: str, name: str, kind: DiagramKind, rev: int
) -> tuple[str, str]:
    """What the persister writes for a diagram: `(mmd text, side-car text)`."""
    return encode_diagram(Diagram(diagram_id=diagram_id, name=name, kind=kind, ast=ast, rev=rev))


def file_import(asts: list[Ast]) -> bytes:
    """The folder watcher's import of a person's `.mmd` (`ImportFile`): `asts` is
    `[current, edited]` or `[current, edited, base]`, all of one kind. Without `base` the
    parse only takes the current ids; with it the person's net change `base` → `edited`
    is merged three-way onto `current` (`merge_file_edit`: where both changed one object
    the file wins). Returns msgpack of `(ast, conflicts)`."""
    current, edited, *rest = asts
    if not rest:
        return msgspec.msgpack.encode((reconcile_parse(edited, current), ()))
    base = reconcile_parse(rest[0], current)  # the ids the objects have now
    if _reads_back_as(current, base):  # nothing committed since that text
        return msgspec.msgpack.encode((reconcile_parse(edited, current), ()))
    result = merge_file_edit(base, current, reconcile_parse(edited, base))
    return msgspec.msgpack.encode((result.ast, result.conflicts))


def _reads_back_as(ast: Ast, text_ast: Ast) -> bool:
    """Whether `ast`, written as Mermaid and read back (its ids kept), is `text_ast`."""
    try:
        again = reconcile_parse(parse_mermaid(export_ast(ast)), ast)
    except (MermaidError, InvalidParams):
        return False
    return again == text_ast


def walkthrough_text(walkthrough: Walkthrough) -> str:
    """`walkthrough.render_text`'s drawing (default options)."""
    return render_walkthrough(walkthrough).text


def regex_matches(
    pattern: str, flags: int, texts: list[str], time_limit: float
) -> list[bool] | None:
    """`match_all` of a user regex (already checked by `compile_user_regex`); None when
    its `time_limit` ran out."""
    as_background()
    try:
        return match_all(regex.compile(pattern, flags), texts, time_limit)
    except RegexTimeout:
        return None
