"""What the lists show: selectable objects of a diagram and xref rows (tui.md §4.2, §4.3)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from nereid.model.diagram import Diagram
from nereid.model.flowchart import FlowchartAst, FlowNode
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.model.state import StateAst
from nereid.model.state_flow import state_display_label
from nereid.model.xref import XRef, XRefStatus, xref_status_in
from nereid.render.display import display_line

__all__ = [
    "SELECTABLE",
    "ObjectItem",
    "XRefItem",
    "changed_objects",
    "find_object",
    "object_index",
    "selectable_objects",
    "xref_items",
]

#: What the cursor, selection, hint jumps and the Objects list reach. Subgraphs are objects of
#: their own (edges may end at them, spec decision 23).
SELECTABLE: Final = (
    FLOW_NODE,
    FLOW_EDGE,
    FLOW_SUBGRAPH,
    SEQ_PARTICIPANT,
    SEQ_MESSAGE,
    STATE_STATE,
    STATE_TRANSITION,
)


@dataclass(frozen=True)
class ObjectItem:
    """One row of the Objects list: the object, its kind word and its label."""

    ref: ObjectRef
    label: str
    note: str | None

    @property
    def is_box(self) -> bool:
        """Nodes and participants (the things a person thinks of as 'the objects')."""
        return self.ref.category in (FLOW_NODE, SEQ_PARTICIPANT)


@dataclass(frozen=True)
class XRefItem:
    xref_id: str
    xref: XRef
    status: XRefStatus

    @property
    def label(self) -> str:
        x = self.xref
        head = f"{self.xref_id} {self.status} {x.kind}: "
        if x.label:
            return f"{head}{x.label} ({x.from_ref} → {x.to_ref})"
        return f"{head}{x.from_ref} → {x.to_ref}"


def _node_item(diagram_id: str, node_id: str, node: FlowNode) -> ObjectItem:
    ref = ObjectRef(diagram_id=diagram_id, category=FLOW_NODE, object_id=node_id)
    return ObjectItem(ref, f"node {node_id} ({display_line(node.label)})", node.note)


def changed_objects(
    before: Diagram, items: list[ObjectItem], after: Diagram
) -> list[ObjectItem] | None:
    """`selectable_objects(after)` from `items` (those of `before`) when only a few
    flowchart nodes changed and none came or went (a rename: the common agent edit on a
    big diagram), in O(changed · log n) after scans that compare shared values by
    identity; None otherwise."""
    old, new = before.ast, after.ast
    if not (
        isinstance(old, FlowchartAst)
        and isinstance(new, FlowchartAst)
        and before.diagram_id == after.diagram_id
        and (new.edges is old.edges or new.edges == old.edges)  # values mostly shared
        and (new.subgraphs is old.subgraphs or new.subgraphs == old.subgraphs)
        and new.nodes.keys() == old.nodes.keys()
    ):
        return None
    changed = [nid for nid, node in new.nodes.items() if node is not old.nodes[nid]]
    if len(changed) > _FEW_CHANGED:
        return None
    patched = list(items)
    for node_id in changed:
        item = _node_item(after.diagram_id, node_id, new.nodes[node_id])
        at = object_index(patched, item.ref)
        if at is None:
            return None
        patched[at] = item
    return patched


def find_object(items: list[ObjectItem], ref: ObjectRef) -> ObjectItem | None:
    """The item of `ref` in a list sorted by ref (as `selectable_objects` makes it)."""
    at = object_index(items, ref)
    return None if at is None else items[at]


def object_index(items: list[ObjectItem], ref: ObjectRef) -> int | None:
    """Where `ref`'s item is in a list sorted by ref (None: not in it); O(log n)."""
    at = bisect.bisect_left(items, ref.sort_key(), key=lambda item: item.ref.sort_key())
    return at if at < len(items) and items[at].ref == ref else None


_FEW_CHANGED: Final = 64


def selectable_objects(diagram: Diagram) -> list[ObjectItem]:
    """Every node, edge, subgraph, participant and message, sorted by ObjectRef."""
    did = diagram.diagram_id
    items: list[ObjectItem] = []
    ast = diagram.ast
    if isinstance(ast, FlowchartAst):
        for node_id, node in ast.nodes.items():
            items.append(_node_item(did, node_id, node))
        for edge_id, edge in ast.edges.items():
            ref = ObjectRef(diagram_id=did, category=FLOW_EDGE, object_id=edge_id)
            text = f"edge {edge_id} {edge.from_node_id}→{edge.to_node_id}"
            if edge.label:
                text += f" ({display_line(edge.label)})"
            items.append(ObjectItem(ref, text, None))
        for subgraph_id, subgraph in ast.subgraphs.items():
            ref = ObjectRef(diagram_id=did, category=FLOW_SUBGRAPH, object_id=subgraph_id)
            title = display_line(subgraph.title or subgraph.mermaid_id)
            items.append(ObjectItem(ref, f"subgraph {subgraph_id} ({title})", None))
    elif isinstance(ast, StateAst):
        for state_id, state in ast.states.items():
            ref = ObjectRef(diagram_id=did, category=STATE_STATE, object_id=state_id)
            shown = " ".join(state_display_label(state_id, state).split()) or state.kind
            text = f"state {state_id} ({shown})"
            notes = "\n".join(note.text for note in state.notes) or None
            items.append(ObjectItem(ref, text, notes))
        for transition_id, transition in ast.transitions.items():
            ref = ObjectRef(diagram_id=did, category=STATE_TRANSITION, object_id=transition_id)
            text = f"transition {transition_id} {transition.from_state_id}→{transition.to_state_id}"
            if transition.label:
                text += f" ({transition.label})"
            items.append(ObjectItem(ref, text, None))
    else:
        for pid, participant in ast.participants.items():
            ref = ObjectRef(diagram_id=did, category=SEQ_PARTICIPANT, object_id=pid)
            label = f"participant {pid} ({participant.mermaid_name})"
            items.append(ObjectItem(ref, label, participant.note))
        for message in ast.messages:
            ref = ObjectRef(diagram_id=did, category=SEQ_MESSAGE, object_id=message.message_id)
            text = (
                f"message {message.message_id} {message.from_participant_id}→"
                f"{message.to_participant_id}: {display_line(message.text)}"
            )
            items.append(ObjectItem(ref, text, None))
    items.sort(key=lambda item: item.ref.sort_key())
    return items


def xref_items(diagrams: Mapping[str, Diagram], xrefs: Mapping[str, XRef]) -> list[XRefItem]:
    """All xrefs in id order with their derived status."""
    return [
        XRefItem(
            xref_id,
            xref,
            xref_status_in(diagrams, xref),
        )
        for xref_id, xref in sorted(xrefs.items())
    ]
