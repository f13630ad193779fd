"""`object.read`: the concrete fields of objects named by refs (mcp-tools.md §10.1).

The reference's six object types keep the contract's fields, and `flow_edge` adds three keys
after them: `mermaid_id` (the Mermaid v11 edge id, `A e1@--> B`, or null), `attrs` (its
`e1@{ ... }` attributes as written, or null) and `classes` (from `class e1 name`). Nereid's
added categories (docs/model.md) read as three more types: `seq_note`, `seq_activation` and
`flow_subgraph`. The MCP layer adds the `context` object to the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final, TypeVar

import msgspec

from nereid.model import (
    CATEGORIES,
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_ACTIVATION,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    STATE_STATE,
    STATE_TRANSITION,
    Diagram,
    FlowchartAst,
    ObjectRef,
    SequenceAst,
    StateAst,
    iter_blocks,
)
from nereid.model.state import StateLink, StateNote
from nereid.model.wire import param
from nereid.query.errors import invalid_params, not_found
from nereid.query.params import check_param_ref
from nereid.query.scope import KIND_NAMES, QueryScope
from nereid.render.display import display_text

ShapeT = TypeVar("ShapeT", bound=msgspec.Struct)

__all__ = [
    "FlowEdgeFields",
    "FlowEdgeObject",
    "FlowNodeFields",
    "FlowNodeObject",
    "FlowSubgraphFields",
    "FlowSubgraphObject",
    "McpObject",
    "ObjectEntry",
    "ObjectReadResult",
    "SeqActivationFields",
    "SeqMessageFields",
    "SeqNoteFields",
    "SeqParticipantFields",
    "SeqSectionFields",
    "StateFields",
    "StateTransitionFields",
    "SeqActivationObject",
    "SeqBlockObject",
    "SeqMessageObject",
    "SeqNoteObject",
    "SeqParticipantObject",
    "SeqSectionObject",
    "StateObject",
    "StateTransitionObject",
    "object_read",
    "project",
    "read_object",
]


def project(item: msgspec.Struct, shape: type[ShapeT], **extra: object) -> ShapeT:
    """`item` (a model Struct) as the wire `shape`: every field they share is taken from
    `item` (tuples become lists), `extra` adds or replaces fields (ids, `display`, values of
    properties). Fields of `item` the shape lacks are left out; nothing is copied by hand."""
    return msgspec.convert({**msgspec.structs.asdict(item), **extra}, shape)


# -- the fields an object has wherever it is shown (object.read, diagram.get_ast) ----------


class FlowNodeFields(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    shape: str
    mermaid_id: str | None


class FlowEdgeFields(msgspec.Struct, frozen=True, kw_only=True):
    """The contract's fields, then Nereid's v11 additions `mermaid_id`, `attrs`, `classes`."""

    from_node_id: str
    to_node_id: str
    label: str | None
    connector: str | None
    style: str | None
    mermaid_id: str | None
    attrs: dict[str, str] | None
    classes: list[str]


class FlowSubgraphFields(msgspec.Struct, frozen=True, kw_only=True):
    mermaid_id: str
    title: str | None
    direction: str | None
    node_ids: list[str]
    subgraph_ids: list[str]
    classes: list[str]
    style: str | None


class StateFields(msgspec.Struct, frozen=True, kw_only=True):
    """A state (spec decision 24): kind, texts, where it sits (`parent_id`, `region`)."""

    kind: str
    label: str | None
    descriptions: list[str]
    parent_id: str | None
    region: int
    composite: bool
    direction: str | None
    classes: list[str]
    styles: list[str]
    #: `{text, side}` per note, in text order.
    notes: list[StateNote]
    link: StateLink | None


class StateTransitionFields(msgspec.Struct, frozen=True, kw_only=True):
    from_state_id: str
    to_state_id: str
    label: str | None


class SeqParticipantFields(msgspec.Struct, frozen=True, kw_only=True):
    """`alias`; `created_by` / `destroyed_by` (`create` / `destroy`: the message at which
    the lifeline starts / ends, or null)."""

    mermaid_name: str
    role: str | None
    alias: str | None
    created_by: str | None
    destroyed_by: str | None


class SeqMessageFields(msgspec.Struct, frozen=True, kw_only=True):
    """`from_central` / `to_central` (`A()->>B`, `A->>()B`) and `wrap` (`wrap:` true,
    `nowrap:` false, null)."""

    from_participant_id: str
    to_participant_id: str
    kind: str
    arrow: str | None
    text: str
    order_key: int
    from_central: bool
    to_central: bool
    wrap: bool | None


class SeqSectionFields(msgspec.Struct, frozen=True, kw_only=True):
    """`note_ids`: the notes written inside the section (Nereid addition)."""

    kind: str
    header: str | None
    message_ids: list[str]
    note_ids: list[str]


class SeqNoteFields(msgspec.Struct, frozen=True, kw_only=True):
    """`placement` is `left_of`, `right_of` or `over`; `wrap` as messages."""

    placement: str
    participant_ids: list[str]
    text: str
    order_key: int
    wrap: bool | None


class SeqActivationFields(msgspec.Struct, frozen=True, kw_only=True):
    """An `activate` (active true) or `deactivate` statement."""

    participant_id: str
    active: bool
    order_key: int


# -- object.read: the fields plus `type` and `display` -----------------------------------
# `display` (Nereid addition) is the text as the drawing shows it (`display_text`: markdown
# marks and backticks dropped, entities decoded, `<br>` as a line break).


class SeqParticipantObject(
    SeqParticipantFields, tag="seq_participant", tag_field="type", frozen=True, kw_only=True
):
    """`display`: the name as drawn (alias, else the name)."""

    display: str


class SeqMessageObject(
    SeqMessageFields, tag="seq_message", tag_field="type", frozen=True, kw_only=True
):
    """`arrow`: the written token plus its activation marker (the contract's field)."""

    display: str


class SeqBlockObject(msgspec.Struct, frozen=True, kw_only=True, tag="seq_block", tag_field="type"):
    kind: str
    header: str | None
    section_ids: list[str]
    child_block_ids: list[str]


class SeqSectionObject(
    SeqSectionFields, tag="seq_section", tag_field="type", frozen=True, kw_only=True
):
    pass


class SeqNoteObject(SeqNoteFields, tag="seq_note", tag_field="type", frozen=True, kw_only=True):
    display: str


class SeqActivationObject(
    SeqActivationFields, tag="seq_activation", tag_field="type", frozen=True, kw_only=True
):
    pass


class FlowNodeObject(FlowNodeFields, tag="flow_node", tag_field="type", frozen=True, kw_only=True):
    display: str


class FlowEdgeObject(FlowEdgeFields, tag="flow_edge", tag_field="type", frozen=True, kw_only=True):
    """`display`: the label as drawn, null without a label."""

    display: str | None


class FlowSubgraphObject(
    FlowSubgraphFields, tag="flow_subgraph", tag_field="type", frozen=True, kw_only=True
):
    """A subgraph with its direct members in document order; `display` is the title as
    drawn (its Mermaid id when it has no title)."""

    display: str


class StateObject(StateFields, tag="state_state", tag_field="type", frozen=True, kw_only=True):
    """For a composite, its `child_state_ids`."""

    child_state_ids: list[str]


class StateTransitionObject(
    StateTransitionFields, tag="state_transition", tag_field="type", frozen=True, kw_only=True
):
    pass


McpObject = (
    StateObject
    | StateTransitionObject
    | SeqParticipantObject
    | SeqMessageObject
    | SeqBlockObject
    | SeqSectionObject
    | SeqNoteObject
    | SeqActivationObject
    | FlowNodeObject
    | FlowEdgeObject
    | FlowSubgraphObject
)


#: How the not-found messages name each category.
_NAMES: Final[dict[tuple[str, ...], str]] = {
    SEQ_PARTICIPANT: "seq participant",
    SEQ_MESSAGE: "seq message",
    SEQ_BLOCK: "seq block",
    SEQ_SECTION: "seq section",
    SEQ_NOTE: "seq note",
    SEQ_ACTIVATION: "seq activation",
    FLOW_NODE: "flow node",
    FLOW_EDGE: "flow edge",
    FLOW_SUBGRAPH: "flow subgraph",
    STATE_STATE: "state",
    STATE_TRANSITION: "state transition",
}


class ObjectEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One requested ref (as given) and its object."""

    object_ref: str
    object: McpObject


class ObjectReadResult(msgspec.Struct, frozen=True, kw_only=True):
    """`object.read` without its `context` (the MCP layer adds it): input order, duplicates kept."""

    objects: list[ObjectEntry]


def object_read(
    scope: QueryScope,
    *,
    object_ref: Annotated[str | None, param("One object ref (give this or object_refs).")] = None,
    object_refs: Annotated[
        list[str] | None, param("Several object refs, answered in this order.")
    ] = None,
) -> ObjectReadResult:
    """`object.read` for exactly one of `object_ref` / `object_refs`; all or nothing."""
    if object_ref is not None and object_refs is not None:
        raise invalid_params("provide either object_ref or object_refs, not both")
    if object_ref is None and object_refs is None:
        raise invalid_params("object_ref or object_refs is required")
    texts = [object_ref] if object_ref is not None else list(object_refs or [])
    if not texts:
        raise invalid_params("object_refs must not be empty")
    return ObjectReadResult(
        objects=[
            ObjectEntry(object_ref=text, object=read_object(scope.diagrams, text)) for text in texts
        ]
    )


def read_object(diagrams: Mapping[str, Diagram], text: str) -> McpObject:
    """The object one ref names, or the spec's refusal for that ref."""
    ref = check_param_ref("object_ref", text)
    diagram = diagrams.get(ref.diagram_id)
    if diagram is None:
        raise not_found("diagram not found", {"diagram_id": ref.diagram_id, "object_ref": text})
    if CATEGORIES.get(ref.category) != diagram.kind:
        raise invalid_params(
            "unsupported category for diagram kind",
            {
                "object_ref": text,
                "diagram_kind": KIND_NAMES[diagram.kind],
                "category": list(ref.category),
            },
        )
    if isinstance(diagram.ast, FlowchartAst):
        found = _flowchart_object(diagram.ast, ref)
    elif isinstance(diagram.ast, StateAst):
        found = _state_object(diagram.ast, ref)
    else:
        found = _sequence_object(diagram.ast, ref)
    if found is None:
        raise not_found(f"{_NAMES[ref.category]} not found", {"object_ref": text})
    return found


def _state_object(ast: StateAst, ref: ObjectRef) -> McpObject | None:
    if ref.category == STATE_TRANSITION:
        transition = ast.transitions.get(ref.object_id)
        return None if transition is None else project(transition, StateTransitionObject)
    state = ast.states.get(ref.object_id)
    if state is None:
        return None
    return project(
        state,
        StateObject,
        parent_id=state.parent,
        child_state_ids=[sid for sid, s in ast.states.items() if s.parent == ref.object_id],
    )


def _flowchart_object(ast: FlowchartAst, ref: ObjectRef) -> McpObject | None:
    object_id = ref.object_id
    if ref.category == FLOW_NODE:
        node = ast.nodes.get(object_id)
        return (
            None
            if node is None
            else project(node, FlowNodeObject, display=display_text(node.label))
        )
    if ref.category == FLOW_EDGE:
        edge = ast.edges.get(object_id)
        if edge is None:
            return None
        shown = display_text(edge.label) if edge.label is not None else None
        return project(edge, FlowEdgeObject, connector=edge.connector, display=shown)
    assert ref.category == FLOW_SUBGRAPH
    subgraph = ast.subgraphs.get(object_id)
    if subgraph is None:
        return None
    title = subgraph.title if subgraph.title is not None else subgraph.mermaid_id
    return project(subgraph, FlowSubgraphObject, display=display_text(title))


def _sequence_object(ast: SequenceAst, ref: ObjectRef) -> McpObject | None:
    object_id = ref.object_id
    category = ref.category
    if category == SEQ_PARTICIPANT:
        participant = ast.participants.get(object_id)
        if participant is None:
            return None
        shown = display_text(participant.alias or participant.mermaid_name)
        return project(participant, SeqParticipantObject, display=shown)
    if category == SEQ_MESSAGE:
        for message in ast.messages:
            if message.message_id == object_id:
                return project(
                    message,
                    SeqMessageObject,
                    arrow=message.raw_arrow,
                    display=display_text(message.text),
                )
        return None
    if category == SEQ_BLOCK:
        for block in iter_blocks(ast.blocks):
            if block.block_id == object_id:
                return project(
                    block,
                    SeqBlockObject,
                    section_ids=[section.section_id for section in block.sections],
                    child_block_ids=[child.block_id for child in block.blocks],
                )
        return None
    if category == SEQ_SECTION:
        for block in iter_blocks(ast.blocks):
            for section in block.sections:
                if section.section_id == object_id:
                    return project(section, SeqSectionObject)
        return None
    if category == SEQ_NOTE:
        for note in ast.notes:
            if note.note_id == object_id:
                return project(note, SeqNoteObject, display=display_text(note.text))
        return None
    assert category == SEQ_ACTIVATION
    for activation in ast.activations:
        if activation.activation_id == object_id:
            return project(activation, SeqActivationObject)
    return None
