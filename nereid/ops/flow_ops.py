"""Flowchart op structs: the contract's eight `flow_*` ops plus those for what our model adds.

Field names follow mcp-tools.md §15.0. `Maybe[...]` fields may be absent or `null`; what
each one means is in the docstrings and in docs/ops.md.
"""

from __future__ import annotations

from nereid.ops.base import UNSET, DiagramOpBase, Maybe

__all__ = [
    "FlowAddEdge",
    "FlowAddNode",
    "FlowAddSubgraph",
    "FlowRemoveClassDef",
    "FlowRemoveEdge",
    "FlowRemoveNode",
    "FlowRemoveSubgraph",
    "FlowSetClassDef",
    "FlowSetDefaultEdgeStyle",
    "FlowSetDirection",
    "FlowSetNodeClasses",
    "FlowSetNodeMermaidId",
    "FlowSetNodeNote",
    "FlowSetNodeStyle",
    "FlowSetSubgraphMembers",
    "FlowUpdateEdge",
    "FlowUpdateNode",
    "FlowUpdateSubgraph",
]


class FlowAddNode(DiagramOpBase, tag="flow_add_node", frozen=True):
    """Add a node; `shape` absent or null means `rect` (Mermaid v11 aliases are accepted).

    `icon` / `image` are refused: those nodes need attributes that only Mermaid text gives.
    """

    node_id: str
    label: str
    shape: Maybe[str] = UNSET


class FlowUpdateNode(DiagramOpBase, tag="flow_update_node", frozen=True):
    """Replace the given fields; absent or null keeps the stored value.

    A new shape drops an icon/image node's attributes; naming its own shape keeps it.
    """

    node_id: str
    label: Maybe[str] = UNSET
    shape: Maybe[str] = UNSET


class FlowSetNodeMermaidId(DiagramOpBase, tag="flow_set_node_mermaid_id", frozen=True):
    """Set the node's Mermaid id; absent or null clears it (the id is then derived).

    Unique among node, subgraph and edge Mermaid ids (they share Mermaid's namespace).
    """

    node_id: str
    mermaid_id: Maybe[str] = UNSET


class FlowSetNodeNote(DiagramOpBase, tag="flow_set_node_note", frozen=True):
    """Set the node's inline note; absent or null clears it."""

    node_id: str
    note: Maybe[str] = UNSET


class FlowRemoveNode(DiagramOpBase, tag="flow_remove_node", frozen=True):
    """Remove a node with every edge touching it and its subgraph membership."""

    node_id: str


class FlowAddEdge(DiagramOpBase, tag="flow_add_edge", frozen=True):
    """Add an edge; `connector` absent, null or empty means `-->`.

    Either end may be a node id or a subgraph id (Mermaid draws the edge to the frame).
    """

    edge_id: str
    from_node_id: str
    to_node_id: str
    label: Maybe[str] = UNSET
    connector: Maybe[str] = UNSET
    style: Maybe[str] = UNSET


class FlowUpdateEdge(DiagramOpBase, tag="flow_update_edge", frozen=True):
    """Replace the given fields. Absent keeps; null keeps endpoints and connector but clears
    `label` and `style` (an extension: the reference cannot clear them)."""

    edge_id: str
    from_node_id: Maybe[str] = UNSET
    to_node_id: Maybe[str] = UNSET
    label: Maybe[str] = UNSET
    connector: Maybe[str] = UNSET
    style: Maybe[str] = UNSET


class FlowRemoveEdge(DiagramOpBase, tag="flow_remove_edge", frozen=True):
    edge_id: str


class FlowSetDirection(DiagramOpBase, tag="flow_set_direction", frozen=True):
    """Set the header direction (`TD`, `TB`, `BT`, `LR`, `RL`); absent or null clears it."""

    direction: Maybe[str] = UNSET


class FlowAddSubgraph(DiagramOpBase, tag="flow_add_subgraph", frozen=True):
    """Add a subgraph inside `parent_subgraph_id` (absent/null: top level).

    The listed nodes move into it (a node belongs to at most one subgraph).
    """

    subgraph_id: str
    mermaid_id: str
    title: Maybe[str] = UNSET
    direction: Maybe[str] = UNSET
    parent_subgraph_id: Maybe[str] = UNSET
    node_ids: tuple[str, ...] = ()


class FlowUpdateSubgraph(DiagramOpBase, tag="flow_update_subgraph", frozen=True):
    """Absent keeps a field; null keeps `mermaid_id` and clears `title`, `direction`,
    `classes` and `style` (`class sg name` / `style sg css`, as for nodes)."""

    subgraph_id: str
    mermaid_id: Maybe[str] = UNSET
    title: Maybe[str] = UNSET
    direction: Maybe[str] = UNSET
    classes: Maybe[tuple[str, ...]] = UNSET
    style: Maybe[str] = UNSET


class FlowSetSubgraphMembers(DiagramOpBase, tag="flow_set_subgraph_members", frozen=True):
    """Replace the subgraph's direct members, in the given order.

    Listed nodes and subgraphs move here from wherever they were; members no longer listed
    move to the top level. `subgraph_ids` absent or null keeps the child subgraphs.
    """

    subgraph_id: str
    node_ids: tuple[str, ...]
    subgraph_ids: Maybe[tuple[str, ...]] = UNSET


class FlowRemoveSubgraph(DiagramOpBase, tag="flow_remove_subgraph", frozen=True):
    """Remove the frame: its nodes and child subgraphs move to its parent, and every edge
    that ends at the frame itself is removed (as `flow_remove_node` does for a node)."""

    subgraph_id: str


class FlowSetNodeClasses(DiagramOpBase, tag="flow_set_node_classes", frozen=True):
    """Replace the node's class list (`class` / `:::`); `[]` clears it."""

    node_id: str
    classes: tuple[str, ...]


class FlowSetNodeStyle(DiagramOpBase, tag="flow_set_node_style", frozen=True):
    """Set the node's `style` text (e.g. `fill:#f9f,stroke:#333`); absent or null clears it."""

    node_id: str
    style: Maybe[str] = UNSET


class FlowSetClassDef(DiagramOpBase, tag="flow_set_class_def", frozen=True):
    """Create or replace `classDef <name> <style>`."""

    name: str
    style: str


class FlowRemoveClassDef(DiagramOpBase, tag="flow_remove_class_def", frozen=True):
    name: str


class FlowSetDefaultEdgeStyle(DiagramOpBase, tag="flow_set_default_edge_style", frozen=True):
    """Set `linkStyle default <style>`; absent or null clears it."""

    style: Maybe[str] = UNSET
