"""Long edges in big diagrams: two labelled stubs (off-page connectors) instead of a route.

An edge crossing k layers takes a waypoint in each of them: it is ordered, placed, routed
through every channel and drawn row by row. In a big diagram the long edges are most of the
work (the 3000-node benchmark flowchart has 7000 nodes and edges but 7600 waypoints and
2.9 M line cells) and the least readable part of the drawing: a line hundreds of rows long
between thousands of others cannot be followed by eye.

So when the edges of a diagram have more than `FULL_ROUTE_WAYPOINTS` waypoints in all, the
longest ones are drawn as two stubs: the edge leaves its upper end into a connector in the
next layer that names the other end (`to <name>` or `from <name>`, under the edge's label if
it has one), and arrives at its lower end from a connector in the layer above it that names
the first end. Both ends are drawn, with their arrowheads, and both connectors belong to the
edge (its span), so every edge is still shown and both its ends are named. Which edges: every
edge spanning more than L layers, with L the longest span for which the edges drawn in full
keep at most `FULL_ROUTE_WAYPOINTS`² / W waypoints (W: the diagram's waypoints in all), and
never one spanning fewer than `MIN_STUB_SPAN` layers (its two connectors would sit in
neighbouring layers). Just past the threshold that is the threshold itself; the further past
it, the fewer waypoints are drawn in full (half at twice the threshold): each one costs
ordering, placement, routing and a line through every channel it crosses, and in a diagram of
thousands of nodes a line many layers long is the least readable part (the 3000-node
benchmark flowchart draws edges of up to 3 layers in full instead of 8, for a quarter less
work). Diagrams under the threshold are drawn exactly as before.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from nereid.model.flowchart import effective_mermaid_id
from nereid.render.display import display_text
from nereid.render.flowchart.stages import Graph
from nereid.render.text import truncate

__all__ = ["FULL_ROUTE_WAYPOINTS", "MIN_STUB_SPAN", "end_names", "stub_span"]

FULL_ROUTE_WAYPOINTS: Final = 3000
"""Waypoints every diagram may draw in full; past it the longest edges become stubs."""

MIN_STUB_SPAN: Final = 4
"""The shortest edge (in layers) ever drawn as stubs: its connectors are two layers apart."""

_NAME_CELLS: Final = 24


def stub_span(spans: list[int]) -> int | None:
    """The longest span drawn in full, given every edge's span in layers; None: no stubs."""
    waypoints = [0] * (max(spans, default=0) + 1)
    for span in spans:
        if span > 1:
            waypoints[span] += span - 1
    total = sum(waypoints)
    if total <= FULL_ROUTE_WAYPOINTS:
        return None
    goal = FULL_ROUTE_WAYPOINTS * FULL_ROUTE_WAYPOINTS // total
    longest = len(waypoints) - 1
    while longest >= MIN_STUB_SPAN and total > goal:
        total -= waypoints[longest]
        longest -= 1
    return max(longest, MIN_STUB_SPAN - 1)


def end_names(graph: Graph, ellipsis: str) -> dict[str, str]:
    """What a connector calls each node and subgraph: its label as drawn (first line, cut
    to a few cells), followed by its Mermaid id when another one is drawn the same."""
    ast = graph.ast
    names: dict[str, str] = {}
    for node_id, flow_node in ast.nodes.items():
        names[node_id] = display_text(flow_node.label)
    for sid, sub in ast.subgraphs.items():
        names[sid] = display_text(sub.title if sub.title is not None else sub.mermaid_id)
    short = {
        key: truncate(" ".join(text.split()) or key, _NAME_CELLS, ellipsis)
        for key, text in names.items()
    }
    seen = Counter(short.values())
    result: dict[str, str] = {}
    for key, name in short.items():
        if seen[name] > 1:
            node = ast.nodes.get(key)
            mermaid = (
                effective_mermaid_id(key, node)
                if node is not None
                else ast.subgraphs[key].mermaid_id
            )
            name = f"{name} ({mermaid or key})"
        result[key] = name
    return result
