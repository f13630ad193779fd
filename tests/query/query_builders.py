"""Small builders for query tests: diagrams from edge lists and message lists, and scopes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nereid.model import (
    Diagram,
    FlowchartAst,
    FlowEdge,
    FlowNode,
    FlowSubgraph,
    SeqActivation,
    SeqBlock,
    SeqMessage,
    SeqNote,
    SeqParticipant,
    SequenceAst,
    XRef,
    parse_ref,
)
from nereid.query import QueryScope


def flowchart(
    diagram_id: str,
    edges: Iterable[tuple[str, str]],
    *,
    nodes: Iterable[str] = (),
    labels: dict[str, str] | None = None,
    edge_ids: Sequence[str] | None = None,
    subgraphs: dict[str, FlowSubgraph] | None = None,
) -> Diagram:
    """A flowchart: nodes in order of first mention (`nodes` first), edges `e:0001`, …"""
    edge_list = list(edges)
    node_ids: dict[str, None] = dict.fromkeys(nodes)
    for source, target in edge_list:
        node_ids.setdefault(source)
        node_ids.setdefault(target)
    labels = labels or {}
    ids = (
        list(edge_ids)
        if edge_ids is not None
        else [f"e:{i:04d}" for i in range(1, len(edge_list) + 1)]
    )
    ast = FlowchartAst(
        nodes={node: FlowNode(label=labels.get(node, node.upper())) for node in node_ids},
        edges={
            edge_id: FlowEdge(from_node_id=source, to_node_id=target)
            for edge_id, (source, target) in zip(ids, edge_list, strict=True)
        },
        subgraphs=subgraphs or {},
    )
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=ast)


def message(
    message_id: str, source: str, target: str, order_key: int, text: str = ""
) -> SeqMessage:
    return SeqMessage(
        message_id=message_id,
        from_participant_id=source,
        to_participant_id=target,
        kind="sync",
        text=text or message_id,
        order_key=order_key,
    )


def sequence(
    diagram_id: str,
    messages: Iterable[SeqMessage],
    *,
    participants: Iterable[str] = (),
    blocks: tuple[SeqBlock, ...] = (),
    notes: tuple[SeqNote, ...] = (),
    activations: tuple[SeqActivation, ...] = (),
) -> Diagram:
    """A sequence diagram; participants are the given ones plus every message endpoint."""
    message_list = tuple(messages)
    names: dict[str, None] = dict.fromkeys(participants)
    for item in message_list:
        names.setdefault(item.from_participant_id)
        names.setdefault(item.to_participant_id)
    ast = SequenceAst(
        participants={p: SeqParticipant(mermaid_name=p.removeprefix("p:")) for p in names},
        messages=message_list,
        blocks=blocks,
        notes=notes,
        activations=activations,
    )
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="sequence", ast=ast)


def xref(source: str, target: str, kind: str = "rel", label: str | None = None) -> XRef:
    return XRef(from_ref=parse_ref(source), to_ref=parse_ref(target), kind=kind, label=label)


def scope(
    *diagrams: Diagram, xrefs: dict[str, XRef] | None = None, active: str | None = None
) -> QueryScope:
    """A scope over the diagrams; the first one is active unless `active` says otherwise."""
    chosen = active if active is not None else (diagrams[0].diagram_id if diagrams else None)
    return QueryScope(
        diagrams={d.diagram_id: d for d in diagrams},
        xrefs=xrefs or {},
        active_diagram_id=chosen,
    )


def node_ids(refs: Iterable[str]) -> list[str]:
    """The object ids of refs (tests compare ids for readability)."""
    return [ref.rsplit("/", 1)[1] for ref in refs]
