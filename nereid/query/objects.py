"""`object.read`: the concrete fields of objects named by refs (mcp-tools.md §10.1).

The reference's six object types keep the contract's fields, and `flow_edge` adds three keys
after them: `mermaid_id` (the Mermaid v11 edge id, `A e1@--> B`, or null), `attrs` (its
`e1@{ ... }` attributes as written, or null) and `classes` (from `class e1 name`). Nereid's
added categories (docs/model.md) read as three more types: `seq_note`, `seq_activation` and
`flow_subgraph`. The MCP layer adds the `context` object to the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

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
from nereid.query.errors import invalid_params, not_found
from nereid.query.params import check_param_ref
from nereid.query.scope import KIND_NAMES, QueryScope
from nereid.render.display import display_text

__all__ = [
    "FlowEdgeObject",
    "FlowNodeObject",
    "FlowSubgraphObject",
    "McpObject",
    "ObjectEntry",
    "ObjectReadResult",
    "SeqActivationObject",
    "SeqBlockObject",
    "SeqMessageObject",
    "SeqNoteObject",
    "SeqParticipantObject",
    "SeqSectionObject",
    "StateObject",
    "StateTransitionObject",
    "object_read",
    "read_object",
]


class _Object(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of the object types: the JSON carries the type name under `type`."""


class SeqParticipantObject(_Object, tag="seq_participant", frozen=True, kw_only=True):
    """Nereid additions: `display`, the name as the drawing shows it (alias, else the name);
    `alias`; `created_by` / `destroyed_by` (`create` / `destroy`: the message at which the
    lifeline starts / ends, or null)."""

    mermaid_name: str
    role: str | None
    display: str
    alias: str | None
    created_by: str | None
    destroyed_by: str | None


class SeqMessageObject(_Object, tag="seq_message", frozen=True, kw_only=True):
    """Nereid additions: `display`, the text as the drawing shows it; `from_central` /
    `to_central` (`A()->>B`, `A->>()B`) and `wrap` (`wrap:` true, `nowrap:` false, null)."""

    from_participant_id: str
    to_participant_id: str
    kind: str
    arrow: str | None
    text: str
    order_key: int
    display: str
    from_central: bool
    to_central: bool
    wrap: bool | None


class SeqBlockObject(_Object, tag="seq_block", frozen=True, kw_only=True):
    kind: str
    header: str | None
    section_ids: list[str]
    child_block_ids: list[str]


class SeqSectionObject(_Object, tag="seq_section", frozen=True, kw_only=True):
    """Nereid addition: `note_ids`, the notes written inside the section."""

    kind: str
    header: str | None
    message_ids: list[str]
    note_ids: list[str]


class SeqNoteObject(_Object, tag="seq_note", frozen=True, kw_only=True):
    """Nereid addition: `placement` is `left_of`, `right_of` or `over`; `wrap` as messages."""

    placement: str
    participant_ids: list[str]
    text: str
    order_key: int
    display: str
    wrap: bool | None


class SeqActivationObject(_Object, tag="seq_activation", frozen=True, kw_only=True):
    """Nereid addition: an `activate` (active true) or `deactivate` statement."""

    participant_id: str
    active: bool
    order_key: int


class FlowNodeObject(_Object, tag="flow_node", frozen=True, kw_only=True):
    """`display`: Nereid addition, the label as the drawing shows it (`display_text`:
    markdown marks and backticks dropped, entities decoded, `<br>` as a line break)."""

    label: str
    shape: str
    mermaid_id: str | None
    display: str


class FlowEdgeObject(_Object, tag="flow_edge", frozen=True, kw_only=True):
    """The contract's fields, then Nereid's v11 additions `mermaid_id`, `attrs`, `classes`,
    and `display` (the label as drawn, null without a label)."""

    from_node_id: str
    to_node_id: str
    label: str | None
    connector: str | None
    style: str | None
    mermaid_id: str | None
    attrs: dict[str, str] | None
    classes: list[str]
    display: str | None


class FlowSubgraphObject(_Object, tag="flow_subgraph", frozen=True, kw_only=True):
    """Nereid addition: a subgraph with its direct members in document order; `display` is
    the title as drawn (its Mermaid id when it has no title)."""

    mermaid_id: str
    title: str | None
    direction: str | None
    node_ids: list[str]
    subgraph_ids: list[str]
    classes: list[str]
    style: str | None
    display: str


class StateObject(_Object, tag="state_state", frozen=True, kw_only=True):
    """A state (spec decision 24): kind, texts, where it sits, and for a composite its parts."""

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
    child_state_ids: list[str]


class StateTransitionObject(_Object, tag="state_transition", frozen=True, kw_only=True):
    from_state_id: str
    to_state_id: str
    label: str | None


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
    object_ref: str | None = None,
    object_refs: list[str] | None = None,
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
        if transition is None:
            return None
        return StateTransitionObject(
            from_state_id=transition.from_state_id,
            to_state_id=transition.to_state_id,
            label=transition.label,
        )
    state = ast.states.get(ref.object_id)
    if state is None:
        return None
    return StateObject(
        kind=state.kind,
        label=state.label,
        descriptions=list(state.descriptions),
        parent_id=state.parent,
        region=state.region,
        composite=state.composite,
        direction=state.direction,
        classes=list(state.classes),
        styles=list(state.styles),
        notes=list(state.notes),
        link=state.link,
        child_state_ids=[sid for sid, s in ast.states.items() if s.parent == ref.object_id],
    )


def _flowchart_object(ast: FlowchartAst, ref: ObjectRef) -> McpObject | None:
    object_id = ref.object_id
    if ref.category == FLOW_NODE:
        node = ast.nodes.get(object_id)
        if node is None:
            return None
        return FlowNodeObject(
            label=node.label,
            shape=node.shape,
            mermaid_id=node.mermaid_id,
            display=display_text(node.label),
        )
    if ref.category == FLOW_EDGE:
        edge = ast.edges.get(object_id)
        if edge is None:
            return None
        return FlowEdgeObject(
            from_node_id=edge.from_node_id,
            to_node_id=edge.to_node_id,
            label=edge.label,
            connector=edge.connector,
            style=edge.style,
            mermaid_id=edge.mermaid_id,
            attrs=None if edge.attrs is None else dict(edge.attrs),
            classes=list(edge.classes),
            display=display_text(edge.label) if edge.label is not None else None,
        )
    assert ref.category == FLOW_SUBGRAPH
    subgraph = ast.subgraphs.get(object_id)
    if subgraph is None:
        return None
    return FlowSubgraphObject(
        mermaid_id=subgraph.mermaid_id,
        title=subgraph.title,
        direction=subgraph.direction,
        node_ids=list(subgraph.node_ids),
        subgraph_ids=list(subgraph.subgraph_ids),
        classes=list(subgraph.classes),
        style=subgraph.style,
        display=display_text(subgraph.title if subgraph.title is not None else subgraph.mermaid_id),
    )


def _sequence_object(ast: SequenceAst, ref: ObjectRef) -> McpObject | None:
    object_id = ref.object_id
    category = ref.category
    if category == SEQ_PARTICIPANT:
        participant = ast.participants.get(object_id)
        if participant is None:
            return None
        return SeqParticipantObject(
            mermaid_name=participant.mermaid_name,
            role=participant.role,
            display=display_text(participant.alias or participant.mermaid_name),
            alias=participant.alias,
            created_by=participant.created_by,
            destroyed_by=participant.destroyed_by,
        )
    if category == SEQ_MESSAGE:
        for message in ast.messages:
            if message.message_id == object_id:
                return SeqMessageObject(
                    from_participant_id=message.from_participant_id,
                    to_participant_id=message.to_participant_id,
                    kind=message.kind,
                    arrow=message.raw_arrow,
                    text=message.text,
                    order_key=message.order_key,
                    display=display_text(message.text),
                    from_central=message.from_central,
                    to_central=message.to_central,
                    wrap=message.wrap,
                )
        return None
    if category == SEQ_BLOCK:
        for block in iter_blocks(ast.blocks):
            if block.block_id == object_id:
                return SeqBlockObject(
                    kind=block.kind,
                    header=block.header,
                    section_ids=[section.section_id for section in block.sections],
                    child_block_ids=[child.block_id for child in block.blocks],
                )
        return None
    if category == SEQ_SECTION:
        for block in iter_blocks(ast.blocks):
            for section in block.sections:
                if section.section_id == object_id:
                    return SeqSectionObject(
                        kind=section.kind,
                        header=section.header,
                        message_ids=list(section.message_ids),
                        note_ids=list(section.note_ids),
                    )
        return None
    if category == SEQ_NOTE:
        for note in ast.notes:
            if note.note_id == object_id:
                return SeqNoteObject(
                    placement=note.placement,
                    participant_ids=list(note.participant_ids),
                    text=note.text,
                    order_key=note.order_key,
                    display=display_text(note.text),
                    wrap=note.wrap,
                )
        return None
    assert category == SEQ_ACTIVATION
    for activation in ast.activations:
        if activation.activation_id == object_id:
            return SeqActivationObject(
                participant_id=activation.participant_id,
                active=activation.active,
                order_key=activation.order_key,
            )
    return None
