"""Three-way merge of two edits of one diagram: the person's net change on the current AST.

`merge_asts(base, current, edited)`: `base` is the revision an edit started from, `current`
the diagram now (others changed it meanwhile), `edited` the person's text parsed (and
reconciled against `base`, so unchanged objects keep their ids). Per object (a node, an
edge, a message, ...) and per diagram-level setting:

- unchanged by the person → the current version (others' changes are kept);
- changed only by the person → the person's version;
- changed by both, to the same → that;
- changed by both, differently (or deleted by one, changed by the other) → a conflict: the
  merged AST holds the person's version, and nothing should be applied until the person
  has seen the conflict.

Order follows the current AST; objects the person added go after the object that precedes
them in the edited text. Sequence messages, notes and activations are one timeline and are
renumbered in merged order. References that the merge would leave dangling (an edge to a
node the other side deleted) are conflicts too; membership lists (subgraph members, block
sections, boxes) just lose the members that are gone.

Pure: no I/O. Works on any AST struct: id-keyed maps and tuples of `<name>_id` structs are
merged per object, every other field as one value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, TypeVar

import msgspec

from nereid.model import Ast, FlowchartAst, FlowNode, SequenceAst, StateAst
from nereid.model.state import canonical

__all__ = ["MergeConflict", "MergeResult", "merge_asts", "merge_file_edit"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_ABSENT: Final = object()


Keep = Literal["yours", "theirs"]
"""Whose version a conflicting object keeps in a merge."""


class MergeConflict(msgspec.Struct, frozen=True, kw_only=True):
    """One object both sides changed differently; the texts are short human renderings."""

    what: str
    base: str
    current: str
    yours: str
    reason: str = "changed by you and, differently, by someone else"


class MergeResult(msgspec.Struct, frozen=True, kw_only=True):
    """The merged AST (with the person's version where they conflict) and the conflicts."""

    ast: Any
    conflicts: tuple[MergeConflict, ...] = ()


def _singular(field: str) -> str:
    return {"class_defs": "classDef", "subgraphs": "subgraph"}.get(
        field, field[:-1] if field.endswith("s") else field
    )


def _show(value: object) -> str:
    if value is _ABSENT:
        return "(absent)"
    if isinstance(value, msgspec.Struct):
        parts = [
            f"{name}={getattr(value, name)!r}"
            for name in value.__struct_fields__
            if name != "order_key" and getattr(value, name) not in (None, (), {})
        ]
        return ", ".join(parts)
    return repr(value)


def _differs_only_in_order(a: object, b: object) -> bool:
    """Equal apart from `order_key` (a timeline item that others merely shifted)."""
    if not (isinstance(a, msgspec.Struct) and isinstance(b, msgspec.Struct)):
        return False
    if type(a) is not type(b) or not hasattr(a, "order_key"):
        return False
    return msgspec.structs.replace(a, order_key=0) == msgspec.structs.replace(b, order_key=0)


def _same(a: object, b: object) -> bool:
    return a == b or _differs_only_in_order(a, b)


def _pick(
    what: str,
    base: object,
    current: object,
    yours: object,
    conflicts: list[MergeConflict],
    keep: Keep = "yours",
) -> object:
    """The three-way choice for one value (see the module docstring)."""
    if _same(yours, base):
        return current
    if _same(current, base) or _same(yours, current):
        return yours
    reason = "changed by you and, differently, by someone else"
    if yours is _ABSENT:
        reason = "you deleted it; someone else changed it"
    elif current is _ABSENT:
        reason = "you changed it; someone else deleted it"
    elif base is _ABSENT:
        reason = "added by you and, differently, by someone else"
    conflicts.append(
        MergeConflict(
            what=what, base=_show(base), current=_show(current), yours=_show(yours), reason=reason
        )
    )
    return yours if keep == "yours" else current


def _merged_order(current: Sequence[K], edited: Sequence[K], keep: set[K]) -> list[K]:
    """`current`'s order (kept keys only), with keys new in `edited` after their predecessor."""
    order = [k for k in current if k in keep]
    placed = set(order)
    for index, key in enumerate(edited):
        if key in placed or key not in keep:
            continue
        anchor = next((edited[j] for j in range(index - 1, -1, -1) if edited[j] in placed), None)
        at = order.index(anchor) + 1 if anchor is not None else 0
        order.insert(at, key)
        placed.add(key)
    return order


def _merge_keyed(
    label: str,
    base: Mapping[K, V],
    current: Mapping[K, V],
    yours: Mapping[K, V],
    conflicts: list[MergeConflict],
    keep: Keep = "yours",
) -> dict[K, V]:
    merged: dict[K, Any] = {}
    for key in {**base, **current, **yours}:
        value = _pick(
            f"{label} {key}",
            base.get(key, _ABSENT),
            current.get(key, _ABSENT),
            yours.get(key, _ABSENT),
            conflicts,
            keep,
        )
        if value is not _ABSENT:
            merged[key] = value
    order = _merged_order(list(current), list(yours), set(merged))
    return {key: merged[key] for key in order}


def _id_field(item: object) -> str | None:
    """`message_id` for `SeqMessage`: the identity field a struct type names after itself."""
    if not isinstance(item, msgspec.Struct):
        return None
    stem = re.sub(r"^(Seq|Flow|State)", "", type(item).__name__)
    name = re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower() + "_id"
    return name if name in item.__struct_fields__ else None


def _keyed_tuple(value: object) -> str | None:
    """The id field if `value` is a non-empty tuple of id-carrying structs of one type."""
    if not isinstance(value, tuple) or not value:
        return None
    field = _id_field(value[0])
    if field is None or any(type(item) is not type(value[0]) for item in value):
        return None
    return field


def _by_id(items: Iterable[Any], field: str) -> dict[str, Any]:
    return {getattr(item, field): item for item in items}


def _renamable(value: object) -> bool:
    """Objects whose id is only a number the parser gave (edges, messages, notes, ...).

    Both sides adding one with the same generated id is a coincidence, not a conflict;
    nodes, subgraphs and participants are named by the Mermaid text itself.
    """
    return (
        isinstance(value, msgspec.Struct)
        and not isinstance(value, FlowNode)
        and getattr(value, "mermaid_id", None) is None
        and not hasattr(value, "mermaid_name")
    )


def _fresh(key: str, taken: set[str]) -> str:
    match = re.fullmatch(r"(.*?)(\d+)", key)
    prefix, width = (match.group(1), len(match.group(2))) if match else (f"{key}-", 1)
    number = 2
    while True:
        candidate = f"{prefix}{number:0{width}d}"
        if candidate not in taken:
            return candidate
        number += 1


def _collections(ast: Ast) -> dict[str, dict[str, Any]]:
    """Each per-object field of `ast` as an id → object map."""
    found: dict[str, dict[str, Any]] = {}
    for name in ast.__struct_fields__:
        value = getattr(ast, name)
        if isinstance(value, dict):
            found[name] = dict(value)
        else:
            id_field = _keyed_tuple(value)
            if id_field is not None:
                found[name] = _by_id(value, id_field)
    return found


def _rekey_additions(base: Ast, current: Ast, edited: Ast) -> Ast:
    """Fresh ids for what the person added whose generated id someone else also used."""
    mine, theirs, old = _collections(edited), _collections(current), _collections(base)
    renames: dict[str, str] = {}
    for name, objects in mine.items():
        taken = set(objects) | set(theirs.get(name, {})) | set(old.get(name, {}))
        for key, value in objects.items():
            other = theirs.get(name, {}).get(key, _ABSENT)
            if key in old.get(name, {}) or other is _ABSENT or _same(other, value):
                continue
            if _renamable(value):
                renames[key] = _fresh(key, taken)
                taken.add(renames[key])
    return _renamed(edited, renames) if renames else edited


def _renamed(value: Any, renames: Mapping[str, str]) -> Any:
    """`value` with every id in `renames` replaced, in keys and in `*_id` / `*_ids` fields."""
    if isinstance(value, msgspec.Struct):
        changes: dict[str, Any] = {}
        for name in value.__struct_fields__:
            inner = getattr(value, name)
            if name.endswith("_id") and isinstance(inner, str):
                new: Any = renames.get(inner, inner)
            elif name.endswith("_ids") and isinstance(inner, tuple):
                new = tuple(renames.get(i, i) if isinstance(i, str) else i for i in inner)
            else:
                new = _renamed(inner, renames)
            if new is not inner:
                changes[name] = new
        return msgspec.structs.replace(value, **changes) if changes else value
    if isinstance(value, dict):
        return {renames.get(k, k): _renamed(v, renames) for k, v in value.items()}
    if isinstance(value, tuple) and any(isinstance(v, msgspec.Struct) for v in value):
        return tuple(_renamed(v, renames) for v in value)
    return value


def merge_asts(base: Ast, current: Ast, edited: Ast, *, keep: Keep = "yours") -> MergeResult:
    """Merge the change `base` → `edited` into `current` (see the module docstring).

    Where both changed the same object the result holds `keep`'s version: the person's
    (`yours`, the default) or the current one (`theirs`: the same merge otherwise, in the
    same order, so the two texts differ exactly where they conflict)."""
    if not (type(base) is type(current) is type(edited)):
        raise ValueError("a three-way merge needs three ASTs of one diagram kind")
    edited = _rekey_additions(base, current, edited)
    conflicts: list[MergeConflict] = []
    fields: dict[str, Any] = {}
    timeline: list[str] = []
    for name in base.__struct_fields__:
        b, c, y = getattr(base, name), getattr(current, name), getattr(edited, name)
        id_field = _keyed_tuple(b) or _keyed_tuple(c) or _keyed_tuple(y)
        if isinstance(b, dict) and isinstance(c, dict) and isinstance(y, dict):
            fields[name] = _merge_keyed(_singular(name), b, c, y, conflicts, keep)
        elif id_field is not None:
            merged = _merge_keyed(
                _singular(name),
                _by_id(b, id_field),
                _by_id(c, id_field),
                _by_id(y, id_field),
                conflicts,
                keep,
            )
            fields[name] = tuple(merged.values())
            if any(hasattr(item, "order_key") for item in merged.values()):
                timeline.append(name)
        else:
            fields[name] = _pick(f"diagram {name}", b, c, y, conflicts, keep)
    if timeline:
        _renumber(fields, timeline, current, edited)
    ast = type(base)(**fields)
    ast = _drop_dangling(ast, conflicts)
    return MergeResult(ast=ast, conflicts=tuple(conflicts))


def _timeline_keys(ast: Ast, names: list[str]) -> list[tuple[str, str]]:
    items: list[tuple[int, str, str]] = []
    for name in names:
        for item in getattr(ast, name):
            field = _id_field(item)
            assert field is not None
            items.append((item.order_key, name, getattr(item, field)))
    return [(name, key) for _, name, key in sorted(items)]


def _renumber(fields: dict[str, Any], names: list[str], current: Ast, edited: Ast) -> None:
    """Give the merged timeline items (messages, notes, activations) keys in merged order."""
    present = {
        (name, getattr(item, _id_field(item) or "")): item
        for name in names
        for item in fields[name]
    }
    order = _merged_order(
        _timeline_keys(current, names), _timeline_keys(edited, names), set(present)
    )
    position = {key: index + 1 for index, key in enumerate(order)}
    for name in names:
        items = [
            msgspec.structs.replace(
                item, order_key=position[(name, getattr(item, _id_field(item) or ""))]
            )
            for item in fields[name]
        ]
        fields[name] = tuple(sorted(items, key=lambda item: item.order_key))


def _drop_dangling(ast: Ast, conflicts: list[MergeConflict]) -> Ast:
    """Membership lists lose missing members; an object pointing at a missing one conflicts."""
    replace = msgspec.structs.replace
    if isinstance(ast, FlowchartAst):
        ends = set(ast.nodes) | set(ast.subgraphs)
        for edge_id, edge in ast.edges.items():
            missing = [n for n in (edge.from_node_id, edge.to_node_id) if n not in ends]
            if missing:
                conflicts.append(_dangling(f"edge {edge_id}", _show(edge), missing))
        subgraphs = {
            key: replace(
                sub,
                node_ids=tuple(n for n in sub.node_ids if n in ast.nodes),
                subgraph_ids=tuple(s for s in sub.subgraph_ids if s in ast.subgraphs),
            )
            for key, sub in ast.subgraphs.items()
        }
        return replace(ast, subgraphs=subgraphs)
    if isinstance(ast, StateAst):
        for transition_id, transition in ast.transitions.items():
            pair = (transition.from_state_id, transition.to_state_id)
            missing = [s for s in pair if s not in ast.states]
            if missing:
                conflicts.append(
                    _dangling(f"transition {transition_id}", _show(transition), missing)
                )
        for state_id, state in ast.states.items():
            if state.parent is not None and state.parent not in ast.states:
                conflicts.append(_dangling(f"state {state_id}", _show(state), [state.parent]))
        return canonical(ast)
    if isinstance(ast, SequenceAst):
        people = set(ast.participants)
        for message in ast.messages:
            missing = [
                p
                for p in (message.from_participant_id, message.to_participant_id)
                if p not in people
            ]
            if missing:
                conflicts.append(
                    _dangling(f"message {message.message_id}", _show(message), missing)
                )
        for note in ast.notes:
            missing = [p for p in note.participant_ids if p not in people]
            if missing:
                conflicts.append(_dangling(f"note {note.note_id}", _show(note), missing))
        for activation in ast.activations:
            if activation.participant_id not in people:
                conflicts.append(
                    _dangling(
                        f"activation {activation.activation_id}",
                        _show(activation),
                        [activation.participant_id],
                    )
                )
        messages = {m.message_id for m in ast.messages}
        notes = {n.note_id for n in ast.notes}
        return replace(
            ast,
            blocks=tuple(_prune_block(block, messages, notes) for block in ast.blocks),
            boxes=tuple(
                replace(box, participant_ids=tuple(p for p in box.participant_ids if p in people))
                for box in ast.boxes
            ),
        )
    return ast


def _prune_block(block: Any, messages: set[str], notes: set[str]) -> Any:
    replace: Callable[..., Any] = msgspec.structs.replace
    return replace(
        block,
        sections=tuple(
            replace(
                s,
                message_ids=tuple(m for m in s.message_ids if m in messages),
                note_ids=tuple(n for n in s.note_ids if n in notes),
            )
            for s in block.sections
        ),
        blocks=tuple(_prune_block(inner, messages, notes) for inner in block.blocks),
    )


def _dangling(what: str, shown: str, missing: list[str]) -> MergeConflict:
    return MergeConflict(
        what=what,
        base="",
        current="",
        yours=shown,
        reason=f"it refers to {', '.join(missing)}, which one side deleted while the other used it",
    )


def merge_file_edit(base: Ast, current: Ast, edited: Ast) -> MergeResult:
    """The folder watcher's merge of a person's saved file (spec decision 20): nothing is
    held back, since the file is already saved.

    Where both changed one object the person's file wins for it (`keep="yours"`); every
    other change of the current AST stays. An object that one side still refers to (an
    edge's end, a message's participant, a state's parent) is kept even if the other side
    deleted it, taken from the current AST or else from the person's, so the result has
    no dangling reference and no acknowledged edge is dropped with it.
    """
    result = merge_asts(base, current, edited, keep="yours")
    return MergeResult(
        ast=_keep_referenced(result.ast, current, edited), conflicts=result.conflicts
    )


def _restore(
    have: Mapping[str, V], wanted: Iterable[str], *pools: Mapping[str, V]
) -> dict[str, V] | None:
    """`have` with each `wanted` key that is missing taken from the first pool holding it."""
    missing = [key for key in dict.fromkeys(wanted) if key not in have]
    found = {key: pool[key] for key in missing for pool in reversed(pools) if key in pool}
    return {**have, **found} if found else None


def _keep_referenced(ast: Ast, current: Ast, edited: Ast) -> Ast:
    replace: Callable[..., Any] = msgspec.structs.replace
    if isinstance(ast, FlowchartAst):
        assert isinstance(current, FlowchartAst) and isinstance(edited, FlowchartAst)
        ends = [n for e in ast.edges.values() for n in (e.from_node_id, e.to_node_id)]
        ends = [n for n in ends if n not in ast.subgraphs]
        nodes = _restore(ast.nodes, ends, current.nodes, edited.nodes)
        return ast if nodes is None else replace(ast, nodes=nodes)
    if isinstance(ast, StateAst):
        assert isinstance(current, StateAst) and isinstance(edited, StateAst)
        for _ in range(len(current.states) + len(edited.states) + 1):  # parents of parents
            used = [s for t in ast.transitions.values() for s in (t.from_state_id, t.to_state_id)]
            used += [s.parent for s in ast.states.values() if s.parent is not None]
            states = _restore(ast.states, used, current.states, edited.states)
            if states is None:
                break
            ast = canonical(replace(ast, states=states))
        return ast
    if isinstance(ast, SequenceAst):
        assert isinstance(current, SequenceAst) and isinstance(edited, SequenceAst)
        used = [p for m in ast.messages for p in (m.from_participant_id, m.to_participant_id)]
        used += [p for n in ast.notes for p in n.participant_ids]
        used += [a.participant_id for a in ast.activations]
        people = _restore(ast.participants, used, current.participants, edited.participants)
        return ast if people is None else replace(ast, participants=people)
    return ast
