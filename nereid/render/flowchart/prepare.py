"""The first layout stage: check the edges, index the subgraphs, size every node's box."""

from __future__ import annotations

from typing import Final

from nereid.model.flowchart import FlowchartAst
from nereid.render.display import display_text
from nereid.render.errors import RenderError
from nereid.render.flowchart.shapes import shape_style
from nereid.render.flowchart.stages import Box, Graph
from nereid.render.options import RenderOptions
from nereid.render.text import text_width, wrap_text

__all__ = ["prepare"]

_PREFIX: Final = "▴ "
_DIRECTIONS: Final = ("TD", "TB", "BT", "LR", "RL")


def prepare(ast: FlowchartAst, options: RenderOptions, blocks: dict[str, tuple[int, int]]) -> Graph:
    """The graph to lay out. `blocks` maps the id of a box standing for a subgraph laid out
    on its own (blocks.py) to that frame's (width, height). Raises RenderError for an edge
    to an unknown node."""
    direction = (ast.direction or "TD").upper()
    direction = direction if direction in _DIRECTIONS else "TD"
    horizontal = direction in ("LR", "RL")
    node_ids = list(ast.nodes)
    node_index = {node_id: i for i, node_id in enumerate(node_ids)}
    edge_ids = list(ast.edges)
    _validate(ast, edge_ids, node_index)
    cluster_ids = list(ast.subgraphs)
    parent = _parents(ast, cluster_ids)
    path = [_path(parent, c) for c in range(len(parent))]
    node_cluster, placeholders = _members(ast, cluster_ids, path, node_ids, node_index)
    boxes = _boxes(ast, options, blocks, horizontal, node_ids)
    return Graph(
        ast=ast,
        options=options,
        direction=direction,
        horizontal=horizontal,
        node_ids=node_ids,
        node_index=node_index,
        edge_ids=edge_ids,
        boxes=boxes,
        cluster_ids=cluster_ids,
        cluster_parent=parent,
        cluster_path=path,
        node_cluster=node_cluster,
        placeholders=frozenset(placeholders),
    )


def _placeholder(subgraph_id: str) -> str:
    """The id of the invisible stand-in member of an empty subgraph that edges end at (a NUL
    byte keeps it apart from every Mermaid id)."""
    return "\0" + subgraph_id


def _validate(ast: FlowchartAst, edge_ids: list[str], node_index: dict[str, int]) -> None:
    for edge_id in edge_ids:
        edge = ast.edges[edge_id]
        for end, node_id in (("from", edge.from_node_id), ("to", edge.to_node_id)):
            if node_id not in node_index and node_id not in ast.subgraphs:
                raise RenderError(
                    f"flowchart layout error: edge {edge_id} references unknown {end} "
                    f"node {node_id}"
                )


def _parents(ast: FlowchartAst, cluster_ids: list[str]) -> list[int]:
    """Each subgraph's parent, with any malformed nesting loop cut."""
    index = {sid: i for i, sid in enumerate(cluster_ids)}
    parent = [-1] * len(cluster_ids)
    for sid, sub in ast.subgraphs.items():
        for child in sub.subgraph_ids:
            if child in index and parent[index[child]] == -1 and child != sid:
                parent[index[child]] = index[sid]
    for c in range(len(parent)):
        seen = {c}
        p = parent[c]
        while p != -1:
            if p in seen:
                parent[c] = -1
                break
            seen.add(p)
            p = parent[p]
    return parent


def _path(parent: list[int], c: int) -> tuple[int, ...]:
    chain = []
    p = c
    while p != -1:
        chain.append(p)
        p = parent[p]
    return tuple(reversed(chain))


def _members(
    ast: FlowchartAst,
    cluster_ids: list[str],
    path: list[tuple[int, ...]],
    node_ids: list[str],
    node_index: dict[str, int],
) -> tuple[list[int], set[str]]:
    """(innermost subgraph per node, stand-in ids); an empty subgraph an edge ends at gets an
    invisible member to route to, appended to `node_ids` and `node_index`."""
    index = {sid: i for i, sid in enumerate(cluster_ids)}
    node_cluster = [-1] * len(node_ids)
    for sid, sub in ast.subgraphs.items():
        c = index[sid]
        for node_id in sub.node_ids:
            n = node_index.get(node_id)
            if n is None:
                continue
            current = node_cluster[n]
            if current == -1 or current in path[c]:
                node_cluster[n] = c
    filled = {p for c in node_cluster if c != -1 for p in path[c]}
    placeholders: set[str] = set()
    for edge in ast.edges.values():
        for end in (edge.from_node_id, edge.to_node_id):
            c = index.get(end, -1)
            if c != -1 and c not in filled:
                filled.add(c)
                placeholders.add(_placeholder(end))
                node_index[_placeholder(end)] = len(node_ids)
                node_ids.append(_placeholder(end))
                node_cluster.append(c)
    return node_cluster, placeholders


def _boxes(
    ast: FlowchartAst,
    options: RenderOptions,
    blocks: dict[str, tuple[int, int]],
    horizontal: bool,
    node_ids: list[str],
) -> list[Box]:
    width_cap = options.max_label_width
    boxes: list[Box] = []
    for node_id in node_ids:
        node = ast.nodes.get(node_id)
        if node is None:  # an empty subgraph's stand-in: blank, as wide as its title in LR
            width = 3
            if horizontal:
                sub = ast.subgraphs[node_id[1:]]
                title = display_text(sub.title if sub.title is not None else sub.mermaid_id)
                lines = wrap_text(title, options.max_label_width) if title else []
                width = max([3] + [text_width(line) - 1 for line in lines])
            boxes.append(Box(width, 1, [], None, shape_style("text"), 0))
            continue
        if node_id in blocks:  # a subgraph laid out on its own (blocks.py)
            width, height = blocks[node_id]
            boxes.append(Box(width, height, [], None, shape_style("rect"), 1))
            continue
        label = display_text(node.label)
        label = (_PREFIX + label) if options.prefix_object_labels else label
        lines = wrap_text(label, width_cap)
        style = shape_style(node.shape)
        # With notes on, every box gets note rows (empty without a note), wrapped like
        # labels rather than cut.
        note_lines: list[str] = []
        if options.show_notes:
            note_lines = wrap_text(node.note, width_cap) if node.note else [""]
        text_w = max((text_width(line) for line in lines + note_lines), default=0)
        inner = max(text_w + 2, 3)
        width = inner + 2 + (2 if style.bars else 0)
        if width % 2 == 0:
            width += 1
        label_top = 1 + (1 if style.lid else 0)
        height = len(lines) + len(note_lines) + 2 + (1 if style.lid else 0)
        note = "\n".join(note_lines) if options.show_notes else None
        boxes.append(Box(width, height, lines, note, style, label_top))
    return boxes
