"""State-diagram ops applied to a working copy of a StateAst (docs/ops.md, "State diagrams").

`StateDraft` copies the maps once, applies ops in order, records what it touched, and at the
end of the batch puts the AST in canonical order and proves it saveable: every touched field
passes the shared rules (`nereid.model.writable_state`) and the whole diagram exports and
imports back to itself (spec decision 18), or the batch is refused and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, assert_never, cast

import msgspec

from nereid.errors import InvalidParams, NereidError, ResourceNotFound
from nereid.model import STATE_STATE, STATE_TRANSITION
from nereid.model.state import (
    NOTE_SIDES,
    PSEUDO_KINDS,
    STATE_DIRECTIONS,
    STATE_KINDS,
    NoteSide,
    StateAst,
    StateKind,
    StateNode,
    StateNote,
    StateTransition,
    canonical,
    mermaid_name,
    order_problem,
    pseudo_id,
)
from nereid.model.writable_state import (
    MAX_STATE_DEPTH,
    class_name_problem,
    state_class_def_problem,
    state_floating_note_problem,
    state_id_problem,
    state_label_problem,
    state_note_problem,
    state_problem,
    state_text_problem,
)
from nereid.ops.base import UNSET, given
from nereid.ops.decode import StateOp
from nereid.ops.delta import META_KEY, ObjectKey
from nereid.ops.errors import invalid_value
from nereid.ops.flow_ops import FlowRemoveClassDef, FlowSetClassDef, FlowSetDirection
from nereid.ops.rules import refuse_unwritable
from nereid.ops.state_ops import StateRemove, StateSetState, StateSetTransition

__all__ = ["SHARED_FLOW_OPS", "StateDraft"]

#: The flowchart's diagram-wide ops that act on a state diagram too (its `classDef`s and
#: direction), so no op of their own is needed (tools/list stays small).
SHARED_FLOW_OPS = (FlowSetClassDef, FlowRemoveClassDef, FlowSetDirection)
SharedFlowOp = FlowSetClassDef | FlowRemoveClassDef | FlowSetDirection

replace = msgspec.structs.replace


def _missing(kind: str, object_id: str) -> NereidError:
    return ResourceNotFound("object not found", {"kind": kind, "object_id": object_id})


def _trim_lines(text: str) -> str:
    """Multi-line text as Mermaid reads it back: every line trimmed, outer blank lines gone."""
    return "\n".join(line.strip() for line in text.strip().split("\n"))


def _text(field: str, value: str, rule: Callable[[str], str | None]) -> str:
    text = value.strip()
    problem = rule(text)
    if problem is not None:
        raise invalid_value(field, value, problem)
    return text


class StateDraft:
    """A mutable working copy of one state diagram for the length of one batch."""

    def __init__(self, ast: StateAst) -> None:
        self.base = ast
        self.states = dict(ast.states)
        self.transitions = dict(ast.transitions)
        self.class_defs = dict(ast.class_defs)
        self.direction = ast.direction
        self.touched: set[ObjectKey] = set()

    def apply(self, op: StateOp | SharedFlowOp) -> None:
        if isinstance(op, SHARED_FLOW_OPS):
            self._meta(op)
        elif isinstance(op, StateSetState):
            self._set_state(op)
        elif isinstance(op, StateSetTransition):
            self._set_transition(op)
        elif isinstance(op, StateRemove):
            self._remove(op)
        else:  # pragma: no cover - the union is closed
            assert_never(op)

    # -- diagram-wide -------------------------------------------------------------------

    def _meta(self, op: SharedFlowOp) -> None:
        if isinstance(op, FlowSetDirection):
            direction = op.direction.strip().upper() if given(op.direction) else None
            if direction is not None and direction not in STATE_DIRECTIONS:
                raise invalid_value("direction", op.direction, "must be TB, BT, LR or RL")
            self.direction = direction
        elif isinstance(op, FlowSetClassDef):
            name = op.name if op.name.lower() != "default" else "default"
            problem = None if name == "default" else class_name_problem(name)
            if problem is not None:
                raise invalid_value("name", op.name, problem)
            self.class_defs[name] = _text("style", op.style, state_class_def_problem)
        else:
            if op.name not in self.class_defs:
                raise _missing("StateClassDef", op.name)
            del self.class_defs[op.name]
        self.touched.add(META_KEY)

    # -- states --------------------------------------------------------------------------

    def _set_state(self, op: StateSetState) -> None:
        state_id = op.state_id
        current = self.states.get(state_id)
        state = current or StateNode()
        if op.parent_id is not UNSET:
            state = replace(state, parent=op.parent_id, region=0)
        if op.region is not UNSET:
            state = replace(state, region=op.region or 0)
        if op.kind is not UNSET:
            kind = op.kind or "state"
            if kind not in STATE_KINDS:
                raise invalid_value("kind", op.kind, f"must be one of {', '.join(STATE_KINDS)}")
            state = replace(state, kind=cast(StateKind, kind))
        if current is None and op.kind is UNSET and not state_id.startswith("s:"):
            for kind in ("start", "end"):
                if state_id.startswith(kind):
                    state = replace(state, kind=cast(StateKind, kind))
        if op.label is not UNSET:
            label = None
            if op.label is not None and state.kind == "note":
                label = _text("label", _trim_lines(op.label), state_floating_note_problem)
            elif op.label is not None:
                label = _text("label", _trim_lines(op.label), state_label_problem)
            state = replace(state, label=label)
        if op.descriptions is not UNSET:
            texts = tuple(
                _text(f"descriptions[{i}]", d, state_text_problem)
                for i, d in enumerate(op.descriptions or ())
            )
            state = replace(state, descriptions=texts)
        if op.direction is not UNSET:
            direction = None if op.direction is None else op.direction.strip().upper()
            if direction is not None and direction not in STATE_DIRECTIONS:
                raise invalid_value("direction", op.direction, "must be TB, BT, LR or RL")
            state = replace(
                state, direction=direction, composite=state.composite or bool(direction)
            )
        if op.notes is not UNSET:
            notes: list[StateNote] = []
            for index, spec in enumerate(op.notes or ()):
                text = _text(f"notes[{index}].text", _trim_lines(spec.text), state_note_problem)
                if spec.side not in NOTE_SIDES:
                    raise invalid_value(
                        f"notes[{index}].side", spec.side, "must be 'left of' or 'right of'"
                    )
                notes.append(StateNote(text=text, side=cast(NoteSide, spec.side)))
            state = replace(state, notes=tuple(notes))
        if op.classes is not UNSET:
            for index, name in enumerate(op.classes or ()):
                problem = class_name_problem(name)
                if problem is not None:
                    raise invalid_value(f"classes[{index}]", name, problem)
            state = replace(state, classes=tuple(op.classes or ()))
        if op.style is not UNSET:
            style = None if op.style is None else _text("style", op.style, state_class_def_problem)
            state = replace(state, styles=() if style is None else (style,))
        self._check_state(state_id, state)
        self.states[state_id] = state
        self.touched.add((STATE_STATE, state_id))
        if state.parent is not None:
            self._make_composite(state.parent)

    def _make_composite(self, parent_id: str) -> None:
        parent = self.states.get(parent_id)
        if parent is None:
            raise _missing("State", parent_id)
        if parent.kind != "state":
            raise invalid_value(
                "parent_id", parent_id, f"a {parent.kind} state cannot hold other states"
            )
        if not parent.composite:
            self.states[parent_id] = replace(parent, composite=True)
            self.touched.add((STATE_STATE, parent_id))

    def _check_state(self, state_id: str, state: StateNode) -> None:
        if state.kind in PSEUDO_KINDS:
            kind = cast(Literal["start", "end"], state.kind)
            expected = pseudo_id(kind, (state.parent, state.region))
            if state_id != expected:
                raise invalid_value(
                    "state_id",
                    state_id,
                    f"the {state.kind} state of that scope has the id {expected!r}",
                )
            if state.label or state.descriptions or state.styles:
                raise invalid_value("state_id", state_id, "'[*]' has no name, text or style")
            if state.notes and state.kind == "end":
                raise invalid_value("notes", state_id, "an end '[*]' has no note")
        else:
            problem = (
                state_id_problem(mermaid_name(state_id))
                if state_id.startswith("s:")
                else "a state id is 's:' and its Mermaid id"
            )
            if problem is not None:
                raise invalid_value("state_id", state_id, problem)
        if state.label is not None and state.kind not in ("state", "note"):
            raise invalid_value("label", state.label, f"a {state.kind} state has no name")
        if state.kind == "note" and (state.label is None or state.descriptions):
            raise invalid_value(
                "label", state.label, "a floating note has its text as label and no descriptions"
            )
        if state.region < 0:
            raise invalid_value("region", state.region, "must not be negative")
        if state.parent is None and state.region != 0:
            raise invalid_value(
                "region", state.region, "only states inside a composite have regions"
            )
        if state.composite and state.kind != "state":
            raise invalid_value("kind", state.kind, "a composite state is a plain state")
        if state.direction is not None and not state.composite:
            raise invalid_value("direction", state.direction, "only composite states have one")
        depth, parent = 0, state.parent
        while parent is not None:
            if parent == state_id:
                raise invalid_value("parent_id", state.parent, "a state cannot be inside itself")
            depth += 1
            if depth > MAX_STATE_DEPTH:
                raise invalid_value(
                    "parent_id", state.parent, f"composites nest deeper than {MAX_STATE_DEPTH}"
                )
            holder = self.states.get(parent)
            if holder is None:
                raise _missing("State", parent)
            parent = holder.parent

    # -- transitions ---------------------------------------------------------------------

    def _set_transition(self, op: StateSetTransition) -> None:
        current = self.transitions.get(op.transition_id)
        if current is None:
            if not isinstance(op.from_node_id, str) or not isinstance(op.to_node_id, str):
                raise invalid_value(
                    "from_node_id", None, "a new transition needs from_node_id and to_node_id"
                )
            current = StateTransition(from_state_id=op.from_node_id, to_state_id=op.to_node_id)
        if isinstance(op.from_node_id, str):
            current = replace(current, from_state_id=op.from_node_id)
        if isinstance(op.to_node_id, str):
            current = replace(current, to_state_id=op.to_node_id)
        if op.label is not UNSET:
            label = None if op.label is None else _text("label", op.label, state_text_problem)
            current = replace(current, label=label)
        for end in (current.from_state_id, current.to_state_id):
            if end not in self.states:
                raise _missing("State", end)
        if self.states[current.from_state_id].kind == "end":
            raise invalid_value(
                "from_state_id", current.from_state_id, "an end state has no way out"
            )
        if self.states[current.to_state_id].kind == "start":
            raise invalid_value("to_state_id", current.to_state_id, "a start state has no way in")
        self.transitions[op.transition_id] = current
        self.touched.add((STATE_TRANSITION, op.transition_id))

    # -- removal -------------------------------------------------------------------------

    def _remove(self, op: StateRemove) -> None:
        if isinstance(op.transition_id, str):
            if self.transitions.pop(op.transition_id, None) is None:
                raise _missing("StateTransition", op.transition_id)
            self.touched.add((STATE_TRANSITION, op.transition_id))
        if isinstance(op.state_id, str):
            if op.state_id not in self.states:
                raise _missing("State", op.state_id)
            gone = {op.state_id}
            grew = True
            while grew:
                grew = False
                for state_id, state in self.states.items():
                    if state.parent in gone and state_id not in gone:
                        gone.add(state_id)
                        grew = True
            for state_id in gone:
                del self.states[state_id]
                self.touched.add((STATE_STATE, state_id))
            for transition_id, transition in list(self.transitions.items()):
                if transition.from_state_id in gone or transition.to_state_id in gone:
                    del self.transitions[transition_id]
                    self.touched.add((STATE_TRANSITION, transition_id))
        if op.state_id is UNSET and op.transition_id is UNSET:
            raise invalid_value("state_id", None, "state_remove needs state_id or transition_id")

    # -- end of batch --------------------------------------------------------------------

    def finish(self) -> StateAst:
        ast = canonical(
            replace(
                self.base,
                states=self.states,
                transitions=self.transitions,
                class_defs=self.class_defs,
                direction=self.direction,
            )
        )
        refuse_unwritable(state_problem(ast, self.touched))
        problem = order_problem(ast)
        if problem is not None:
            object_id, reason = problem
            raise InvalidParams(
                f"cannot be written as Mermaid: {object_id} {reason}",
                {"object_id": object_id},
            )
        return ast
