"""The result values of the query tools, shaped exactly as mcp-tools.md §9–§13 sends them.

Each Struct encodes (msgspec JSON) to the contract's object: same keys, same order as the spec
lists them, refs as canonical strings. The MCP layer derives its output JSON Schemas from them.
"""

from __future__ import annotations

import msgspec

from nereid.model import ObjectRef, XRefStatus

__all__ = [
    "CyclesResult",
    "DegreesResult",
    "MessagesResult",
    "NeighborsResult",
    "NodeDegree",
    "NodesResult",
    "PathsResult",
    "RoutesResult",
    "SliceResult",
    "XRefListResult",
    "XRefSummary",
]


class NodesResult(msgspec.Struct, frozen=True, kw_only=True):
    """`flow.reachable`, `flow.unreachable`, `flow.dead_ends`: node refs in ref order."""

    nodes: list[str]


class PathsResult(msgspec.Struct, frozen=True, kw_only=True):
    """`flow.paths`: simple paths, each a list of node refs from start to target."""

    paths: list[list[str]]


class CyclesResult(msgspec.Struct, frozen=True, kw_only=True):
    """`flow.cycles`: cyclic strongly connected components, members in node-id order."""

    cycles: list[list[str]]


class NodeDegree(msgspec.Struct, frozen=True, kw_only=True):
    """One node's fan-in and fan-out (every edge counted, parallel edges included)."""

    node_ref: str
    label: str
    in_degree: int
    out_degree: int


class DegreesResult(msgspec.Struct, frozen=True, kw_only=True):
    """`flow.degrees`: nodes ranked by score, ties by node ref."""

    nodes: list[NodeDegree]


class MessagesResult(msgspec.Struct, frozen=True, kw_only=True):
    """`seq.messages`, `seq.search`, `seq.trace`: message refs in message order."""

    messages: list[str]


class RoutesResult(msgspec.Struct, frozen=True, kw_only=True):
    """`route.find`: routes across the session graph, each from `from_ref` to `to_ref`."""

    routes: list[list[str]]


class SliceResult(msgspec.Struct, frozen=True, kw_only=True):
    """`diagram.get_slice`: the objects and the edges (flow edges / messages) of a neighbourhood."""

    objects: list[str]
    edges: list[str]


class NeighborsResult(msgspec.Struct, frozen=True, kw_only=True):
    """`xref.neighbors`: refs linked to an object by xrefs, de-duplicated, in ref order."""

    neighbors: list[str]


class XRefSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One xref as `xref.list` reports it; `label` is null when absent."""

    xref_id: str
    from_ref: ObjectRef = msgspec.field(name="from")
    to_ref: ObjectRef = msgspec.field(name="to")
    kind: str
    label: str | None
    status: XRefStatus


class XRefListResult(msgspec.Struct, frozen=True, kw_only=True):
    """`xref.list`: xrefs sorted by id, filtered, then limited."""

    xrefs: list[XRefSummary]
