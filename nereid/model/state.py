"""The state-diagram AST (spec decision 24: Mermaid `stateDiagram-v2` / `stateDiagram`).

A state's object id is `s:<Mermaid id>`; the start and end pseudo-states `[*]` are one per
scope (the diagram, or one concurrency region of a composite state) with the ids `start` /
`end` (top level), `start:<C>` / `end:<C>` (region 1 of composite `s:C`) and
`start:<C>:<n>` (region n > 1). A Mermaid id never holds `:`, so the three never collide.

Composite states are states with `composite=True`; every state names its `parent` (the
composite's object id, None at the top) and its concurrency `region` (0-based) there.
Transitions carry no scope of their own: the exporter writes one in the scope of its `[*]`
end, else in the innermost scope holding both ends (`written_scope`).

The item Structs are `gc=False`, as the flowchart's (`nereid.model.flowchart`).

Orders are canonical (`canonical`): the importer and the ops both store states and
transitions in the order the exporter writes them, so import, export and import again give
equal values. States: per scope, its direct children in first-mention order, then the
composites' scopes in that order. Transitions: in the order of the scopes' closing lines
(inner scopes first), text order inside a scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import msgspec

__all__ = [
    "NOTE_SIDES",
    "PSEUDO_KINDS",
    "STATE_DIRECTIONS",
    "STATE_HEADERS",
    "STATE_KINDS",
    "Scope",
    "StateAst",
    "StateLink",
    "StateNote",
    "StateKind",
    "StateNode",
    "StateTransition",
    "canonical",
    "children_of",
    "end_id",
    "mermaid_name",
    "nested_scopes",
    "order_problem",
    "pseudo_id",
    "region_counts",
    "scope_chain",
    "scope_of",
    "start_id",
    "state_object_id",
    "written_scope",
]

StateKind = Literal["state", "start", "end", "choice", "fork", "join", "note"]
NoteSide = Literal["left of", "right of"]

#: `note` is a floating note (`note "text" as N1`): its text is the label, and transitions
#: may link it like any state (Mermaid itself reads `N1 --> S` as a state `N1`).
STATE_KINDS: Final = ("state", "start", "end", "choice", "fork", "join", "note")
PSEUDO_KINDS: Final = frozenset({"start", "end"})
NOTE_SIDES: Final = ("left of", "right of")
STATE_HEADERS: Final = ("stateDiagram-v2", "stateDiagram")
#: Directions a state diagram accepts (Mermaid's state grammar has no `TD`).
STATE_DIRECTIONS: Final = ("TB", "BT", "LR", "RL")

#: A scope: (composite object id or None for the diagram, region index).
Scope = tuple[str | None, int]
ROOT: Final[Scope] = (None, 0)


class StateNote(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """`note left of X` / `note right of X` text (lines joined by `\n`)."""

    text: str
    side: NoteSide = "right of"


class StateLink(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A state's `click` link: the url and, in the two-string form, a tooltip."""

    url: str
    tooltip: str | None = None


class StateNode(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One state (simple, composite, choice, fork, join), a start/end pseudo-state, or a
    floating note."""

    kind: StateKind = "state"
    #: `state "Long name" as s1`, or a floating note's text; None when not given.
    label: str | None = None
    #: `s1 : text` lines, in order (Mermaid shows each as a line of the box).
    descriptions: tuple[str, ...] = ()
    #: The composite holding this state (object id), None at the top level.
    parent: str | None = None
    #: The concurrency region inside `parent` (`--` separates regions), 0-based.
    region: int = 0
    #: Written as `state X { ... }` (it may still be empty).
    composite: bool = False
    #: A composite's own `direction`.
    direction: str | None = None
    #: `class X name` / `X:::name` (`[*]:::name` on a start or end), in order.
    classes: tuple[str, ...] = ()
    #: The `style X css` statements naming this state, in order (Mermaid applies the last).
    styles: tuple[str, ...] = ()
    #: The notes beside this state, in text order (Mermaid draws each one).
    notes: tuple[StateNote, ...] = ()
    #: `click X href "url"` (tooltip None) or `click X "url" "tooltip"` (top level only).
    link: StateLink | None = None


class StateTransition(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A transition `from --> to : label` between two state object ids."""

    from_state_id: str
    to_state_id: str
    label: str | None = None


class StateAst(msgspec.Struct, frozen=True, kw_only=True):
    """A whole state diagram (orders as `canonical` keeps them)."""

    header: str = "stateDiagram-v2"
    direction: str | None = None
    states: dict[str, StateNode] = msgspec.field(default_factory=dict)
    transitions: dict[str, StateTransition] = msgspec.field(default_factory=dict)
    class_defs: dict[str, str] = msgspec.field(default_factory=dict)
    acc_title: str | None = None
    acc_descr: str | None = None
    #: YAML front matter kept verbatim, None if absent.
    front_matter: str | None = None
    #: `%%{init: ...}%%` directives, verbatim, as the flowchart keeps them.
    directives: tuple[str, ...] = ()
    #: `hide empty description` and `scale <n> width` (top level only; Mermaid 11 reads
    #: and ignores both, Nereid keeps and writes them back).
    hide_empty_description: bool = False
    scale: str | None = None


def state_object_id(mermaid_id: str) -> str:
    return f"s:{mermaid_id}"


def mermaid_name(state_id: str) -> str:
    """The Mermaid id of a (non-pseudo) state: its object id minus `s:`."""
    return state_id[2:] if state_id.startswith("s:") else state_id


def pseudo_id(kind: Literal["start", "end"], scope: Scope) -> str:
    """The object id of the start or end pseudo-state of one scope."""
    parent, region = scope
    if parent is None:
        return kind
    name = f"{kind}:{mermaid_name(parent)}"
    return name if region == 0 else f"{name}:{region + 1}"


def start_id(scope: Scope) -> str:
    return pseudo_id("start", scope)


def end_id(scope: Scope) -> str:
    return pseudo_id("end", scope)


def scope_of(state: StateNode) -> Scope:
    return (state.parent, state.region)


def scope_chain(states: Mapping[str, StateNode], state_id: str) -> list[Scope]:
    """The scopes around a state, outermost first (the root included), without recursion."""
    chain: list[Scope] = []
    seen: set[str] = set()
    current = states.get(state_id)
    while current is not None and current.parent is not None and current.parent not in seen:
        chain.append(scope_of(current))
        seen.add(current.parent)
        current = states.get(current.parent)
    chain.append(ROOT)
    chain.reverse()
    return chain


def written_scope(states: Mapping[str, StateNode], transition: StateTransition) -> Scope:
    """Where a transition is written: its `[*]` end's scope, else the innermost shared one."""
    for end in (transition.from_state_id, transition.to_state_id):
        state = states.get(end)
        if state is not None and state.kind in PSEUDO_KINDS:
            return scope_of(state)
    one = scope_chain(states, transition.from_state_id)
    two = scope_chain(states, transition.to_state_id)
    shared = ROOT
    for a, b in zip(one, two, strict=False):
        if a != b:
            break
        shared = a
    return shared


def children_of(states: Mapping[str, StateNode]) -> dict[Scope, list[str]]:
    """Each scope's direct children in the states' order."""
    result: dict[Scope, list[str]] = {}
    for state_id, state in states.items():
        result.setdefault(scope_of(state), []).append(state_id)
    return result


def region_counts(states: Mapping[str, StateNode]) -> dict[str, int]:
    """How many concurrency regions each composite has (at least one)."""
    counts = {state_id: 1 for state_id, state in states.items() if state.composite}
    for state in states.values():
        if state.parent in counts:
            counts[state.parent] = max(counts[state.parent], state.region + 1)
    return counts


def nested_scopes(counts: Mapping[str, int], own: list[str]) -> list[Scope]:
    """The regions of the composites among `own` (`counts` from `region_counts`), in order."""
    return [(child, r) for child in own if child in counts for r in range(counts[child])]


def _pseudo_last(states: Mapping[str, StateNode], own: list[str]) -> list[str]:
    """A scope's children with its `[*]` states last (start, then end): the exporter never
    declares them, so their place cannot depend on where a transition names them."""
    named = [s for s in own if states[s].kind not in PSEUDO_KINDS]
    pseudo = sorted(
        (s for s in own if states[s].kind in PSEUDO_KINDS), key=lambda s: states[s].kind != "start"
    )
    return named + pseudo


def canonical(ast: StateAst) -> StateAst:
    """`ast` with states and transitions in the exporter's order (see the module docstring)."""
    children = children_of(ast.states)
    counts = region_counts(ast.states)
    order: list[str] = []
    scopes_post: list[Scope] = []
    # Iterative walk: a scope lists its children, then each composite child's regions.
    stack: list[tuple[Scope, bool]] = [(ROOT, False)]
    seen: set[Scope] = set()
    while stack:
        scope, closing = stack.pop()
        if closing:
            scopes_post.append(scope)
            continue
        if scope in seen:
            continue
        seen.add(scope)
        own = _pseudo_last(ast.states, children.get(scope, []))
        order.extend(own)
        stack.append((scope, True))
        nested = nested_scopes(counts, own)
        stack.extend((s, False) for s in reversed(nested))
    placed = set(order)
    order.extend(state_id for state_id in ast.states if state_id not in placed)  # orphans
    rank = {scope: index for index, scope in enumerate(scopes_post)}
    transitions = sorted(
        ast.transitions.items(),
        key=lambda item: rank.get(written_scope(ast.states, item[1]), len(rank)),
    )
    states = {state_id: ast.states[state_id] for state_id in order}
    new_transitions = dict(transitions)
    if list(states) == list(ast.states) and list(new_transitions) == list(ast.transitions):
        return ast
    return msgspec.structs.replace(ast, states=states, transitions=new_transitions)


def _scope_spans(states: Mapping[str, StateNode]) -> dict[Scope, tuple[int, int]]:
    """Each scope's (open, close) position in the exporter's walk."""
    children = children_of(states)
    counts = region_counts(states)
    spans: dict[Scope, list[int]] = {}
    stack: list[tuple[Scope, bool]] = [(ROOT, False)]
    step = 0
    while stack:
        scope, closing = stack.pop()
        step += 1
        if closing:
            spans[scope].append(step)
            continue
        if scope in spans:
            continue
        spans[scope] = [step]
        stack.append((scope, True))
        stack.extend((s, False) for s in reversed(nested_scopes(counts, children.get(scope, []))))
    return {scope: (span[0], span[-1]) for scope, span in spans.items()}


def order_problem(ast: StateAst) -> tuple[str, str] | None:
    """(object id, why) when the text could not say where a state or transition is, else None.

    The exporter names every state at the top of its own scope and writes a transition at
    the close of its `written_scope`; Mermaid puts a state in the scope it is first named
    in. So a transition written at a `[*]`'s scope must not name a state whose scope only
    opens after that one closes, two `[*]` ends must share a scope, and an end `[*]` needs
    a transition (alone, `[*]` reads as a start), one per class it carries.
    """
    spans = _scope_spans(ast.states)
    mentioned: set[str] = set()
    for transition_id, transition in ast.transitions.items():
        ends = (transition.from_state_id, transition.to_state_id)
        mentioned.update(ends)
        nodes = [ast.states.get(end) for end in ends]
        if any(node is None for node in nodes):
            return transition_id, "names a state that does not exist"
        pseudo = [node for node in nodes if node is not None and node.kind in PSEUDO_KINDS]
        if len(pseudo) == 2 and scope_of(pseudo[0]) != scope_of(pseudo[1]):
            return transition_id, "joins the [*] states of two different scopes"
        if len(pseudo) != 1:
            continue
        where = spans.get(scope_of(pseudo[0]))
        other = next(node for node in nodes if node is not None and node.kind not in PSEUDO_KINDS)
        opened = spans.get(scope_of(other))
        if where is None or opened is None or opened[0] > where[1]:
            return transition_id, (
                "its [*] end's scope is written before the scope of its other end, so "
                "Mermaid would place that state in the wrong composite"
            )
    into: dict[str, int] = {}
    for transition in ast.transitions.values():
        into[transition.to_state_id] = into.get(transition.to_state_id, 0) + 1
    for state_id, state in ast.states.items():
        if state.kind == "end" and state_id not in mentioned:
            return state_id, "an end [*] without a transition cannot be written"
        if state.kind == "end" and len(state.classes) > into.get(state_id, 0):
            return state_id, (
                "an end [*] is written with one class per transition into it ('--> [*]:::name')"
            )
        if state.parent is not None and (state.parent, state.region) not in spans:
            return state_id, "its composite does not exist or is not composite"
    return None
