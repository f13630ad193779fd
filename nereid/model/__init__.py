"""The data model: ids, ObjectRefs, flowchart/sequence ASTs, walkthroughs, xrefs, sessions.

Pure msgspec Structs, frozen: changes make new values (the ops layer does that). This package
is the only import point; see docs/model.md for what Nereid adds to the reference model.
"""

from nereid.model.diagram import (
    Ast,
    Diagram,
    DiagramKind,
    ast_kind,
    empty_ast,
    iter_blocks,
    object_exists,
    object_ids,
    ref_exists,
)
from nereid.model.file_problem import FileProblem
from nereid.model.flowchart import (
    DIRECTIONS,
    FlowchartAst,
    FlowEdge,
    FlowNode,
    FlowSubgraph,
    Head,
    LineKind,
    LinkSpec,
    derived_mermaid_id,
    effective_mermaid_id,
    format_connector,
    parse_connector,
)
from nereid.model.ids import (
    IdError,
    check_id,
    check_mermaid_ident,
    mermaid_ident_problem,
    node_ident_problem,
)
from nereid.model.refs import (
    CATEGORIES,
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_NOTE,
    FLOW_SUBGRAPH,
    SEQ_ACTIVATION,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
    ObjectRefError,
    parse_ref,
    ref_sort_key,
)
from nereid.model.sequence import (
    ARROW_KINDS,
    BLOCK_KINDS,
    CANONICAL_ARROW,
    PARTICIPANT_ROLES,
    SECTION_KINDS,
    MessageKind,
    SeqActivation,
    SeqAutonumber,
    SeqAutonumberChange,
    SeqBlock,
    SeqBox,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SeqSection,
    SequenceAst,
    arrow_kind,
)
from nereid.model.session import Session
from nereid.model.shapes import BRACKET_SHAPES, SHAPES, V11_ALIASES, canonical_shape
from nereid.model.state import StateAst, StateNode, StateTransition
from nereid.model.walkthrough import Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.model.xref import XRef, XRefStatus, xref_status, xref_status_in

__all__ = [
    "ARROW_KINDS", "BLOCK_KINDS", "BRACKET_SHAPES", "CANONICAL_ARROW", "CATEGORIES",
    "DIRECTIONS", "FLOW_EDGE", "FLOW_NODE", "FLOW_NOTE", "FLOW_SUBGRAPH", "PARTICIPANT_ROLES",
    "SECTION_KINDS", "SEQ_ACTIVATION", "SEQ_BLOCK", "SEQ_MESSAGE", "SEQ_NOTE", "SEQ_PARTICIPANT",
    "SEQ_SECTION", "SHAPES", "STATE_STATE", "STATE_TRANSITION", "V11_ALIASES", "Ast", "Diagram", "DiagramKind", "FileProblem", "FlowEdge",
    "FlowNode", "FlowSubgraph", "FlowchartAst", "Head", "IdError", "LineKind", "LinkSpec",
    "MessageKind", "ObjectRef", "ObjectRefError", "SeqActivation", "SeqAutonumber", "SeqAutonumberChange", "SeqBlock",
    "SeqBox", "SeqMessage", "SeqNote", "SeqParticipant", "SeqSection", "SequenceAst", "Session", "StateAst", "StateNode", "StateTransition",
    "Walkthrough", "WalkthroughEdge", "WalkthroughNode", "XRef", "XRefStatus", "arrow_kind",
    "ast_kind", "canonical_shape", "derived_mermaid_id", "effective_mermaid_id", "empty_ast", "check_id", "check_mermaid_ident", "format_connector",
    "iter_blocks", "mermaid_ident_problem", "node_ident_problem", "object_exists", "object_ids", "parse_connector",
    "parse_ref", "ref_exists", "ref_sort_key", "xref_status", "xref_status_in",
]  # fmt: skip
