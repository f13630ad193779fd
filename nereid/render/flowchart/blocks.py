"""A subgraph's own `direction`: laid out on its own, then placed as one block (issue 15).

Mermaid honours `direction` inside a subgraph only when no edge crosses its frame (an edge
between a member and a node outside); edges to or from the subgraph itself do not count.
Such a subgraph is laid out as a diagram of its own in its direction (frame and title
included), and the enclosing layout sees it as one box of that size, which edges to the
subgraph reach at its border. `merge` then moves the block's drawing into that box.
"""

from __future__ import annotations

from typing import Final

import msgspec

from nereid.model.flowchart import FlowchartAst, FlowNode, FlowSubgraph
from nereid.render.flowchart.geometry import EdgeDraw, FrameDraw, Geometry, LabelDraw, NodeDraw

__all__ = ["block_id", "direction_blocks", "frame_size", "inner_ast", "merge", "outer_ast"]

_SAME: Final = {"TB": "TD"}


def block_id(subgraph_id: str) -> str:
    """The id of the box standing for a block in the enclosing layout (a NUL byte keeps it
    apart from every Mermaid id)."""
    return "\0" + subgraph_id


def _norm(direction: str | None) -> str:
    d = (direction or "TD").upper()
    return _SAME.get(d, d)


def _inside(ast: FlowchartAst, subgraph_id: str) -> tuple[set[str], set[str]]:
    """(nodes, subgraphs) inside `subgraph_id`, itself included among the subgraphs."""
    nodes: set[str] = set()
    subs: set[str] = set()
    stack = [subgraph_id]
    while stack:
        current = stack.pop()
        sub = ast.subgraphs.get(current)
        if sub is None or current in subs:
            continue
        subs.add(current)
        nodes.update(n for n in sub.node_ids if n in ast.nodes)
        stack.extend(sub.subgraph_ids)
    return nodes, subs


def direction_blocks(ast: FlowchartAst) -> list[str]:
    """The outermost subgraphs whose own direction differs from the one around them and
    whose frame no edge crosses, in document order."""
    children = {c for sub in ast.subgraphs.values() for c in sub.subgraph_ids}
    roots = [sid for sid in ast.subgraphs if sid not in children]
    found: list[str] = []
    seen: set[str] = set()
    stack = [(sid, _norm(ast.direction)) for sid in reversed(roots)]
    while stack:
        sid, around = stack.pop()
        if sid in seen:
            continue
        seen.add(sid)
        sub = ast.subgraphs[sid]
        if sub.direction is not None and _norm(sub.direction) != around and _closed(ast, sid):
            found.append(sid)
            continue
        stack.extend((c, around) for c in reversed(sub.subgraph_ids) if c in ast.subgraphs)
    return found


def _closed(ast: FlowchartAst, subgraph_id: str) -> bool:
    """No edge joins something inside the frame to something outside it."""
    nodes, subs = _inside(ast, subgraph_id)
    inner = nodes | (subs - {subgraph_id})
    for edge in ast.edges.values():
        a, b = edge.from_node_id, edge.to_node_id
        a_in, b_in = a in inner, b in inner
        if a_in != b_in and subgraph_id not in (a, b):
            return False
    return True


def inner_ast(ast: FlowchartAst, subgraph_id: str) -> FlowchartAst:
    """The block as a diagram of its own, in the subgraph's direction."""
    nodes, subs = _inside(ast, subgraph_id)
    ends = nodes | subs
    sub = ast.subgraphs[subgraph_id]
    return msgspec.structs.replace(
        ast,
        direction=sub.direction,
        nodes={k: v for k, v in ast.nodes.items() if k in nodes},
        edges={
            k: e for k, e in ast.edges.items() if e.from_node_id in ends and e.to_node_id in ends
        },
        subgraphs={k: v for k, v in ast.subgraphs.items() if k in subs},
    )


def outer_ast(ast: FlowchartAst, blocks: list[str]) -> FlowchartAst:
    """The diagram with every block replaced by one node (`block_id`) in its place."""
    home: dict[str, str] = {}  # node or subgraph id -> the block it is in
    for sid in blocks:
        inner_nodes, inner_subs = _inside(ast, sid)
        home.update(dict.fromkeys(inner_nodes | inner_subs, sid))
    hidden_nodes = {k for k in home if k in ast.nodes}
    hidden_subs = {k for k in home if k in ast.subgraphs}
    nodes: dict[str, FlowNode] = {k: v for k, v in ast.nodes.items() if k not in hidden_nodes}
    for sid in blocks:
        nodes[block_id(sid)] = FlowNode(label="")
    subgraphs: dict[str, FlowSubgraph] = {}
    for k, sub in ast.subgraphs.items():
        if k in hidden_subs:
            continue
        inner = [c for c in sub.subgraph_ids if c in blocks]
        subgraphs[k] = msgspec.structs.replace(
            sub,
            node_ids=sub.node_ids + tuple(block_id(c) for c in inner),
            subgraph_ids=tuple(c for c in sub.subgraph_ids if c not in blocks),
        )
    rename = {sid: block_id(sid) for sid in blocks}
    edges = {}
    for k, e in ast.edges.items():
        a, b = e.from_node_id, e.to_node_id
        if a in home and home[a] == home.get(b):
            continue  # inside a block
        edges[k] = msgspec.structs.replace(
            e, from_node_id=rename.get(a, a), to_node_id=rename.get(b, b)
        )
    return msgspec.structs.replace(ast, nodes=nodes, edges=edges, subgraphs=subgraphs)


def frame_size(geometry: Geometry, subgraph_id: str) -> tuple[int, int]:
    """(width, height) in cells of a block's own frame."""
    top, left, bottom, right = _frame(geometry, subgraph_id).rect
    return right - left + 1, bottom - top + 1


def _frame(geometry: Geometry, subgraph_id: str) -> FrameDraw:
    return next(f for f in geometry.frames if f.subgraph_id == subgraph_id)


def merge(geometry: Geometry, placed: dict[str, Geometry]) -> Geometry:
    """`geometry` with each block's box replaced by the block's drawing moved into it."""
    boxes = {node.node_id: node.rect for node in geometry.nodes}
    nodes = [node for node in geometry.nodes if node.node_id not in {block_id(s) for s in placed}]
    edges = list(geometry.edges)
    frames = list(geometry.frames)
    for sid, inner in placed.items():
        top, left, bottom, right = boxes[block_id(sid)]
        f_top, f_left, _, _ = _frame(inner, sid).rect
        dr, dc = top - f_top, left - f_left
        nodes.extend(_node(n, dr, dc) for n in inner.nodes)
        edges.extend(_edge(e, dr, dc) for e in inner.edges)
        for frame in inner.frames:
            moved = _frame_moved(frame, dr, dc)
            if frame.subgraph_id == sid:  # the box may have grown (ports): the frame with it
                moved = moved._replace(rect=(top, left, bottom, right))
            frames.append(moved)
    return geometry._replace(nodes=nodes, edges=edges, frames=frames)


def _move(rect: tuple[int, int, int, int], dr: int, dc: int) -> tuple[int, int, int, int]:
    return rect[0] + dr, rect[1] + dc, rect[2] + dr, rect[3] + dc


def _node(node: NodeDraw, dr: int, dc: int) -> NodeDraw:
    return node._replace(rect=_move(node.rect, dr, dc))


def _edge(edge: EdgeDraw, dr: int, dc: int) -> EdgeDraw:
    return edge._replace(
        pieces=[[(r + dr, c + dc) for r, c in piece] for piece in edge.pieces],
        heads=[(r + dr, c + dc, travel, kind) for r, c, travel, kind in edge.heads],
        anchors=[(r + dr, c + dc) for r, c in edge.anchors],
        labels=[LabelDraw(lb.row + dr, lb.col + dc, lb.text) for lb in edge.labels],
    )


def _frame_moved(frame: FrameDraw, dr: int, dc: int) -> FrameDraw:
    return frame._replace(rect=_move(frame.rect, dr, dc), title_col=frame.title_col + dc)
