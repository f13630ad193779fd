"""The pure query layer: flow.*, seq.*, route.find, diagram.get_slice, xref.*, object.read.

Every tool is a function of a read-only `QueryScope` snapshot and its parameters, returning a
msgspec Struct shaped like the MCP contract or raising a `nereid.errors.NereidError`. No I/O,
no async, no state; deterministic ordering everywhere; bounded work on any input (see `flow`, `route`,
`regex_guard` for the exact bounds). This package is the only import point.
"""

from nereid.query.flow import (
    PATHS_STEP_BUDGET,
    flow_cycles,
    flow_dead_ends,
    flow_degrees,
    flow_paths,
    flow_reachable,
    flow_unreachable,
)
from nereid.query.objects import (
    FlowEdgeObject,
    FlowNodeObject,
    FlowSubgraphObject,
    McpObject,
    ObjectEntry,
    ObjectReadResult,
    SeqActivationObject,
    SeqBlockObject,
    SeqMessageObject,
    SeqNoteObject,
    SeqParticipantObject,
    SeqSectionObject,
    object_read,
)
from nereid.query.regex_guard import MAX_PATTERN_LENGTH, SEARCH_TIME_LIMIT
from nereid.query.results import (
    CyclesResult,
    DegreesResult,
    MessagesResult,
    NeighborsResult,
    NodeDegree,
    NodesResult,
    PathsResult,
    RoutesResult,
    SliceResult,
    XRefListResult,
    XRefSummary,
)
from nereid.query.route import DEFAULT_MAX_HOPS, EXPANSION_BUDGET, RouteGraph, route_find
from nereid.query.scope import QueryScope, resolve_diagram
from nereid.query.sequence import message_order, seq_messages, seq_search, seq_trace
from nereid.query.slice import SliceFilters, diagram_get_slice
from nereid.query.xrefs import xref_list, xref_neighbors

__all__ = [
    "DEFAULT_MAX_HOPS", "EXPANSION_BUDGET",
    "MAX_PATTERN_LENGTH", "PATHS_STEP_BUDGET", "SEARCH_TIME_LIMIT", "CyclesResult", "DegreesResult",
    "FlowEdgeObject", "FlowNodeObject", "FlowSubgraphObject", "McpObject", "MessagesResult",
    "NeighborsResult", "NodeDegree", "NodesResult", "ObjectEntry", "ObjectReadResult",
    "PathsResult", "QueryScope", "RouteGraph", "RoutesResult",
    "SeqActivationObject", "SeqBlockObject", "SeqMessageObject", "SeqNoteObject",
    "SeqParticipantObject", "SeqSectionObject", "SliceFilters", "SliceResult",
    "XRefListResult", "XRefSummary", "diagram_get_slice", "flow_cycles", "flow_dead_ends",
    "flow_degrees", "flow_paths", "flow_reachable", "flow_unreachable", "message_order",
    "object_read", "resolve_diagram", "route_find", "seq_messages",
    "seq_search", "seq_trace", "xref_list", "xref_neighbors",
]  # fmt: skip
