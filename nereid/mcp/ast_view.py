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

from typing import Literal

import msgspec

from nereid.model import FlowchartAst, SequenceAst, StateAst
from nereid.model.sequence import SeqBlock
from nereid.model.state import StateLink, StateNote

__all__ = [
    "AstView",
    "FlowAstView",
    "SeqAstView",
    "StateAstView",
    "ast_view",
]


class FlowNodeView(msgspec.Struct, frozen=True, kw_only=True):
    node_id: str
    label: str
    shape: str
    mermaid_id: str | None
    note: str | None
    classes: list[str]
    style: str | None
    click: str | None
    attrs: dict[str, str] | None


class FlowEdgeView(msgspec.Struct, frozen=True, kw_only=True):
    edge_id: str
    from_node_id: str
    to_node_id: str
    label: str | None
    connector: str | None
    style: str | None
    line: str
    head_start: str
    head_end: str
    length: int
    mermaid_id: str | None
    attrs: dict[str, str] | None
    classes: list[str]


class FlowSubgraphView(msgspec.Struct, frozen=True, kw_only=True):
    subgraph_id: str
    mermaid_id: str
    title: str | None
    direction: str | None
    node_ids: list[str]
    subgraph_ids: list[str]
    classes: list[str]
    style: str | None


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


class SeqParticipantView(msgspec.Struct, frozen=True, kw_only=True):
    participant_id: str
    mermaid_name: str
    role: str | None
    note: str | None
    alias: str | None
    links: list[SeqLinkView]
    created_by: str | None
    destroyed_by: str | None


class SeqMessageView(msgspec.Struct, frozen=True, kw_only=True):
    message_id: str
    from_participant_id: str
    to_participant_id: str
    kind: Literal["sync", "async", "return"]
    arrow: str | None
    text: str
    order_key: int
    activation: Literal["+", "-"] | None
    from_central: bool
    to_central: bool
    wrap: bool | None


class SeqSectionView(msgspec.Struct, frozen=True, kw_only=True):
    section_id: str
    kind: str
    header: str | None
    message_ids: list[str]
    note_ids: list[str]


class SeqBlockView(msgspec.Struct, frozen=True, kw_only=True):
    block_id: str
    kind: str
    header: str | None
    sections: list[SeqSectionView]
    blocks: list[SeqBlockView]


class SeqNoteView(msgspec.Struct, frozen=True, kw_only=True):
    note_id: str
    placement: str
    participant_ids: list[str]
    text: str
    order_key: int
    wrap: bool | None


class SeqActivationView(msgspec.Struct, frozen=True, kw_only=True):
    activation_id: str
    participant_id: str
    active: bool
    order_key: int


class SeqAutonumberView(msgspec.Struct, frozen=True, kw_only=True):
    start: int
    step: int


class SeqAutonumberChangeView(msgspec.Struct, frozen=True, kw_only=True):
    message_id: str | None
    on: bool
    start: int | None
    step: int | None


class SeqBoxView(msgspec.Struct, frozen=True, kw_only=True):
    participant_ids: list[str]
    color: str | None
    label: str | None


class SeqAstView(msgspec.Struct, frozen=True, kw_only=True, tag="sequence", tag_field="type"):
    participants: list[SeqParticipantView]
    messages: list[SeqMessageView]
    blocks: list[SeqBlockView]
    title: str | None
    autonumber: SeqAutonumberView | None
    notes: list[SeqNoteView]
    activations: list[SeqActivationView]
    boxes: list[SeqBoxView]
    autonumber_changes: list[SeqAutonumberChangeView]
    acc_title: str | None
    acc_descr: str | None
    front_matter: str | None
    directives: list[str]


class StateView(msgspec.Struct, frozen=True, kw_only=True):
    state_id: str
    kind: str
    label: str | None
    descriptions: list[str]
    parent_id: str | None
    region: int
    composite: bool
    direction: str | None
    classes: list[str]
    styles: list[str]
    notes: list[StateNote]
    link: StateLink | None


class StateTransitionView(msgspec.Struct, frozen=True, kw_only=True):
    transition_id: str
    from_state_id: str
    to_state_id: str
    label: str | None


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


def _state_view(ast: StateAst) -> StateAstView:
    return StateAstView(
        header=ast.header,
        direction=ast.direction,
        states=[
            StateView(
                state_id=state_id,
                kind=s.kind,
                label=s.label,
                descriptions=list(s.descriptions),
                parent_id=s.parent,
                region=s.region,
                composite=s.composite,
                direction=s.direction,
                classes=list(s.classes),
                styles=list(s.styles),
                notes=list(s.notes),
                link=s.link,
            )
            for state_id, s in ast.states.items()
        ],
        transitions=[
            StateTransitionView(
                transition_id=tid,
                from_state_id=t.from_state_id,
                to_state_id=t.to_state_id,
                label=t.label,
            )
            for tid, t in ast.transitions.items()
        ],
        class_defs=dict(ast.class_defs),
        acc_title=ast.acc_title,
        acc_descr=ast.acc_descr,
        hide_empty_description=ast.hide_empty_description,
        scale=ast.scale,
    )


def _flow_view(ast: FlowchartAst) -> FlowAstView:
    return FlowAstView(
        nodes=[
            FlowNodeView(
                node_id=node_id,
                label=node.label,
                shape=node.shape,
                mermaid_id=node.mermaid_id,
                note=node.note,
                classes=list(node.classes),
                style=node.style,
                click=node.click,
                attrs=None if node.attrs is None else dict(node.attrs),
            )
            for node_id, node in ast.nodes.items()
        ],
        edges=[
            FlowEdgeView(
                edge_id=edge_id,
                from_node_id=edge.from_node_id,
                to_node_id=edge.to_node_id,
                label=edge.label,
                connector=edge.connector,
                style=edge.style,
                line=edge.line,
                head_start=edge.head_start,
                head_end=edge.head_end,
                length=edge.length,
                mermaid_id=edge.mermaid_id,
                attrs=None if edge.attrs is None else dict(edge.attrs),
                classes=list(edge.classes),
            )
            for edge_id, edge in ast.edges.items()
        ],
        direction=ast.direction,
        subgraphs=[
            FlowSubgraphView(
                subgraph_id=subgraph_id,
                mermaid_id=sub.mermaid_id,
                title=sub.title,
                direction=sub.direction,
                node_ids=list(sub.node_ids),
                subgraph_ids=list(sub.subgraph_ids),
                classes=list(sub.classes),
                style=sub.style,
            )
            for subgraph_id, sub in ast.subgraphs.items()
        ],
        class_defs=dict(ast.class_defs),
        default_edge_style=ast.default_edge_style,
        acc_title=ast.acc_title,
        acc_descr=ast.acc_descr,
        front_matter=ast.front_matter,
        directives=list(ast.directives),
    )


def _block_view(block: SeqBlock) -> SeqBlockView:
    return SeqBlockView(
        block_id=block.block_id,
        kind=block.kind,
        header=block.header,
        sections=[
            SeqSectionView(
                section_id=s.section_id,
                kind=s.kind,
                header=s.header,
                message_ids=list(s.message_ids),
                note_ids=list(s.note_ids),
            )
            for s in block.sections
        ],
        blocks=[_block_view(child) for child in block.blocks],
    )


def _seq_view(ast: SequenceAst) -> SeqAstView:
    autonumber = ast.autonumber
    return SeqAstView(
        participants=[
            SeqParticipantView(
                participant_id=pid,
                mermaid_name=p.mermaid_name,
                role=p.role,
                note=p.note,
                alias=p.alias,
                links=[SeqLinkView(label=label, url=url) for label, url in p.links],
                created_by=p.created_by,
                destroyed_by=p.destroyed_by,
            )
            for pid, p in ast.participants.items()
        ],
        messages=[
            SeqMessageView(
                message_id=m.message_id,
                from_participant_id=m.from_participant_id,
                to_participant_id=m.to_participant_id,
                kind=m.kind,
                arrow=m.arrow,
                text=m.text,
                order_key=m.order_key,
                activation=m.activation,
                from_central=m.from_central,
                to_central=m.to_central,
                wrap=m.wrap,
            )
            for m in ast.messages
        ],
        blocks=[_block_view(b) for b in ast.blocks],
        title=ast.title,
        autonumber=(
            None
            if autonumber is None
            else SeqAutonumberView(start=autonumber.start, step=autonumber.step)
        ),
        notes=[
            SeqNoteView(
                note_id=n.note_id,
                placement=n.placement,
                participant_ids=list(n.participant_ids),
                text=n.text,
                order_key=n.order_key,
                wrap=n.wrap,
            )
            for n in ast.notes
        ],
        activations=[
            SeqActivationView(
                activation_id=a.activation_id,
                participant_id=a.participant_id,
                active=a.active,
                order_key=a.order_key,
            )
            for a in ast.activations
        ],
        boxes=[
            SeqBoxView(participant_ids=list(b.participant_ids), color=b.color, label=b.label)
            for b in ast.boxes
        ],
        autonumber_changes=[
            SeqAutonumberChangeView(message_id=c.message_id, on=c.on, start=c.start, step=c.step)
            for c in ast.autonumber_changes
        ],
        acc_title=ast.acc_title,
        acc_descr=ast.acc_descr,
        front_matter=ast.front_matter,
        directives=list(ast.directives),
    )


def ast_view(ast: FlowchartAst | SequenceAst | StateAst) -> AstView:
    """The `ast` object of `diagram.get_ast` for a model AST."""
    if isinstance(ast, FlowchartAst):
        return _flow_view(ast)
    if isinstance(ast, StateAst):
        return _state_view(ast)
    return _seq_view(ast)
