"""Flowchart ops applied to a working copy of a FlowchartAst (ops.md §5, docs/ops.md).

`FlowDraft` applies ops in order (each sees the previous ones) to the AST's maps, copying a
map the first time the batch changes it (copy on write: a batch that only updates nodes
never copies the edges, and the maps it does not change are shared with the new AST, so
nothing is copied for them at any size), records the objects it touched, and runs the
batch-end checks that need the whole batch (every touched node ends up with a unique,
valid Mermaid id). The maps are typed read-only (`Mapping`) and written only through
`_write_*`, so mypy refuses a write that would reach the base AST.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, assert_never

import msgspec

from nereid.errors import InvalidParams, NereidError, ResourceNotFound
from nereid.model import FLOW_EDGE, FLOW_NODE, FLOW_SUBGRAPH, FlowchartAst, FlowEdge, FlowNode
from nereid.model.flowchart import FlowSubgraph, derived_mermaid_id, effective_mermaid_id
from nereid.model.shapes import ATTRIBUTE_SHAPES
from nereid.model.writable import flowchart_problem
from nereid.ops.base import UNSET, given
from nereid.ops.decode import FlowOp
from nereid.ops.delta import META_KEY, ObjectKey
from nereid.ops.errors import already_exists, invalid_value, not_found
from nereid.ops.flow_names import explicit_names, remember_names
from nereid.ops.flow_ops import (
    FlowAddEdge,
    FlowAddNode,
    FlowAddSubgraph,
    FlowRemoveClassDef,
    FlowRemoveEdge,
    FlowRemoveNode,
    FlowRemoveSubgraph,
    FlowSetClassDef,
    FlowSetDefaultEdgeStyle,
    FlowSetDirection,
    FlowSetNodeClasses,
    FlowSetNodeMermaidId,
    FlowSetNodeNote,
    FlowSetNodeStyle,
    FlowSetSubgraphMembers,
    FlowUpdateEdge,
    FlowUpdateNode,
    FlowUpdateSubgraph,
)
from nereid.ops.rules import (
    check_direction,
    check_flow_ident,
    check_note,
    check_shape,
    clean_label,
    clean_style,
    flow_ident_problem,
    node_name_problem,
    normalize_connector,
    refuse_unwritable,
    subgraph_ident_problem,
)

__all__ = ["FlowDraft"]

replace = msgspec.structs.replace

_V = TypeVar("_V")


def _missing_node(node_id: str) -> NereidError:
    return ResourceNotFound("flow node not found", {"node_id": node_id})


def _invalid_mermaid_id(mermaid_id: str | None, reason: str, **extra: str) -> NereidError:
    return InvalidParams(
        "invalid flow node Mermaid id",
        {"mermaid_id": mermaid_id, "reason": reason, **extra},
    )


def _duplicate_mermaid_id(mermaid_id: str, **owner: str) -> NereidError:
    return InvalidParams("flow node Mermaid id already in use", {"mermaid_id": mermaid_id, **owner})


def _reshape(node: FlowNode, value: str) -> FlowNode:
    """The node with the shape `value` names (docs/ops.md, "Mermaid v11 fields").

    Naming the node's own attribute shape (`icon` on an icon node) keeps it as it is; any
    other shape drops the icon/image attributes, which only those shapes can hold.
    """
    if value.strip() == node.shape and node.shape in ATTRIBUTE_SHAPES:
        return node
    return replace(node, shape=check_shape(value), attrs=None)


class FlowDraft:
    """A mutable working copy of one flowchart for the length of one batch."""

    def __init__(self, ast: FlowchartAst) -> None:
        self.base = ast
        self.direction = ast.direction
        #: The base AST's maps until the batch changes them (then this batch's copies).
        self.nodes: Mapping[str, FlowNode] = ast.nodes
        self.edges: Mapping[str, FlowEdge] = ast.edges
        self.subgraphs: Mapping[str, FlowSubgraph] = ast.subgraphs
        self.class_defs: Mapping[str, str] = ast.class_defs
        self._copied: set[str] = set()
        self.default_edge_style = ast.default_edge_style
        self.touched: set[ObjectKey] = set()

    # -- copy on write ---------------------------------------------------------------------

    def _owned(self, name: str, current: Mapping[str, _V]) -> dict[str, _V]:
        """The map `name` (now `current`) as this batch's own dict: copied on first write."""
        if name not in self._copied:
            self._copied.add(name)
            current = dict(current)
            setattr(self, name, current)
        assert isinstance(current, dict)
        return current

    def _write_nodes(self) -> dict[str, FlowNode]:
        return self._owned("nodes", self.nodes)

    def _write_edges(self) -> dict[str, FlowEdge]:
        return self._owned("edges", self.edges)

    def _write_subgraphs(self) -> dict[str, FlowSubgraph]:
        return self._owned("subgraphs", self.subgraphs)

    def _write_class_defs(self) -> dict[str, str]:
        return self._owned("class_defs", self.class_defs)

    # -- results -------------------------------------------------------------------------

    def finish(self) -> FlowchartAst:
        """Run the batch-end checks and build the new AST."""
        self._check_mermaid_ids()
        self._check_subgraph_ends()
        ast = replace(
            self.base,
            direction=self.direction,
            nodes=self.nodes,
            edges=self.edges,
            subgraphs=self.subgraphs,
            class_defs=self.class_defs,
            default_edge_style=self.default_edge_style,
        )
        refuse_unwritable(flowchart_problem(ast, self.touched))
        remember_names(self.base, ast, self._touched(FLOW_NODE), self._touched(FLOW_EDGE))
        return ast

    def _touched(self, category: object) -> set[str]:
        return {i for c, i in self.touched if c == category}

    def _check_mermaid_ids(self) -> None:
        """Touched nodes and subgraphs need a valid Mermaid id no other node, subgraph or
        edge uses."""
        nodes = [i for c, i in self.touched if c == FLOW_NODE and i in self.nodes]
        subgraphs = [i for c, i in self.touched if c == FLOW_SUBGRAPH and i in self.subgraphs]
        if not nodes and not subgraphs:
            return
        names: dict[tuple[str, str], str] = {}
        for node_id in nodes:
            name = effective_mermaid_id(node_id, self.nodes[node_id])
            if name is None:
                raise _invalid_mermaid_id(
                    None,
                    "the node id is not 'n:<Mermaid id>' and no mermaid_id is set",
                    node_id=node_id,
                )
            problem = node_name_problem(name)
            if problem is not None:
                raise _invalid_mermaid_id(name, problem, node_id=node_id)
            names[("node_id", node_id)] = name
        for subgraph_id in subgraphs:
            names[("subgraph_id", subgraph_id)] = self.subgraphs[subgraph_id].mermaid_id
        owners = self._owners_of(set(names.values()))
        for me in sorted(names):
            for owner in owners[names[me]]:
                if owner != me:
                    raise _duplicate_mermaid_id(names[me], **{owner[0]: owner[1]})

    def _check_subgraph_ends(self) -> None:
        """A subgraph an edge ends at must have an id the edge line can hold (`a --> sg`)."""
        touched = {i for c, i in self.touched if c in (FLOW_EDGE, FLOW_SUBGRAPH)}
        if not touched:
            return
        # Only edges the batch touched, unless it touched a subgraph (then every edge could
        # end at it): the check costs what the batch touched.
        subgraph_touched = any(c == FLOW_SUBGRAPH for c, _ in self.touched)
        candidates = self.edges if subgraph_touched else self._touched(FLOW_EDGE) & set(self.edges)
        for edge_id in sorted(candidates):
            edge = self.edges[edge_id]
            for end in (edge.from_node_id, edge.to_node_id):
                subgraph = self.subgraphs.get(end)
                if subgraph is None or (edge_id not in touched and end not in touched):
                    continue
                problem = node_name_problem(subgraph.mermaid_id)
                if problem is not None:
                    raise InvalidParams(f"subgraph mermaid_id {subgraph.mermaid_id!r} cannot be written as the "
                        f"end of edge {edge_id!r}: it {problem}",
                        {"subgraph_id": end, "edge_id": edge_id,
                         "mermaid_id": subgraph.mermaid_id},
                    )  # fmt: skip

    def _owners_of(self, wanted: set[str]) -> dict[str, list[tuple[str, str]]]:
        """Every node, subgraph and edge whose Mermaid id is in `wanted`, in that order, by id.

        Edge ids (`A e1@--> B`) share Mermaid's namespace with node and subgraph ids.

        A derived id `x` can only come from node `n:x`; explicit ids are looked up in the
        base AST's index (`flow_names`), corrected for what this batch touched, so the
        check costs what the batch touched, not the size of the diagram.
        """
        nodes, edges = self._touched(FLOW_NODE), self._touched(FLOW_EDGE)
        found: dict[str, set[str]] = {name: set() for name in wanted}
        found_edges: dict[str, set[str]] = {name: set() for name in wanted}
        index = explicit_names(self.base)
        for name in wanted:
            node = self.nodes.get("n:" + name)
            if node is not None and node.mermaid_id is None:
                found[name].add("n:" + name)
            for kind, key in index.get(name, ()):
                if kind == "node_id" and key not in nodes:
                    found[name].add(key)
                elif kind == "edge_id" and key not in edges:
                    found_edges[name].add(key)
        for node_id in nodes:
            node = self.nodes.get(node_id)
            if node is not None and node.mermaid_id in found:
                found[node.mermaid_id].add(node_id)
        for edge_id in edges:
            edge = self.edges.get(edge_id)
            if edge is not None and edge.mermaid_id in found_edges:
                found_edges[edge.mermaid_id].add(edge_id)
        owners: dict[str, list[tuple[str, str]]] = {
            name: [("node_id", node_id) for node_id in sorted(ids)] for name, ids in found.items()
        }
        for subgraph_id in sorted(self.subgraphs):
            name = self.subgraphs[subgraph_id].mermaid_id
            if name in owners:
                owners[name].append(("subgraph_id", subgraph_id))
        for name, edge_ids in found_edges.items():
            owners[name] += [("edge_id", edge_id) for edge_id in sorted(edge_ids)]
        return owners

    # -- helpers -------------------------------------------------------------------------

    def _node(self, node_id: str) -> FlowNode:
        node = self.nodes.get(node_id)
        if node is None:
            raise not_found("FlowNode", node_id)
        return node

    def _subgraph(self, subgraph_id: str) -> FlowSubgraph:
        subgraph = self.subgraphs.get(subgraph_id)
        if subgraph is None:
            raise not_found("FlowSubgraph", subgraph_id)
        return subgraph

    def _set_node(self, node_id: str, node: FlowNode) -> None:
        self._write_nodes()[node_id] = node
        self.touched.add((FLOW_NODE, node_id))

    def _set_subgraph(self, subgraph_id: str, subgraph: FlowSubgraph) -> None:
        self._write_subgraphs()[subgraph_id] = subgraph
        self.touched.add((FLOW_SUBGRAPH, subgraph_id))

    def _parent_of_subgraph(self, subgraph_id: str) -> str | None:
        for parent_id, parent in self.subgraphs.items():
            if subgraph_id in parent.subgraph_ids:
                return parent_id
        return None

    def _detach_nodes(self, node_ids: set[str], keep: str | None = None) -> None:
        """Take nodes out of every subgraph except `keep`."""
        for subgraph_id, subgraph in list(self.subgraphs.items()):
            if subgraph_id == keep or node_ids.isdisjoint(subgraph.node_ids):
                continue
            remaining = tuple(n for n in subgraph.node_ids if n not in node_ids)
            self._set_subgraph(subgraph_id, replace(subgraph, node_ids=remaining))

    def _detach_subgraphs(self, child_ids: set[str], keep: str | None = None) -> None:
        for subgraph_id, subgraph in list(self.subgraphs.items()):
            if subgraph_id == keep or child_ids.isdisjoint(subgraph.subgraph_ids):
                continue
            remaining = tuple(s for s in subgraph.subgraph_ids if s not in child_ids)
            self._set_subgraph(subgraph_id, replace(subgraph, subgraph_ids=remaining))

    def _existing_nodes(self, node_ids: tuple[str, ...]) -> tuple[str, ...]:
        seen: set[str] = set()
        for node_id in node_ids:
            if node_id in seen:
                raise invalid_value("node_ids", list(node_ids), f"lists node {node_id!r} twice")
            seen.add(node_id)
            self._node(node_id)
        return node_ids

    def _ancestors(self, subgraph_id: str) -> set[str]:
        found: set[str] = set()
        current: str | None = subgraph_id
        while current is not None and current not in found:
            found.add(current)
            current = self._parent_of_subgraph(current)
        return found

    # -- ops -----------------------------------------------------------------------------

    def apply(self, op: FlowOp) -> None:
        """Apply one op; raise NereidError (the draft is then discarded by the caller)."""
        match op:
            case FlowAddNode():
                self._add_node(op)
            case FlowUpdateNode():
                node = self._node(op.node_id)
                if given(op.label):
                    node = replace(node, label=clean_label("label", op.label))
                if given(op.shape):
                    node = _reshape(node, op.shape)
                self._set_node(op.node_id, node)
            case FlowSetNodeMermaidId():
                self._set_mermaid_id(op)
            case FlowSetNodeNote():
                node = self._node(op.node_id)
                note = check_note("note", op.note) if given(op.note) else None
                self._set_node(op.node_id, replace(node, note=note))
            case FlowRemoveNode():
                self._remove_node(op.node_id)
            case FlowAddEdge():
                self._add_edge(op)
            case FlowUpdateEdge():
                self._update_edge(op)
            case FlowRemoveEdge():
                if op.edge_id not in self.edges:
                    raise not_found("FlowEdge", op.edge_id)
                del self._write_edges()[op.edge_id]
                self.touched.add((FLOW_EDGE, op.edge_id))
            case FlowSetDirection():
                self.direction = check_direction(op.direction) if given(op.direction) else None
                self.touched.add(META_KEY)
            case FlowAddSubgraph():
                self._add_subgraph(op)
            case FlowUpdateSubgraph():
                self._update_subgraph(op)
            case FlowSetSubgraphMembers():
                self._set_members(op)
            case FlowRemoveSubgraph():
                self._remove_subgraph(op.subgraph_id)
            case FlowSetNodeClasses():
                node = self._node(op.node_id)
                classes = tuple(check_flow_ident("classes", c) for c in op.classes)
                if len(set(classes)) != len(classes):
                    raise invalid_value("classes", list(classes), "lists a class twice")
                self._set_node(op.node_id, replace(node, classes=classes))
            case FlowSetNodeStyle():
                node = self._node(op.node_id)
                style = clean_style("style", op.style) if given(op.style) else None
                self._set_node(op.node_id, replace(node, style=style))
            case FlowSetClassDef():
                name = check_flow_ident("name", op.name)
                self._write_class_defs()[name] = clean_style("style", op.style)
                self.touched.add(META_KEY)
            case FlowRemoveClassDef():
                if op.name not in self.class_defs:
                    raise not_found("FlowClassDef", op.name)
                del self._write_class_defs()[op.name]
                self.touched.add(META_KEY)
            case FlowSetDefaultEdgeStyle():
                self.default_edge_style = (
                    clean_style("style", op.style) if given(op.style) else None
                )
                self.touched.add(META_KEY)
            case _:
                assert_never(op)

    def _check_end(self, end: str) -> None:
        """An edge end: an existing node or subgraph (the contract's error when neither)."""
        if end not in self.nodes and end not in self.subgraphs:
            raise _missing_node(end)

    def _add_node(self, op: FlowAddNode) -> None:
        if op.node_id in self.nodes:
            raise already_exists("FlowNode", op.node_id)
        if op.node_id in self.subgraphs:
            raise already_exists("FlowSubgraph", op.node_id)
        label = clean_label("label", op.label)
        shape = check_shape(op.shape) if given(op.shape) else "rect"
        mermaid_id = derived_mermaid_id(op.node_id)
        self._set_node(op.node_id, FlowNode(label=label, shape=shape, mermaid_id=mermaid_id))

    def _set_mermaid_id(self, op: FlowSetNodeMermaidId) -> None:
        node = self._node(op.node_id)
        if not given(op.mermaid_id):  # absent/null: back to the derived id (see docs/ops.md)
            mermaid_id = derived_mermaid_id(op.node_id)
        else:
            mermaid_id = op.mermaid_id
            problem = flow_ident_problem(mermaid_id)
            if problem is not None:
                raise _invalid_mermaid_id(mermaid_id, problem)
            for other_id in sorted(self.nodes):
                if other_id != op.node_id:
                    if effective_mermaid_id(other_id, self.nodes[other_id]) == mermaid_id:
                        raise _duplicate_mermaid_id(mermaid_id, node_id=other_id)
            for subgraph_id in sorted(self.subgraphs):
                if self.subgraphs[subgraph_id].mermaid_id == mermaid_id:
                    raise _duplicate_mermaid_id(mermaid_id, subgraph_id=subgraph_id)
            for edge_id in sorted(self.edges):
                if self.edges[edge_id].mermaid_id == mermaid_id:
                    raise _duplicate_mermaid_id(mermaid_id, edge_id=edge_id)
        self._set_node(op.node_id, replace(node, mermaid_id=mermaid_id))

    def _remove_node(self, node_id: str) -> None:
        self._node(node_id)
        for edge_id, edge in list(self.edges.items()):
            if edge.from_node_id == node_id or edge.to_node_id == node_id:
                del self._write_edges()[edge_id]
                self.touched.add((FLOW_EDGE, edge_id))
        self._detach_nodes({node_id})
        del self._write_nodes()[node_id]
        self.touched.add((FLOW_NODE, node_id))

    def _add_edge(self, op: FlowAddEdge) -> None:
        if op.edge_id in self.edges:
            raise already_exists("FlowEdge", op.edge_id)
        for node_id in (op.from_node_id, op.to_node_id):
            self._check_end(node_id)
        label = clean_label("label", op.label) if given(op.label) else None
        link = normalize_connector(op.connector) if given(op.connector) else None
        style = clean_style("style", op.style) if given(op.style) else None
        edge = FlowEdge(
            from_node_id=op.from_node_id, to_node_id=op.to_node_id, label=label, style=style
        )
        if link is not None:
            edge = replace(
                edge,
                line=link.line,
                head_start=link.head_start,
                head_end=link.head_end,
                length=link.length,
            )
        self._write_edges()[op.edge_id] = edge
        self.touched.add((FLOW_EDGE, op.edge_id))

    def _update_edge(self, op: FlowUpdateEdge) -> None:
        edge = self.edges.get(op.edge_id)
        if edge is None:
            raise not_found("FlowEdge", op.edge_id)
        from_id = op.from_node_id if given(op.from_node_id) else edge.from_node_id
        to_id = op.to_node_id if given(op.to_node_id) else edge.to_node_id
        for node_id in (from_id, to_id):
            self._check_end(node_id)
        edge = replace(edge, from_node_id=from_id, to_node_id=to_id)
        if op.label is not UNSET:
            label = None if op.label is None else clean_label("label", op.label)
            edge = replace(edge, label=label)
        if given(op.connector):
            link = normalize_connector(op.connector)
            edge = replace(
                edge,
                line=link.line,
                head_start=link.head_start,
                head_end=link.head_end,
                length=link.length,
            )
        if op.style is not UNSET:
            style = None if op.style is None else clean_style("style", op.style)
            edge = replace(edge, style=style)
        self._write_edges()[op.edge_id] = edge
        self.touched.add((FLOW_EDGE, op.edge_id))

    def _add_subgraph(self, op: FlowAddSubgraph) -> None:
        if op.subgraph_id in self.subgraphs:
            raise already_exists("FlowSubgraph", op.subgraph_id)
        if op.subgraph_id in self.nodes:
            raise already_exists("FlowNode", op.subgraph_id)
        problem = subgraph_ident_problem(op.mermaid_id)
        if problem is not None:
            raise _invalid_mermaid_id(op.mermaid_id, problem)
        title = clean_label("title", op.title) if given(op.title) else None
        direction = check_direction(op.direction) if given(op.direction) else None
        parent_id = op.parent_subgraph_id if given(op.parent_subgraph_id) else None
        if parent_id is not None:
            self._subgraph(parent_id)
        node_ids = self._existing_nodes(op.node_ids)
        self._detach_nodes(set(node_ids))
        self._set_subgraph(
            op.subgraph_id,
            FlowSubgraph(
                mermaid_id=op.mermaid_id, title=title, direction=direction, node_ids=node_ids
            ),
        )
        if parent_id is not None:
            parent = self.subgraphs[parent_id]
            self._set_subgraph(
                parent_id, replace(parent, subgraph_ids=(*parent.subgraph_ids, op.subgraph_id))
            )

    def _update_subgraph(self, op: FlowUpdateSubgraph) -> None:
        subgraph = self._subgraph(op.subgraph_id)
        if given(op.mermaid_id):
            problem = subgraph_ident_problem(op.mermaid_id)
            if problem is not None:
                raise _invalid_mermaid_id(op.mermaid_id, problem)
            subgraph = replace(subgraph, mermaid_id=op.mermaid_id)
        if op.title is not UNSET:
            title = clean_label("title", op.title) if op.title is not None else None
            subgraph = replace(subgraph, title=title)
        if op.direction is not UNSET:
            direction = check_direction(op.direction) if op.direction is not None else None
            subgraph = replace(subgraph, direction=direction)
        if op.classes is not UNSET:
            classes = tuple(check_flow_ident("classes", c) for c in op.classes or ())
            if len(set(classes)) != len(classes):
                raise invalid_value("classes", list(classes), "lists a class twice")
            subgraph = replace(subgraph, classes=classes)
        if op.style is not UNSET:
            style = clean_style("style", op.style) if op.style is not None else None
            subgraph = replace(subgraph, style=style)
        self._set_subgraph(op.subgraph_id, subgraph)

    def _set_members(self, op: FlowSetSubgraphMembers) -> None:
        subgraph = self._subgraph(op.subgraph_id)
        node_ids = self._existing_nodes(op.node_ids)
        child_ids = subgraph.subgraph_ids
        if given(op.subgraph_ids):
            child_ids = op.subgraph_ids
            ancestors = self._ancestors(op.subgraph_id)
            seen: set[str] = set()
            for child_id in child_ids:
                self._subgraph(child_id)
                if child_id in seen:
                    raise invalid_value(
                        "subgraph_ids", list(child_ids), f"lists subgraph {child_id!r} twice"
                    )
                if child_id in ancestors:
                    raise invalid_value(
                        "subgraph_ids",
                        list(child_ids),
                        f"subgraph {child_id!r} contains {op.subgraph_id!r}: nesting would loop",
                    )
                seen.add(child_id)
            self._detach_subgraphs(set(child_ids), keep=op.subgraph_id)
        self._detach_nodes(set(node_ids), keep=op.subgraph_id)
        self._set_subgraph(
            op.subgraph_id, replace(subgraph, node_ids=node_ids, subgraph_ids=child_ids)
        )

    def _remove_subgraph(self, subgraph_id: str) -> None:
        subgraph = self._subgraph(subgraph_id)
        parent_id = self._parent_of_subgraph(subgraph_id)
        if parent_id is not None:
            parent = self.subgraphs[parent_id]
            children: list[str] = []
            for child in parent.subgraph_ids:
                children.extend(subgraph.subgraph_ids if child == subgraph_id else (child,))
            self._set_subgraph(
                parent_id,
                replace(
                    parent,
                    node_ids=(*parent.node_ids, *subgraph.node_ids),
                    subgraph_ids=tuple(children),
                ),
            )
        for edge_id, edge in list(self.edges.items()):
            if subgraph_id in (edge.from_node_id, edge.to_node_id):
                del self._write_edges()[edge_id]
                self.touched.add((FLOW_EDGE, edge_id))
        del self._write_subgraphs()[subgraph_id]
        self.touched.add((FLOW_SUBGRAPH, subgraph_id))
