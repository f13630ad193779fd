"""`diagram.get_ast`'s `ast` object: the model's AST in the contract's JSON shape.

Contract keys are kept exactly (mcp-tools.md §13.3). What our model holds beyond them is
added as extra keys in the same style, so nothing a client may need is hidden:

- both: `acc_title`, `acc_descr` (null when absent; a description may hold line breaks),
  `front_matter` (the YAML between the `---` lines, verbatim, or null) and `directives`
  (`%%{init: ...}%%` texts, verbatim);
- flowchart: `direction`, `subgraphs` (`{subgraph_id, mermaid_id, title, direction,
  node_ids, subgraph_ids, classes, style}`), `class_defs` (`{name: css}`), `default_edge_style`; nodes
  also carry `classes`, `style`, `click` and `attrs` (the Mermaid v11 attributes of an
  `icon` / `image` node, key -> value as written with any quotes, else null);
  edges also carry the structural link (`line`, `head_start`, `head_end`, `length`) and the
  v11 `mermaid_id` (`A e1@--> B`, or null), `attrs` (`e1@{ ... }` as written, or null) and
  `classes` (`class e1 name`);
- state (spec decision 24): `header`, `direction`, `states` (`{state_id, kind, label,
  descriptions, parent_id, region, composite, direction, classes, styles, notes, link}`,
  notes as `{text, side}`, link `{url, tooltip}` or null; kind `note` is a floating note,
  its text the label),
  `transitions` (`{transition_id, from_state_id, to_state_id, label}`), `class_defs`,
  `acc_title`, `acc_descr`, `hide_empty_description`, `scale`;
- sequence: `title`, `autonumber` (`{start, step}` or null), `notes`
  (`{note_id, placement, participant_ids, text, order_key}`), `activations`
  (`{activation_id, participant_id, active, order_key}`), `boxes` (participant boxes in
  text order: `{participant_ids, color, label}`, `[]` when none), `autonumber_changes`
  (later `autonumber` statements: `{message_id, on, start, step}`, taking effect at that
  message; message_id null: after the last); participants also carry `alias`, `links`
  (`[{label, url}]`), `created_by` / `destroyed_by` (the message at which a `create`d
  lifeline starts / a `destroy`ed one ends, or null); messages also carry `activation`
  (`"+"`, `"-"`, null), `from_central` / `to_central` (`A()->>B` / `A->>()B`) and `wrap`
  (`wrap:` true, `nowrap:` false, else null; notes carry it too); the arrow token, half
  arrows included (`-|\\`, `/|-`, ...), is `arrow`; sections also carry `note_ids` (the
  notes written in the section, nested blocks included).

Order (decision 10): document order everywhere — nodes and edges as written,
participants in declaration order, messages in sequence, blocks and sections as stored —
not sorted by id as the reference does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

import msgspec

from nereid.model import FlowchartAst, SequenceAst, StateAst
from nereid.model.sequence import (
    SeqActivation,
    SeqAutonumber,
    SeqAutonumberChange,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
)
from nereid.query.objects import (
    FlowEdgeFields,
    FlowNodeFields,
    FlowSubgraphFields,
    SeqParticipantFields,
    StateFields,
    StateTransitionFields,
    project,
)

__all__ = [
    "AstView",
    "FlowAstView",
    "SeqAstView",
    "StateAstView",
    "ast_view",
]

# Objects the model keys by id are shown with the fields `object.read` shows
# (`nereid.query.objects`) plus their id and what only the whole AST needs; objects that hold
# their own id (messages, notes, activations, blocks) are shown as the model holds them.


class FlowNodeView(FlowNodeFields, frozen=True, kw_only=True):
    node_id: str
    note: str | None
    classes: list[str]
    style: str | None
    click: str | None
    attrs: dict[str, str] | None


class FlowEdgeView(FlowEdgeFields, frozen=True, kw_only=True):
    edge_id: str
    line: str
    head_start: str
    head_end: str
    length: int


class FlowSubgraphView(FlowSubgraphFields, frozen=True, kw_only=True):
    subgraph_id: str


class FlowAstView(msgspec.Struct, frozen=True, kw_only=True, tag="flowchart", tag_field="type"):
    nodes: list[FlowNodeView]
    edges: list[FlowEdgeView]
    direction: str | None
    subgraphs: list[FlowSubgraphView]
    class_defs: dict[str, str]
    default_edge_style: str | None
    acc_title: str | None
    acc_descr: str | None
    front_matter: str | None
    directives: list[str]


class SeqLinkView(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    url: str


class SeqParticipantView(SeqParticipantFields, frozen=True, kw_only=True):
    participant_id: str
    note: str | None
    links: list[SeqLinkView]


class SeqAstView(msgspec.Struct, frozen=True, kw_only=True, tag="sequence", tag_field="type"):
    participants: list[SeqParticipantView]
    messages: list[SeqMessage]
    blocks: list[SeqBlock]
    title: str | None
    autonumber: SeqAutonumber | None
    notes: list[SeqNote]
    activations: list[SeqActivation]
    boxes: list[SeqBox]
    autonumber_changes: list[SeqAutonumberChange]
    acc_title: str | None
    acc_descr: str | None
    front_matter: str | None
    directives: list[str]


class StateView(StateFields, frozen=True, kw_only=True):
    state_id: str


class StateTransitionView(StateTransitionFields, frozen=True, kw_only=True):
    transition_id: str


class StateAstView(msgspec.Struct, frozen=True, kw_only=True, tag="state", tag_field="type"):
    header: str
    direction: str | None
    states: list[StateView]
    transitions: list[StateTransitionView]
    class_defs: dict[str, str]
    acc_title: str | None
    acc_descr: str | None
    hide_empty_description: bool
    scale: str | None


AstView = FlowAstView | SeqAstView | StateAstView

ViewT = TypeVar("ViewT", bound=msgspec.Struct)


def _views(items: Mapping[str, msgspec.Struct], shape: type[ViewT], id_field: str) -> list[ViewT]:
    return [project(item, shape, **{id_field: item_id}) for item_id, item in items.items()]


def ast_view(ast: FlowchartAst | SequenceAst | StateAst) -> AstView:
    """The `ast` object of `diagram.get_ast` for a model AST (document order everywhere)."""
    if isinstance(ast, FlowchartAst):
        return project(
            ast,
            FlowAstView,
            nodes=_views(ast.nodes, FlowNodeView, "node_id"),
            edges=[
                project(edge, FlowEdgeView, edge_id=edge_id, connector=edge.connector)
                for edge_id, edge in ast.edges.items()
            ],
            subgraphs=_views(ast.subgraphs, FlowSubgraphView, "subgraph_id"),
        )
    if isinstance(ast, StateAst):
        return project(
            ast,
            StateAstView,
            states=[
                project(state, StateView, state_id=state_id, parent_id=state.parent)
                for state_id, state in ast.states.items()
            ],
            transitions=_views(ast.transitions, StateTransitionView, "transition_id"),
        )
    participants = [
        project(
            participant,
            SeqParticipantView,
            participant_id=participant_id,
            links=[SeqLinkView(label=label, url=url) for label, url in participant.links],
        )
        for participant_id, participant in ast.participants.items()
    ]
    return project(ast, SeqAstView, participants=participants)
