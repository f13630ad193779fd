"""FlowchartAst → canonical Mermaid text (the layout is described in `flowchart.py`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Final

from nereid.mermaid.accessibility import acc_lines
from nereid.mermaid.errors import MermaidExportError
from nereid.mermaid.flowchart_attrs import AttrError, encode_edge_attrs, encode_node_attrs
from nereid.mermaid.flowchart_build import KEYWORDS, generated_subgraph_title
from nereid.mermaid.flowchart_labels import (
    LabelError,
    check_quotable,
    encode_edge_label,
    encode_shape,
    encode_title,
)
from nereid.mermaid.flowchart_lines import split_statements
from nereid.mermaid.preamble import preamble_lines
from nereid.model.flowchart import (
    DIRECTIONS,
    FlowchartAst,
    FlowEdge,
    FlowNode,
    FlowSubgraph,
    effective_mermaid_id,
    format_connector,
    parse_connector,
)
from nereid.model.ids import mermaid_ident_problem, node_ident_problem, subgraph_id_problem
from nereid.model.shapes import ATTRIBUTE_SHAPES, BRACKET_SHAPES, SHAPES
from nereid.model.writable import click_problem, style_problem

__all__ = ["export_flowchart"]

_CLASS_NAME: Final = re.compile(r"[A-Za-z0-9_-]+")
_DIGITS: Final = re.compile(r"\d+")


def _mermaid_id(node_id: str, node: FlowNode) -> str:
    name = effective_mermaid_id(node_id, node)
    if name is None or node_ident_problem(name) is not None or name == "end":
        raise MermaidExportError(
            "InvalidNodeId",
            f"cannot export node id as Mermaid identifier: {node_id} (expected 'n:<ident>')",
            object_id=node_id,
        )
    return name


def _node_line(node_id: str, name: str, node: FlowNode) -> str:
    if node.shape not in SHAPES:
        raise MermaidExportError(
            "InvalidNodeShape",
            f"cannot export node {node_id}: unsupported flowchart node shape: {node.shape}",
            object_id=node_id,
        )
    if node.attrs is not None and node.shape not in ATTRIBUTE_SHAPES:
        raise MermaidExportError(
            "InvalidNodeAttributes",
            f"cannot export node {node_id}: attributes {sorted(node.attrs)} belong to an icon "
            f"or image node, but its shape is {node.shape}",
            object_id=node_id,
        )
    try:
        if node.shape in ATTRIBUTE_SHAPES:
            label = None if node.label == name else node.label
            if label is not None:
                check_quotable(label)
            try:
                return name + encode_node_attrs(node.shape, label, node.attrs or {})
            except AttrError as error:
                raise MermaidExportError(
                    "InvalidNodeAttributes",
                    f"cannot export {node.shape} node {node_id}: {error.detail}",
                    object_id=node_id,
                ) from None
        if node.shape in BRACKET_SHAPES:
            if node.shape == "rect" and node.label == name and name not in KEYWORDS:
                return name
            return name + encode_shape(node.shape, node.label)
        if node.label == name:
            return f"{name}@{{ shape: {node.shape} }}"
        check_quotable(node.label)
        return f'{name}@{{ shape: {node.shape}, label: "{node.label}" }}'
    except LabelError as error:
        raise MermaidExportError(
            "InvalidNodeLabel",
            f"cannot export node label for {node_id}: contains unsupported characters: "
            f"{node.label} ({error})",
            object_id=node_id,
        ) from None


def _one_statement(line: str, object_id: str, what: str) -> str:
    pieces = [piece for _, piece in split_statements(line)]
    if len(pieces) != 1 or "\n" in line or "\r" in line:
        raise MermaidExportError(
            "InvalidStatement",
            f"cannot export {what} for {object_id}: it would not read back as one statement: "
            f"{line}",
            object_id=object_id,
        )
    return line


def _click_statement(name: str, click: str, node_id: str) -> str:
    """`click <id> <action>`; a quoted tooltip may run over several lines, as on import
    (`click_problem` has checked that the action reads back)."""
    line = f"click {name} {click}"
    if "\n" not in click:
        return _one_statement(line, node_id, "click")
    return line


def _checked(value: str, rule: Callable[[str], str | None], object_id: str, what: str) -> str:
    """`value` if the model's rule (`nereid.model.writable`) lets it be written back."""
    problem = rule(value)
    if problem is not None:
        raise MermaidExportError(
            "InvalidStatement",
            f"cannot export {what} for {object_id}: {value!r} ({problem})",
            object_id=object_id,
        )
    return value


def _edge_name(edge_id: str, edge: FlowEdge, taken: set[str]) -> str:
    """The edge's v11 id followed by `@`, or "" when it has none (checked to read back)."""
    name = edge.mermaid_id
    if name is None:
        if edge.attrs or edge.classes:
            raise MermaidExportError(
                "InvalidEdgeId",
                f"cannot export edge {edge_id}: attributes and classes need an edge id",
                object_id=edge_id,
            )
        return ""
    problem = mermaid_ident_problem(name)
    if problem is None and _DIGITS.fullmatch(name):
        problem = "digits only"
    if problem is None and (name in taken or name in KEYWORDS):
        problem = "used by another edge, a node or a subgraph"
    if problem is not None:
        raise MermaidExportError(
            "InvalidEdgeId",
            f"cannot export edge id of {edge_id}: {name} ({problem})",
            object_id=edge_id,
        )
    taken.add(name)
    return name + "@"


def _edge_line(edge_id: str, edge: FlowEdge, names: dict[str, str], prefix: str = "") -> str:
    ends = []
    for node_id in (edge.from_node_id, edge.to_node_id):
        if node_id not in names:
            raise MermaidExportError(
                "MissingNode", f"edge references missing node id: {node_id}", object_id=edge_id
            )
        name = names[node_id]
        if node_id.startswith("sg:") and (node_ident_problem(name) or name in KEYWORDS):
            raise MermaidExportError(
                "InvalidEdgeEnd",
                f"cannot export edge {edge_id}: the id of subgraph {node_id} ({name}) cannot "
                "be written as an edge end",
                object_id=edge_id,
            )
        ends.append(name)
    token = format_connector(edge.link)
    try:
        readable = parse_connector(token) == edge.link
    except ValueError:
        readable = False
    if not readable:
        raise MermaidExportError(
            "InvalidEdgeLink",
            f"cannot export edge {edge_id}: its link cannot be written in Mermaid: {token}",
            object_id=edge_id,
        )
    label = ""
    if edge.label is not None:
        try:
            label = encode_edge_label(edge.label)
        except LabelError as error:
            raise MermaidExportError(
                "InvalidEdgeLabel",
                f"cannot export edge label for {edge_id}: contains unsupported characters: "
                f"{edge.label} ({error})",
                object_id=edge_id,
            ) from None
    return f"{ends[0]} {prefix}{token}{label} {ends[1]}"


def _closing_order(ast: FlowchartAst) -> dict[str, int]:
    """Each subgraph's position in the order its `end` is written (Mermaid numbers generated
    ids `subGraph<n>` that way); a post-order walk with an explicit stack (any depth)."""
    children = {child for sg in ast.subgraphs.values() for child in sg.subgraph_ids}
    order: dict[str, int] = {}
    for root in ast.subgraphs:
        if root in children:
            continue
        path: set[str] = {root}
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(ast.subgraphs[root].subgraph_ids))]
        while stack:
            sg_id, pending = stack[-1]
            child = next(pending, None)
            if child is None:
                stack.pop()
                path.discard(sg_id)
                order.setdefault(sg_id, len(order))
            elif child in ast.subgraphs and child not in path and child not in order:
                path.add(child)
                stack.append((child, iter(ast.subgraphs[child].subgraph_ids)))
    return order


def _subgraph_header(sg_id: str, sg: FlowSubgraph, closing: int | None) -> str:
    """`subgraph id`, `subgraph id [title]`, `subgraph id [ ]`, or `subgraph "title"` for a
    title with spaces whose id is the one Mermaid generates at this position."""
    if subgraph_id_problem(sg.mermaid_id) is not None or sg.mermaid_id in KEYWORDS:
        raise MermaidExportError(
            "InvalidSubgraph",
            f"cannot export subgraph id as Mermaid identifier: {sg.mermaid_id}",
            object_id=sg_id,
        )
    title = sg.title
    if title is None:
        return f"subgraph {sg.mermaid_id}"
    if title != title.strip():
        raise MermaidExportError(
            "InvalidSubgraph",
            f"cannot export subgraph title for {sg_id}: surrounded by spaces: '{title}'",
            object_id=sg_id,
        )
    if title == "":
        return f"subgraph {sg.mermaid_id} [ ]"
    generated = closing is not None and sg.mermaid_id == f"subGraph{closing}"
    if generated and generated_subgraph_title(title) and not any(c in title for c in '"\n\r'):
        return f'subgraph "{title}"'
    try:
        return f"subgraph {sg.mermaid_id} {encode_title(title)}"
    except LabelError as error:
        raise MermaidExportError(
            "InvalidSubgraph",
            f"cannot export subgraph title for {sg_id}: {title} ({error})",
            object_id=sg_id,
        ) from None


def _subgraph_lines(ast: FlowchartAst, names: dict[str, str]) -> list[str]:
    """The subgraph blocks, nested; walked with an explicit stack, so any depth exports."""
    lines: list[str] = []
    closing = _closing_order(ast)
    placed: set[str] = set()
    members: set[str] = set()
    children = {child for sg in ast.subgraphs.values() for child in sg.subgraph_ids}

    def enter(sg_id: str) -> Iterator[str]:
        """Write the block's opening and members; return its children still to visit."""
        sg = ast.subgraphs[sg_id]
        if sg_id in placed:
            raise MermaidExportError(
                "InvalidSubgraph",
                f"cannot export subgraph {sg_id}: it is nested in more than one place",
                object_id=sg_id,
            )
        placed.add(sg_id)
        lines.append(_subgraph_header(sg_id, sg, closing.get(sg_id)))
        if sg.direction is not None:
            if sg.direction not in DIRECTIONS:
                raise MermaidExportError(
                    "InvalidSubgraph",
                    f"cannot export subgraph {sg_id}: invalid direction {sg.direction}",
                    object_id=sg_id,
                )
            lines.append(f"direction {sg.direction}")
        for node_id in sg.node_ids:
            if node_id not in names:
                raise MermaidExportError(
                    "MissingNode",
                    f"subgraph references missing node id: {node_id}",
                    object_id=sg_id,
                )
            if node_id in members:
                raise MermaidExportError(
                    "InvalidSubgraph",
                    f"cannot export subgraph {sg_id}: node {node_id} is in two subgraphs",
                    object_id=sg_id,
                )
            members.add(node_id)
            lines.append(names[node_id])
        for child in sg.subgraph_ids:
            if child not in ast.subgraphs:
                raise MermaidExportError(
                    "MissingSubgraph",
                    f"subgraph references missing subgraph id: {child}",
                    object_id=sg_id,
                )
        return iter(sg.subgraph_ids)

    for sg_id in ast.subgraphs:
        if sg_id in children:
            continue
        stack = [enter(sg_id)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                lines.append("end")
            else:
                stack.append(enter(child))
    if len(placed) != len(ast.subgraphs):
        missing = next(sg_id for sg_id in ast.subgraphs if sg_id not in placed)
        raise MermaidExportError(
            "InvalidSubgraph",
            f"cannot export subgraph {missing}: it is nested in a cycle",
            object_id=missing,
        )
    return lines


def _styling_lines(
    object_id: str, name: str, classes: tuple[str, ...], style: str | None
) -> list[str]:
    """`class name cls` per class, then `style name css`."""
    lines: list[str] = []
    for cls in classes:
        if not _CLASS_NAME.fullmatch(cls):
            raise MermaidExportError(
                "InvalidClass", f"cannot export class of {object_id}: {cls}", object_id=object_id
            )
        lines.append(f"class {name} {cls}")
    if style is not None:
        _checked(style, style_problem, object_id, "style")
        lines.append(_one_statement(f"style {name} {style}", object_id, "style"))
    return lines


def export_flowchart(ast: FlowchartAst) -> str:
    """The canonical Mermaid text of `ast` (raises MermaidExportError)."""
    lines = preamble_lines(ast.front_matter, ast.directives)
    if ast.direction is not None and ast.direction not in DIRECTIONS:
        raise MermaidExportError(
            "InvalidDirection", f"cannot export flowchart direction: {ast.direction}"
        )
    lines.append("flowchart" if ast.direction is None else f"flowchart {ast.direction}")
    lines += acc_lines(ast.acc_title, ast.acc_descr)
    for name, style in ast.class_defs.items():
        if not _CLASS_NAME.fullmatch(name):
            raise MermaidExportError("InvalidClass", f"cannot export class name: {name}")
        _checked(style, style_problem, name, "classDef style")
        lines.append(_one_statement(f"classDef {name} {style}", name, "classDef"))
    names: dict[str, str] = {}
    used: set[str] = set()
    for node_id, node in ast.nodes.items():
        name = _mermaid_id(node_id, node)
        if name in used:
            raise MermaidExportError(
                "DuplicateNodeId",
                f"cannot export node {node_id}: Mermaid id {name} is used twice",
                object_id=node_id,
            )
        names[node_id] = name
        used.add(name)
        lines.append(_node_line(node_id, name, node))
    sg_names = {sg.mermaid_id for sg in ast.subgraphs.values()}
    if sg_names & used:
        clash = sorted(sg_names & used)[0]
        raise MermaidExportError(
            "InvalidSubgraph", f"cannot export subgraph {clash}: a node has the same id"
        )
    if len(sg_names) != len(ast.subgraphs):
        raise MermaidExportError("InvalidSubgraph", "cannot export: two subgraphs share an id")
    lines += _subgraph_lines(ast, names)
    taken = used | sg_names
    ends = names | {sg_id: sg.mermaid_id for sg_id, sg in ast.subgraphs.items()}
    edge_names: dict[str, str] = {}
    for edge_id, edge in ast.edges.items():
        prefix = _edge_name(edge_id, edge, taken)
        edge_names[edge_id] = prefix[:-1]
        lines.append(_edge_line(edge_id, edge, ends, prefix))
    for edge_id, edge in ast.edges.items():
        if edge.attrs is not None:
            try:
                lines.append(edge_names[edge_id] + encode_edge_attrs(edge.attrs))
            except AttrError as error:
                raise MermaidExportError(
                    "InvalidEdgeAttributes",
                    f"cannot export attributes of edge {edge_id}: {error.detail}",
                    object_id=edge_id,
                ) from None
    for node_id, node in ast.nodes.items():
        lines += _styling_lines(node_id, names[node_id], node.classes, node.style)
        if node.click is not None:
            _checked(node.click, click_problem, node_id, "click")
            lines.append(_click_statement(names[node_id], node.click, node_id))
    for sg_id, sg in ast.subgraphs.items():
        lines += _styling_lines(sg_id, sg.mermaid_id, sg.classes, sg.style)
    for edge_id, edge in ast.edges.items():
        for cls in edge.classes:
            if not _CLASS_NAME.fullmatch(cls):
                raise MermaidExportError(
                    "InvalidClass", f"cannot export class of {edge_id}: {cls}", object_id=edge_id
                )
            lines.append(f"class {edge_names[edge_id]} {cls}")
    if ast.default_edge_style:
        _checked(ast.default_edge_style, style_problem, "default", "linkStyle")
        lines.append(
            _one_statement(f"linkStyle default {ast.default_edge_style}", "default", "linkStyle")
        )
    for index, (edge_id, edge) in enumerate(ast.edges.items()):
        if edge.style:
            _checked(edge.style, style_problem, edge_id, "linkStyle")
            lines.append(_one_statement(f"linkStyle {index} {edge.style}", edge_id, "linkStyle"))
    return "\n".join(lines) + "\n"
