"""The AST's items are Structs the garbage collector does not track (`gc=False`).

A flowchart of 20 000 nodes is a dict of 20 000 `FlowNode`s. If `FlowNode` were a type the
collector tracks, that dict would be tracked too, and so would every copy an op makes of
it: each young collection would walk every live copy (the persister's queued saves hold
dozens), tens of ms at 20 000 nodes (issue 18's write tail). With `gc=False` the item
types are not collector types at all, so dicts and tuples of them stay untracked.

That is only sound if no item can be part of a reference cycle, which the collector
would then never free. Proved here from the types: every field of a `gc=False` model
Struct holds only immutable scalars, tuples of such values, other `gc=False` Structs
(frozen, so they can only point at what existed before them) and `dict[str, str]`
(whose values are strings), so no value of these types can reach back to the Struct.
"""

from __future__ import annotations

import gc
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

import msgspec
import pytest

import nereid.model as model
from nereid.mermaid import parse_as
from nereid.model import FlowchartAst, SequenceAst, StateAst
from nereid.ops import DiagramState, FlowAddNode

_SCALARS = (str, int, float, bool, type(None))
ASTS = (FlowchartAst, SequenceAst, StateAst)


def _untracked_structs() -> list[type[msgspec.Struct]]:
    """The model's `gc=False` Struct types (the package's and every AST's items)."""
    found: set[type[msgspec.Struct]] = set()
    for name in dir(model):
        value = getattr(model, name)
        if isinstance(value, type) and issubclass(value, msgspec.Struct):
            found.add(value)
    for ast in ASTS:
        found |= _item_structs(ast)
    untracked = [t for t in found if t.__struct_config__.gc is False]
    assert untracked
    return sorted(untracked, key=lambda t: t.__qualname__)


def _structs_in(tp: Any) -> set[type[msgspec.Struct]]:
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return {tp}
    found: set[type[msgspec.Struct]] = set()
    for arg in get_args(tp):
        found |= _structs_in(arg)
    return found


def _item_structs(ast: type[msgspec.Struct]) -> set[type[msgspec.Struct]]:
    """Every Struct type an AST's fields can hold, at any depth (the AST itself excluded)."""
    seen: set[type[msgspec.Struct]] = set()
    todo = [ast]
    while todo:
        for field in msgspec.structs.fields(todo.pop()):
            for struct in _structs_in(field.type) - seen:
                seen.add(struct)
                todo.append(struct)
    seen.discard(ast)
    return seen


def _cannot_reach_back(tp: Any) -> bool:
    """Whether no value of type `tp` can hold a reference to a container the collector
    tracks, and so none can close a cycle (see the module docstring)."""
    if tp in _SCALARS:
        return True
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return tp.__struct_config__.gc is False and tp.__struct_config__.frozen
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return all(isinstance(a, _SCALARS) for a in args)
    if origin in (Union, types.UnionType):
        return all(_cannot_reach_back(a) for a in args)
    if origin is tuple:
        return all(_cannot_reach_back(a) for a in args if a is not Ellipsis)
    if origin is dict:
        return args == (str, str)
    return False


@pytest.mark.parametrize("ast", ASTS, ids=lambda t: t.__name__)
def test_every_item_type_of_an_ast_is_untracked(ast: type[msgspec.Struct]) -> None:
    tracked = sorted(t.__name__ for t in _item_structs(ast) if t.__struct_config__.gc)
    assert not tracked, f"{ast.__name__} items the collector would track: {tracked}"


@pytest.mark.parametrize("struct", _untracked_structs(), ids=lambda t: t.__qualname__)
def test_an_untracked_struct_cannot_be_in_a_cycle(struct: type[msgspec.Struct]) -> None:
    hints = typing.get_type_hints(struct)
    unsafe = [
        f.name for f in msgspec.structs.fields(struct) if not _cannot_reach_back(hints[f.name])
    ]
    assert struct.__struct_config__.frozen, f"{struct.__name__} is gc=False but not frozen"
    assert not unsafe, f"{struct.__name__}: fields that could close a cycle: {unsafe}"


def _big_flowchart() -> FlowchartAst:
    lines = ["flowchart TD"]
    lines += [f"  a{i}[Node {i}] --> a{i + 1}" for i in range(300)]
    lines += ['  a3@{ icon: "fa:user", h: 60 }', "  a1 e1@--> a2", "  subgraph sg", "  a5", "  end"]
    ast = parse_as("flowchart", "\n".join(lines) + "\n")
    assert isinstance(ast, FlowchartAst)
    return ast


def test_a_flowchart_and_its_edited_copies_are_not_walked_by_the_collector() -> None:
    ast = _big_flowchart()
    assert ast.nodes["n:a3"].attrs  # an item with a dict field is among them
    state = DiagramState(diagram_id="d", ast=ast)
    state, _ = state.apply(0, [FlowAddNode(node_id="n:new", label="new")])
    decoded = msgspec.msgpack.decode(msgspec.msgpack.encode(state.ast), type=FlowchartAst)
    for each in (ast, state.ast, decoded):
        for field in ("nodes", "edges", "subgraphs"):
            assert not gc.is_tracked(getattr(each, field)), field
    assert decoded == state.ast
    assert hash(decoded.nodes["n:a1"]) == hash(state.ast.nodes["n:a1"])


def test_a_sequence_and_a_state_diagram_are_not_walked_by_the_collector() -> None:
    seq = parse_as(
        "sequence",
        "sequenceDiagram\n  participant A\n  A->>B: hi\n  loop again\n    B-->>A: ok\n  end\n"
        "  Note over A,B: both\n",
    )
    state = parse_as("state", "stateDiagram-v2\n  [*] --> S1\n  state S1 {\n    a --> b\n  }\n")
    assert isinstance(seq, SequenceAst) and isinstance(state, StateAst)
    gc.collect(0)  # a young collection untracks tuples of untracked items
    for value in (seq.participants, seq.messages, seq.notes, seq.blocks):
        assert not gc.is_tracked(value)
    for value in (state.states, state.transitions):
        assert not gc.is_tracked(value)
