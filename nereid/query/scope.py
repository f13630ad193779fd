"""What a query reads (the diagrams, the xrefs, the active diagram) and how it picks a diagram.

Resolution follows mcp-tools.md §3.5 and the error catalogue of §3.6 exactly, so every tool
reports a bad, missing or wrong-kind diagram the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import msgspec

from nereid.model import (
    Diagram,
    DiagramKind,
    FlowchartAst,
    IdError,
    SequenceAst,
    Session,
    XRef,
    check_id,
)
from nereid.query.errors import invalid_params, not_found

__all__ = [
    "KIND_NAMES",
    "KindName",
    "QueryScope",
    "flowchart_of",
    "ref_prefix",
    "resolve_diagram",
    "sequence_of",
]

KindName = Literal["Flowchart", "Sequence", "State"]
"""How diagram kinds are spelled on the wire (mcp-tools.md §3.6)."""

#: Diagram kinds as the contract spells them in outputs and error data.
KIND_NAMES: Final[dict[DiagramKind, KindName]] = {
    "flowchart": "Flowchart",
    "sequence": "Sequence",
    "state": "State",
}


class QueryScope(msgspec.Struct, frozen=True, kw_only=True):
    """A read-only snapshot a query runs on: diagrams by id, xrefs by id, the active diagram.

    Callers that own only some of it (a diagram actor, the xref index) pass what they have;
    a query only looks at what its tool needs.
    """

    diagrams: Mapping[str, Diagram] = msgspec.field(default_factory=dict)
    xrefs: Mapping[str, XRef] = msgspec.field(default_factory=dict)
    active_diagram_id: str | None = None

    @classmethod
    def of_session(cls, session: Session) -> QueryScope:
        return cls(
            diagrams=session.diagrams,
            xrefs=session.xrefs,
            active_diagram_id=session.active_diagram_id,
        )


def resolve_diagram(scope: QueryScope, diagram_id: str | None) -> Diagram:
    """The diagram a tool with an optional `diagram_id` works on (§3.5: given, else active)."""
    if diagram_id is not None:
        try:
            check_id(diagram_id)
        except IdError as err:
            raise invalid_params(
                f"invalid diagram_id: {err.message}", {"diagram_id": diagram_id}
            ) from None
        chosen = diagram_id
    elif scope.active_diagram_id is not None:
        chosen = scope.active_diagram_id
    else:
        raise invalid_params("diagram_id is required (no active diagram)")
    diagram = scope.diagrams.get(chosen)
    if diagram is None:
        raise not_found("diagram not found", {"diagram_id": chosen})
    return diagram


def flowchart_of(diagram: Diagram) -> FlowchartAst:
    """The AST of a flowchart, or the spec's refusal for a sequence diagram."""
    if isinstance(diagram.ast, FlowchartAst):
        return diagram.ast
    raise invalid_params(
        "diagram is not a flowchart",
        {"diagram_id": diagram.diagram_id, "diagram_kind": KIND_NAMES[diagram.kind]},
    )


def sequence_of(diagram: Diagram) -> SequenceAst:
    """The AST of a sequence diagram, or the spec's refusal for a flowchart."""
    if isinstance(diagram.ast, SequenceAst):
        return diagram.ast
    raise invalid_params(
        "diagram is not a sequence diagram",
        {"diagram_id": diagram.diagram_id, "diagram_kind": KIND_NAMES[diagram.kind]},
    )


def ref_prefix(diagram_id: str, category: tuple[str, ...]) -> str:
    """The canonical ref text up to the object id: `d:<diagram>/<category>/`."""
    return f"d:{diagram_id}/{'/'.join(category)}/"
